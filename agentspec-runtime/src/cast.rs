//! Values cast to the JSON Schema type of the property they fill, as Agent Spec's type
//! compatibility rules allow: anything to a string (JSON text for what is not one, `null`
//! as the empty string), integer and number both ways (a number truncated to an integer),
//! boolean and number both ways (0 is false), and a string to a number, an integer or a
//! boolean when it reads as one (`"true"` and `"false"` only: not by truthiness). Arrays
//! and objects are cast item by item and property by property.

use serde_json::{Map, Value};

/// Why a value does not fit a property's type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{value} cannot be cast to {expected}")]
pub struct CastError {
    /// The value, as JSON (shortened).
    pub value: String,
    /// The type it should have had.
    pub expected: String,
}

fn cast_error(value: &Value, expected: &str) -> CastError {
    CastError {
        value: crate::short_json(value),
        expected: expected.to_owned(),
    }
}

/// The types a schema allows: its `type` (one or a list), else those of its `anyOf`
/// branches; empty when it says none (anything goes).
fn types(schema: &Map<String, Value>) -> Vec<(&str, &Map<String, Value>)> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![(t.as_str(), schema)],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(|t| (t, schema))
            .collect(),
        _ => schema
            .get("anyOf")
            .and_then(Value::as_array)
            .map(|branches| {
                branches
                    .iter()
                    .filter_map(Value::as_object)
                    .flat_map(types)
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn is_whole(f: f64) -> bool {
    f.is_finite() && f.fract() == 0.0
}

/// Whether `value` is of type `ty` as it is.
fn is_of(value: &Value, ty: &str) -> bool {
    match (ty, value) {
        ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("null", Value::Null)
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(is_whole)
        }
        _ => false,
    }
}

fn number(f: f64) -> Option<Value> {
    serde_json::Number::from_f64(f).map(Value::Number)
}

/// `value` cast to the single type `ty` (whose schema is `schema`), if the rules allow.
fn cast_to(value: &Value, ty: &str, schema: &Map<String, Value>) -> Option<Value> {
    match (ty, value) {
        ("string", Value::String(_)) => Some(value.clone()),
        ("string", Value::Null) => Some(Value::String(String::new())),
        ("string", other) => Some(Value::String(other.to_string())),
        ("integer", Value::Number(n)) => {
            if n.is_i64() || n.is_u64() {
                Some(value.clone())
            } else {
                let f = n.as_f64()?.trunc();
                (f.is_finite() && f.abs() < 9.2e18).then(|| Value::from(f as i64))
            }
        }
        ("integer", Value::Bool(b)) => Some(Value::from(i64::from(*b))),
        ("integer", Value::String(s)) => s.trim().parse::<i64>().ok().map(Value::from),
        ("number", Value::Number(_)) => Some(value.clone()),
        ("number", Value::Bool(b)) => Some(Value::from(i64::from(*b))),
        ("number", Value::String(s)) => {
            let s = s.trim();
            s.parse::<i64>().ok().map(Value::from).or_else(|| {
                s.parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .and_then(number)
            })
        }
        ("boolean", Value::Bool(_)) => Some(value.clone()),
        ("boolean", Value::Number(n)) => Some(Value::Bool(n.as_f64() != Some(0.0))),
        ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("null", Value::Null) => Some(Value::Null),
        ("array", Value::Array(items)) => match schema.get("items").and_then(Value::as_object) {
            Some(item) => items
                .iter()
                .map(|v| cast(v, item).ok())
                .collect::<Option<Vec<_>>>()
                .map(Value::Array),
            None => Some(value.clone()),
        },
        ("object", Value::Object(map)) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let mut out = Map::new();
            for (k, v) in map {
                let v = match properties.and_then(|p| p.get(k)).and_then(Value::as_object) {
                    Some(property) => cast(v, property).ok()?,
                    None => v.clone(),
                };
                out.insert(k.clone(), v);
            }
            // the defaults of properties left out
            if let Some(properties) = properties {
                for (k, property) in properties {
                    if let Some(default) = property.get("default")
                        && !out.contains_key(k)
                    {
                        out.insert(k.clone(), default.clone());
                    }
                }
            }
            Some(Value::Object(out))
        }
        _ => None,
    }
}

/// `value` cast to the type `schema` gives. A value already of one of the allowed types is
/// kept (containers are still cast inside); otherwise the first type it casts to wins.
pub fn cast(value: &Value, schema: &Map<String, Value>) -> Result<Value, CastError> {
    let allowed = types(schema);
    if allowed.is_empty() {
        return Ok(value.clone());
    }
    let own = allowed.iter().find(|(ty, _)| {
        is_of(value, ty)
            || matches!(
                (*ty, value),
                ("array", Value::Array(_)) | ("object", Value::Object(_))
            )
    });
    if let Some(v) = own.and_then(|(ty, s)| cast_to(value, ty, s)) {
        return Ok(v);
    }
    allowed
        .iter()
        .find_map(|(ty, s)| cast_to(value, ty, s))
        .ok_or_else(|| {
            let names: Vec<&str> = allowed.iter().map(|(t, _)| *t).collect();
            cast_error(value, &names.join(" or "))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn to(value: Value, schema: Value) -> Result<Value, CastError> {
        cast(&value, schema.as_object().unwrap())
    }

    #[test]
    fn anything_becomes_a_string() {
        let s = json!({"type": "string"});
        assert_eq!(to(json!("x"), s.clone()), Ok(json!("x")));
        assert_eq!(to(json!(3), s.clone()), Ok(json!("3")));
        assert_eq!(to(json!(true), s.clone()), Ok(json!("true")));
        assert_eq!(to(json!({"a": 1}), s.clone()), Ok(json!("{\"a\":1}")));
        assert_eq!(to(json!(null), s), Ok(json!("")));
    }

    #[test]
    fn numbers_integers_and_booleans_convert_both_ways() {
        assert_eq!(to(json!(2.9), json!({"type": "integer"})), Ok(json!(2)));
        assert_eq!(to(json!(-2.9), json!({"type": "integer"})), Ok(json!(-2)));
        assert_eq!(to(json!(4), json!({"type": "number"})), Ok(json!(4)));
        assert_eq!(to(json!(true), json!({"type": "integer"})), Ok(json!(1)));
        assert_eq!(to(json!(0), json!({"type": "boolean"})), Ok(json!(false)));
        assert_eq!(to(json!(0.5), json!({"type": "boolean"})), Ok(json!(true)));
    }

    #[test]
    fn strings_that_read_as_the_type_are_parsed_and_others_refused() {
        assert_eq!(to(json!(" 12 "), json!({"type": "integer"})), Ok(json!(12)));
        assert_eq!(to(json!("1.5"), json!({"type": "number"})), Ok(json!(1.5)));
        assert_eq!(
            to(json!("false"), json!({"type": "boolean"})),
            Ok(json!(false))
        );
        let err = to(json!("no"), json!({"type": "boolean"})).unwrap_err();
        assert_eq!(err.to_string(), "\"no\" cannot be cast to boolean");
        assert!(to(json!("1.5"), json!({"type": "integer"})).is_err());
        assert!(to(json!([1]), json!({"type": "object"})).is_err());
    }

    #[test]
    fn containers_are_cast_inside_and_objects_get_their_defaults() {
        let schema = json!({"type": "array", "items": {"type": "integer"}});
        assert_eq!(to(json!([1.7, "2", true]), schema), Ok(json!([1, 2, 1])));
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "number"}, "s": {"type": "string", "default": "d"}}});
        assert_eq!(to(json!({"n": "3"}), schema), Ok(json!({"n": 3, "s": "d"})));
    }

    #[test]
    fn a_union_keeps_a_value_of_one_of_its_types() {
        let schema = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
        assert_eq!(to(json!(null), schema.clone()), Ok(json!(null)));
        assert_eq!(to(json!(5), schema), Ok(json!("5")));
        assert_eq!(
            to(json!(5), json!({"type": ["null", "integer"]})),
            Ok(json!(5))
        );
        assert_eq!(to(json!({"x": 1}), json!({})), Ok(json!({"x": 1})));
    }
}
