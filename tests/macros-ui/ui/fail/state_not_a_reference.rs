use agentspec_types::tool;

struct Database;

/// Counts the rows of a table.
#[tool]
fn count_rows(#[state] db: Database, table: String) -> u64 {
    let _ = (db, table);
    0
}

fn main() {}
