use agentspec_types::tool;

/// Not a function.
#[tool]
struct Weather;

fn main() {}
