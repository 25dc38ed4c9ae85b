use agentspec_types::tool;

struct Database;
struct Cache;

/// Counts the rows of a table.
#[tool]
fn count_rows(#[state] db: &Database, #[state] cache: &Cache, table: String) -> u64 {
    let _ = (db, cache, table);
    0
}

fn main() {}
