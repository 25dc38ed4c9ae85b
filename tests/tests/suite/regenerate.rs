//! Picking up a new release is adding its schema file: generating without the newest file and
//! with it shows that the newest version, its components and its gates come from that file alone.

use std::path::PathBuf;

use agentspec_codegen::model::{Model, Version};
use agentspec_codegen::{Generator, Settings};

fn generator(files: &[&str]) -> Generator {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../agentspec-codegen/schema");
    let settings = files
        .iter()
        .fold(Settings::new(), |s, f| s.schema_file(dir.join(f)));
    Generator::new(settings)
}

fn model(files: &[&str]) -> Model {
    generator(files).model().unwrap()
}

#[test]
fn a_new_schema_file_brings_its_version_components_and_gates() {
    let older = [
        "agentspec_json_spec_25_4_1.json",
        "agentspec_json_spec_25_4_2.json",
        "agentspec_json_spec_26_1_0.json",
    ];
    let before = model(&older);
    let mut all = older.to_vec();
    all.push("agentspec_json_spec_26_1_2.json");
    let after = model(&all);

    let v = |s: &str| Version::parse(s).unwrap();
    assert_eq!(before.versions, [v("25.4.1"), v("25.4.2"), v("26.1.0")]);
    assert_eq!(
        after.versions,
        [
            v("25.4.1"),
            v("25.4.2"),
            v("26.1.0"),
            v("26.1.2"),
            v("26.2.0")
        ]
    );

    let added: Vec<&String> = after
        .components
        .keys()
        .filter(|c| !before.components.contains_key(*c))
        .collect();
    assert_eq!(added.len(), 15, "{added:?}");
    for name in added {
        assert_eq!(
            after.components[name].since,
            v("26.1.2"),
            "{name} comes with 26.1.2"
        );
    }
    // A field the new file adds to an existing component is gated at the new version…
    let transforms = after.components["Agent"]
        .fields
        .iter()
        .find(|f| f.json_name == "transforms")
        .unwrap();
    assert_eq!(transforms.since, v("26.1.2"));
    assert!(
        !before.components["Agent"]
            .fields
            .iter()
            .any(|f| f.json_name == "transforms")
    );
    // The JSON Schema of the new version comes with the file too.
    let new = v("26.1.2");
    assert!(generator(&older).json_schema(new).unwrap().is_none());
    let schema = generator(&all).json_schema(new).unwrap().unwrap();
    assert_eq!(
        schema.pointer("/$defs/RootAgentSpecVersion/const"),
        Some(&serde_json::json!("26.1.2"))
    );
    assert!(
        schema
            .pointer("/$defs/VersionedCatchExceptionNode")
            .is_some()
    );
    // …and what the older files already had keeps its version.
    for (name, component) in &before.components {
        assert_eq!(after.components[name].since, component.since, "{name}");
        for field in &component.fields {
            let same = after.components[name]
                .fields
                .iter()
                .find(|f| f.json_name == field.json_name)
                .unwrap();
            assert_eq!(same.since, field.since, "{name}.{}", field.json_name);
        }
    }
}

#[test]
fn diff_reports_changes_and_what_breaks() {
    use agentspec_codegen::diff::{ChangeKind, diff};
    let (old, new) = (
        model(&["agentspec_json_spec_25_4_2.json"]),
        model(&["agentspec_json_spec_26_1_0.json"]),
    );
    let changes = diff(&old, &new);
    let lines: Vec<String> = changes.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "compatible: field ApiNode.data type JsonObject -> Json",
            "compatible: field OpenAiConfig.api_key added",
            "compatible: field RemoteTool.data type JsonObject -> Json",
            "compatible: field Swarm.handoff type Bool -> Union(\"SwarmHandoff\")",
            "breaking: field Swarm.handoff default true -> \"optional\"",
            // the declared upgrade applies once the new form exists
            "compatible: field Swarm.handoff legacy upgrades [] -> [true -> \"optional\", false -> \"never\"]",
        ]
    );
    let back = diff(&new, &old);
    assert!(back.iter().any(|c| c.kind == ChangeKind::FieldRemoved
        && c.item == "OpenAiConfig.api_key"
        && c.breaking));
    assert!(
        back.iter().any(|c| c.item == "Swarm.handoff"
            && matches!(c.kind, ChangeKind::TypeChanged { .. })
            && c.breaking),
        "narrowing breaks"
    );
    let newest = model(&["agentspec_json_spec_26_1_2.json"]);
    let added = diff(&new, &newest)
        .into_iter()
        .filter(|c| c.kind == ChangeKind::ComponentAdded)
        .count();
    assert_eq!(added, 15);
}

#[test]
fn a_build_script_watches_the_schema_folder_so_an_added_file_is_seen() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../agentspec-codegen/schema");
    let settings = Settings::new().schema_dir(&dir).unwrap();
    let watched: Vec<_> = settings.watched_paths().collect();
    assert_eq!(watched[0], dir.as_path(), "the folder itself, first");
    assert_eq!(
        watched.len(),
        1 + settings.schema_paths().count(),
        "then every file read"
    );
    // bundled schemas are read from no file: nothing to watch
    assert_eq!(Settings::new().bundled_schemas().watched_paths().count(), 0);
}

#[test]
fn a_version_a_later_file_drops_is_read_but_nothing_is_dated_to_it() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../agentspec-codegen/schema");
    let model = Generator::new(Settings::new().schema_dir(&dir).unwrap())
        .model()
        .unwrap();
    let v = |s: &str| Version::parse(s).unwrap();
    // every file's versions are read: 26.2.0 and 26.3.0 too, which the 26.4.0 file leaves out
    assert_eq!(
        model.versions,
        [
            "25.4.1", "25.4.2", "26.1.0", "26.1.2", "26.2.0", "26.3.0", "26.3.1", "26.4.0"
        ]
        .map(v)
    );
    // first in the 26.3.0 file, dated to 26.3.1: the next version the newest file lists
    assert_eq!(
        model.components["DbmsVectorChainLlmConfig"].since,
        v("26.3.1")
    );
    let retry = model.components["MCPTool"]
        .fields
        .iter()
        .find(|f| f.json_name == "retry_policy")
        .unwrap();
    assert_eq!(retry.since, v("26.3.1"));
}
