//! Tools implemented in Rust: their Agent Spec description ([`ToolSpec`], written as a
//! `ServerTool` or `ClientTool`), calling them from the JSON arguments an agent runtime
//! sends ([`RustTool`], [`Toolbox`]), and binding a document's server tools to them
//! ([`Toolbox::bind`]).
//!
//! `#[tool]` (feature `macros`) implements [`RustTool`] for a function; a hand-written
//! implementation works the same way.

mod args;
mod bind;
mod check;
mod error;
mod mcp;
#[cfg(feature = "schemars")]
mod schema;

pub use args::{ArgumentError, Arguments};
pub use bind::{BindError, BindProblem, BoundTool};
pub use error::{SpecError, ToolError};
#[cfg(feature = "schemars")]
pub use schema::{Contract, SpecBuilder, property};

use indexmap::IndexMap;
use serde_json::Value;
use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use crate::JsonObject;

/// Whether a tool runs in the process that runs the agent (`ServerTool`) or is handed to
/// the client to run (`ClientTool`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// A `ServerTool`: the runtime calls it.
    Server,
    /// A `ClientTool`: the runtime returns the call to the client.
    Client,
}

/// How a call's return value maps to the tool's outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputShape {
    /// No outputs: the call returns `null`.
    None,
    /// One output: the call returns its value.
    Single,
    /// One output per field of the returned object: the call returns that object, keyed
    /// by the outputs' titles.
    Fields,
}

/// `ServerTool` and `ClientTool` have the same fields.
macro_rules! tool_component {
    ($ty:ident, $spec:expr) => {
        crate::$ty {
            id: $spec.name.clone(),
            name: $spec.name.clone(),
            description: $spec.description.clone(),
            metadata: Some(JsonObject::new()),
            inputs: Some($spec.inputs.clone()),
            outputs: Some($spec.outputs.clone()),
            requires_confirmation: $spec.requires_confirmation,
            extra: JsonObject::new(),
            referenced_components: IndexMap::new(),
        }
    };
}

/// A tool's Agent Spec description: name, description, input and output properties.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) inputs: Vec<JsonObject>,
    pub(crate) outputs: Vec<JsonObject>,
    pub(crate) requires_confirmation: bool,
    pub(crate) kind: ToolKind,
    pub(crate) shape: OutputShape,
}

impl ToolSpec {
    /// A description with no inputs and no outputs; see [`ToolSpec::with_input`] and
    /// [`ToolSpec::with_output`], or build it from Rust types with `SpecBuilder`.
    pub fn new(name: impl Into<String>, kind: ToolKind) -> Self {
        ToolSpec {
            name: name.into(),
            description: None,
            inputs: Vec::new(),
            outputs: Vec::new(),
            requires_confirmation: false,
            kind,
            shape: OutputShape::None,
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Adds an input property (a JSON Schema with a `title`).
    pub fn with_input(mut self, property: JsonObject) -> Self {
        self.inputs.push(property);
        self
    }

    /// Adds an output property; with two or more, calls return an object keyed by title.
    pub fn with_output(mut self, property: JsonObject) -> Self {
        self.outputs.push(property);
        self.shape = if self.outputs.len() == 1 {
            OutputShape::Single
        } else {
            OutputShape::Fields
        };
        self
    }

    /// Sets `requires_confirmation`.
    pub fn with_requires_confirmation(mut self, requires: bool) -> Self {
        self.requires_confirmation = requires;
        self
    }

    /// The tool's name, unique in a [`Toolbox`].
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The tool's description, for the LLM.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
    /// Input properties, in argument order.
    pub fn inputs(&self) -> &[JsonObject] {
        &self.inputs
    }
    /// Output properties.
    pub fn outputs(&self) -> &[JsonObject] {
        &self.outputs
    }
    /// Whether the runtime must ask the user before calling the tool.
    pub fn requires_confirmation(&self) -> bool {
        self.requires_confirmation
    }
    /// Server or client tool.
    pub fn kind(&self) -> ToolKind {
        self.kind
    }
    /// How a call's result maps to the outputs.
    pub fn output_shape(&self) -> OutputShape {
        self.shape
    }

    /// A property's title (`property` when it has none, as the language says).
    fn title(property: &JsonObject) -> &str {
        property
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or("property")
    }

    /// The input titles, in order.
    pub fn input_titles(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().map(Self::title)
    }

    /// The output titles, in order.
    pub fn output_titles(&self) -> impl Iterator<Item = &str> {
        self.outputs.iter().map(Self::title)
    }

    /// The description as a `ServerTool` component whose id is the tool's name.
    pub fn server_tool(&self) -> crate::ServerTool {
        tool_component!(ServerTool, self)
    }

    /// The description as a `ClientTool` component whose id is the tool's name.
    pub fn client_tool(&self) -> crate::ClientTool {
        tool_component!(ClientTool, self)
    }

    /// The description as a tool of its kind, to put in an agent's `tools` or a `ToolNode`.
    pub fn component(&self) -> crate::Tool {
        match self.kind {
            ToolKind::Server => crate::Tool::ServerTool(Box::new(self.server_tool())),
            ToolKind::Client => crate::Tool::ClientTool(Box::new(self.client_tool())),
        }
    }

    /// A document whose root is this tool, at the minimum version its content needs.
    pub fn document(&self) -> crate::Document {
        let root = match self.kind {
            ToolKind::Server => crate::Component::ServerTool(Box::new(self.server_tool())),
            ToolKind::Client => crate::Component::ClientTool(Box::new(self.client_tool())),
        };
        crate::Document::at_own_min_version(root)
    }
}

/// The result of calling a tool.
pub type ToolResult = Result<Value, ToolError>;

/// Any error, boxed: what the methods of a trait generated by `agentspec-build` return
/// when the tool fails (`?` converts most errors, and `"message".into()` makes one).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A tool implemented in Rust: its description and a call from JSON arguments.
///
/// `#[tool]` implements it for a function. The description is built once and shared.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an Agent Spec tool",
    label = "expected a type made by `#[tool]` or implementing `RustTool`",
    note = "put `#[agentspec_types::tool]` on a function and use the `…Tool` type it generates"
)]
pub trait RustTool: Send + Sync + 'static {
    /// The tool's description, or why it cannot be described (for example a recursive
    /// argument type).
    fn spec(&self) -> Result<&'static ToolSpec, &'static SpecError>;

    /// Calls the tool with `args`, a JSON object with one entry per input title. With one
    /// output the result is its value; with several, an object keyed by output title; with
    /// none, `null`.
    fn call(&self, args: Value) -> impl Future<Output = ToolResult> + Send;
}

/// A boxed call future, what [`DynTool`] returns.
pub type BoxCall<'a> = Pin<Box<dyn Future<Output = ToolResult> + Send + 'a>>;

/// [`RustTool`] behind `dyn`, as a [`Toolbox`] holds tools: one box per call.
pub trait DynTool: Send + Sync {
    /// See [`RustTool::spec`].
    fn spec(&self) -> Result<&'static ToolSpec, &'static SpecError>;
    /// See [`RustTool::call`].
    fn call_boxed(&self, args: Value) -> BoxCall<'_>;
}

impl<T: RustTool> DynTool for T {
    fn spec(&self) -> Result<&'static ToolSpec, &'static SpecError> {
        RustTool::spec(self)
    }
    fn call_boxed(&self, args: Value) -> BoxCall<'_> {
        Box::pin(RustTool::call(self, args))
    }
}

/// Tools by name, to call them from what an agent runtime sends and to bind a document's
/// server tools to them.
#[derive(Default)]
pub struct Toolbox {
    tools: IndexMap<String, Box<dyn DynTool>>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.tools.keys()).finish()
    }
}

impl Toolbox {
    /// An empty toolbox.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tool`; fails if it cannot be described ([`ToolError::Spec`] with the
    /// [`SpecError`] of [`RustTool::spec`], such as a recursive argument type) or its name is
    /// taken ([`ToolError::Duplicate`]). A tool that fails is not added.
    pub fn register(&mut self, tool: impl RustTool) -> Result<&mut Self, ToolError> {
        let spec = RustTool::spec(&tool).map_err(|e| ToolError::Spec(e.clone()))?;
        if self.tools.contains_key(spec.name()) {
            return Err(ToolError::Duplicate {
                name: spec.name().to_owned(),
            });
        }
        self.tools.insert(spec.name().to_owned(), Box::new(tool));
        Ok(self)
    }

    /// [`Toolbox::register`], by value.
    pub fn with(mut self, tool: impl RustTool) -> Result<Self, ToolError> {
        self.register(tool)?;
        Ok(self)
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&dyn DynTool> {
        self.tools.get(name).map(|b| &**b)
    }

    /// The registered names, in registration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// The descriptions, in registration order.
    pub fn specs(&self) -> impl Iterator<Item = &'static ToolSpec> + '_ {
        self.tools.values().filter_map(|t| t.spec().ok())
    }

    /// Every tool as the component that describes it (a `ServerTool` or a `ClientTool`), in
    /// registration order: what an agent's `tools` take, in one call.
    ///
    /// ```
    /// use agentspec_types::{Agent, VllmConfig, tool, tool::Toolbox};
    ///
    /// /// Adds two numbers.
    /// #[tool]
    /// fn add(a: f64, b: f64) -> f64 {
    ///     a + b
    /// }
    ///
    /// let toolbox = Toolbox::new().with(AddTool)?;
    /// let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000");
    /// let agent = Agent::new("adder", llm, "You add.").with_tools(toolbox.tools());
    /// assert_eq!(agent.tools.len(), 1);
    /// # Ok::<(), agentspec_types::tool::ToolError>(())
    /// ```
    pub fn tools(&self) -> impl Iterator<Item = crate::Tool> + '_ {
        self.specs().map(ToolSpec::component)
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Calls the tool `name` with `args` (a JSON object keyed by input title).
    ///
    /// A tool that panics does not unwind into the caller: the panic is caught (each poll of
    /// the tool's future runs under [`std::panic::catch_unwind`]) and the call ends with
    /// [`ToolError::Panicked`], holding the panic's message. The panic hook still runs (by
    /// default it prints the message to stderr), and a build with `panic = "abort"` aborts
    /// as it always does.
    pub async fn call(&self, name: &str, args: Value) -> ToolResult {
        let Some(tool) = self.tools.get(name) else {
            return Err(self.unknown(name));
        };
        // A hand-written `call` may panic before it returns its future.
        let future = catch_unwind(AssertUnwindSafe(|| tool.call_boxed(args)))
            .map_err(|payload| panicked(name, payload.as_ref()))?;
        CatchPanic { tool: name, future }.await
    }

    /// [`Toolbox::call`] on this thread, waiting for the tool to finish (see
    /// [`block_on`]).
    ///
    /// For tools that need no async runtime: plain functions, and async ones that await only
    /// their own work. A tool whose future needs a runtime's reactor or timer (Tokio's
    /// `tokio::time::sleep`, its sockets, …) fails here: Tokio panics when it finds no
    /// runtime, and the call returns that panic as [`ToolError::Panicked`]. Call such tools
    /// with [`Toolbox::call`] from inside that runtime (`toolbox.call(name, args).await`),
    /// and do not call `call_blocking` from a task of a runtime: it blocks the thread the
    /// runtime would drive the tool's I/O on.
    pub fn call_blocking(&self, name: &str, args: Value) -> ToolResult {
        block_on(self.call(name, args))
    }

    fn unknown(&self, name: &str) -> ToolError {
        ToolError::UnknownTool {
            name: name.to_owned(),
            available: self.tools.keys().cloned().collect(),
        }
    }
}

/// A tool's call future whose panics become [`ToolError::Panicked`].
struct CatchPanic<'a> {
    tool: &'a str,
    future: BoxCall<'a>,
}

impl Future for CatchPanic<'_> {
    type Output = ToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = &mut *self;
        // Unwind safety: after a panic the future is never polled again (the call is over,
        // `Ready` is returned), so no broken state of it is observed.
        match catch_unwind(AssertUnwindSafe(|| this.future.as_mut().poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => Poll::Ready(Err(panicked(this.tool, payload.as_ref()))),
        }
    }
}

/// The error for a panic of the tool `tool` whose payload is `payload`: its message when the
/// payload is a string, as `panic!` with a message makes it.
fn panicked(tool: &str, payload: &(dyn Any + Send)) -> ToolError {
    let message = if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    };
    ToolError::Panicked {
        tool: tool.to_owned(),
        message,
    }
}

/// Runs `future` to completion on this thread, parking while it is pending.
///
/// A minimal executor: it polls the future, and parks the thread until the future's waker
/// is called. It provides no reactor or timer, so it suits futures that make progress on
/// their own (or are woken by another thread); a future that needs a runtime (Tokio's
/// timers and sockets) must run in that runtime. It does not catch panics: the future's
/// panic unwinds out of `block_on` (a [`Toolbox`]'s calls catch their tools' panics).
pub fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut future = std::pin::pin!(future);
    // Most tools finish on their first poll: no waker to build then.
    if let Poll::Ready(out) = future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        return out;
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(out) => return out,
            Poll::Pending => std::thread::park(),
        }
    }
}

/// What `#[tool]` expands to: not a public API.
#[doc(hidden)]
pub mod __private {
    pub use super::args::{Arguments, fail};
    #[cfg(feature = "schemars")]
    pub use schemars;
    pub use serde;
    pub use serde_json;

    /// Converts a function's return value into a call result.
    pub fn output<T: serde::Serialize>(tool: &str, value: &T) -> super::ToolResult {
        serde_json::to_value(value).map_err(|source| super::ToolError::Output {
            tool: tool.to_owned(),
            source,
        })
    }

    /// The description of a tool generated from a document by `agentspec-build`: its
    /// inputs and outputs are the document's properties (JSON arrays of objects), as
    /// written, so that `Toolbox::bind` against that document agrees.
    pub fn spec_from_document(
        name: &str,
        description: Option<&str>,
        inputs: &str,
        outputs: &str,
        requires_confirmation: bool,
    ) -> super::ToolSpec {
        let properties = |json: &str| -> Vec<crate::JsonObject> {
            serde_json::from_str(json)
                .expect("agentspec-build writes the properties as a JSON array of objects")
        };
        let mut spec = super::ToolSpec::new(name, super::ToolKind::Server)
            .with_requires_confirmation(requires_confirmation);
        if let Some(description) = description {
            spec = spec.with_description(description);
        }
        for input in properties(inputs) {
            spec = spec.with_input(input);
        }
        for output in properties(outputs) {
            spec = spec.with_output(output);
        }
        spec
    }

    /// The arguments of a call as the struct `A` generated from the inputs of `spec` (what
    /// [`spec_from_document`] made): checked against the inputs' JSON Schemas, every
    /// problem at any depth reported at once, then decoded.
    pub fn document_arguments<A: serde::de::DeserializeOwned>(
        spec: &super::ToolSpec,
        args: serde_json::Value,
    ) -> Result<A, super::ToolError> {
        super::args::document_arguments(spec, args)
    }

    /// Keeps a function's error as the call's execution error.
    pub fn execution<E>(tool: &str, error: E) -> super::ToolError
    where
        E: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    {
        super::ToolError::Execution {
            tool: tool.to_owned(),
            source: error.into(),
        }
    }
}
