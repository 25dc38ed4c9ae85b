//! `agentspec to-mcp`: a document's `ServerTool`s rewritten as `MCPTool`s reached through one
//! MCP server (`agentspec_types::mcp::ServerToolsToMcp`).

use std::io::Write;
use std::path::{Path, PathBuf};

use agentspec_types::mcp::{ConvertError, ServerToolsToMcp};
use agentspec_types::{
    ClientTransport, Format, SSETransport, StdioTransport, StreamableHTTPTransport, WriteOptions,
};

use crate::{Supplied, TextFormat, load, report, report_placeholders, write_files};

/// The arguments of `to-mcp`.
#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("transport").required(true).args(["stdio", "http", "sse"])
))]
pub(crate) struct Args {
    /// The document.
    file: PathBuf,
    /// The server is a command the runtime starts, speaking MCP on its stdin and stdout:
    /// the command, then its arguments (everything after it, so give it last).
    #[arg(
        long,
        value_name = "CMD",
        num_args = 1..,
        allow_hyphen_values = true
    )]
    stdio: Option<Vec<String>>,
    /// The server speaks streamable HTTP at URL (`http://127.0.0.1:8808/mcp`).
    #[arg(long, value_name = "URL")]
    http: Option<String>,
    /// The server speaks MCP over Server-Sent Events at URL.
    #[arg(long, value_name = "URL")]
    sse: Option<String>,
    /// Rewrite only the `ServerTool` named NAME (or whose id is NAME). Repeatable; default:
    /// every `ServerTool`.
    #[arg(long = "tool", value_name = "NAME")]
    tools: Vec<String>,
    /// The id of the transport component, which each `MCPTool` references.
    #[arg(long, value_name = "ID", default_value = "mcp_server")]
    transport_id: String,
    /// The name of the transport component (default: the command's file name, or the URL's
    /// host).
    #[arg(long, value_name = "NAME")]
    transport_name: Option<String>,
    /// Write the document to FILE (default: stdout).
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Output format (default: the output file's, else the input's).
    #[arg(long, value_enum)]
    to: Option<TextFormat>,
    /// A components file supplying components the document references but does not hold
    /// (its `ServerTool`s stay as they are).
    #[arg(long, value_name = "FILE")]
    components: Option<PathBuf>,
    /// Keep components of types nothing defines (plugin components) as read.
    #[arg(long)]
    keep_unknown: bool,
    /// Write the values of sensitive fields (default: `<id>.<field>` placeholders).
    #[arg(long)]
    include_secrets: bool,
}

impl Args {
    /// The transport the arguments name.
    fn transport(&self) -> ClientTransport {
        let id = self.transport_id.clone();
        let name = |default: &str| {
            self.transport_name
                .clone()
                .unwrap_or_else(|| default.to_owned())
        };
        match (&self.stdio, &self.http, &self.sse) {
            (Some(line), _, _) => {
                let (command, args) = line
                    .split_first()
                    .map_or(("", &[][..]), |(c, a)| (c.as_str(), a));
                let file_name = Path::new(command)
                    .file_name()
                    .map_or(command.into(), |f| f.to_string_lossy());
                StdioTransport::new(name(&file_name), command)
                    .with_id(id)
                    .with_args(args.iter().cloned())
                    .into()
            }
            (None, Some(url), _) => StreamableHTTPTransport::new(name(host(url)), url)
                .with_id(id)
                .into(),
            (None, None, sse) => {
                let url = sse.as_deref().unwrap_or_default();
                SSETransport::new(name(host(url)), url).with_id(id).into()
            }
        }
    }
}

/// The host of a URL (with its port), without a user and password: `127.0.0.1:8808`.
fn host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    match authority.rsplit_once('@') {
        Some((_, host)) => host,
        None if authority.is_empty() => "MCP server",
        None => authority,
    }
}

/// The options of `to-mcp` itself, which `--stdio` passes on to the command when they follow
/// it.
const OWN_OPTIONS: &[&str] = &[
    "-o",
    "--output",
    "--tool",
    "--to",
    "--transport-id",
    "--transport-name",
    "--components",
    "--keep-unknown",
    "--include-secrets",
    "--http",
    "--sse",
];

/// Runs `to-mcp`; the exit code.
pub(crate) fn run(args: Args, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    // `--stdio` takes the rest of the line: a note when that holds what looks like ours
    let passed_on = args.stdio.iter().flatten().skip(1).find(|a| {
        let option = a.split_once('=').map_or(a.as_str(), |(o, _)| o);
        OWN_OPTIONS.contains(&option)
    });
    if let Some(option) = passed_on {
        let _ = writeln!(
            err,
            "note: `{option}` follows `--stdio`, so it is an argument of the server's command; \
             to-mcp's own options go before `--stdio`"
        );
    }
    let mut supplied = match Supplied::load(args.components.as_ref(), None, err) {
        Ok(supplied) => supplied,
        Err(code) => return code,
    };
    supplied.keep_unknown = args.keep_unknown;
    let (doc, format) = match load(&args.file, &supplied, err) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let rewrite = args
        .tools
        .iter()
        .fold(ServerToolsToMcp::new(args.transport()), |r, name| {
            r.tool(name)
        });
    let converted = match rewrite.apply_with(&doc, &supplied.options()) {
        Ok(converted) => converted,
        Err(ConvertError::Load(e)) => return report(&args.file, &e, err),
        Err(e) => {
            let _ = writeln!(err, "error: {}: {e}", args.file.display());
            return 1;
        }
    };
    let names: Vec<String> = converted
        .tools
        .iter()
        .map(|t| format!("`{}`", t.name))
        .collect();
    let _ = writeln!(
        err,
        "{}: {} now reached over MCP through `{}`: {}",
        args.file.display(),
        match names.len() {
            1 => "1 ServerTool is an MCPTool".to_owned(),
            n => format!("{n} ServerTools are MCPTools"),
        },
        args.transport_id,
        names.join(", ")
    );
    let target = match (args.to, &args.output) {
        (Some(TextFormat::Json), _) => Format::Json,
        (Some(TextFormat::Yaml), _) => Format::Yaml,
        (None, Some(path)) => Format::from_path(path).unwrap_or(format),
        (None, None) => format,
    };
    let write = WriteOptions::new().include_secrets(args.include_secrets);
    let text = converted.document.to_string_with(target.into(), &write);
    // a placeholder needs a `$component_ref`: without one in the text, nothing was redacted
    if text.contains("$component_ref") {
        report_placeholders(&converted.document, &write, &args.file, err);
    }
    match &args.output {
        Some(path) => write_files(
            &[(path.as_path(), text.as_bytes())],
            &[args.file.as_path()],
            false,
            err,
        ),
        None => match out.write_all(text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(err, "error: writing the document: {e}");
                2
            }
        },
    }
}
