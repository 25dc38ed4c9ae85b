//! Sensitive fields: redacted by default as `{"$component_ref": "<id>.<field>"}`, values
//! supplied from a values file, and never printed.

use agentspec_tests::fixture;
use agentspec_types::{
    Component, Document, Format, LoadOptions, Output, RefOr, Sensitive, Values, WriteOptions,
};

fn text(name: &str) -> String {
    std::fs::read_to_string(fixture(&format!("generated/{name}"))).unwrap()
}

#[test]
fn default_writing_redacts_as_pyagentspec_does() {
    let included = Document::from_json_str(&text("sensitive_fields_included.json")).unwrap();
    assert_eq!(
        included.to_json_pretty(),
        text("sensitive_fields_redacted.json")
    );
    let postgres = Document::from_json_str(&text("datastore_postgres_with_sensitive.json"))
        .unwrap()
        .to_json_pretty();
    assert!(
        postgres.contains("\"user\": {\n      \"$component_ref\": \"pg_tls2.user\"\n    }"),
        "{postgres}"
    );
    assert!(
        postgres.contains("\"password\": {\n      \"$component_ref\": \"pg_tls2.password\"\n    }")
    );
    assert!(
        postgres.contains("\"sslkey\": null"),
        "empty values are written as they are"
    );
}

#[test]
fn the_secrets_pyagentspec_writes_in_clear_are_written_as_read_and_masked_in_debug() {
    // `Optional[SensitiveField[str]]` (Postgres `sslkey`) and the A2A key and certificate files
    // are written by pyagentspec as they are: so are they here, but never printed
    let postgres = Document::from_json_str(&text("datastore_postgres.json")).unwrap();
    let written = postgres.to_json_pretty();
    assert_eq!(written, text("datastore_postgres.json"));
    assert!(
        written.contains("\"$component_ref\": \"pg_tls.user\""),
        "{written}"
    );
    assert!(written.contains("\"sslkey\": \"/certs/client.key\""));
    let a2a = Document::from_json_str(&text("a2a_agent.json")).unwrap();
    let written = a2a.to_json_pretty();
    assert!(!written.contains("a2a_conn.key_file"), "{written}");
    assert!(written.contains("\"key_file\": \"/certs/k.pem\""));
    let debug = format!("{postgres:?} {a2a:?}");
    for value in ["/certs/client.key", "/certs/k.pem"] {
        assert!(!debug.contains(value), "{value} is masked in Debug");
    }
}

#[test]
fn values_from_a_values_file_restore_the_secrets() {
    let values =
        Values::from_path(fixture("generated/sensitive_fields_redacted.registry.json")).unwrap();
    let options = LoadOptions::new().values(&values);
    let doc = Document::from_str_with(
        &text("sensitive_fields_redacted.json"),
        Format::Json,
        &options,
    )
    .unwrap();
    assert!(doc.warnings().is_empty(), "{:?}", doc.warnings());
    let Component::Agent(agent) = doc.root() else {
        panic!("an agent")
    };
    let RefOr::Inline(llm) = &agent.llm_config else {
        panic!("inline")
    };
    let agentspec_types::AnyLlmConfig::OpenAiConfig(openai) = llm else {
        panic!("OpenAI")
    };
    assert_eq!(
        openai.api_key.as_ref().unwrap().value().unwrap(),
        "sk-from-registry"
    );
    // Written back with placeholders by default, with the values on request.
    assert_eq!(doc.to_json_pretty(), text("sensitive_fields_redacted.json"));
    let with_values = doc.to_string_with(
        Output::JsonPretty,
        &WriteOptions::new().include_secrets(true),
    );
    assert!(with_values.contains("\"api_key\": \"sk-from-registry\""));
    assert!(with_values.contains("\"Authorization\": \"Bearer from-registry\""));
}

#[test]
fn unsupplied_secrets_are_warnings_without_values_and_errors_with_them() {
    let doc = Document::from_json_str(&text("sensitive_fields_redacted.json")).unwrap();
    let warnings: Vec<(&str, &str)> = doc
        .warnings()
        .iter()
        .map(|d| (d.code, d.pointer.as_str()))
        .collect();
    assert_eq!(
        warnings,
        [
            ("missing-secret", "/llm_config/api_key"),
            ("missing-secret", "/tools/0/sensitive_headers")
        ]
    );
    let mut partial = Values::new();
    partial.insert("sens_llm.api_key", serde_json::json!("sk"));
    let err = Document::from_str_with(
        &text("sensitive_fields_redacted.json"),
        Format::Json,
        &LoadOptions::new().values(&partial),
    )
    .unwrap_err();
    let errors: Vec<_> = err.errors().map(|d| (d.code, d.message.clone())).collect();
    assert_eq!(
        errors,
        [(
            "missing-secret",
            "the supplied values have no value for the secret `sens_tool.sensitive_headers`"
                .to_owned()
        )]
    );
}

#[test]
fn a_missing_secret_is_named_and_secrets_are_never_printed() {
    let doc = Document::from_json_str(&text("sensitive_fields_redacted.json")).unwrap();
    let Component::Agent(agent) = doc.root() else {
        panic!("an agent")
    };
    let RefOr::Inline(agentspec_types::AnyLlmConfig::OpenAiConfig(openai)) = &agent.llm_config
    else {
        panic!("OpenAI")
    };
    let key = openai.api_key.as_ref().unwrap();
    assert_eq!(
        key.value().unwrap_err().to_string(),
        "the secret `sens_llm.api_key` has no value: supply it when loading (a values file, `--values FILE` in the CLI)"
    );
    let secret: Sensitive<String> = Sensitive::Value("sk-THIS-IS-SECRET".into());
    let shown = format!("{secret} {secret:?} {:?}", doc.root());
    assert!(!shown.contains("sk-THIS-IS-SECRET"));
    let included = Document::from_json_str(&text("sensitive_fields_included.json")).unwrap();
    assert!(!format!("{:?}", included.root()).contains("sk-THIS-IS-SECRET"));
    let mut values = Values::new();
    values.insert("x.api_key", serde_json::json!("sk-THIS-IS-SECRET"));
    assert!(!format!("{values:?}").contains("sk-THIS-IS-SECRET"));
}
