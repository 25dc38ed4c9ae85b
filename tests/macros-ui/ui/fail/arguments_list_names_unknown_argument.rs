use agentspec_types::tool;

/// Gets the weather.
///
/// # Arguments
/// * `cty` - The city.
#[tool]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
