use agentspec_types::tool;

/// Forgets.
#[tool(output(title = "done"))]
fn reset() {}

fn main() {}
