//! The `agentspec` command: check and format Open Agent Spec documents.
//!
//! A library with a tiny `main`, so that tests run it as a user does.
#![deny(missing_docs)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use agentspec_types::{
    Components, Diagnostic, Document, Format, LoadError, LoadOptions, Values, WriteOptions,
};
use clap::{Parser, Subcommand, ValueEnum};

/// Check and format Open Agent Spec documents (JSON or YAML).
#[derive(Debug, Parser)]
#[command(name = "agentspec", version)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load documents and report every problem. Exit 0 when all load (warnings allowed),
    /// 1 when any has an error, 2 for usage or I/O problems.
    Check {
        /// Documents to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
        format: OutputFormat,
        /// A components file (`{"$referenced_components": {...}}`) supplying components the
        /// documents reference but do not hold.
        #[arg(long, value_name = "FILE")]
        components: Option<PathBuf>,
        /// A values file (`{"<component id>.<field>": value}`) for the sensitive fields the
        /// documents hold as placeholders; any placeholder it misses is then an error.
        #[arg(long, value_name = "FILE")]
        values: Option<PathBuf>,
    },
    /// Load a document and write it to stdout in pyagentspec's layout.
    Fmt {
        /// The document.
        file: PathBuf,
        /// Output format (default: the input's).
        #[arg(long, value_enum)]
        to: Option<TextFormat>,
        /// A components file supplying components the document references but does not hold.
        #[arg(long, value_name = "FILE")]
        components: Option<PathBuf>,
        /// A values file for the sensitive fields the document holds as placeholders.
        #[arg(long, value_name = "FILE")]
        values: Option<PathBuf>,
        /// Write the values of sensitive fields (default: `<id>.<field>` placeholders).
        #[arg(long)]
        include_secrets: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum OutputFormat {
    /// `FILE:LINE:COL: error[CODE]: message (at /pointer)`.
    Human,
    /// A JSON list of `{file, severity, code, message, pointer, line, column}`.
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TextFormat {
    Json,
    Yaml,
}

/// Runs the command with the process arguments.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    ExitCode::from(run(cli, &mut stdout.lock(), &mut stderr.lock()))
}

/// Runs `cli`, writing to `out` and `err`; returns the exit code.
pub fn run(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match cli.command {
        Command::Check {
            files,
            format,
            components,
            values,
        } => match Supplied::load(components.as_ref(), values.as_ref(), err) {
            Ok(supplied) => check(&files, format, &supplied, out, err),
            Err(code) => code,
        },
        Command::Fmt {
            file,
            to,
            components,
            values,
            include_secrets,
        } => match Supplied::load(components.as_ref(), values.as_ref(), err) {
            Ok(supplied) => fmt(
                &file,
                to,
                &supplied,
                &WriteOptions::new().include_secrets(include_secrets),
                out,
                err,
            ),
            Err(code) => code,
        },
    }
}

struct Loaded {
    text: String,
    format: Format,
}

fn read(path: &PathBuf) -> Result<Loaded, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let format = Format::from_path(path).unwrap_or_else(|| Format::sniff(&text));
    Ok(Loaded { text, format })
}

/// What `--components` and `--values` supply.
struct Supplied {
    components: Components,
    values: Option<Values>,
}

impl Supplied {
    /// Loads the files; their problems are reported like a document's (exit 1), an
    /// unreadable file is an I/O problem (exit 2).
    fn load(
        components: Option<&PathBuf>,
        values: Option<&PathBuf>,
        err: &mut dyn Write,
    ) -> Result<Self, u8> {
        let components = match components {
            Some(path) => Components::from_path(path).map_err(|e| report(path, &e, err))?,
            None => Components::new(),
        };
        let values = match values {
            Some(path) => Some(Values::from_path(path).map_err(|e| report(path, &e, err))?),
            None => None,
        };
        Ok(Supplied { components, values })
    }

    fn options(&self) -> LoadOptions<'_> {
        let options = LoadOptions::new().components(&self.components);
        match &self.values {
            Some(values) => options.values(values),
            None => options,
        }
    }
}

/// Prints the diagnostics of a file that could not be loaded; the exit code for it.
fn report(path: &std::path::Path, e: &LoadError, err: &mut dyn Write) -> u8 {
    for d in &e.diagnostics {
        let _ = writeln!(err, "{}", human(&path.display().to_string(), d));
    }
    if e.diagnostics.iter().any(|d| d.code == "io-error") {
        2
    } else {
        1
    }
}

fn check(
    files: &[PathBuf],
    format: OutputFormat,
    supplied: &Supplied,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let mut code = 0;
    let mut all = Vec::new();
    for path in files {
        let loaded = match read(path) {
            Ok(l) => l,
            Err(message) => {
                let _ = writeln!(err, "error: {message}");
                code = 2;
                continue;
            }
        };
        let diagnostics =
            match Document::from_str_with(&loaded.text, loaded.format, &supplied.options()) {
                Ok(doc) => doc.warnings().to_vec(),
                Err(e) => e.diagnostics,
            };
        if diagnostics.iter().any(Diagnostic::is_error) && code == 0 {
            code = 1;
        }
        for d in diagnostics {
            all.push((path.display().to_string(), d));
        }
    }
    let written = match format {
        OutputFormat::Human => all
            .iter()
            .try_for_each(|(file, d)| writeln!(out, "{}", human(file, d))),
        OutputFormat::Json => {
            let list: Vec<serde_json::Value> = all.iter().map(|(file, d)| json(file, d)).collect();
            writeln!(out, "{}", serde_json::Value::Array(list))
        }
    };
    if written.is_err() {
        return 2;
    }
    code
}

/// `FILE:LINE:COL: error[CODE]: message (at /pointer)`.
fn human(file: &str, d: &Diagnostic) -> String {
    let pointer = if d.pointer.is_empty() {
        "/"
    } else {
        &d.pointer
    };
    format!(
        "{file}:{}:{}: {}[{}]: {} (at {pointer})",
        d.line,
        d.column,
        d.severity.as_str(),
        d.code,
        d.message
    )
}

fn json(file: &str, d: &Diagnostic) -> serde_json::Value {
    serde_json::json!({
        "file": file,
        "severity": d.severity.as_str(),
        "code": d.code,
        "message": d.message,
        "pointer": d.pointer,
        "line": d.line,
        "column": d.column,
    })
}

fn fmt(
    path: &PathBuf,
    to: Option<TextFormat>,
    supplied: &Supplied,
    write: &WriteOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let loaded = match read(path) {
        Ok(l) => l,
        Err(message) => {
            let _ = writeln!(err, "error: {message}");
            return 2;
        }
    };
    let doc = match Document::from_str_with(&loaded.text, loaded.format, &supplied.options()) {
        Ok(doc) => doc,
        Err(e) => return report(path, &e, err),
    };
    for d in doc.warnings() {
        let _ = writeln!(err, "{}", human(&path.display().to_string(), d));
    }
    let target = match to {
        Some(TextFormat::Json) => Format::Json,
        Some(TextFormat::Yaml) => Format::Yaml,
        None => loaded.format,
    };
    match out.write_all(doc.to_string_with(target.into(), write).as_bytes()) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(err, "error: writing the document: {e}");
            2
        }
    }
}
