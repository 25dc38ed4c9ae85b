//! The `agentspec` command.

/// See the `mimalloc` feature in Cargo.toml: the system allocator makes `check`'s cost per
/// node grow with the document.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    agentspec_cli::main()
}
