//! Placeholders: `{{ name }}` in prompts and messages, found and filled as pyagentspec's
//! rules say. A placeholder is `{{`, optional white space, a name of word characters
//! (letters, digits and `_`, Unicode included), optional white space and `}}`; nothing else
//! is one (`{{ a.b }}`, `{{ a | f }}` and `{% … %}` are text). The template is scanned once,
//! from left to right: a placeholder whose name is an input is replaced by the input's text,
//! any other is left as written, and text put in is never scanned again.

use serde_json::Value;

/// One placeholder found at `start..end` of a template, naming `name`.
struct Found<'a> {
    start: usize,
    end: usize,
    name: &'a str,
}

fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// The placeholder that starts at byte `at` of `text`, if one does.
fn placeholder_at(text: &str, at: usize) -> Option<Found<'_>> {
    let rest = text[at..].strip_prefix("{{")?;
    let trimmed = rest.trim_start();
    let name_start = at + 2 + (rest.len() - trimmed.len());
    let name_len: usize = trimmed
        .chars()
        .take_while(|c| is_word(*c))
        .map(char::len_utf8)
        .sum();
    if name_len == 0 {
        return None;
    }
    let after = trimmed[name_len..].trim_start();
    after.strip_prefix("}}")?;
    let end = text.len() - after.len() + 2;
    Some(Found {
        start: at,
        end,
        name: &text[name_start..name_start + name_len],
    })
}

/// Every placeholder of `text`, in order (non-overlapping, scanned from the left).
fn scan(text: &str) -> impl Iterator<Item = Found<'_>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(i) = text[at..].find("{{") {
            let start = at + i;
            if let Some(found) = placeholder_at(text, start) {
                at = found.end;
                return Some(found);
            }
            // not a placeholder here: the next `{{` may start one character later
            at = start + 1;
        }
        at = text.len();
        None
    })
}

/// The distinct placeholder names of `text`, in the order they first appear: the inputs a
/// prompt or message template infers.
pub fn placeholder_names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for found in scan(text) {
        if !names.iter().any(|n| n == found.name) {
            names.push(found.name.to_owned());
        }
    }
    names
}

/// The text a value stands for in a template: a string as it is, anything else as JSON
/// (`null` is empty).
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A tool's result as the text of its message to the model: a string as it is, anything
/// else as JSON spaced as Python's `json.dumps` spaces it (`{"a": 1, "b": [1, 2]}`), which
/// is what wayflowcore sends, so that test doubles keyed on its tool messages carry over
/// (`null` is empty).
pub fn result_text(value: &Value) -> String {
    /// `, ` between items and `: ` after keys, on one line.
    struct Spaced;
    fn between<W: ?Sized + std::io::Write>(writer: &mut W, first: bool) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            between(writer, first)
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            between(writer, first)
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
        ) -> std::io::Result<()> {
            writer.write_all(b": ")
        }
    }
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => {
            let mut out = Vec::new();
            let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
            serde::Serialize::serialize(other, &mut ser).expect("a JSON value writes");
            String::from_utf8(out).expect("JSON is UTF-8")
        }
    }
}

/// Fills the placeholders of `template` whose names `lookup` knows; the others stay as
/// written. One pass: what is put in is never read for placeholders.
pub fn render<'v>(template: &str, lookup: impl Fn(&str) -> Option<&'v Value>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut copied = 0;
    for found in scan(template) {
        if let Some(value) = lookup(found.name) {
            out.push_str(&template[copied..found.start]);
            out.push_str(&value_text(value));
            copied = found.end;
        }
    }
    out.push_str(&template[copied..]);
    out
}

/// Fills the placeholders of every string in `value`, object keys included, at any depth
/// (the `data`, `headers` and `query_params` of API calls).
pub fn render_value<'v>(value: &Value, lookup: &impl Fn(&str) -> Option<&'v Value>) -> Value {
    match value {
        Value::String(s) => Value::String(render(s, lookup)),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| render_value(v, lookup)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (render(k, lookup), render_value(v, lookup)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fill(template: &str, inputs: Value) -> String {
        render(template, |name| inputs.get(name))
    }

    #[test]
    fn fills_known_names_and_leaves_the_others_as_written() {
        assert_eq!(
            fill("Hi {{ name }}, {{other}} {{name}}!", json!({"name": "Ada"})),
            "Hi Ada, {{other}} Ada!"
        );
    }

    #[test]
    fn never_reads_what_it_put_in() {
        assert_eq!(
            fill("{{ b{{a}} }}{{b1}}", json!({"a": 1, "b1": 3})),
            "{{ b1 }}3"
        );
        assert_eq!(fill("{{{{a}}}}", json!({"a": " b "})), "{{ b }}");
        assert_eq!(fill("{{a}}", json!({"a": "{{a}}"})), "{{a}}");
    }

    #[test]
    fn only_word_names_are_placeholders() {
        assert_eq!(
            placeholder_names("{{ a.b }} {{a | f}} {% x %} {{ a b }} {{_x1}} {{ é }}"),
            ["_x1", "é"]
        );
        assert_eq!(
            fill("{{.*}} {{a|b}}", json!({".*": 1, "a|b": 2})),
            "{{.*}} {{a|b}}"
        );
    }

    #[test]
    fn names_are_listed_once_in_order() {
        assert_eq!(placeholder_names("{{b}} {{a}} {{ b }}"), ["b", "a"]);
    }

    #[test]
    fn non_strings_are_written_as_json() {
        assert_eq!(
            fill(
                "{{n}} {{b}} {{o}} {{z}}",
                json!({"n": 2.5, "b": true, "o": {"k": [1]}, "z": null})
            ),
            "2.5 true {\"k\":[1]} "
        );
    }

    #[test]
    fn tool_results_are_spaced_as_python_writes_them() {
        assert_eq!(
            result_text(&json!({"result": 29.0, "l": [1, "a", {}], "e": []})),
            r#"{"result": 29.0, "l": [1, "a", {}], "e": []}"#
        );
        assert_eq!(result_text(&json!("as it is")), "as it is");
        assert_eq!(result_text(&json!(3)), "3");
        assert_eq!(result_text(&Value::Null), "");
    }

    #[test]
    fn keys_and_values_are_filled_at_any_depth() {
        let inputs = json!({"id": 7, "k": "key"});
        let out = render_value(
            &json!({"{{k}}": ["{{id}}", {"q": "x{{id}}"}], "n": 1}),
            &|name| inputs.get(name),
        );
        assert_eq!(out, json!({"key": ["7", {"q": "x7"}], "n": 1}));
    }
}
