use agentspec_types::tool;

/// Reads memory.
#[tool]
unsafe fn peek(address: u64) -> u64 {
    address
}

fn main() {}
