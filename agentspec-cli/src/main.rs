//! The `agentspec` command.

fn main() -> std::process::ExitCode {
    agentspec_cli::main()
}
