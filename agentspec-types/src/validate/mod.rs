//! Semantic validation: the rules of the language that the schema cannot express (flow
//! structure, inputs and outputs, data edges, property schemas, component values), checked
//! on the typed document. Each diagnostic points where the document writes what it is
//! about; a document loaded from text also gets line and column.

use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::model::component::ComponentInfo;
use crate::{Component, JsonObject};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

mod flow;
mod index;
mod io;
mod llm;
mod nodes;
mod schema;
mod types;

use flow::{branches, flow, inferred_branches};
use index::{Index, Seen, has, list, typed};
use io::{inferred_io, node};
use nodes::{retry_policies, section_seven, values};
pub(crate) use types::property_type_name;
pub(crate) use types::{castable, castable_properties};
use types::{fits_property, same_type};

fn token(pointer: &str, t: &str) -> String {
    let mut p = pointer.to_owned();
    push_pointer_token(&mut p, t);
    p
}

/// A property's title (a property without one is named `property`).
fn title_of(property: &JsonObject) -> &str {
    property
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("property")
}

fn describe(c: &dyn ComponentInfo) -> String {
    format!("{} `{}` ({})", c.component_type(), c.name(), c.id())
}

/// The titles of a component's inputs or outputs (`key`), in order.
fn titles(c: &dyn ComponentInfo, key: &str) -> Vec<String> {
    list(c, key)
        .iter()
        .map(|p| title_of(p).to_owned())
        .collect()
}

/// The property of a component's inputs or outputs (`key`) titled `title`.
fn property<'v>(c: &'v dyn ComponentInfo, key: &str, title: &str) -> Option<&'v JsonObject> {
    list(c, key).iter().find(|p| title_of(p) == title)
}

/// `{{ name }}` placeholders of a template (a name of `\w` characters, spaces around it
/// allowed), deduplicated: what the regular expression `{{\s*(\w+)\s*}}` finds, scanning
/// from the left (so `{{{ a }}` holds `a`, and `{{ a {{ b }}` holds `b`).
pub(crate) fn placeholders(template: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let inner = rest[start + 2..].trim_start();
        let length = inner
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(inner.len());
        let after = inner[length..].trim_start();
        if length > 0
            && let Some(next) = after.strip_prefix("}}")
        {
            out.insert(inner[..length].to_owned());
            rest = next;
        } else {
            // no placeholder opens here: try from the next brace
            rest = &rest[start + 1..];
        }
    }
    out
}

/// Collects diagnostics with their rule and component.
struct Report {
    diagnostics: Vec<Diagnostic>,
}

impl Report {
    fn error(
        &mut self,
        code: &'static str,
        c: &dyn ComponentInfo,
        pointer: String,
        rule: impl std::fmt::Display,
    ) {
        self.diagnostics.push(Diagnostic::error(
            code,
            format!("{}: {rule}", describe(c)),
            pointer,
            None,
        ));
    }

    fn warning(
        &mut self,
        code: &'static str,
        c: &dyn ComponentInfo,
        pointer: String,
        rule: impl std::fmt::Display,
    ) {
        self.diagnostics.push(Diagnostic::warning(
            code,
            format!("{}: {rule}", describe(c)),
            pointer,
            None,
        ));
    }
}

impl<C: crate::codec::ComponentSet + Send + Sync + 'static> crate::document::Document<C> {
    /// Checks the rules of the language the schema cannot express: flow structure, inputs
    /// and outputs, data edges and their types, property schemas, component values and
    /// version gates. Every problem is reported, each with a code, a message naming the
    /// rule and the component, and a pointer. A document loaded from text, and not changed
    /// since, gives each its line and column: a file's or a reader's text is kept to locate
    /// them, and a document of the bundled types loaded from a borrowed string was validated
    /// at load, while the text was at hand (this returns what was found then). A document of
    /// another component set loaded from a string locates them when it writes that text again
    /// (as it does what pyagentspec or this crate wrote); else [`locate`](crate::locate) adds
    /// them.
    ///
    /// The rules read the bundled component types; a document of another generated type set
    /// is checked as the bundled types read it (its load errors, if they cannot, are the
    /// diagnostics).
    pub fn validate(&self) -> Vec<Diagnostic> {
        self.validate_with(&crate::diagnostic::Levels::new())
    }

    /// [`Document::validate`](crate::document::Document::validate) with rule levels (`--deny` and `--allow` of `agentspec check`).
    pub fn validate_with(&self, levels: &crate::diagnostic::Levels) -> Vec<Diagnostic> {
        let mut found = self.validate_default();
        levels.apply(&mut found);
        found
    }

    fn validate_default(&self) -> Vec<Diagnostic> {
        if let Some(source) = &self.source
            && let crate::document::LoadedText::Validated(found) = &source.text
        {
            // validated at load, while the borrowed text was at hand
            return found.clone();
        }
        let bundled = match self.as_bundled() {
            Ok(doc) => doc,
            Err(e) => return e.diagnostics,
        };
        let mut diagnostics = validate(bundled.root(), bundled.agentspec_version());
        if self.source.is_none() {
            // built or changed in code: what no loader lets in
            diagnostics.splice(0..0, self.non_finite());
        }
        if let Some(source) = &self.source
            && !diagnostics.is_empty()
            && let Some(text) = source.text(self)
        {
            crate::document::locate(&mut diagnostics, &text, source.format);
        }
        diagnostics
    }
}

impl crate::Document {
    /// The rules' diagnostics, not located: what [`Document::validate`] finds, before it
    /// adds lines and columns.
    pub(crate) fn validate_rules(&self) -> Vec<Diagnostic> {
        validate(self.root(), self.agentspec_version())
    }
}

/// Validates the document whose root is `root`, declared at `version`.
fn validate(root: &Component, version: crate::Version) -> Vec<Diagnostic> {
    let kept = index::Kept::find(root);
    let index = Index::build(root, &kept);
    let mut report = Report {
        diagnostics: Vec::new(),
    };
    let (mut chain, mut pointer) = (Vec::new(), String::new());
    for (position, &(c, place)) in index.components.iter().enumerate() {
        // built for each component in turn, in one buffer, never kept: its length is the
        // component's depth
        index.pointer_into(place, &mut chain, &mut pointer);
        let pointer = pointer.as_str();
        let ty = c.component_type();
        let first = c.since();
        // what a component kept as read holds is the plugin's to date
        if first > version && !index.kept.contains(&position) {
            report.error(
                "version-too-old",
                c,
                token(pointer, "component_type"),
                format!("{ty} exists from Agent Spec {first}, and the document declares {version}"),
            );
        }
        for key in ["inputs", "outputs"] {
            schema::properties(&mut report, c, pointer, key);
        }
        if let Some(flow_) = typed::<crate::Flow>(c) {
            flow(&mut report, &index, c, flow_, pointer);
        } else if let Some(plugin) = c.as_plugin() {
            io::plugin_io(&mut report, c, pointer, &plugin.get().inferred_io());
        } else {
            node(&mut report, c, pointer);
            inferred_io(&mut report, &index, c, pointer);
        }
        values(&mut report, c, pointer);
        llm::dbms_vector_chain(&mut report, c, pointer);
        retry_policies(&mut report, c, pointer);
        section_seven(&mut report, &index, c, pointer);
    }
    report.diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_placeholders() {
        let found = placeholders("Hi {{ name }}, {{city}} and {{ a.b }} {{ bad-name }} {{name}}");
        assert_eq!(found.into_iter().collect::<Vec<_>>(), ["city", "name"]);
        // as the regular expression scans: from each `{{`, the first that opens one
        let nested = placeholders("{{{ a }} {{ b {{ c }} {{ d }}} {{}} {{ e }");
        assert_eq!(nested.into_iter().collect::<Vec<_>>(), ["a", "c", "d"]);
    }

    #[test]
    fn converts_types_as_the_language_says() {
        let s = json!({"type": "string"});
        let i = json!({"type": "integer"});
        let b = json!({"type": "boolean"});
        let list = json!({"type": "array", "items": {"type": "integer"}});
        assert!(castable(&list, &s), "everything converts to string");
        assert!(castable(&i, &b) && castable(&b, &i));
        assert!(!castable(&s, &i));
        assert!(castable(
            &json!({"anyOf": [i, b]}),
            &json!({"type": "number"})
        ));
        assert!(!castable(
            &json!({"anyOf": [i, s]}),
            &json!({"type": "number"})
        ));
        assert!(castable(
            &json!({"type": "object", "properties": {"x": i}}),
            &json!({"type": "object", "properties": {"x": s}})
        ));
        assert!(!castable(
            &json!({"type": "object", "properties": {}}),
            &json!({"type": "object", "properties": {"x": s}})
        ));
    }
}
