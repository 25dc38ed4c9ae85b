use agentspec_types::tool;

#[derive(serde::Serialize, agentspec_types::schemars::JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Parts {
    first: String,
}

/// Splits.
#[tool(outputs = fields, output(title = "parts"))]
fn split(name: String) -> Parts {
    Parts { first: name }
}

fn main() {}
