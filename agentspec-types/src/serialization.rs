//! serde for the component types (feature `serde`): every generated type, [`RefOr`],
//! [`Sensitive`] and [`Document`] implement `Serialize` and
//! `Deserialize`, so that a component can sit in a struct of your own and travel through
//! `serde_json`, a YAML crate, or a web framework's `Json<_>`.
//!
//! ```
//! use agentspec_types::{AnyLlmConfig, VllmConfig};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct AppConfig {
//!     port: u16,
//!     llm: AnyLlmConfig,
//! }
//!
//! let config = AppConfig {
//!     port: 8080,
//!     llm: VllmConfig::new("vllm", "llama", "http://localhost:8000").with_id("llm").into(),
//! };
//! let text = serde_json::to_string(&config)?;
//! assert!(text.contains(r#""llm":{"component_type":"VllmConfig","id":"llm""#));
//! assert!(text.ends_with(r#""agentspec_version":"25.4.1"}}"#));
//! assert_eq!(serde_json::from_str::<AppConfig>(&text)?, config);
//!
//! // the loader's checks: the error names the component, the field and the path
//! let wrong = r#"{"port": 1, "llm": {"component_type": "VllmConfig", "id": "l", "name": "l",
//!                                    "url": "http://x", "model_id": 7}}"#;
//! let error = serde_json::from_str::<AppConfig>(wrong).unwrap_err().to_string();
//! assert!(error.contains("/model_id"), "{error}");
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! # What is written
//!
//! - A **component** (a component type such as `Agent`, or a family such as `AnyLlmConfig` or
//!   `Component`) is written as the document pyagentspec writes for it alone: its fields in
//!   pyagentspec's order, the components it uses twice under `$referenced_components`, and
//!   `agentspec_version` last, the oldest version that can hold it (as
//!   [`Document::at_min_version`]).
//! - A **value** (`LlmGenerationConfig`, an enum such as `OpenAIAPIType`) is written as it is
//!   inside a component, at the newest version.
//! - A [`Document`] is written as [`Document::to_value`] writes it.
//! - [`RefOr::Ref`] is `{"$component_ref": id}`.
//!
//! # Secrets
//!
//! Secrets are redacted, as pyagentspec redacts them: a component's sensitive field is written
//! as the `{"$component_ref": "<id>.<field>"}` placeholder, and a bare [`Sensitive`] value as
//! `{"$component_ref": "redacted"}`, which reads back as a placeholder whose
//! [`Sensitive::value`] is an error (never as a value). To write the values, opt in, for one
//! field with `#[serde(with = "agentspec_types::serialization::with_secrets")]`, or for one
//! call with [`WithSecrets`]:
//!
//! ```
//! use agentspec_types::OpenAiCompatibleConfig;
//! use agentspec_types::serialization::WithSecrets;
//!
//! let llm = OpenAiCompatibleConfig::new("llm", "gpt", "http://x").with_id("llm").with_api_key("sk-1");
//! let redacted = serde_json::to_value(&llm)?;
//! assert_eq!(redacted["api_key"], serde_json::json!({"$component_ref": "llm.api_key"}));
//! let included = serde_json::to_value(WithSecrets(&llm))?;
//! assert_eq!(included["api_key"], "sk-1");
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! # Reading
//!
//! Reading runs the loader on the value: a wrong `component_type`, a missing field, a bad
//! value or a dangling reference is an error whose message has the loader's diagnostics (code,
//! rule, JSON pointer inside the component). A missing `agentspec_version` reads as the newest
//! version. Warnings are not reported. The pointer is relative to the component; for the path
//! to it inside your own struct, deserialize through `serde_path_to_error`, which puts the two
//! together (`agent` + `/llm_config/model_id`).
//!
//! # References inside an embedded component
//!
//! An embedded component is a document of its own: a `{"$component_ref": id}` inside it names
//! a component of its own `$referenced_components` (or one defined inline elsewhere inside it),
//! never something else in your struct. A [`RefOr`] field of your own struct, outside any
//! component, is read and written as it is, unresolved.

use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::check::Registry;
use crate::codec::{ComponentSet, Decode, Decoder, Encode, Path};
use crate::document::decode::decode_rooted;
use crate::document::{Document, LoadError, WriteOptions};
use crate::model::encoder::Encoder;
use crate::model::refs::{ComponentRef, RefOr, Sensitive};
use crate::syntax::value::{ValueSink, value_to_node};

/// How a generated type turns into and from JSON; `#[derive(AgentSpec)]` implements it, and
/// its `Serialize` and `Deserialize` call it.
#[doc(hidden)]
pub trait AgentSpecSerde: Sized {
    /// The JSON of the value, secrets included or redacted (an error when it cannot be
    /// written: two different components with one id).
    fn to_json(&self, include_secrets: bool) -> Result<Value, LoadError>;
    /// Reads the value with the loader's checks.
    fn from_json(value: &Value) -> Result<Self, LoadError>;
}

/// What the generated impls of a component (a component type or a family) call.
#[doc(hidden)]
pub mod component {
    use super::*;

    /// The component as a document of its own, as
    /// [`Document::at_min_version`](crate::document::Document::at_min_version) writes it.
    pub fn to_json<C: ComponentSet + Send + Sync, T: Clone + Into<C>>(
        component: &T,
        include_secrets: bool,
    ) -> Result<Value, LoadError> {
        let doc = Document::<C>::at_min_version(component.clone())?;
        Ok(doc.to_value_with(&WriteOptions::new().include_secrets(include_secrets)))
    }

    /// Reads a component of type `T` as a document of the set `C`.
    pub fn from_json<C: ComponentSet, T: Decode>(value: &Value) -> Result<T, LoadError> {
        let tree = crate::syntax::value::value_to_numbered_node(value);
        let origin = crate::check::Origin::Value(value);
        decode_rooted::<C, T>(tree, origin, &Path::ROOT, &Registry::default(), T::decode)
            .map(|(root, _, _)| root)
    }
}

/// What the generated impls of a value (a value struct, a string enum, a union) call.
#[doc(hidden)]
pub mod value {
    use super::*;

    /// The value as it is written inside a component, at the newest version.
    pub fn to_json<C: ComponentSet, T: Encode>(
        value: &T,
        include_secrets: bool,
    ) -> Result<Value, LoadError> {
        let newest = C::VERSIONS.last().copied().unwrap_or(crate::Version::NEVER);
        let mut sink = ValueSink::new();
        value.encode(&mut sink, &Encoder::new(newest, include_secrets));
        Ok(sink.finish())
    }

    /// Reads a value with the checks of its type, at the newest version.
    pub fn from_json<C: ComponentSet, T: Decode>(value: &Value) -> Result<T, LoadError> {
        let mut cx = Decoder::new(C::TYPES, C::VERSIONS);
        cx.secret_fields = C::SECRET_FIELDS;
        cx.eager_pointers = true;
        cx.version = C::VERSIONS.last().copied();
        let decoded = T::decode(value_to_node(value), &mut cx, &Path::ROOT);
        let diagnostics = std::mem::take(&mut cx.diagnostics);
        match decoded {
            Some(v) if !diagnostics.iter().any(|d| d.is_error()) => Ok(v),
            _ => Err(LoadError::new(diagnostics)),
        }
    }
}

/// Writes `value` through its JSON, secrets included or redacted.
#[doc(hidden)]
pub fn serialize<T: AgentSpecSerde, S: Serializer>(
    value: &T,
    include_secrets: bool,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    value
        .to_json(include_secrets)
        .map_err(S::Error::custom)?
        .serialize(serializer)
}

/// Reads `T` through a JSON value, mapping a loader error to the deserializer's error.
#[doc(hidden)]
pub fn deserialize<'de, T: AgentSpecSerde, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    let value = Value::deserialize(deserializer)?;
    T::from_json(&value).map_err(|e| D::Error::custom(errors(&e)))
}

/// The errors of a load, without the header a whole document's error has: the component
/// read is part of whatever the user deserializes.
fn errors(error: &LoadError) -> String {
    error
        .errors()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// `Serialize` and `Deserialize` for a generated type (with the `serde` feature; nothing
/// without it). `$kind` is `component` or `value`, `$set` the component set.
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_serde {
    ($kind:ident, $set:ty, $t:ty) => {
        #[automatically_derived]
        impl $crate::serialization::AgentSpecSerde for $t {
            fn to_json(
                &self,
                include_secrets: bool,
            ) -> ::core::result::Result<$crate::serde_json::Value, $crate::LoadError> {
                $crate::serialization::$kind::to_json::<$set, Self>(self, include_secrets)
            }
            fn from_json(
                value: &$crate::serde_json::Value,
            ) -> ::core::result::Result<Self, $crate::LoadError> {
                $crate::serialization::$kind::from_json::<$set, Self>(value)
            }
        }
        #[automatically_derived]
        impl $crate::serde::Serialize for $t {
            fn serialize<S: $crate::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                $crate::serialization::serialize(self, false, serializer)
            }
        }
        #[automatically_derived]
        impl $crate::serialization::SerializeWithSecrets for $t {
            fn serialize_with_secrets<S: $crate::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                $crate::serialization::serialize(self, true, serializer)
            }
        }
        #[automatically_derived]
        impl<'de> $crate::serde::Deserialize<'de> for $t {
            fn deserialize<D: $crate::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                $crate::serialization::deserialize(deserializer)
            }
        }
    };
}

/// A value whose secrets can be written (see [`with_secrets`] and [`WithSecrets`]).
pub trait SerializeWithSecrets {
    /// Serializes the value with the values of its secrets instead of placeholders.
    fn serialize_with_secrets<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

impl<T: SerializeWithSecrets> SerializeWithSecrets for Option<T> {
    fn serialize_with_secrets<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Some(v) => serializer.serialize_some(&WithSecrets(v)),
            None => serializer.serialize_none(),
        }
    }
}

impl<T: SerializeWithSecrets> SerializeWithSecrets for Vec<T> {
    fn serialize_with_secrets<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter().map(WithSecrets))
    }
}

impl<T: SerializeWithSecrets> SerializeWithSecrets for RefOr<T> {
    fn serialize_with_secrets<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RefOr::Ref(r) => reference(&r.id, serializer),
            RefOr::Inline(c) => c.serialize_with_secrets(serializer),
        }
    }
}

impl<T: Serialize> SerializeWithSecrets for Sensitive<T> {
    fn serialize_with_secrets<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Sensitive::Value(v) => v.serialize(serializer),
            Sensitive::Placeholder(p) => reference(p, serializer),
        }
    }
}

impl<C: ComponentSet + Send + Sync> SerializeWithSecrets for Document<C> {
    fn serialize_with_secrets<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value_with(&WriteOptions::new().include_secrets(true))
            .serialize(serializer)
    }
}

/// Serializes the value it holds with its secrets (an explicit opt-in: the output then holds
/// secrets): `serde_json::to_string(&WithSecrets(&agent))`.
#[derive(Debug, Clone, Copy)]
pub struct WithSecrets<'a, T: ?Sized>(pub &'a T);

impl<T: SerializeWithSecrets + ?Sized> Serialize for WithSecrets<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_with_secrets(serializer)
    }
}

/// For `#[serde(with = "agentspec_types::serialization::with_secrets")]`: the field is written
/// with its secrets, and read as usual.
pub mod with_secrets {
    use super::*;

    /// Writes `value` with its secrets.
    pub fn serialize<T: SerializeWithSecrets + ?Sized, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value.serialize_with_secrets(serializer)
    }

    /// Reads the value as its `Deserialize` does.
    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        T::deserialize(deserializer)
    }
}

fn reference<S: Serializer>(id: &str, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = serializer.serialize_map(Some(1))?;
    map.serialize_entry("$component_ref", id)?;
    map.end()
}

/// `{"$component_ref": id}` when `value` is exactly that.
fn reference_in(value: &Value) -> Option<&str> {
    match value {
        Value::Object(map) if map.len() == 1 => map.get("$component_ref")?.as_str(),
        _ => None,
    }
}

impl<T: Serialize> Serialize for RefOr<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RefOr::Ref(r) => reference(&r.id, serializer),
            RefOr::Inline(c) => c.serialize(serializer),
        }
    }
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for RefOr<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if let Some(id) = reference_in(&value) {
            return Ok(RefOr::Ref(ComponentRef::new(id)));
        }
        T::deserialize(value)
            .map(RefOr::Inline)
            .map_err(D::Error::custom)
    }
}

/// The placeholder of a secret written without its owner: it reads back as a placeholder.
const REDACTED: &str = "redacted";

impl<T: Serialize> Serialize for Sensitive<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Sensitive::Value(_) => reference(REDACTED, serializer),
            Sensitive::Placeholder(p) => reference(p, serializer),
        }
    }
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Sensitive<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if let Some(placeholder) = reference_in(&value) {
            return Ok(Sensitive::Placeholder(placeholder.to_owned()));
        }
        T::deserialize(value)
            .map(Sensitive::Value)
            .map_err(D::Error::custom)
    }
}

impl<C: ComponentSet + Send + Sync> Serialize for Document<C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de, C: ComponentSet + Send + Sync> Deserialize<'de> for Document<C> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Document::from_value(&value).map_err(|e| D::Error::custom(errors(&e)))
    }
}
