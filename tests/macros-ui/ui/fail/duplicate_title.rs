use agentspec_types::tool;

/// Adds.
#[tool]
fn add(#[arg(rename = "a")] b: i64, a: i64) -> i64 {
    a + b
}

fn main() {}
