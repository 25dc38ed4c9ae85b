/// Splits a full name.
///
/// # Arguments
/// * `name` - The full name, given name first.
#[tool(outputs = fields, requires_confirmation)]
fn split_name(#[arg(rename = "full_name")] name: String) -> Parts {
    Parts::of(&name)
}
