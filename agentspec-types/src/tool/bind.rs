//! Binding a document's server tools to the Rust tools of a [`Toolbox`]: every tool the
//! document needs must be registered, with the inputs and outputs the document declares.

use serde_json::{Map, Value};

use super::{ToolKind, ToolSpec, Toolbox};
use crate::codec::ComponentSet;
use crate::diagnostic::push_pointer_token;
use crate::document::Document;
use crate::validate::{castable_properties, property_type_name};

/// A document's server tool bound to a registered Rust tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundTool {
    /// The component's id.
    pub id: String,
    /// The tool's name, which is also the registered tool's.
    pub name: String,
    /// Where the component is written in the document.
    pub pointer: String,
}

/// One reason a document's server tool cannot be bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindProblem {
    /// Stable code: `tool-not-registered`, `tool-kind-mismatch`, `input-mismatch`,
    /// `output-mismatch`.
    pub code: &'static str,
    /// The tool's name.
    pub tool: String,
    /// JSON pointer of the component, or of its property, in the document.
    pub pointer: String,
    /// What differs.
    pub message: String,
}

impl std::fmt::Display for BindProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} ({})", self.pointer, self.message, self.code)
    }
}

/// Every reason a document's server tools cannot be bound to a toolbox.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct BindError {
    /// Each problem, in document order.
    pub problems: Vec<BindProblem>,
    /// The names the toolbox has.
    pub available: Vec<String>,
}

impl std::fmt::Display for BindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} problem(s) binding the document's server tools:",
            self.problems.len()
        )?;
        for p in &self.problems {
            writeln!(f, "  {p}")?;
        }
        let names: Vec<String> = self.available.iter().map(|n| format!("`{n}`")).collect();
        if names.is_empty() {
            write!(f, "the toolbox is empty")
        } else {
            write!(f, "registered tools: {}", names.join(", "))
        }
    }
}

impl Toolbox {
    /// Binds every `ServerTool` of `doc` (in agents, tool nodes, `$referenced_components`,
    /// at any depth) to the registered tool of the same name, checking that the document's
    /// inputs and outputs match the Rust signature: the same titles, and types that convert
    /// under the language's rules (the document's inputs to the function's, the function's
    /// outputs to the document's). An input the function gives a default may be left out.
    pub fn bind<C: ComponentSet + Send>(
        &self,
        doc: &Document<C>,
    ) -> Result<Vec<BoundTool>, BindError> {
        let value = doc.to_value();
        let mut bound = Vec::new();
        let mut problems = Vec::new();
        let mut stack: Vec<(&Value, String)> = vec![(&value, String::new())];
        while let Some((v, pointer)) = stack.pop() {
            match v {
                Value::Object(map) => {
                    if map.get("component_type").and_then(Value::as_str) == Some("ServerTool") {
                        self.bind_one(map, &pointer, &mut bound, &mut problems);
                    }
                    for (k, child) in map.iter().rev() {
                        let mut p = pointer.clone();
                        push_pointer_token(&mut p, k);
                        stack.push((child, p));
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate().rev() {
                        stack.push((child, format!("{pointer}/{i}")));
                    }
                }
                _ => {}
            }
        }
        if problems.is_empty() {
            Ok(bound)
        } else {
            Err(BindError {
                problems,
                available: self.names().map(str::to_owned).collect(),
            })
        }
    }

    fn bind_one(
        &self,
        component: &Map<String, Value>,
        pointer: &str,
        bound: &mut Vec<BoundTool>,
        problems: &mut Vec<BindProblem>,
    ) {
        let text = |k: &str| component.get(k).and_then(Value::as_str).unwrap_or("");
        let (id, name) = (text("id"), text("name"));
        let problem = |code, pointer: String, message: String| BindProblem {
            code,
            tool: name.to_owned(),
            pointer,
            message,
        };
        let Some(spec) = self.get(name).and_then(|t| t.spec().ok()) else {
            problems.push(problem(
                "tool-not-registered",
                pointer.to_owned(),
                format!("the server tool `{name}` has no registered Rust tool"),
            ));
            return;
        };
        let before = problems.len();
        if spec.kind() != ToolKind::Server {
            problems.push(problem(
                "tool-kind-mismatch",
                pointer.to_owned(),
                format!("`{name}` is a server tool here but registered as a client tool"),
            ));
        }
        let declared = |key: &str| -> Vec<(String, &Map<String, Value>)> {
            let list = component.get(key).and_then(Value::as_array);
            list.into_iter()
                .flatten()
                .enumerate()
                .filter_map(|(i, p)| Some((format!("{pointer}/{key}/{i}"), p.as_object()?)))
                .collect()
        };
        let mut check = |key: &str, theirs: &[crate::JsonObject], code: &'static str| {
            let mine = declared(key);
            let what = &key[..key.len() - 1];
            for (p, property) in &mine {
                let title = ToolSpec::title(property);
                match theirs.iter().find(|r| ToolSpec::title(r) == title) {
                    None => problems.push(problem(
                        code,
                        p.clone(),
                        format!("the document's {what} `{title}` is not one of the function's"),
                    )),
                    Some(rust) => {
                        let ok = if key == "inputs" {
                            castable_properties(property, rust)
                        } else {
                            castable_properties(rust, property)
                        };
                        if !ok {
                            problems.push(problem(
                                code,
                                p.clone(),
                                format!(
                                    "the {what} `{title}` is {} in the document but {} in Rust",
                                    property_type_name(property),
                                    property_type_name(rust)
                                ),
                            ));
                        }
                    }
                }
            }
            for rust in theirs {
                let title = ToolSpec::title(rust);
                let optional = key == "inputs" && rust.contains_key("default");
                if !optional && !mine.iter().any(|(_, d)| ToolSpec::title(d) == title) {
                    problems.push(problem(
                        code,
                        format!("{pointer}/{key}"),
                        format!("the function's {what} `{title}` is not declared by the document"),
                    ));
                }
            }
        };
        check("inputs", spec.inputs(), "input-mismatch");
        check("outputs", spec.outputs(), "output-mismatch");
        if problems.len() == before {
            bound.push(BoundTool {
                id: id.to_owned(),
                name: name.to_owned(),
                pointer: pointer.to_owned(),
            });
        }
    }
}
