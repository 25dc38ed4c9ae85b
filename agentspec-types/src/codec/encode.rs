//! The checks of the declared value-dependent version gates, run when writing.

/// The checks of the declared value-dependent version gates.
pub mod gates {
    use crate::codec::{Encode, Encoder};
    use crate::syntax::value::ValueSink;
    use crate::version::Version;

    /// Whether `value` is written as the string `expected` (an enum value, possibly optional).
    pub fn holds<T: Encode>(value: &T, expected: &str) -> bool {
        let mut sink = ValueSink::new();
        value.encode(&mut sink, &Encoder::new(Version::NEVER, true));
        sink.finish().as_str() == Some(expected)
    }

    /// Structured generation: several outputs, or one that is not a string.
    pub fn structured_outputs(outputs: &Option<Vec<crate::JsonObject>>) -> bool {
        outputs.as_ref().is_some_and(|o| {
            o.len() > 1
                || o.first().is_some_and(|p| {
                    p.get("type").and_then(serde_json::Value::as_str) != Some("string")
                })
        })
    }

    /// A request body that is not a JSON object.
    pub fn data_not_object(data: &serde_json::Value) -> bool {
        !data.is_object()
    }
}
