//! `agentspec run DOC`: runs a document in the terminal, with agentspec-runtime and its
//! OpenAI-compatible client. An interactive chat: the answer streams as it comes, tool
//! calls and their results are shown, confirmations are asked, and the user answers the
//! client tools and the ServerTools that have no implementation here.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use agentspec_runtime::openai::OpenAiClient;
use agentspec_runtime::{
    Event, HostFuture, Message, Runtime, SavedSession, Session, Status, ToolRequest,
};
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

use crate::{Supplied, human, load};

/// `agentspec run`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The document: a Flow or an Agent.
    file: PathBuf,
    /// An input of the flow or agent, `NAME=VALUE`; VALUE is read as JSON when it is JSON,
    /// else as text. Repeatable.
    #[arg(long = "input", value_name = "NAME=VALUE", conflicts_with = "resume")]
    inputs: Vec<String>,
    /// Send every model request to this OpenAI-compatible endpoint instead of the one its
    /// config names (`host:port`, with or without `/v1`).
    #[arg(long, value_name = "URL")]
    llm_url: Option<String>,
    /// When the session stops to wait for you and you end the input (Ctrl-D), or on an
    /// error, save it to FILE, to continue later with `--resume FILE`.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Continue a session saved with `--save` (from the same document).
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// Print each answer whole, once it has come, instead of streaming it.
    #[arg(long)]
    no_stream: bool,
    /// A components file supplying components the document references but does not hold.
    #[arg(long, value_name = "FILE")]
    components: Option<PathBuf>,
    /// A values file for the sensitive fields (API keys) the document holds as placeholders.
    #[arg(long, value_name = "FILE")]
    values: Option<PathBuf>,
    /// Let the document's MCP tools start their servers' commands (`StdioTransport`, refused
    /// otherwise).
    #[arg(long)]
    allow_stdio: bool,
}

/// A ServerTool call the terminal answers: its name, arguments and where the result goes.
type HostCall = (String, Value, oneshot::Sender<Result<Value, String>>);

/// What the session shows as it runs, in order.
enum Shown {
    /// A piece of a streamed answer.
    Token(String),
    /// A model's whole answer (printed unless it streamed).
    Answer(String),
    /// A line: a tool call or its result.
    Line(String),
}

/// Runs `agentspec run`: 0 when the session finished or the user ended it, 1 when it failed
/// (a load error, a run error), 2 for usage and I/O problems.
pub(crate) fn run(
    args: Args,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let supplied = match Supplied::load(args.components.as_ref(), args.values.as_ref(), err) {
        Ok(supplied) => supplied,
        Err(code) => return code,
    };
    let (doc, _) = match load(&args.file, &supplied, err) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let mut inputs = Map::new();
    for pair in &args.inputs {
        let Some((name, value)) = pair.split_once('=') else {
            let _ = writeln!(err, "error: --input {pair}: expected NAME=VALUE");
            return 2;
        };
        inputs.insert(name.to_owned(), read_value(value));
    }
    let Some(tokio) = async_runtime(err) else {
        return 2;
    };
    tokio.block_on(async {
        let (shown, shown_rx) = mpsc::unbounded_channel::<Shown>();
        let mut client = match OpenAiClient::new() {
            Ok(client) => client,
            Err(e) => {
                let _ = writeln!(err, "error: {e}");
                return 2;
            }
        };
        if let Some(url) = &args.llm_url {
            client = client.with_url(url.clone());
        }
        if !args.no_stream {
            let tokens = shown.clone();
            client = client.on_token(move |t| {
                let _ = tokens.send(Shown::Token(t.to_owned()));
            });
        }
        let on_event = move |event: Event<'_>| {
            let line = match event {
                Event::ModelAnswered(answer) if !answer.content.is_empty() => {
                    Shown::Answer(answer.content.clone())
                }
                Event::ToolStarted(request) => Shown::Line(format!("[call] {}", call(request))),
                Event::ToolFinished {
                    result: Ok(value), ..
                } => Shown::Line(format!("[result] {value}")),
                Event::ToolFinished {
                    result: Err(reason),
                    ..
                } => Shown::Line(format!("[failed] {reason}")),
                _ => return,
            };
            let _ = shown.send(line);
        };
        let (calls, call_rx) = mpsc::unbounded_channel::<HostCall>();
        let host = move |name: &str, args: Value| -> HostFuture {
            let (reply, answer) = oneshot::channel();
            let _ = calls.send((name.to_owned(), args, reply));
            Box::pin(async move {
                answer
                    .await
                    .unwrap_or_else(|_| Err("the terminal closed".to_owned()))
            })
        };
        let mut builder = Runtime::builder();
        if args.allow_stdio {
            builder = builder.allow_component_type("StdioTransport");
        }
        let runtime = builder
            .llm(client)
            .host_tools(host)
            .on_event(on_event)
            .build();
        let file = args.file.display().to_string();
        let loaded = match runtime.load(&doc) {
            Ok(loaded) => loaded,
            Err(e) => {
                let mut diagnostics = e.diagnostics;
                // each problem at its line and column in the file
                if let Ok(read) = crate::read(&args.file) {
                    agentspec_types::locate(&mut diagnostics, &read.text, read.format);
                }
                for d in &diagnostics {
                    let _ = writeln!(err, "{}", human(&file, d));
                }
                return 1;
            }
        };
        let session = match &args.resume {
            Some(path) => {
                let saved = std::fs::read_to_string(path)
                    .map_err(|e| e.to_string())
                    .and_then(|text| {
                        serde_json::from_str::<SavedSession>(&text).map_err(|e| e.to_string())
                    });
                match saved {
                    Ok(saved) => loaded.resume(saved),
                    Err(e) => {
                        let _ = writeln!(err, "error: {}: {e}", path.display());
                        return 2;
                    }
                }
            }
            None => loaded.start(Value::Object(inputs)),
        };
        let session = match session {
            Ok(session) => session,
            Err(e) => {
                let _ = writeln!(err, "error[{}]: {}", e.code, e.message);
                return 1;
            }
        };
        let mut chat = Chat {
            session,
            input,
            out,
            err,
            shown: shown_rx,
            calls: call_rx,
            save: args.save.as_ref(),
            stream: !args.no_stream,
            mid_line: false,
            answers: Vec::new(),
        };
        chat.run().await
    })
}

/// The async runtime `run` and `serve` work on (one thread), or `None` when it cannot start
/// (said on `err`).
pub(crate) fn async_runtime(err: &mut dyn Write) -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(tokio) => Some(tokio),
        Err(e) => {
            let _ = writeln!(err, "error: could not start the async runtime: {e}");
            None
        }
    }
}

/// A value typed by the user: JSON when it is JSON, else the text itself.
fn read_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// A call as the terminal shows it: `name({"a": 1})`.
fn call(request: &ToolRequest) -> String {
    format!("{}({})", request.name, request.args)
}

struct Chat<'a> {
    session: Session,
    input: &'a mut dyn BufRead,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    shown: mpsc::UnboundedReceiver<Shown>,
    calls: mpsc::UnboundedReceiver<HostCall>,
    save: Option<&'a PathBuf>,
    /// Whether answers stream (else each is printed whole).
    stream: bool,
    /// Whether the last thing printed was a piece of an answer, with no line end yet.
    mid_line: bool,
    /// The models' answers shown during this run, in order: the messages of the status
    /// that are not among them (an OutputMessageNode's) are printed when it comes.
    answers: Vec<String>,
}

impl Chat<'_> {
    async fn run(&mut self) -> u8 {
        loop {
            let status = self.step().await;
            let status = match status {
                Ok(status) => status,
                Err(e) => {
                    let _ = writeln!(self.err, "error[{}]: {}", e.code, e.message);
                    return self.saved_and(1);
                }
            };
            let answered = match status {
                Status::Finished { outputs, messages } => {
                    self.show_messages(&messages);
                    if !outputs.is_empty() {
                        let text = serde_json::to_string_pretty(&Value::Object(outputs))
                            .unwrap_or_default();
                        let _ = writeln!(self.out, "outputs: {text}");
                    }
                    return 0;
                }
                Status::UserMessageRequest { messages } => {
                    self.show_messages(&messages);
                    match self.ask("you> ") {
                        Some(line) => {
                            self.session.append_user_message(line);
                            true
                        }
                        None => false,
                    }
                }
                Status::ToolRequest(requests) => self.answer_client_tools(&requests),
                Status::ToolConfirmation(requests) => self.confirm(&requests),
            };
            if !answered {
                // the input ended while the session waits for it
                return self.saved_and(0);
            }
        }
    }

    /// Runs the session to its next stop, showing what happens as it happens, and asking
    /// the user for the results of the ServerTools that have no implementation.
    async fn step(&mut self) -> Result<Status, agentspec_runtime::RunError> {
        self.answers.clear();
        let status = {
            let run = self.session.run();
            tokio::pin!(run);
            loop {
                tokio::select! {
                    biased;
                    Some(shown) = self.shown.recv() => {
                        show(self.out, &mut self.mid_line, &mut self.answers, self.stream, shown);
                    }
                    Some((name, args, reply)) = self.calls.recv() => {
                        end_line(self.out, &mut self.mid_line);
                        let _ = writeln!(
                            self.out,
                            "[tool] {name}({args}) has no implementation here: type its result (JSON, or text)"
                        );
                        let answer = match ask(self.input, self.out, "result> ") {
                            Some(line) => Ok(read_value(&line)),
                            None => Err("the terminal's input ended".to_owned()),
                        };
                        let _ = reply.send(answer);
                    }
                    status = &mut run => break status,
                }
            }
        };
        while let Ok(shown) = self.shown.try_recv() {
            show(
                self.out,
                &mut self.mid_line,
                &mut self.answers,
                self.stream,
                shown,
            );
        }
        end_line(self.out, &mut self.mid_line);
        status
    }

    /// Prints the messages of a status that no model answer of this run showed.
    fn show_messages(&mut self, messages: &[Message]) {
        let mut rest = &self.answers[..];
        for m in messages {
            if let Some(at) = rest.iter().position(|a| *a == m.content) {
                rest = &rest[at + 1..];
            } else if !m.content.is_empty() {
                let _ = writeln!(self.out, "{}", m.content);
            }
        }
    }

    fn answer_client_tools(&mut self, requests: &[ToolRequest]) -> bool {
        for r in requests {
            let _ = writeln!(
                self.out,
                "[client tool] {}: type its result (JSON, or text)",
                call(r)
            );
            let Some(line) = self.ask("result> ") else {
                return false;
            };
            if let Err(e) = self.session.append_tool_result(&r.id, read_value(&line)) {
                let _ = writeln!(self.err, "error[{}]: {}", e.code, e.message);
                return false;
            }
        }
        true
    }

    fn confirm(&mut self, requests: &[ToolRequest]) -> bool {
        for r in requests {
            let Some(line) = self.ask(&format!("run {}? [y/N] ", call(r))) else {
                return false;
            };
            let yes = matches!(line.trim().to_lowercase().as_str(), "y" | "yes");
            let done = if yes {
                self.session.confirm(&r.id)
            } else {
                self.session.reject(&r.id, "the user declined")
            };
            if let Err(e) = done {
                let _ = writeln!(self.err, "error[{}]: {}", e.code, e.message);
                return false;
            }
        }
        true
    }

    fn ask(&mut self, prompt: &str) -> Option<String> {
        ask(self.input, self.out, prompt)
    }

    /// Saves the session when `--save` asks for it, and returns `code` (2 when the file
    /// cannot be written).
    fn saved_and(&mut self, code: u8) -> u8 {
        let Some(path) = self.save else {
            return code;
        };
        let text = serde_json::to_string_pretty(&self.session.save()).unwrap_or_default();
        match std::fs::write(path, text) {
            Ok(()) => {
                let _ = writeln!(
                    self.out,
                    "saved to {}: continue with --resume {}",
                    path.display(),
                    path.display()
                );
                code
            }
            Err(e) => {
                let _ = writeln!(self.err, "error: {}: {e}", path.display());
                2
            }
        }
    }
}

/// Prints what the session shows.
fn show(
    out: &mut dyn Write,
    mid_line: &mut bool,
    answers: &mut Vec<String>,
    stream: bool,
    shown: Shown,
) {
    match shown {
        Shown::Token(token) => {
            let _ = write!(out, "{token}");
            *mid_line = !token.ends_with('\n');
        }
        Shown::Answer(text) => {
            if !stream {
                end_line(out, mid_line);
                let _ = writeln!(out, "{text}");
            }
            answers.push(text);
        }
        Shown::Line(line) => {
            end_line(out, mid_line);
            let _ = writeln!(out, "{line}");
        }
    }
    let _ = out.flush();
}

/// Ends the line a streamed answer left open.
fn end_line(out: &mut dyn Write, mid_line: &mut bool) {
    if std::mem::take(mid_line) {
        let _ = writeln!(out);
    }
}

/// Prints `prompt` and reads a line; `None` when the input has ended.
fn ask(input: &mut dyn BufRead, out: &mut dyn Write, prompt: &str) -> Option<String> {
    let _ = write!(out, "{prompt}");
    let _ = out.flush();
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_owned()),
    }
}
