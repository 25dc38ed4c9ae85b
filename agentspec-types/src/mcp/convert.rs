//! A document's `ServerTool`s rewritten as `MCPTool`s reached through one MCP server: what
//! points a document at a Rust MCP server ([`McpServer`](super::McpServer)) that serves the
//! tools its runtime used to run itself (`agentspec to-mcp`).

use std::collections::HashSet;

use serde_json::Value;

use crate::codec::ComponentSet;
use crate::document::components::LoadOptions;
use crate::document::{Document, LoadError, WriteOptions, on_big_stack};
use crate::model::walk::Visit;
use crate::{ClientTransport, Component};

/// Rewrites a document's `ServerTool`s (all, or those named) as `MCPTool`s reached through
/// one client transport.
///
/// Each `MCPTool` keeps the `ServerTool`'s id, name, description, metadata, inputs, outputs
/// and `requires_confirmation` (and any key Agent Spec does not define), at the same place:
/// references to the tool still name it. The transport is written once. With one tool it is
/// inline in it; with several it is shared as pyagentspec shares a component: its body in the
/// `$referenced_components` of the closest component that holds every tool, and
/// `{"$component_ref": id}` in each tool. Everything else in the document is kept as it was,
/// in its layout.
///
/// ```
/// use agentspec_types::mcp::ServerToolsToMcp;
/// use agentspec_types::{Document, StreamableHTTPTransport};
///
/// let text = r#"{
///   "component_type": "ServerTool", "id": "weather", "name": "get_weather",
///   "inputs": [{"title": "city", "type": "string"}],
///   "agentspec_version": "26.1.0"
/// }"#;
/// let doc = Document::from_json_str(text)?;
/// let server = StreamableHTTPTransport::new("weather server", "http://127.0.0.1:8808/mcp")
///     .with_id("weather_server");
/// let converted = ServerToolsToMcp::new(server).apply(&doc)?;
/// let value = converted.document.to_value();
/// assert_eq!(value["component_type"], "MCPTool");
/// assert_eq!(value["id"], "weather");
/// assert_eq!(value["client_transport"]["url"], "http://127.0.0.1:8808/mcp");
/// assert_eq!(converted.tools[0].name, "get_weather");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ServerToolsToMcp {
    transport: ClientTransport,
    only: Vec<String>,
}

/// A document whose `ServerTool`s were rewritten as `MCPTool`s.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct McpConversion<C> {
    /// The document, loaded again from its rewritten form.
    pub document: Document<C>,
    /// The tools rewritten, in document order.
    pub tools: Vec<ConvertedTool>,
}

/// A `ServerTool` that became an `MCPTool`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConvertedTool {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The JSON pointer of its body in the written document.
    pub pointer: String,
}

/// Why a document's `ServerTool`s could not be rewritten.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The document holds no `ServerTool` (one it takes from a components file is not its
    /// own: rewrite that file, or the joined document).
    #[error("the document has no `ServerTool` to rewrite")]
    NoServerTool,
    /// A tool asked for ([`ServerToolsToMcp::tool`]) is no `ServerTool` of the document.
    #[error(
        "the document has no `ServerTool` named `{name}`{}; its `ServerTool`s are {}",
        .closest.as_ref().map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default(),
        .available.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
    )]
    UnknownTool {
        /// The name (or id) asked for.
        name: String,
        /// The closest name of a `ServerTool` of the document.
        closest: Option<String>,
        /// The names of the document's `ServerTool`s.
        available: Vec<String>,
    },
    /// The transport's id is already a component's id in the document.
    #[error("the document already has a component with id `{0}`: give the transport another id")]
    IdTaken(String),
    /// The rewritten document does not load (a transport whose fields the document's
    /// version does not have).
    #[error("the rewritten document does not load: {0}")]
    Load(#[from] LoadError),
}

/// What a walk of the document finds.
#[derive(Default)]
struct Found {
    /// Every `ServerTool`: its pointer, id and name.
    tools: Vec<ConvertedTool>,
    /// The pointer of every component.
    components: HashSet<String>,
    /// Every component id, and every key of a `$referenced_components` map.
    ids: HashSet<String>,
}

impl ServerToolsToMcp {
    /// Rewrites every `ServerTool`, reached through `transport` (a `StdioTransport`,
    /// `StreamableHTTPTransport`, `SSETransport`, …: give it the id the document should
    /// know it by).
    pub fn new(transport: impl Into<ClientTransport>) -> Self {
        ServerToolsToMcp {
            transport: transport.into(),
            only: Vec::new(),
        }
    }

    /// Rewrites only the `ServerTool`s whose name (or id) is `name`, and those of the other
    /// calls; a name that matches none is an error.
    pub fn tool(mut self, name: impl Into<String>) -> Self {
        self.only.push(name.into());
        self
    }

    /// Rewrites `doc`, loading the result with the default options.
    pub fn apply<C: ComponentSet + Send + Sync + 'static>(
        &self,
        doc: &Document<C>,
    ) -> Result<McpConversion<C>, ConvertError> {
        self.apply_with(doc, &LoadOptions::new())
    }

    /// Rewrites `doc`, loading the result with `options` (those `doc` was loaded with: its
    /// components file, values, plugins).
    pub fn apply_with<C: ComponentSet + Send + Sync + 'static>(
        &self,
        doc: &Document<C>,
        options: &LoadOptions<'_, C>,
    ) -> Result<McpConversion<C>, ConvertError> {
        let found = walk(doc);
        let tools = self.chosen(found.tools)?;
        let version = doc.agentspec_version();
        let all = WriteOptions::new().include_secrets(true);
        let mut transport = crate::Document::new(Component::from(self.transport.clone()), version)
            .to_value_with(&all);
        if let Some(map) = transport.as_object_mut() {
            map.shift_remove("agentspec_version");
        }
        let id = transport
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if found.ids.contains(&id) {
            return Err(ConvertError::IdTaken(id));
        }
        let mut value = doc.to_value_with(&all);
        let uses = if let [_] = tools.as_slice() {
            transport
        } else {
            let holder = holder(&tools, &found.components);
            if let Some(Value::Object(holder)) = value.pointer_mut(&holder) {
                let shared = holder
                    .entry("$referenced_components")
                    .or_insert_with(|| Value::Object(serde_json::Map::new()));
                if let Value::Object(shared) = shared {
                    shared.insert(id.clone(), transport);
                }
            }
            serde_json::json!({ "$component_ref": id })
        };
        for tool in &tools {
            if let Some(Value::Object(body)) = value.pointer_mut(&tool.pointer) {
                body.insert("component_type".into(), "MCPTool".into());
                body.insert("client_transport".into(), uses.clone());
            }
        }
        let document = Document::from_value_with(&value, options)?;
        Ok(McpConversion { document, tools })
    }

    /// The tools asked for, in document order; an error for a name that matches none.
    fn chosen(&self, tools: Vec<ConvertedTool>) -> Result<Vec<ConvertedTool>, ConvertError> {
        if tools.is_empty() {
            return Err(ConvertError::NoServerTool);
        }
        let matches = |t: &ConvertedTool, name: &str| t.name == name || t.id == name;
        if let Some(name) = self
            .only
            .iter()
            .find(|name| !tools.iter().any(|t| matches(t, name)))
        {
            let mut available: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
            available.dedup();
            let closest =
                crate::diagnostic::suggest::closest(name, available.iter().map(String::as_str))
                    .map(str::to_owned);
            return Err(ConvertError::UnknownTool {
                name: name.clone(),
                closest,
                available,
            });
        }
        Ok(tools
            .into_iter()
            .filter(|t| self.only.is_empty() || self.only.iter().any(|n| matches(t, n)))
            .collect())
    }
}

/// The document's `ServerTool`s, components and ids (on a large stack when it is deep).
fn walk<C: ComponentSet + Send + Sync + 'static>(doc: &Document<C>) -> Found {
    let mut found = Found::default();
    let mut visit = |at: &str, v: Visit<'_, C>| match v {
        Visit::Component(c) => {
            found.components.insert(at.to_owned());
            found.ids.insert(c.id().to_owned());
            if c.component_type() == "ServerTool" {
                found.tools.push(ConvertedTool {
                    id: c.id().to_owned(),
                    name: c.name().to_owned(),
                    pointer: at.to_owned(),
                });
            }
        }
        Visit::Referenced(map) => found.ids.extend(map.keys().cloned()),
    };
    on_big_stack(doc.depth(), || {
        doc.root().walk_at(&mut String::new(), &mut visit);
    });
    found
}

/// The pointer of the closest component that holds every tool: where pyagentspec writes
/// what they share.
fn holder(tools: &[ConvertedTool], components: &HashSet<String>) -> String {
    let tokens =
        |pointer: &str| -> Vec<String> { pointer.split('/').skip(1).map(str::to_owned).collect() };
    let mut common = tokens(&tools[0].pointer);
    for tool in &tools[1..] {
        let other = tokens(&tool.pointer);
        let same = common
            .iter()
            .zip(&other)
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(same);
    }
    loop {
        let pointer: String = common.iter().map(|t| format!("/{t}")).collect();
        if common.is_empty() || components.contains(&pointer) {
            return pointer;
        }
        common.pop();
    }
}
