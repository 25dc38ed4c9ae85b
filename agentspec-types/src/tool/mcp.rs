//! A tool's description as MCP states it (`inputSchema`, `outputSchema`, the structured
//! result of a call), and a [`Toolbox`] written as the `MCPTool`s or the `MCPToolBox` an
//! agent uses to reach it over MCP. No MCP library is needed for either: serving is the
//! `mcp` feature's (module `agentspec_types::mcp`).
//!
//! MCP describes a tool's arguments as one JSON Schema object and its structured result as
//! another; Agent Spec describes both as lists of titled properties. They map as the MCP
//! Python SDK and the Agent Spec runtimes (WayFlow) map them:
//!
//! | Agent Spec | MCP `inputSchema` / `outputSchema` | structured result |
//! |---|---|---|
//! | inputs | an object with one property per input title; those without a `default` are required; no other property | |
//! | no output | no `outputSchema` | none |
//! | one output of type `object` | that output's schema | the value |
//! | one output of another type | an object with the one property `result` | `{"result": value}` |
//! | two or more outputs | `result`, an array whose `prefixItems` are the outputs, in order | `{"result": [value, …]}` |

use serde_json::{Value, json};

use super::{OutputShape, ToolSpec, Toolbox};
use crate::JsonObject;

impl ToolSpec {
    /// The MCP `inputSchema`: an object whose properties are the inputs, keyed by title.
    ///
    /// ```
    /// use agentspec_types::tool::{ToolKind, ToolSpec};
    /// use serde_json::json;
    ///
    /// let property = |v: serde_json::Value| v.as_object().unwrap().clone();
    /// let spec = ToolSpec::new("forecast", ToolKind::Server)
    ///     .with_input(property(json!({"title": "city", "type": "string"})))
    ///     .with_input(property(json!({"title": "days", "type": "integer", "default": 1})));
    /// assert_eq!(
    ///     serde_json::Value::Object(spec.mcp_input_schema()),
    ///     json!({
    ///         "type": "object",
    ///         "properties": {
    ///             "city": {"title": "city", "type": "string"},
    ///             "days": {"title": "days", "type": "integer", "default": 1}
    ///         },
    ///         "required": ["city"],
    ///         "additionalProperties": false
    ///     })
    /// );
    /// ```
    pub fn mcp_input_schema(&self) -> JsonObject {
        let mut properties = JsonObject::new();
        let mut required = Vec::new();
        for input in &self.inputs {
            let title = Self::title(input);
            if !input.contains_key("default") {
                required.push(Value::from(title));
            }
            properties.insert(title.to_owned(), Value::Object(input.clone()));
        }
        let mut schema = JsonObject::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(properties));
        schema.insert("required".into(), Value::Array(required));
        // `Toolbox::call` rejects an argument that is not an input (`unknown-argument`)
        schema.insert("additionalProperties".into(), false.into());
        schema
    }

    /// The MCP `outputSchema`, when the tool has outputs (see the module's table).
    pub fn mcp_output_schema(&self) -> Option<JsonObject> {
        match self.outputs.as_slice() {
            [] => None,
            [only] if is_object(only) => Some(only.clone()),
            [only] => Some(wrapped(Value::Object(only.clone()))),
            all => {
                let n = all.len();
                Some(wrapped(json!({
                    "type": "array",
                    "prefixItems": all,
                    "minItems": n,
                    "maxItems": n,
                })))
            }
        }
    }

    /// The MCP structured result of a call that returned `result` (as [`Toolbox::call`]
    /// returns it), when the tool has outputs: what [`ToolSpec::mcp_output_schema`]
    /// describes.
    pub fn mcp_structured_result(&self, result: Value) -> Option<Value> {
        // one value per output, in order
        let mut values = match (self.shape, result) {
            (OutputShape::None, _) => return None,
            (OutputShape::Single, value) => vec![value],
            (OutputShape::Fields, Value::Object(mut fields)) => self
                .outputs
                .iter()
                .map(|output| fields.remove(Self::title(output)).unwrap_or(Value::Null))
                .collect(),
            // not what a `Fields` tool returns: passed on as it is
            (OutputShape::Fields, other) => vec![other],
        };
        match self.outputs.as_slice() {
            [] => None,
            [only] if is_object(only) => values.pop(),
            [_] => Some(json!({ "result": values.pop() })),
            _ => Some(json!({ "result": values })),
        }
    }

    /// This tool as an `MCPTool` reached through `transport`, with the same name,
    /// description, inputs, outputs and confirmation; its id is the tool's name.
    pub fn mcp_tool(
        &self,
        transport: impl Into<crate::RefOr<crate::ClientTransport>>,
    ) -> crate::MCPTool {
        let mut tool = crate::MCPTool::new(self.name.clone(), transport)
            .with_id(self.name.clone())
            .with_inputs(self.inputs.clone())
            .with_outputs(self.outputs.clone())
            .with_requires_confirmation(self.requires_confirmation);
        tool.description = self.description.clone();
        tool
    }
}

/// Whether an output property's schema is a JSON object's.
fn is_object(property: &JsonObject) -> bool {
    property.get("type").and_then(Value::as_str) == Some("object")
}

/// An object schema with the one required property `result`.
fn wrapped(result: Value) -> JsonObject {
    let mut properties = JsonObject::new();
    properties.insert("result".into(), result);
    let mut schema = JsonObject::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), json!(["result"]));
    schema
}

impl Toolbox {
    /// Every tool as an `MCPTool` reached through `transport` (shared: written once, then
    /// referenced), in registration order: what an agent's `tools` take when the toolbox is
    /// served over MCP (feature `mcp`).
    ///
    /// ```
    /// use agentspec_types::{Agent, StdioTransport, VllmConfig, tool, tool::Toolbox};
    ///
    /// /// Adds two numbers.
    /// #[tool]
    /// fn add(a: f64, b: f64) -> f64 {
    ///     a + b
    /// }
    ///
    /// let toolbox = Toolbox::new().with(AddTool)?;
    /// let server = StdioTransport::new("calculator", "calculator-mcp").with_id("calculator");
    /// let llm = VllmConfig::new("vllm", "llama", "http://localhost:8000");
    /// let agent = Agent::new("adder", llm, "You add.").with_tools(toolbox.mcp_tools(server));
    /// assert_eq!(agent.tools.len(), 1);
    /// # Ok::<(), agentspec_types::tool::ToolError>(())
    /// ```
    pub fn mcp_tools(
        &self,
        transport: impl Into<crate::RefOr<crate::ClientTransport>>,
    ) -> Vec<crate::Tool> {
        let transport = transport.into();
        self.specs()
            .map(|spec| crate::Tool::MCPTool(Box::new(spec.mcp_tool(transport.clone()))))
            .collect()
    }

    /// The toolbox as one `MCPToolBox` named `name` (its id too) reached through
    /// `transport`, listing every tool by name in its `tool_filter`: what an agent's
    /// `toolboxes` take. With a filter, the runtime exposes exactly these tools even if the
    /// server later offers more; the tools' inputs and outputs come from the server.
    pub fn mcp_toolbox(
        &self,
        name: impl Into<String>,
        transport: impl Into<crate::RefOr<crate::ClientTransport>>,
    ) -> crate::MCPToolBox {
        let name = name.into();
        let filter = self
            .names()
            .map(|n| crate::MCPToolBoxToolFilter::String(n.to_owned()));
        crate::MCPToolBox::new(name.clone(), transport)
            .with_id(name)
            .with_tool_filter(filter)
    }
}
