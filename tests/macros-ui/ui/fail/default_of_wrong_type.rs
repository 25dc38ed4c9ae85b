use agentspec_types::tool;

/// Repeats a word.
#[tool]
fn repeat(word: String, #[arg(default = "twice")] times: u32) -> String {
    word.repeat(times as usize)
}

fn main() {}
