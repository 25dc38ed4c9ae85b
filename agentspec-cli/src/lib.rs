//! The `agentspec` command: check and format Open Agent Spec documents.
//!
//! A library with a tiny `main`, so that tests run it as a user does.
#![deny(missing_docs)]

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentspec_types::diagnostic::{Levels, LineIndex};
use agentspec_types::{
    Component, Components, Diagnostic, Document, Format, LoadError, LoadOptions, Values, Version,
    WriteOptions, locate,
};
use clap::{Parser, Subcommand, ValueEnum};

#[cfg(feature = "run")]
mod chat;
mod files;
#[cfg(feature = "run")]
mod serve;
#[cfg(feature = "mcp")]
mod to_mcp;

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
        /// Print problems only: no `ok:` line for a document without errors (the human
        /// format prints one per such document; the JSON format never does).
        #[arg(long, short = 'q')]
        quiet: bool,
        /// A components file (`{"$referenced_components": {...}}`) supplying components the
        /// documents reference but do not hold.
        #[arg(long, value_name = "FILE")]
        components: Option<PathBuf>,
        /// A values file (`{"<component id>.<field>": value}`) for the sensitive fields the
        /// documents hold as placeholders; any placeholder it misses is then an error.
        #[arg(long, value_name = "FILE")]
        values: Option<PathBuf>,
        /// Keep components of types nothing defines (plugin components) as read, instead of
        /// failing with `plugin-not-registered`.
        #[arg(long)]
        keep_unknown: bool,
        /// Report the warnings of CODE as errors (`warnings`: every warning). Repeatable. A
        /// code that does not exist is refused (exit 2), with the closest one.
        #[arg(long, value_name = "CODE")]
        deny: Vec<String>,
        /// Do not report the warnings of CODE (errors cannot be allowed). Repeatable.
        #[arg(long, value_name = "CODE")]
        allow: Vec<String>,
        /// Also connect to the MCP servers the documents' `MCPTool`s and `MCPToolBox`es name,
        /// and report every tool they lack and every input or output whose type does not
        /// convert (`mcp-*` codes). Opens connections; runs commands only with `--allow-stdio`.
        #[cfg(feature = "mcp")]
        #[arg(long)]
        mcp_servers: bool,
        /// With `--mcp-servers`: start the commands `StdioTransport`s name.
        #[cfg(feature = "mcp")]
        #[arg(long, requires = "mcp_servers")]
        allow_stdio: bool,
    },
    /// Load a document and write it to stdout in pyagentspec's layout (with `--write`, back
    /// to its file).
    Fmt {
        /// The document.
        file: PathBuf,
        /// Rewrite FILE in place instead of printing it: the new text is written in full to a
        /// temporary file beside it, then renamed over it, so a failed run leaves it as it was.
        #[arg(long, short = 'w')]
        write: bool,
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
        /// Write at this Agent Spec version (default: the document's); an error when the
        /// content needs a newer one.
        #[arg(long, value_name = "VERSION")]
        version: Option<String>,
        /// With `--version`: leave out the fields that version does not have, reporting each
        /// one dropped (`dropped-field`), instead of failing.
        #[arg(long, requires = "version")]
        drop_newer: bool,
        /// Keep components of types nothing defines (plugin components) as read, instead of
        /// failing with `plugin-not-registered`.
        #[arg(long)]
        keep_unknown: bool,
        /// Leave out the keys Agent Spec does not define (kept and written back by default,
        /// as read; pyagentspec ignores them), reporting each one dropped.
        #[arg(long)]
        drop_unknown: bool,
    },
    /// Disaggregate: move components to a components file, referenced from the main document.
    Split {
        /// The document.
        file: PathBuf,
        /// A component to move, by id; `ID=KEY` stores it under another id.
        #[arg(long = "component", value_name = "ID[=KEY]", required = true)]
        components: Vec<String>,
        /// Where to write the main document.
        #[arg(long, value_name = "FILE")]
        main: PathBuf,
        /// Where to write the components file.
        #[arg(long, value_name = "FILE")]
        components_out: PathBuf,
        /// Write the values of sensitive fields (default: `<id>.<field>` placeholders).
        #[arg(long)]
        include_secrets: bool,
    },
    /// Join a main document and its components file into one document, written to stdout.
    Join {
        /// The main document.
        main: PathBuf,
        /// The components file.
        #[arg(long, value_name = "FILE")]
        components: PathBuf,
        /// A values file for the sensitive fields held as placeholders.
        #[arg(long, value_name = "FILE")]
        values: Option<PathBuf>,
        /// Output format (default: the main document's).
        #[arg(long, value_enum)]
        to: Option<TextFormat>,
        /// Write the values of sensitive fields (default: `<id>.<field>` placeholders).
        #[arg(long)]
        include_secrets: bool,
    },
    /// Draw the root flow: nodes, control edges (labelled with branches), data edges (dashed),
    /// nested flows as subgraphs.
    Graph {
        /// The document (its root must be a Flow).
        file: PathBuf,
        /// Drawing language.
        #[arg(long, value_enum, default_value_t = GraphFormat::Mermaid)]
        format: GraphFormat,
        /// A components file supplying components the document references but does not hold.
        #[arg(long, value_name = "FILE")]
        components: Option<PathBuf>,
    },
    /// Print the JSON Schema (Draft 2020-12) that validates one version's documents: the
    /// published schema file of that version, repaired to accept the root
    /// `agentspec_version`, redacted sensitive fields and components files.
    Schema {
        /// The Agent Spec version (default: the newest known).
        #[arg(long)]
        version: Option<String>,
    },
    /// Rewrite a document's `ServerTool`s as `MCPTool`s reached through one MCP server.
    ///
    /// Each keeps its id, name, description, metadata, inputs, outputs and
    /// `requires_confirmation`; the transport component is written once and shared by them;
    /// the rest of the document is kept as it is. Written to stdout, or to `-o FILE`.
    #[cfg(feature = "mcp")]
    ToMcp(to_mcp::Args),
    /// Run a document (a Flow or an Agent) in the terminal: an interactive chat.
    ///
    /// The answer streams as it comes; tool calls and their results are shown; you confirm
    /// the tools that ask for it, and type the results of client tools and of ServerTools
    /// (they have no implementation here). Models are reached through their
    /// OpenAI-compatible endpoint (`--llm-url` sends every request to one). End the input
    /// (Ctrl-D) to stop; `--save FILE` keeps the session for `--resume FILE`.
    #[cfg(feature = "run")]
    Run(chat::Args),
    /// Run documents for another program: JSON lines on stdin and stdout.
    ///
    /// The program sends requests (`load`, `start`, `run`, `append_user_message`,
    /// `append_tool_result`, `confirm`, `save`, `resume`, …) and gets one reply to each; while
    /// a run is under way, the ServerTools it runs are called back with `tool.call`
    /// requests, several at once. The protocol is described in `agentspec_runtime::guide`.
    #[cfg(feature = "run")]
    Serve,
    /// Print the oldest Agent Spec version that can hold a document, and why.
    MinVersion {
        /// The document.
        file: PathBuf,
        /// A components file supplying components the document references but does not hold.
        #[arg(long, value_name = "FILE")]
        components: Option<PathBuf>,
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
enum GraphFormat {
    /// A Mermaid flowchart.
    Mermaid,
    /// A Graphviz digraph.
    Dot,
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
    let stderr = std::io::stderr();
    #[cfg(feature = "run")]
    if let Command::Serve = cli.command {
        return ExitCode::from(serve::serve(
            Box::new(std::io::BufReader::new(std::io::stdin())),
            Box::new(std::io::stdout()),
            &mut stderr.lock(),
        ));
    }
    let stdout = std::io::stdout();
    ExitCode::from(run(cli, &mut stdout.lock(), &mut stderr.lock()))
}

/// Runs `cli`, writing to `out` and `err`; returns the exit code.
pub fn run(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match cli.command {
        #[cfg(feature = "run")]
        Command::Run(args) => chat::run(args, &mut std::io::stdin().lock(), out, err),
        // stdout is shared by the threads of `serve`: `main` leaves it unlocked for it
        #[cfg(feature = "run")]
        Command::Serve => serve::serve(
            Box::new(std::io::BufReader::new(std::io::stdin())),
            Box::new(std::io::stdout()),
            err,
        ),
        Command::Check {
            files,
            format,
            quiet,
            components,
            values,
            keep_unknown,
            deny,
            allow,
            #[cfg(feature = "mcp")]
            mcp_servers,
            #[cfg(feature = "mcp")]
            allow_stdio,
        } => match Supplied::load(components.as_ref(), values.as_ref(), err) {
            Ok(mut supplied) => {
                supplied.keep_unknown = keep_unknown;
                #[cfg(feature = "mcp")]
                {
                    supplied.servers = mcp_servers
                        .then(|| agentspec_types::mcp::ServerCheck::new().allow_stdio(allow_stdio));
                }
                let levels = deny.into_iter().fold(Levels::new(), Levels::deny);
                supplied.levels = allow.into_iter().fold(levels, Levels::allow);
                let problems = supplied.levels.problems();
                if !problems.is_empty() {
                    for p in problems {
                        let _ = writeln!(err, "error: --deny/--allow: {p}");
                    }
                    return 2;
                }
                check(&files, (format, quiet), &supplied, out, err)
            }
            Err(code) => code,
        },
        Command::Fmt {
            file,
            write: in_place,
            to,
            components,
            values,
            include_secrets,
            version,
            drop_newer,
            keep_unknown,
            drop_unknown,
        } => match Supplied::load(components.as_ref(), values.as_ref(), err) {
            Ok(mut supplied) => {
                supplied.keep_unknown = keep_unknown;
                let write = WriteOptions::new()
                    .include_secrets(include_secrets)
                    .drop_unknown(drop_unknown);
                let target = (to, version.as_deref(), drop_newer);
                let wanted = to.map(|t| match t {
                    TextFormat::Json => Format::Json,
                    TextFormat::Yaml => Format::Yaml,
                });
                if in_place && wanted.is_some() && wanted != Format::from_path(&file) {
                    let _ = writeln!(
                        err,
                        "error: --write keeps {}'s format: --to would change it (write to stdout instead)",
                        file.display()
                    );
                    return 2;
                }
                if in_place {
                    let mut text = Vec::new();
                    match fmt(&file, target, &supplied, &write, &mut text, err) {
                        0 => write_files(&[(&file, &text)], &[], true, err),
                        code => code,
                    }
                } else {
                    fmt(&file, target, &supplied, &write, out, err)
                }
            }
            Err(code) => code,
        },
        Command::Split {
            file,
            components,
            main,
            components_out,
            include_secrets,
        } => split(
            &file,
            &components,
            &main,
            &components_out,
            &WriteOptions::new().include_secrets(include_secrets),
            err,
        ),
        Command::Schema { version } => schema(version.as_deref(), out, err),
        #[cfg(feature = "mcp")]
        Command::ToMcp(args) => to_mcp::run(args, out, err),
        Command::MinVersion { file, components } => {
            match Supplied::load(components.as_ref(), None, err) {
                Ok(supplied) => min_version(&file, &supplied, out, err),
                Err(code) => code,
            }
        }
        Command::Graph {
            file,
            format,
            components,
        } => match Supplied::load(components.as_ref(), None, err) {
            Ok(supplied) => graph(&file, format, &supplied, out, err),
            Err(code) => code,
        },
        Command::Join {
            main,
            components,
            values,
            to,
            include_secrets,
        } => match Supplied::load(Some(&components), values.as_ref(), err) {
            Ok(supplied) => join(
                &main,
                &supplied,
                to,
                &WriteOptions::new().include_secrets(include_secrets),
                out,
                err,
            ),
            Err(code) => code,
        },
    }
}

fn graph(
    file: &PathBuf,
    format: GraphFormat,
    supplied: &Supplied,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let (doc, _) = match load(file, supplied, err) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let doc = if supplied.components.is_empty() {
        doc
    } else {
        match doc.join(&supplied.components) {
            Ok(joined) => joined,
            Err(e) => return report(file, &e, err),
        }
    };
    let Some(graph) = doc.graph() else {
        let _ = writeln!(
            err,
            "error: {}: the root component is not a Flow",
            file.display()
        );
        return 1;
    };
    let drawing = match format {
        GraphFormat::Mermaid => graph.to_mermaid(),
        GraphFormat::Dot => graph.to_dot(),
    };
    if out.write_all(drawing.as_bytes()).is_err() {
        return 2;
    }
    0
}

fn schema(version: Option<&str>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let known = <Component as agentspec_types::ComponentSet>::VERSIONS;
    let wanted = match version {
        None => known.last().copied(),
        Some(text) => Version::parse(text),
    };
    let Some(text) = wanted.and_then(agentspec_types::version::json_schema) else {
        let list = known
            .iter()
            .map(Version::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(
            err,
            "error: no schema for Agent Spec version `{}` (known: {list})",
            version.unwrap_or_default()
        );
        return 2;
    };
    match writeln!(out, "{text}") {
        Ok(()) => 0,
        Err(_) => 2,
    }
}

fn min_version(
    file: &PathBuf,
    supplied: &Supplied,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let (doc, _) = match load(file, supplied, err) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let line = match doc.min_version() {
        (version, None) => {
            format!("{version} (the oldest known version: nothing needs a newer one)")
        }
        (version, Some(need)) => {
            let at = need
                .pointer
                .map(|p| format!(" at {}", if p.is_empty() { "/" } else { &p }))
                .unwrap_or_default();
            if need.field {
                format!("{version} because `{}` is set{at}", need.what)
            } else {
                format!("{version} because it holds a `{}`{at}", need.what)
            }
        }
    };
    match writeln!(out, "{line}") {
        Ok(()) => 0,
        Err(_) => 2,
    }
}

/// Loads a document, reporting its problems (exit code on failure).
fn load(
    path: &PathBuf,
    supplied: &Supplied,
    err: &mut dyn Write,
) -> Result<(Document, Format), u8> {
    let loaded = read(path).map_err(|e| unreadable(path, &e, err))?;
    let doc = Document::from_str_with(&loaded.text, loaded.format, &supplied.options())
        .map_err(|e| report(path, &e, err))?;
    for d in doc.warnings() {
        let _ = writeln!(err, "{}", human(&path.display().to_string(), d));
    }
    Ok((doc, loaded.format))
}

fn split(
    file: &PathBuf,
    parts: &[String],
    main: &PathBuf,
    components_out: &PathBuf,
    write: &WriteOptions,
    err: &mut dyn Write,
) -> u8 {
    let none = Supplied {
        components: Components::new(),
        values: None,
        keep_unknown: false,
        levels: Levels::new(),
        #[cfg(feature = "mcp")]
        servers: None,
    };
    let (doc, format) = match load(file, &none, err) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let parts: Vec<(&str, Option<&str>)> = parts
        .iter()
        .map(|p| match p.split_once('=') {
            Some((id, key)) => (id, Some(key)),
            None => (p.as_str(), None),
        })
        .collect();
    let (main_doc, components) = match doc.split(&parts) {
        Ok(split) => split,
        Err(e) => return report(file, &e, err),
    };
    let outputs = [
        (
            main,
            main_doc.to_string_with(Format::from_path(main).unwrap_or(format).into(), write),
        ),
        (
            components_out,
            components.to_string_with(
                Format::from_path(components_out).unwrap_or(format).into(),
                write,
            ),
        ),
    ];
    let outputs: Vec<(&Path, &[u8])> = outputs
        .iter()
        .map(|(path, text)| (path.as_path(), text.as_bytes()))
        .collect();
    write_files(&outputs, &[file], false, err)
}

/// Writes every output safely (see [`files`]): nothing is written when two outputs name one
/// file, or an output names an input (unless `in_place`), or any output cannot be written.
fn write_files(
    outputs: &[(&Path, &[u8])],
    inputs: &[&Path],
    in_place: bool,
    err: &mut dyn Write,
) -> u8 {
    let paths: Vec<&Path> = outputs.iter().map(|(p, _)| *p).collect();
    if let Err(message) = files::refuse_clashes(&paths, inputs, in_place) {
        let _ = writeln!(err, "error: {message}");
        return 2;
    }
    match files::write_all(outputs) {
        Ok(()) => 0,
        Err((path, e)) => {
            let _ = writeln!(
                err,
                "error: {}: cannot write: {e} (no file was changed)",
                path.display()
            );
            2
        }
    }
}

fn join(
    main: &PathBuf,
    supplied: &Supplied,
    to: Option<TextFormat>,
    write: &WriteOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let (doc, format) = match load(main, supplied, err) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let joined = match doc.join(&supplied.components) {
        Ok(j) => j,
        Err(e) => return report(main, &e, err),
    };
    let target = match to {
        Some(TextFormat::Json) => Format::Json,
        Some(TextFormat::Yaml) => Format::Yaml,
        None => format,
    };
    match out.write_all(joined.to_string_with(target.into(), write).as_bytes()) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(err, "error: writing the document: {e}");
            2
        }
    }
}

struct Loaded {
    text: String,
    format: Format,
}

/// Reads a document's text; its format from the extension, else from its first character.
fn read(path: &PathBuf) -> std::io::Result<Loaded> {
    let text = std::fs::read_to_string(path)?;
    let format = Format::from_path(path).unwrap_or_else(|| Format::sniff(&text));
    Ok(Loaded { text, format })
}

/// Reports a file that cannot be read; the exit code for it.
fn unreadable(path: &std::path::Path, e: &std::io::Error, err: &mut dyn Write) -> u8 {
    let _ = writeln!(err, "error: {}: cannot read: {e}", path.display());
    2
}

/// What `--components` and `--values` supply.
struct Supplied {
    components: Components,
    values: Option<Values>,
    /// `--keep-unknown`.
    keep_unknown: bool,
    /// `--deny` and `--allow`.
    levels: Levels,
    /// `--mcp-servers` (with `--allow-stdio`).
    #[cfg(feature = "mcp")]
    servers: Option<agentspec_types::mcp::ServerCheck>,
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
        Ok(Supplied {
            components,
            values,
            keep_unknown: false,
            levels: Levels::new(),
            #[cfg(feature = "mcp")]
            servers: None,
        })
    }

    fn options(&self) -> LoadOptions<'_> {
        let options = LoadOptions::new()
            .components(&self.components)
            .keep_unknown(self.keep_unknown)
            .levels(&self.levels);
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

/// `check`: each document's problems, with the source line of each in the human format,
/// then (in that format, unless `quiet`) an `ok:` line for a document without errors.
fn check(
    files: &[PathBuf],
    (format, quiet): (OutputFormat, bool),
    supplied: &Supplied,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let mut code = 0;
    let mut listed = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let loaded = match read(path) {
            Ok(l) => l,
            Err(e) => {
                code = unreadable(path, &e, err);
                continue;
            }
        };
        let (diagnostics, summary) =
            match Document::from_str_with(&loaded.text, loaded.format, &supplied.options()) {
                Ok(doc) => {
                    let mut found = doc.validate_with(&supplied.levels);
                    #[cfg_attr(
                        not(feature = "mcp"),
                        allow(unused_mut, reason = "`--mcp-servers` adds to it")
                    )]
                    let mut summary = summary_of(&doc);
                    #[cfg(feature = "mcp")]
                    if let Some(servers) = &supplied.servers {
                        let (diagnostics, reached) = check_servers(servers, &doc, path, err);
                        found.extend(diagnostics);
                        summary.push_str(&format!(", {}", counted(reached, "MCP server")));
                    }
                    locate(&mut found, &loaded.text, loaded.format);
                    let mut all = doc.warnings().to_vec();
                    all.extend(found);
                    all.sort_by_key(|d| (d.line, d.column));
                    if i + 1 == files.len() {
                        // The process ends after the last file: its memory goes back to the
                        // system at once, without freeing the document value by value (a
                        // tenth of `check`'s time on a large flow).
                        std::mem::forget(doc);
                    }
                    (all, Some(summary))
                }
                Err(e) => (e.diagnostics, None),
            };
        let failed = diagnostics.iter().any(Diagnostic::is_error);
        if failed && code == 0 {
            code = 1;
        }
        let file = path.display().to_string();
        if let OutputFormat::Json = format {
            listed.extend(diagnostics.iter().map(|d| json(&file, d)));
            continue;
        }
        // the source excerpts are shown only in the human format
        let mut excerpts =
            (!diagnostics.is_empty()).then(|| Excerpts::new(LineIndex::new(&loaded.text)));
        let mut written = diagnostics.iter().try_for_each(|d| {
            writeln!(out, "{}", human(&file, d))?;
            let shown = excerpts.as_mut().map(|e| e.excerpt(d)).unwrap_or_default();
            out.write_all(shown.as_bytes())
        });
        if let (Some(summary), false, false) = (summary, failed, quiet) {
            let warnings = counted(diagnostics.len(), "warning");
            written = written.and_then(|()| writeln!(out, "ok: {file} ({summary}, {warnings})"));
        }
        if written.is_err() {
            return 2;
        }
    }
    if let OutputFormat::Json = format
        && writeln!(out, "{}", serde_json::Value::Array(listed)).is_err()
    {
        return 2;
    }
    code
}

/// What `check` says of a document that loaded: its root and its size, as
/// `Agent "Ops assistant", 12 components, agentspec_version 26.3.1`.
fn summary_of(doc: &Document) -> String {
    use agentspec_types::ComponentInfo;
    let root = doc.root();
    format!(
        "{} {:?}, {}, agentspec_version {}",
        root.component_type(),
        root.name(),
        counted(doc.components().len(), "component"),
        doc.agentspec_version()
    )
}

/// `1 warning`, `2 warnings`.
fn counted(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `--mcp-servers`: the document's MCP tools against their servers, and how many servers it
/// names; each server reached is reported on `err` with the tools it offers.
#[cfg(feature = "mcp")]
fn check_servers(
    check: &agentspec_types::mcp::ServerCheck,
    doc: &Document,
    path: &std::path::Path,
    err: &mut dyn Write,
) -> (Vec<Diagnostic>, usize) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            let d = Diagnostic::error(
                "mcp-server-unreachable",
                format!("cannot start the runtime that reaches MCP servers: {e}"),
                "",
                None,
            );
            return (vec![d], 0);
        }
    };
    let report = runtime.block_on(check.check(doc));
    // a server process that outlived its check is killed by its handle's drop, which needs
    // the runtime a moment longer
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    for server in &report.servers {
        let _ = match &server.tools {
            Some(tools) => writeln!(
                err,
                "{}: MCP server `{}` ({}): {} tool(s): {}",
                path.display(),
                server.transport,
                server.endpoint,
                tools.len(),
                tools.join(", ")
            ),
            None => writeln!(
                err,
                "{}: MCP server `{}` ({}): not reached",
                path.display(),
                server.transport,
                server.endpoint
            ),
        };
    }
    (report.diagnostics, report.servers.len())
}

/// The source line of a diagnostic with a marker under its column, as rustc shows it.
struct Excerpts<'a> {
    index: LineIndex<'a>,
    /// The lines shown so far, masked, as characters: many diagnostics on one long line (a
    /// minified document) mask and count it once, not once each.
    lines: HashMap<u32, Vec<char>>,
}

impl<'a> Excerpts<'a> {
    fn new(index: LineIndex<'a>) -> Self {
        Excerpts {
            index,
            lines: HashMap::new(),
        }
    }

    fn excerpt(&mut self, d: &Diagnostic) -> String {
        let (Some(line), Some(column)) = (d.line, d.column) else {
            return String::new();
        };
        let index = &self.index;
        let chars = self
            .lines
            .entry(line)
            .or_insert_with(|| mask_secrets(index.line_text(line)).chars().collect());
        let (text, marker) = shown_line(chars, column as usize);
        let number = line.to_string();
        let pad = " ".repeat(number.len());
        let marker = format!("{}^", " ".repeat(marker));
        format!("{pad} |\n{number} | {text}\n{pad} | {marker}\n")
    }
}

/// How many characters of a source line an excerpt shows on each side of the marker.
const EXCERPT_REACH: usize = 60;

/// A source line (masked, as characters) as an excerpt shows it, and the marker's column
/// (0-based) in it, in time proportional to what is shown:
/// - at most [`EXCERPT_REACH`] characters each side of `column` (1-based), with `…` where cut;
/// - the value of every sensitive field masked (`"api_key": "***"`), wherever it is on the line;
/// - tabs as spaces, other control characters escaped (`\u{1b}`), so nothing reaches the
///   terminal raw.
fn shown_line(chars: &[char], column: usize) -> (String, usize) {
    let at = column.saturating_sub(1).min(chars.len());
    let start = at.saturating_sub(EXCERPT_REACH);
    let end = (at + EXCERPT_REACH).min(chars.len());
    let mut shown = String::new();
    let mut marker = None;
    if start > 0 {
        shown.push('…');
    }
    for (i, c) in chars[start..end].iter().enumerate() {
        if start + i == at {
            marker = Some(shown.chars().count());
        }
        match c {
            '\t' => shown.push(' '),
            c if c.is_control() => shown.extend(c.escape_unicode()),
            c => shown.push(*c),
        }
    }
    let marker = marker.unwrap_or_else(|| shown.chars().count());
    if end < chars.len() {
        shown.push('…');
    }
    (shown, marker)
}

/// The line with the value of every sensitive field (any key that is a sensitive field of
/// some Agent Spec component, quoted or not, in JSON or YAML, block or flow style) replaced
/// by as many `*`: columns stay where they were.
fn mask_secrets(line: &str) -> String {
    use agentspec_types::ComponentSet;
    let bytes = line.as_bytes();
    let mut masked = bytes.to_vec();
    let keys = Component::SECRET_FIELDS.iter().flat_map(|f| f.iter());
    for key in keys.map(|(k, _)| *k) {
        let mut from = 0;
        while let Some(found) = line[from..].find(key) {
            let key_start = from + found;
            from = key_start + key.len();
            // a whole key, not the end of a longer name
            if key_start > 0 && !b"\"' \t{,-".contains(&bytes[key_start - 1]) {
                continue;
            }
            let mut i = from;
            if matches!(bytes.get(i), Some(b'"' | b'\'')) {
                i += 1;
            }
            while matches!(bytes.get(i), Some(b' ' | b'\t')) {
                i += 1;
            }
            if bytes.get(i) != Some(&b':') {
                continue;
            }
            i += 1;
            while matches!(bytes.get(i), Some(b' ' | b'\t')) {
                i += 1;
            }
            // the value: quoted, or plain up to a delimiter; a placeholder object is no secret
            let (start, end) = match bytes.get(i) {
                Some(&quote @ (b'"' | b'\'')) => {
                    let mut j = i + 1;
                    while j < bytes.len() && bytes[j] != quote {
                        j += if bytes[j] == b'\\' { 2 } else { 1 };
                    }
                    (i + 1, j.min(bytes.len()))
                }
                Some(b'{' | b'[') | None => continue,
                Some(_) => {
                    let mut j = i;
                    while j < bytes.len() && !b",}]#".contains(&bytes[j]) {
                        j += 1;
                    }
                    (i, j)
                }
            };
            for b in &mut masked[start..end] {
                // one `*` per character: continuation bytes of a multi-byte one are dropped
                *b = if *b & 0xC0 == 0x80 { 0 } else { b'*' };
            }
            from = from.max(end);
        }
    }
    masked.retain(|b| *b != 0);
    String::from_utf8(masked).unwrap_or_default()
}

/// `FILE:LINE:COL: error[CODE]: message (at /pointer)`; `FILE: error[CODE]: …` when the
/// diagnostic has no position (an unreadable file).
fn human(file: &str, d: &Diagnostic) -> String {
    format!("{file}:{}{d}", if d.line.is_some() { "" } else { " " })
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

/// What pyagentspec writes for a document that is not in its layout already
/// (`Document::as_pyagentspec_writes`): a component used at one place written inline, one
/// used at several under the `$referenced_components` of the lowest component holding all its
/// uses, keyed by its id, and the inputs, outputs and branches it leaves out inferred; in
/// pyagentspec's layout without inference when inlining its shared components is too large;
/// as it is when even that fails (its own layout, which loses nothing). A warning says which.
fn relaid(doc: Document, path: &Path, err: &mut dyn Write) -> Document {
    let relaid = doc.as_pyagentspec_writes().or_else(|e| {
        let _ = writeln!(
            err,
            "{}: warning: inputs, outputs and branches it leaves out are not inferred: {}",
            path.display(),
            e.diagnostics.first().map_or("", |d| d.message.as_str())
        );
        doc.normalized()
    });
    match relaid {
        // documents compare as content, maps of components whatever their order
        Ok(relaid) if relaid != doc => relaid,
        Ok(_) => doc,
        Err(e) => {
            let _ = writeln!(
                err,
                "{}: warning: written in its own layout, not pyagentspec's: {}",
                path.display(),
                e.diagnostics.first().map_or("", |d| d.message.as_str())
            );
            doc
        }
    }
}

fn fmt(
    path: &PathBuf,
    (to, version, drop_newer): (Option<TextFormat>, Option<&str>, bool),
    supplied: &Supplied,
    write: &WriteOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let loaded = match read(path) {
        Ok(l) => l,
        Err(e) => return unreadable(path, &e, err),
    };
    // nothing is validated, and the text is dropped once loaded (unless `--version` needs it
    // to locate what moving the document finds): what is held while writing is the document
    let options = supplied.options().validate_at_load(false);
    let mut doc = match Document::from_str_with(&loaded.text, loaded.format, &options) {
        Ok(doc) => doc,
        Err(e) => return report(path, &e, err),
    };
    let loaded = Loaded {
        text: if version.is_some() {
            loaded.text
        } else {
            String::new()
        },
        format: loaded.format,
    };
    for d in doc.warnings() {
        let _ = writeln!(err, "{}", human(&path.display().to_string(), d));
    }
    if let Some(version) = version {
        let Some(version) = Version::parse(version) else {
            let _ = writeln!(
                err,
                "error: --version {version}: not a version (MAJOR.MINOR.PATCH)"
            );
            return 2;
        };
        let moved = if drop_newer {
            doc.with_version_dropping(version)
        } else {
            doc.with_version(version).map(|doc| (doc, Vec::new()))
        };
        doc = match moved {
            Ok((doc, mut dropped)) => {
                locate(&mut dropped, &loaded.text, loaded.format);
                for d in &dropped {
                    let _ = writeln!(err, "{}", human(&path.display().to_string(), d));
                }
                doc
            }
            Err(mut e) => {
                // The document is written in the source's layout, so its pointers are there too.
                locate(&mut e.diagnostics, &loaded.text, loaded.format);
                return report(path, &e, err);
            }
        };
    }
    let target = match to {
        Some(TextFormat::Json) => Format::Json,
        Some(TextFormat::Yaml) => Format::Yaml,
        None => loaded.format,
    };
    // pyagentspec writes what it reads in its own layout: laid out again unless the document
    // is in it already (up to the order of `$referenced_components`, which pyagentspec does
    // not fix) or takes its components from a components file (they stay there). Whether it
    // is, and which secrets become placeholders, is found while writing it: what
    // pyagentspec wrote takes one walk over the document.
    let mut written = doc.write_checked(target.into(), write);
    if supplied.components.is_empty() && !written.is_as_pyagentspec_writes {
        doc = relaid(doc, path, err);
        written = doc.write_checked(target.into(), write);
    }
    if write.drops_unknown() {
        for pointer in doc.unknown_keys() {
            let _ = writeln!(
                err,
                "{}: dropped the key Agent Spec does not define at {pointer}",
                path.display()
            );
        }
    }
    report_redacted(&written.redacted_secrets, path, err);
    match out.write_all(written.text.as_bytes()) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(err, "error: writing the document: {e}");
            2
        }
    }
}

/// Reports each secret that writing the document with `write` leaves out, as a placeholder.
fn report_placeholders(doc: &Document, write: &WriteOptions, path: &Path, err: &mut dyn Write) {
    report_redacted(&doc.redacted_secrets(write), path, err);
}

/// Reports the secrets at `pointers`, written as placeholders.
fn report_redacted(pointers: &[String], path: &Path, err: &mut dyn Write) {
    for pointer in pointers {
        let _ = writeln!(
            err,
            "{}: wrote the secret at {pointer} as a placeholder (--include-secrets writes it)",
            path.display()
        );
    }
}
