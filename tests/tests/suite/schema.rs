//! `version::json_schema`: the schema of each version validates that version's documents,
//! checked with an independent Draft 2020-12 validator (boon) on the whole corpus.

use std::collections::BTreeMap;
use std::path::Path;

use agentspec_tests::{corpus_plugins, dangling_refs, fixture, fixtures};
use agentspec_types::Version;
use agentspec_types::version::json_schema;
use serde_json::{Value, json};

/// One compiled schema.
struct Validator {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl Validator {
    fn new(schema: Value) -> Validator {
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        compiler
            .add_resource("urn:agentspec:schema", schema)
            .unwrap();
        let index = compiler
            .compile("urn:agentspec:schema", &mut schemas)
            .unwrap_or_else(|e| panic!("the schema compiles: {e:#}"));
        Validator { schemas, index }
    }

    /// The schema of `version`, with the corpus' plugin types added.
    fn of(version: Version) -> Validator {
        let text = json_schema(version).unwrap_or_else(|| panic!("a schema for {version}"));
        let mut schema: Value = serde_json::from_str(text).unwrap();
        corpus_plugins::registry().extend_schema(&mut schema);
        Validator::new(schema)
    }

    /// `Err` lists the deepest failures (where the document went wrong, rather than every
    /// root alternative it did not match).
    fn check(&self, document: &Value) -> Result<(), String> {
        fn leaves(e: &boon::ValidationError<'_, '_>, out: &mut Vec<(String, String)>) {
            let location = e.instance_location.to_string();
            // An alternative of another type says nothing about what is wrong.
            if e.causes.is_empty() && !location.ends_with("/component_type") {
                out.push((location, e.kind.to_string()));
            }
            e.causes.iter().for_each(|c| leaves(c, out));
        }
        self.schemas.validate(document, self.index).map_err(|e| {
            let mut all = Vec::new();
            leaves(&e, &mut all);
            let depth = |p: &str| p.matches('/').count();
            let deepest = all.iter().map(|(p, _)| depth(p)).max().unwrap_or(0);
            let mut lines: Vec<String> = all
                .into_iter()
                .filter(|(p, _)| depth(p) == deepest)
                .map(|(p, k)| format!("{p}: {k}"))
                .collect();
            lines.sort();
            lines.dedup();
            lines.join("; ")
        })
    }
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text).unwrap()
    } else {
        agentspec_types::syntax::yaml::parse_yaml(&text)
            .map(agentspec_types::syntax::value::node_to_value)
            .unwrap()
    }
}

fn version_of(document: &Value) -> Option<Version> {
    document
        .get("agentspec_version")
        .and_then(Value::as_str)
        .and_then(Version::parse)
}

fn generated(name: &str) -> Value {
    read(&fixture(&format!("generated/{name}")))
}

#[test]
fn every_corpus_document_validates_against_the_schema_of_its_version() {
    let mut validators: BTreeMap<Version, Validator> = BTreeMap::new();
    let mut per_version: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut files = fixtures("generated", "json");
    files.extend(fixtures("generated", "yaml"));
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap();
        if name.ends_with(".registry.json") {
            continue; // the values of redacted fields, not a document
        }
        let document = read(path);
        // A components file carries no version: it goes with its main document.
        let version = version_of(&document).unwrap_or_else(|| {
            let main = name.replace("_components.", "_main.");
            version_of(&generated(&main)).unwrap_or_else(|| panic!("{name}: no version"))
        });
        let validator = validators
            .entry(version)
            .or_insert_with(|| Validator::of(version));
        if let Err(e) = validator.check(&document) {
            failures.push(format!("{name} ({version}): {e}"));
        }
        *per_version.entry(version.to_string()).or_default() += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(
        per_version,
        BTreeMap::from([
            ("25.4.1".to_owned(), 52),
            ("25.4.2".to_owned(), 22),
            ("26.1.2".to_owned(), 28),
        ])
    );
}

#[test]
fn the_published_file_rejects_what_its_repaired_schema_accepts() {
    let document = generated("agent_simple_server_tool.json");
    let published = std::fs::read_to_string(fixture(
        "../../agentspec-codegen/schema/agentspec_json_spec_25_4_1.json",
    ))
    .unwrap();
    let published = Validator::new(serde_json::from_str(&published).unwrap());
    assert!(
        published.check(&document).is_err(),
        "the published root rejects `agentspec_version`"
    );
    let mut without_version = document.clone();
    without_version
        .as_object_mut()
        .unwrap()
        .remove("agentspec_version");
    published.check(&without_version).unwrap();

    let repaired = Validator::of(Version::new(25, 4, 1));
    repaired.check(&document).unwrap();
    assert!(
        repaired.check(&without_version).is_err(),
        "a document of a version declares it"
    );
}

#[test]
fn the_schema_of_a_version_rejects_other_versions_and_newer_content() {
    let v25_4_1 = Validator::of(Version::new(25, 4, 1));
    let v25_4_2 = Validator::of(Version::new(25, 4, 2));

    // The version is pinned.
    let mut agent = generated("agent_simple_server_tool.json");
    agent["agentspec_version"] = json!("25.4.2");
    assert!(v25_4_1.check(&agent).is_err());
    v25_4_2.check(&agent).unwrap();

    // A component newer than the version (a Swarm declared 25.4.1).
    let swarm = read(&fixture("negative/swarm_declared_as_25_4_1.json"));
    assert_eq!(version_of(&swarm), Some(Version::new(25, 4, 1)));
    assert!(v25_4_1.check(&swarm).is_err());

    // A field newer than the version.
    let mut agent = generated("agent_simple_server_tool.json");
    agent["tools"][0]["requires_confirmation"] = json!(true);
    assert!(v25_4_1.check(&agent).is_err());

    // An `agentspec_version` anywhere but the root, and a missing `component_type`.
    let mut agent = generated("agent_simple_server_tool.json");
    agent["llm_config"]["agentspec_version"] = json!("25.4.1");
    assert!(v25_4_1.check(&agent).is_err());
    let mut agent = generated("agent_simple_server_tool.json");
    agent["tools"][0]
        .as_object_mut()
        .unwrap()
        .remove("component_type");
    assert!(v25_4_1.check(&agent).is_err());

    // A redacted sensitive field is a reference; any other object is not a string.
    let mut agent = generated("agent_simple_server_tool.json");
    agent["agentspec_version"] = json!("25.4.2");
    agent["llm_config"]["api_key"] = json!({"$component_ref": "llm_vllm.api_key"});
    v25_4_2.check(&agent).unwrap();
    agent["llm_config"]["api_key"] = json!({"value": "sk"});
    assert!(v25_4_2.check(&agent).is_err());
}

#[test]
fn the_version_negative_files_behave_as_stated() {
    // Unknown versions have no schema.
    for name in [
        "unknown_agentspec_version.json",
        "legacy_agentspec_version_25_3_0.json",
    ] {
        let document = read(&fixture(&format!("negative/{name}")));
        let version = version_of(&document);
        assert!(
            version.is_none_or(|v| json_schema(v).is_none()),
            "{name}: {version:?}"
        );
    }
    // 26.2.0 is a published version: its documents validate.
    let document = read(&fixture(
        "negative/agentspec_version_26_2_0_not_known_to_26_3_1.json",
    ));
    assert_eq!(version_of(&document), Some(Version::new(26, 2, 0)));
    Validator::of(Version::new(26, 2, 0))
        .check(&document)
        .unwrap();
}

#[test]
fn fields_the_sdk_writes_but_a_file_lacks_are_added() {
    // The 25.4.2 file has no `OpenAiConfig.api_key`, which pyagentspec writes at 25.4.2.
    let published = std::fs::read_to_string(fixture(
        "../../agentspec-codegen/schema/agentspec_json_spec_25_4_2.json",
    ))
    .unwrap();
    let published: Value = serde_json::from_str(&published).unwrap();
    assert!(
        published
            .pointer("/$defs/BaseOpenAiConfig/properties/api_key")
            .is_none()
    );
    let ours: Value = serde_json::from_str(json_schema(Version::new(25, 4, 2)).unwrap()).unwrap();
    assert!(
        ours.pointer("/$defs/BaseOpenAiConfig/properties/api_key")
            .is_some()
    );
    // Every known version has a schema, and only those.
    for v in [
        "25.4.1", "25.4.2", "26.1.0", "26.1.2", "26.2.0", "26.3.0", "26.3.1", "26.4.0",
    ] {
        let schema: Value =
            serde_json::from_str(json_schema(Version::parse(v).unwrap()).unwrap()).unwrap();
        assert_eq!(
            schema.pointer("/$defs/RootAgentSpecVersion/const"),
            Some(&json!(v))
        );
    }
    assert!(json_schema(Version::new(25, 4, 0)).is_none());
}

#[test]
fn every_reference_of_every_schema_resolves() {
    for v in [
        "25.4.1", "25.4.2", "26.1.0", "26.1.2", "26.2.0", "26.3.0", "26.3.1", "26.4.0",
    ] {
        let mut schema: Value =
            serde_json::from_str(json_schema(Version::parse(v).unwrap()).unwrap()).unwrap();
        corpus_plugins::registry().extend_schema(&mut schema);
        let mut dangling = Vec::new();
        dangling_refs(&schema, &schema, &mut dangling);
        assert!(dangling.is_empty(), "{v}: {dangling:?}");
        // A document is a versioned component (plugins included) or a components file.
        assert_eq!(
            schema["anyOf"],
            json!([{"$ref": "#/$defs/VersionedComponent"}, {"$ref": "#/$defs/ComponentsFile"}])
        );
        let members = schema["$defs"]["VersionedComponent"]["anyOf"]
            .as_array()
            .unwrap();
        assert!(members.contains(&json!({"$ref": "#/$defs/VersionedPluginRegexNode"})));
        assert!(members.contains(&json!({"$ref": "#/$defs/VersionedAgent"})));
    }
}
