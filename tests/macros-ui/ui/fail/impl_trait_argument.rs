use agentspec_types::tool;

/// Shows a value.
#[tool]
fn show(value: impl ToString) -> String {
    value.to_string()
}

fn main() {}
