//! Type conversion between property schemas (the language's rules).

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;

pub(crate) fn type_name(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => other.to_string(),
        None if schema.get("anyOf").is_some() => "a union".into(),
        None => "any".into(),
    }
}

/// Whether values of schema `a` convert to schema `b` (the language's conversion rules).
pub(crate) fn castable(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        v.as_object().map(|m| {
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "title" | "description" | "default"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Map<_, _>>()
        })
    };
    if strip(a) == strip(b) {
        return true;
    }
    let alternatives = |v: &Value| -> Vec<Value> {
        match (v.get("anyOf").and_then(Value::as_array), v.get("type")) {
            (Some(alts), _) => alts.clone(),
            (None, Some(Value::Array(types))) => types
                .iter()
                .map(|t| serde_json::json!({ "type": t }))
                .collect(),
            _ => vec![v.clone()],
        }
    };
    let (aa, bb) = (alternatives(a), alternatives(b));
    if aa.len() > 1 || bb.len() > 1 {
        return aa.iter().all(|x| bb.iter().any(|y| castable(x, y)));
    }
    let tb = b.get("type").and_then(Value::as_str);
    let ta = a.get("type").and_then(Value::as_str);
    match (ta, tb) {
        (_, None) => true,
        (_, Some("string")) => true,
        (Some(x), Some(y))
            if ["number", "integer", "boolean"].contains(&x)
                && ["number", "integer", "boolean"].contains(&y) =>
        {
            true
        }
        (Some("array"), Some("array")) => match (a.get("items"), b.get("items")) {
            (Some(x), Some(y)) => castable(x, y),
            _ => true,
        },
        (Some("object"), Some("object")) => {
            let pa = a.get("properties").and_then(Value::as_object);
            b.get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .all(|(k, vb)| {
                    pa.and_then(|pa| pa.get(k))
                        .is_some_and(|va| castable(va, vb))
                })
        }
        (Some(x), Some(y)) => x == y,
        (None, Some(_)) => false,
    }
}
