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

    /// A request body that is not a JSON object. The body is any JSON value from 26.1.0 on,
    /// and an object in older schema files, whose generated field can never fail the gate.
    pub fn data_not_object(data: &impl Body) -> bool {
        !data.is_json_object()
    }

    /// A request body: any JSON value, or a JSON object.
    pub trait Body {
        /// Whether the body is a JSON object.
        fn is_json_object(&self) -> bool;
    }

    impl Body for serde_json::Value {
        fn is_json_object(&self) -> bool {
            self.is_object()
        }
    }

    impl Body for crate::JsonObject {
        fn is_json_object(&self) -> bool {
            true
        }
    }
}
