//! The declared table: what the schema files cannot say, kept in one place and keyed by
//! component and field.
//!
//! Everything else the generator knows comes from the files themselves. Each entry says
//! why it is here; [`read`](crate::read) resolves every entry into the
//! [`Model`](crate::model::Model)'s fields, so the emitter and `diff` see only the model.
//! The README's "Declared table" section lists them for users.

use serde_json::{Value, json};

use crate::model::{GateCheck, Model, ValueGate, Version, Written};

/// Whom an entry is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// One component or value struct, by name.
    Type(&'static str),
    /// Every component: a field of pyagentspec's `Component` base class.
    EveryComponent,
}

/// A fact about one field.
#[derive(Debug, Clone)]
pub(crate) enum Fact {
    /// A secret: written as a `{"$component_ref": "<id>.<field>"}` placeholder when exported
    /// without secrets (pyagentspec's `SensitiveField[...]`); the schema types it as a plain
    /// value.
    Sensitive,
    /// A secret pyagentspec writes as it is, never as a placeholder: its annotation is
    /// `Optional[SensitiveField[...]]`, which its serializer does not recognize, or it is no
    /// `SensitiveField` there at all. Still masked in `Debug`, `Display` and diagnostics.
    WrittenInClear,
    /// A default the schema leaves out.
    Default(Value),
    /// A `null` value is left out when writing.
    SkipNull,
    /// pyagentspec writes it from another version than the files list.
    Written(Written),
    /// A value that needs a newer version than its field exists from.
    Gate(ValueGate),
    /// The reference SDK reads it in older documents without raising their version, and
    /// only drops it when it writes them.
    Informational,
    /// A legacy value pyagentspec upgrades when it reads it, and so writes in its new form.
    Upgrade {
        from: Value,
        to: Value,
        message: &'static str,
    },
}

/// One entry of the table.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub owner: Owner,
    pub field: &'static str,
    pub fact: Fact,
}

/// Fields pyagentspec treats as sensitive (`SensitiveField[...]` in its classes), by class.
const SENSITIVE: &[(&str, &[&str])] = &[
    ("A2AConnectionConfig", &["key_file", "cert_file"]),
    ("ApiNode", &["sensitive_headers"]),
    ("GeminiAIStudioAuthConfig", &["api_key"]),
    ("GeminiConfig", &["api_key"]),
    ("GeminiVertexAIAuthConfig", &["credentials"]),
    ("LlmConfig", &["api_key"]),
    (
        "MTlsOracleDatabaseConnectionConfig",
        &[
            "user",
            "password",
            "dsn",
            "wallet_location",
            "wallet_password",
        ],
    ),
    (
        "OAuthClientConfig",
        &["client_id", "client_secret", "client_id_metadata_url"],
    ),
    ("OciClientConfigWithApiKey", &["auth_file_location"]),
    ("OciClientConfigWithSecurityToken", &["auth_file_location"]),
    ("OciGenAiConfig", &["api_key"]),
    (
        "OllamaConfig",
        &["api_key", "key_file", "cert_file", "ca_file"],
    ),
    (
        "OpenAiCompatibleConfig",
        &["api_key", "key_file", "cert_file", "ca_file"],
    ),
    ("OpenAiConfig", &["api_key"]),
    ("RemoteTool", &["sensitive_headers"]),
    ("SSETransport", &["sensitive_headers"]),
    (
        "SSEmTLSTransport",
        &["sensitive_headers", "key_file", "cert_file", "ca_file"],
    ),
    ("StreamableHTTPTransport", &["sensitive_headers"]),
    (
        "StreamableHTTPmTLSTransport",
        &["sensitive_headers", "key_file", "cert_file", "ca_file"],
    ),
    (
        "TlsOracleDatabaseConnectionConfig",
        &["user", "password", "dsn"],
    ),
    (
        "TlsPostgresDatabaseConnectionConfig",
        &["user", "password", "sslkey"],
    ),
    (
        "VllmConfig",
        &["api_key", "key_file", "cert_file", "ca_file"],
    ),
];

/// Secrets that pyagentspec 26.3.1 writes in clear (checked with its serializer): the
/// `Optional[SensitiveField[str]]` fields of OAuth clients and Postgres TLS connections, and
/// the A2A connection's key and certificate files, plain strings there.
const WRITTEN_IN_CLEAR: &[(&str, &[&str])] = &[
    ("A2AConnectionConfig", &["key_file", "cert_file"]),
    (
        "OAuthClientConfig",
        &["client_id", "client_secret", "client_id_metadata_url"],
    ),
    ("TlsPostgresDatabaseConnectionConfig", &["sslkey"]),
];

/// Every entry.
pub(crate) fn table() -> Vec<Entry> {
    let entry = |owner: &'static str, field: &'static str, fact: Fact| Entry {
        owner: Owner::Type(owner),
        field,
        fact,
    };
    let mut out: Vec<Entry> = SENSITIVE
        .iter()
        .flat_map(|(owner, fields)| {
            fields
                .iter()
                .map(move |field| entry(owner, field, Fact::Sensitive))
        })
        .collect();
    out.extend(WRITTEN_IN_CLEAR.iter().flat_map(|(owner, fields)| {
        fields
            .iter()
            .map(move |field| entry(owner, field, Fact::WrittenInClear))
    }));
    // pyagentspec's `metadata` (on its `Component` base class) and the `data` of ApiNode and
    // RemoteTool default to an empty object (`Field(default_factory=dict)`), while the
    // schema declares no default.
    out.push(Entry {
        owner: Owner::EveryComponent,
        field: "metadata",
        fact: Fact::Default(json!({})),
    });
    out.push(entry("ApiNode", "data", Fact::Default(json!({}))));
    out.push(entry("RemoteTool", "data", Fact::Default(json!({}))));
    // `LlmGenerationConfig.model_dump` uses `exclude_none=True`.
    for field in ["max_tokens", "temperature", "top_p"] {
        out.push(entry("LlmGenerationConfig", field, Fact::SkipNull));
    }
    // `OpenAiConfig._versioned_model_fields_to_exclude`: the key exists from 25.4.2, though
    // the 25.4.2 schema file lacks it.
    out.push(entry(
        "OpenAiConfig",
        "api_key",
        Fact::Written(Written::From(Version(25, 4, 2))),
    ));
    // Fields implied by the component type, or not used by the provider: pyagentspec
    // excludes them at every version.
    for (owner, fields) in [
        ("OpenAiConfig", &["provider", "api_provider", "url"][..]),
        ("OciGenAiConfig", &["api_provider", "api_key", "url"]),
        ("VllmConfig", &["api_provider"]),
        ("OllamaConfig", &["api_provider"]),
        ("GeminiConfig", &["provider", "url"]),
    ] {
        for field in fields {
            out.push(entry(owner, field, Fact::Written(Written::Never)));
        }
    }
    // pyagentspec's `_infer_min_agentspec_version_from_configuration`: the `XAI` provider
    // exists from 26.1.2.
    out.push(entry(
        "OciGenAiConfig",
        "provider",
        Fact::Gate(ValueGate {
            since: Version(26, 1, 2),
            check: GateCheck::Equals("XAI".into()),
            what: "set to `XAI`".into(),
        }),
    ));
    // Structured generation (several outputs, or a non-string one) exists from 25.4.2.
    out.push(entry(
        "LlmNode",
        "outputs",
        Fact::Gate(ValueGate {
            since: Version(25, 4, 2),
            check: GateCheck::Function("structured_outputs".into()),
            what: "with several outputs, or one that is not a string (structured generation),"
                .into(),
        }),
    ));
    // A body that is not a JSON object (a string or bytes) exists from 25.4.2.
    for owner in ["ApiNode", "RemoteTool"] {
        out.push(entry(
            owner,
            "data",
            Fact::Gate(ValueGate {
                since: Version(25, 4, 2),
                check: GateCheck::Function("data_not_object".into()),
                what: "that is not a JSON object".into(),
            }),
        ));
    }
    // REFERENCE-SEMANTICS 6.3: pyagentspec reads `provider` on an OpenAI-compatible config
    // in a 25.4.1 document, and drops it when it writes the document. Reading one is a
    // warning; every other newer field holding a value is an error, as its value changes
    // the meaning.
    for owner in ["OllamaConfig", "OpenAiCompatibleConfig", "VllmConfig"] {
        out.push(entry(owner, "provider", Fact::Informational));
    }
    // `handoff` was a boolean until `HandoffMode` (pyagentspec `swarm.py`, a
    // `model_validator(mode="before")`): `true` is `"optional"`, `false` is `"never"`.
    out.push(entry(
        "Swarm",
        "handoff",
        Fact::Upgrade {
            from: json!(true),
            to: json!("optional"),
            message: "`handoff: true` is the legacy form of `\"optional\"`, and is written as `\"optional\"`",
        },
    ));
    out.push(entry(
        "Swarm",
        "handoff",
        Fact::Upgrade {
            from: json!(false),
            to: json!("never"),
            message: "`handoff: false` is the legacy form of `\"never\"`, and is written as `\"never\"`",
        },
    ));
    out
}

/// The facts about `owner.field` (`component` says whether the owner is a component).
pub(crate) fn facts(
    table: &[Entry],
    owner: &str,
    field: &str,
    component: bool,
) -> impl Iterator<Item = Fact> {
    table
        .iter()
        .filter(move |e| {
            e.field == field
                && match e.owner {
                    Owner::Type(o) => o == owner,
                    Owner::EveryComponent => component,
                }
        })
        .map(|e| e.fact.clone())
        .collect::<Vec<_>>()
        .into_iter()
}

/// The entries that match no field of `model` (`Type.field`), for the test that keeps the
/// table honest.
pub(crate) fn unmatched(model: &Model) -> Vec<String> {
    table()
        .iter()
        .filter(|e| {
            let has =
                |fields: &[crate::model::Field]| fields.iter().any(|f| f.json_name == e.field);
            match e.owner {
                Owner::Type(o) => {
                    !model.components.get(o).is_some_and(|c| has(&c.fields))
                        && !model.structs.get(o).is_some_and(|s| has(&s.fields))
                }
                Owner::EveryComponent => !model.components.values().any(|c| has(&c.fields)),
            }
        })
        .map(|e| match e.owner {
            Owner::Type(o) => format!("{o}.{}", e.field),
            Owner::EveryComponent => format!("*.{}", e.field),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_declared_entry_matches_a_field_of_the_bundled_schemas() {
        let model = crate::Generator::new(crate::Settings::new().bundled_schemas())
            .model()
            .unwrap();
        assert_eq!(super::unmatched(&model), Vec::<String>::new());
    }

    #[test]
    fn an_entry_for_a_missing_field_is_reported() {
        let mut model = crate::Generator::new(crate::Settings::new().bundled_schemas())
            .model()
            .unwrap();
        model
            .components
            .get_mut("Swarm")
            .unwrap()
            .fields
            .retain(|f| f.json_name != "handoff");
        assert_eq!(
            super::unmatched(&model),
            vec!["Swarm.handoff".to_owned(), "Swarm.handoff".to_owned()]
        );
    }
}
