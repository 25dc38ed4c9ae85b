use agentspec_types::tool;

/// Repeats a word.
#[tool]
fn repeat(
    /// The word.
    #[arg(description = "The word to repeat.")]
    word: String,
) -> String {
    word.repeat(2)
}

fn main() {}
