use agentspec_types::tool;

/// Adds.
#[tool]
fn add(#[arg(rename = "first number")] a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
