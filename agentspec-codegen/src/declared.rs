//! The declared table: what the schema files cannot say, kept in one place.
//!
//! Everything else the generator knows comes from the files themselves. Each entry says
//! why it is here; the README's "Declared table" section lists them for users.

use serde_json::Value;

use crate::model::Version;

/// Fields pyagentspec treats as sensitive (`SensitiveField[...]` in its classes): written
/// as `{"$component_ref": "<id>.<field>"}` placeholders when exported without secrets.
/// The schema types them as plain values. Matched by field name on every component.
const SENSITIVE: &[&str] = &[
    "api_key",
    "auth_file_location",
    "ca_file",
    "cert_file",
    "client_id",
    "client_id_metadata_url",
    "client_secret",
    "credentials",
    "dsn",
    "key_file",
    "password",
    "sensitive_headers",
    "sslkey",
    "user",
    "wallet_location",
    "wallet_password",
];

/// Whether a field holds a secret.
pub(crate) fn is_sensitive(field: &str) -> bool {
    SENSITIVE.contains(&field)
}

/// Defaults the schema leaves out: pyagentspec's `metadata` and the `data` of ApiNode and
/// RemoteTool default to an empty object (`Field(default_factory=dict)`), while the schema
/// declares no default.
pub(crate) fn default_of(field: &str) -> Option<Value> {
    matches!(field, "metadata" | "data").then(|| Value::Object(Default::default()))
}

/// Value structs whose `null` fields pyagentspec leaves out (`exclude_none=True` in
/// `LlmGenerationConfig.model_dump`).
pub(crate) fn skips_null(owner: &str) -> bool {
    owner == "LlmGenerationConfig"
}

/// Components whose key order in pyagentspec's output differs from the schema's
/// `properties` order. `None`: the schema's order is pyagentspec's.
pub(crate) fn field_order(_component: &str) -> Option<&'static [&'static str]> {
    None
}

/// A version no document has: a field "written from" it is written only when it holds
/// something other than its default (never silently dropped, never written by default).
pub(crate) const NEVER: Version = Version(u16::MAX, u16::MAX, u16::MAX);

/// From which version pyagentspec writes a field, where that differs from the schema files
/// (which are snapshots of the SDK and list fields it leaves out of its output).
pub(crate) fn written_from(component: &str, field: &str) -> Option<Version> {
    match (component, field) {
        // `OpenAiConfig._versioned_model_fields_to_exclude`: the key exists from 25.4.2,
        // though the 25.4.2 schema file lacks it.
        ("OpenAiConfig", "api_key") => Some(Version(25, 4, 2)),
        // Fields implied by the component type, or not used by the provider: pyagentspec
        // excludes them at every version.
        ("OpenAiConfig", "provider" | "api_provider" | "url")
        | ("OciGenAiConfig", "api_provider" | "api_key" | "url")
        | ("VllmConfig" | "OllamaConfig", "api_provider")
        | ("GeminiConfig", "provider" | "url") => Some(NEVER),
        _ => None,
    }
}

/// A value that needs a newer version than its field exists from (pyagentspec's
/// `_infer_min_agentspec_version_from_configuration`): checked when writing.
pub(crate) enum Gate {
    /// The field holds this enum value.
    Equals(&'static str),
    /// A check of the runtime's `codec::gates` module, by name.
    Check(&'static str),
}

/// Value-dependent version gates the schema files cannot say, with what holds the value
/// (for messages: "`LlmNode.outputs` with …").
pub(crate) fn value_gate(component: &str, field: &str) -> Option<(Version, Gate, &'static str)> {
    match (component, field) {
        // The `XAI` provider exists from 26.1.2.
        ("OciGenAiConfig", "provider") => {
            Some((Version(26, 1, 2), Gate::Equals("XAI"), "set to `XAI`"))
        }
        // Structured generation (several outputs, or a non-string one) exists from 25.4.2.
        ("LlmNode", "outputs") => Some((
            Version(25, 4, 2),
            Gate::Check("structured_outputs"),
            "with several outputs, or one that is not a string (structured generation),",
        )),
        // A body that is not a JSON object (a string or bytes) exists from 25.4.2.
        ("ApiNode" | "RemoteTool", "data") => Some((
            Version(25, 4, 2),
            Gate::Check("data_not_object"),
            "that is not a JSON object",
        )),
        _ => None,
    }
}

/// Newer fields the reference SDK reads in older documents without raising their version,
/// and only drops when it writes them (REFERENCE-SEMANTICS 6.3: `provider` on a
/// `VllmConfig` in a 25.4.1 document). Reading one is a warning; every other newer field
/// holding a value is an error, as its value changes the meaning.
pub(crate) fn informational(_component: &str, field: &str) -> bool {
    field == "provider"
}

/// A legacy value pyagentspec upgrades when it reads it, and so writes in its new form.
pub(crate) struct Upgrade {
    /// The field holding it.
    pub field: &'static str,
    /// The legacy value, as a Rust pattern over the generated types.
    pub from: &'static str,
    /// What it becomes, as a Rust expression over the generated types.
    pub to: &'static str,
    /// The values, for the warning.
    pub message: &'static str,
}

/// Legacy values by component (pyagentspec's `model_validator(mode="before")` upgrades).
pub(crate) fn legacy_upgrades(component: &str) -> &'static [Upgrade] {
    match component {
        // `handoff` was a boolean until `HandoffMode` (pyagentspec `swarm.py`): `true` is
        // `"optional"`, `false` is `"never"`.
        "Swarm" => &[
            Upgrade {
                field: "handoff",
                from: "SwarmHandoff::Bool(true)",
                to: "SwarmHandoff::HandoffMode(HandoffMode::Optional)",
                message: "`handoff: true` is the legacy form of `\"optional\"`, and is written as `\"optional\"`",
            },
            Upgrade {
                field: "handoff",
                from: "SwarmHandoff::Bool(false)",
                to: "SwarmHandoff::HandoffMode(HandoffMode::Never)",
                message: "`handoff: false` is the legacy form of `\"never\"`, and is written as `\"never\"`",
            },
        ],
        _ => &[],
    }
}
