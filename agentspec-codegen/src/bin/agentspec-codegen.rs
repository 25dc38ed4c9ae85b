//! `agentspec-codegen [SCHEMA...] [-o FILE] [--runtime PATH]`: prints the Rust types for the
//! given Agent Spec schema files (default: the bundled published schemas).

use std::path::PathBuf;
use std::process::ExitCode;

use agentspec_codegen::{Generator, Settings};
use clap::Parser;

/// Generate Rust types from Agent Spec JSON Schema files.
#[derive(Debug, Parser)]
#[command(
    name = "agentspec-codegen",
    version,
    args_conflicts_with_subcommands = true
)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// Schema files. The newest gives the types, all of them the version of each field.
    /// Default: the published schemas bundled in this binary.
    schemas: Vec<PathBuf>,
    /// Write to this file instead of stdout (only if the content changed).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// How the generated code names the runtime crate.
    #[arg(long, default_value = "::agentspec_types")]
    runtime: String,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Report what changes from one schema file to another: component types and fields added
    /// and removed, types, defaults and requiredness changed, and which changes break
    /// documents. Exits 1 when a change is breaking.
    Diff {
        /// The older schema file.
        old: PathBuf,
        /// The newer schema file.
        new: PathBuf,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(Command::Diff { old, new }) = &args.command {
        return diff(old, new);
    }
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn diff(old: &PathBuf, new: &PathBuf) -> ExitCode {
    let model = |path: &PathBuf| {
        Generator::new(Settings::new().schema_file(path))
            .model()
            .map_err(|e| e.to_string())
    };
    let (old, new) = match (model(old), model(new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let changes = agentspec_codegen::diff::diff(&old, &new);
    for change in &changes {
        println!("{change}");
    }
    let breaking = changes.iter().filter(|c| c.breaking).count();
    println!("{} changes, {breaking} breaking", changes.len());
    ExitCode::from(u8::from(breaking > 0))
}

fn run(args: Args) -> Result<(), String> {
    let runtime: proc_macro2::TokenStream = args
        .runtime
        .parse()
        .map_err(|e| format!("--runtime {}: {e}", args.runtime))?;
    let mut settings = Settings::new().runtime_path(runtime);
    if args.schemas.is_empty() {
        settings = settings.bundled_schemas();
    }
    for path in &args.schemas {
        settings = settings.schema_file(path);
    }
    let tokens = Generator::new(settings)
        .generate()
        .map_err(|e| e.to_string())?;
    let code = agentspec_codegen::format(&tokens).map_err(|e| e.to_string())?;
    match args.output {
        Some(path) => {
            agentspec_codegen::build::write_if_changed(&path, &code).map_err(|e| e.to_string())
        }
        None => {
            use std::io::Write as _;
            std::io::stdout()
                .write_all(code.as_bytes())
                .map_err(|e| format!("writing to stdout: {e}"))
        }
    }
}
