use agentspec_types::tool;

/// Adds.
#[tool(name = "add", name = "plus")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
