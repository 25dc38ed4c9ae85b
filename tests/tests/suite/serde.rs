//! The `serde` feature: generated types, `RefOr`, `Sensitive` and `Document` inside a user's
//! own structs, through serde_json and a YAML serde crate (serde-saphyr), written in
//! pyagentspec's layout with secrets redacted, and read with the loader's checks.

use agentspec_tests::{fixture, fixtures};
use agentspec_types::serialization::{WithSecrets, with_secrets};
use agentspec_types::{
    Agent, AnyLlmConfig, Component, Document, LlmGenerationConfig, OpenAIAPIType,
    OpenAiCompatibleConfig, RefOr, Sensitive, Tool, VllmConfig,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct AppConfig {
    port: u16,
    llm: AnyLlmConfig,
    agent: Agent,
    generation: Option<LlmGenerationConfig>,
    api_type: OpenAIAPIType,
    fallback: RefOr<AnyLlmConfig>,
}

fn config() -> AppConfig {
    let llm = OpenAiCompatibleConfig::new("llm", "gpt", "http://localhost:8000/v1")
        .with_id("llm")
        .with_api_key("sk-secret");
    // the agent uses its LLM config twice: written once, under $referenced_components
    let shared = VllmConfig::new("shared", "llama", "http://vllm").with_id("shared");
    let agent = Agent::new("helper", shared.clone(), "You help.")
        .with_id("helper")
        .with_tools([Tool::from(
            agentspec_types::ServerTool::new("lookup").with_id("lookup"),
        )]);
    AppConfig {
        port: 8080,
        llm: llm.into(),
        agent,
        generation: Some(LlmGenerationConfig::new().with_temperature(0.5)),
        api_type: OpenAIAPIType::Responses,
        fallback: RefOr::to("llm"),
    }
}

/// The config as it reads back: a secret written redacted is a placeholder, and the agent
/// built in code is written as pyagentspec writes it (its inputs and outputs inferred).
fn redacted(mut config: AppConfig) -> AppConfig {
    if let AnyLlmConfig::OpenAiCompatibleConfig(llm) = &mut config.llm {
        llm.api_key = Some(Sensitive::Placeholder("llm.api_key".into()));
    }
    let Component::Agent(agent) = Document::at_min_version(config.agent.clone())
        .unwrap()
        .into_root()
    else {
        panic!("an agent")
    };
    assert_eq!(agent.inputs, Some(Vec::new()), "inferred: no placeholder");
    config.agent = *agent;
    config
}

#[test]
fn a_users_struct_round_trips_through_serde_json() {
    let config = config();
    let text = serde_json::to_string_pretty(&config).unwrap();
    let back: AppConfig = serde_json::from_str(&text).unwrap();
    assert_eq!(back, redacted(config));
}

#[test]
fn a_users_struct_round_trips_through_yaml() {
    let config = config();
    let text = serde_saphyr::to_string(&config).unwrap();
    assert!(
        text.contains("component_type: OpenAiCompatibleConfig"),
        "{text}"
    );
    let back: AppConfig = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(back, redacted(config));
}

#[test]
fn a_component_is_written_as_pyagentspec_writes_it_alone() {
    let config = config();
    let value = serde_json::to_value(&config.agent).unwrap();
    let document = Document::at_min_version(config.agent.clone())
        .unwrap()
        .to_value();
    assert_eq!(value, document);
    assert_eq!(
        value
            .as_object()
            .unwrap()
            .keys()
            .next_back()
            .map(String::as_str),
        Some("agentspec_version")
    );
    // a value is written as inside a component; a reference as pyagentspec writes one
    assert_eq!(
        serde_json::to_value(&config.generation).unwrap(),
        json!({"temperature": 0.5})
    );
    assert_eq!(
        serde_json::to_value(config.api_type).unwrap(),
        json!("responses")
    );
    assert_eq!(
        serde_json::to_value(&config.fallback).unwrap(),
        json!({"$component_ref": "llm"})
    );
}

#[test]
fn every_corpus_document_round_trips_as_a_component_and_as_a_document() {
    let mut count = 0;
    for path in fixtures("generated", "json") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("plugin_") || name.starts_with("disaggregated_") {
            continue; // plugins need a registry; disaggregated parts need their components
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(doc) = Document::from_json_str(&text) else {
            continue; // secrets held as placeholders need their values
        };
        let through: Document =
            serde_json::from_str(&serde_json::to_string(&WithSecrets(&doc)).unwrap())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(through, doc, "{name}");
        let component: Component = serde_json::from_str(&text).unwrap();
        assert_eq!(&component, doc.root(), "{name}");
        count += 1;
    }
    // every document of the corpus but those skipped above: one that drops out fails here
    assert_eq!(count, 45, "documents round-tripped");
}

#[test]
fn reading_applies_the_loaders_checks_and_names_component_field_and_path() {
    let wrong_type = json!({"port": 1, "llm": {"component_type": "Agent", "id": "a", "name": "a"}});
    let error = serde_path_to_error::deserialize::<_, AppConfigLlm>(&wrong_type).unwrap_err();
    assert_eq!(error.path().to_string(), "llm");
    let message = error.inner().to_string();
    assert!(message.contains("an LlmConfig"), "{message}");
    assert!(message.contains("Agent"), "{message}");

    let missing = json!({"port": 1, "llm": {"component_type": "VllmConfig", "id": "l", "name": "l", "url": "http://x"}});
    let message = serde_json::from_value::<AppConfigLlm>(missing)
        .unwrap_err()
        .to_string();
    assert!(message.contains("missing-field"), "{message}");
    assert!(message.contains("model_id"), "{message}");
    assert!(message.contains("VllmConfig"), "{message}");

    let bad = json!({"port": 1, "llm": {"component_type": "VllmConfig", "id": "l", "name": "l",
                     "url": "http://x", "model_id": "m", "default_generation_parameters": {"temperature": "hot"}}});
    let message = serde_json::from_value::<AppConfigLlm>(bad)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("/default_generation_parameters/temperature"),
        "{message}"
    );

    let dangling = json!({"port": 1, "llm": {"component_type": "VllmConfig", "id": "l", "name": "l",
                          "url": "http://x", "model_id": {"$component_ref": "nowhere"}}});
    assert!(serde_json::from_value::<AppConfigLlm>(dangling).is_err());
}

#[derive(Debug, Deserialize)]
#[allow(dead_code, reason = "read to check the errors")]
struct AppConfigLlm {
    port: u16,
    llm: AnyLlmConfig,
}

#[test]
fn secrets_are_redacted_unless_asked_for() {
    #[derive(Serialize, Deserialize)]
    struct WithKey {
        #[serde(with = "with_secrets")]
        llm: AnyLlmConfig,
        token: Sensitive<String>,
    }
    let config = config();
    let value = serde_json::to_value(&config).unwrap();
    assert_eq!(
        value["llm"]["api_key"],
        json!({"$component_ref": "llm.api_key"})
    );
    assert!(!value.to_string().contains("sk-secret"));
    let all = serde_json::to_value(WithSecrets(&config.llm)).unwrap();
    assert_eq!(all["api_key"], json!("sk-secret"));

    let keyed = WithKey {
        llm: config.llm.clone(),
        token: Sensitive::Value("t0k3n".into()),
    };
    let value = serde_json::to_value(&keyed).unwrap();
    assert_eq!(value["llm"]["api_key"], json!("sk-secret"));
    // a bare secret is redacted, and reads back as a placeholder, never as a value
    assert_eq!(value["token"], json!({"$component_ref": "redacted"}));
    let back: WithKey = serde_json::from_value(value).unwrap();
    assert!(back.token.value().is_err());
    assert_eq!(back.llm, config.llm);
}

#[test]
fn a_document_of_a_corpus_file_round_trips_through_yaml() {
    let text = std::fs::read_to_string(fixture("generated/flow_branching.json")).unwrap();
    let doc = Document::from_json_str(&text).unwrap();
    let yaml = serde_saphyr::to_string(&WithSecrets(&doc)).unwrap();
    let back: Document = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(back, doc);
}
