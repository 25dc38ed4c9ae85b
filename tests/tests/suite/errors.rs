//! Bad input gets a clear error: a stable code, a message naming the rule (with the closest
//! valid name), the JSON pointer, and the line and column in the source text. Never a panic.

use agentspec_tests::{fixture, fixtures};
use agentspec_types::{Diagnostic, Document, Version};

fn source() -> String {
    std::fs::read_to_string(fixture("generated/agent_simple_server_tool.json")).unwrap()
}

fn errors_of(text: &str) -> Vec<Diagnostic> {
    Document::from_json_str(text)
        .unwrap_err()
        .errors()
        .cloned()
        .collect()
}

fn at(d: &Diagnostic) -> (&'static str, &str, Option<u32>, Option<u32>) {
    (d.code, d.pointer.as_str(), d.line, d.column)
}

#[test]
fn typo_in_component_type_names_the_closest_type() {
    let text = source().replacen("\"ServerTool\"", "\"ServerTol\"", 1);
    let errors = errors_of(&text);
    assert_eq!(errors.len(), 1);
    assert_eq!(
        at(&errors[0]),
        (
            "unknown-component-type",
            "/tools/0/component_type",
            Some(26),
            Some(25)
        )
    );
    assert!(
        errors[0].message.contains("did you mean `ServerTool`?"),
        "{}",
        errors[0].message
    );
}

#[test]
fn missing_required_field_names_the_field_and_the_component() {
    let text = source().replacen(
        "  \"system_prompt\": \"You are a weather assistant.\",\n",
        "",
        1,
    );
    let errors = errors_of(&text);
    assert_eq!(errors.len(), 1);
    assert_eq!(at(&errors[0]), ("missing-field", "", Some(1), Some(1)));
    assert_eq!(
        errors[0].message,
        "Agent requires the field `system_prompt`"
    );
}

#[test]
fn wrong_type_names_expected_and_found() {
    let text = source().replacen("\"url\": \"http://vllm.internal:8000\"", "\"url\": 42", 1);
    let errors = errors_of(&text);
    assert_eq!(errors.len(), 1);
    assert_eq!(
        at(&errors[0]),
        ("invalid-type", "/llm_config/url", Some(16), Some(12))
    );
    assert_eq!(errors[0].message, "expected a string, found integer");
}

#[test]
fn unknown_field_suggests_the_known_one_and_every_problem_is_reported() {
    let text = source()
        .replacen("\"model_id\"", "\"model_idd\"", 1)
        .replacen("\"ServerTool\"", "\"ServerTol\"", 1);
    let diagnostics = Document::from_json_str(&text).unwrap_err().diagnostics;
    let found: Vec<_> = diagnostics.iter().map(|d| (at(d), d.is_error())).collect();
    assert_eq!(
        found,
        [
            (("missing-field", "/llm_config", Some(9), Some(17)), true),
            // a key pyagentspec ignores: a warning, with the suggestion
            (
                ("unknown-field", "/llm_config/model_idd", Some(15), Some(5)),
                false
            ),
            (
                (
                    "unknown-component-type",
                    "/tools/0/component_type",
                    Some(26),
                    Some(25)
                ),
                true
            ),
        ]
    );
    assert!(diagnostics[1].message.contains("did you mean `model_id`?"));
}

#[test]
fn component_of_the_wrong_family_is_named() {
    let text = source().replacen(
        "\"component_type\": \"VllmConfig\"",
        "\"component_type\": \"StartNode\"",
        1,
    );
    let errors = errors_of(&text);
    assert_eq!(
        at(&errors[0]),
        (
            "wrong-component-family",
            "/llm_config/component_type",
            Some(10),
            Some(23)
        )
    );
    assert!(
        errors[0]
            .message
            .starts_with("a `StartNode` cannot stand where an LlmConfig is expected"),
        "{}",
        errors[0].message
    );
}

#[test]
fn invalid_enum_value_lists_the_valid_ones() {
    let text = std::fs::read_to_string(fixture("generated/llm_ocigenai_api_key.json"))
        .unwrap()
        .replacen("\"ON_DEMAND\"", "\"ON_DEMANDS\"", 1);
    let errors = errors_of(&text);
    assert_eq!(errors[0].code, "invalid-value");
    assert_eq!(errors[0].pointer, "/serving_mode");
    assert!(
        errors[0].message.contains(
            "(expected one of \"DEDICATED\", \"ON_DEMAND\"); did you mean \"ON_DEMAND\"?"
        ),
        "{}",
        errors[0].message
    );
}

#[test]
fn yaml_errors_carry_yaml_lines_and_columns() {
    let text = std::fs::read_to_string(fixture("generated/agent_simple_server_tool.yaml")).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("component_type: ServerTool"))
        .unwrap() as u32
        + 1;
    let column = text
        .lines()
        .nth(line as usize - 1)
        .unwrap()
        .find("ServerTool")
        .unwrap() as u32
        + 1;
    let bad = text.replacen("component_type: ServerTool", "component_type: ServerTol", 1);
    let err = Document::from_yaml_str(&bad).unwrap_err();
    assert_eq!(
        at(&err.diagnostics[0]),
        (
            "unknown-component-type",
            "/tools/0/component_type",
            Some(line),
            Some(column)
        )
    );
}

#[test]
fn syntax_errors_are_located() {
    let text = source().replacen("\"inputs\": [],", "\"inputs\": [],,", 1);
    let errors = errors_of(&text);
    assert_eq!(at(&errors[0]), ("syntax-error", "", Some(7), Some(16)));
    let dup = source().replacen("\"inputs\": [],", "\"inputs\": [], \"inputs\": [],", 1);
    assert_eq!(
        at(&errors_of(&dup)[0]),
        ("duplicate-key", "/inputs", Some(7), Some(17))
    );
}

/// The I/O error a load error keeps as its `source()`.
fn io_source(err: &agentspec_types::LoadError) -> &std::io::Error {
    std::error::Error::source(err)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .unwrap_or_else(|| panic!("no I/O source: {err:?}"))
}

#[test]
fn an_unreadable_file_keeps_the_io_error_as_source() {
    let missing = "/no/such/dir/agent.json";
    let err = Document::from_path(missing).unwrap_err();
    assert_eq!(io_source(&err).kind(), std::io::ErrorKind::NotFound);
    let d = &err.diagnostics[0];
    assert_eq!((d.code, d.line, d.column), ("io-error", None, None));
    assert_eq!(
        d.message,
        format!("cannot read {missing}: {}", io_source(&err))
    );
    let cloned = err.clone();
    assert_eq!(io_source(&cloned).kind(), std::io::ErrorKind::NotFound);
    let components = agentspec_types::Components::from_path(missing);
    assert_eq!(
        io_source(&components.unwrap_err()).kind(),
        std::io::ErrorKind::NotFound
    );
    let values = agentspec_types::Values::from_path(missing).unwrap_err();
    assert_eq!(io_source(&values).kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn a_failing_reader_keeps_its_error_as_source() {
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("the disk is gone"))
        }
    }
    let err = Document::from_reader(Broken, agentspec_types::Format::Json).unwrap_err();
    assert_eq!(io_source(&err).to_string(), "the disk is gone");
    assert_eq!(
        err.diagnostics[0].message,
        "cannot read the document: the disk is gone"
    );
    let invalid_utf8 =
        Document::from_reader(&b"{\"a\": \"\xff\"}"[..], agentspec_types::Format::Json)
            .unwrap_err();
    assert_eq!(
        io_source(&invalid_utf8).kind(),
        std::io::ErrorKind::InvalidData
    );
}

#[test]
fn a_syntax_error_is_a_located_diagnostic_without_a_source() {
    let err = Document::from_json_str("{\"component_type\": }").unwrap_err();
    assert_eq!(
        at(&err.diagnostics[0]),
        ("syntax-error", "/component_type", Some(1), Some(20))
    );
    assert!(
        std::error::Error::source(&err).is_none(),
        "the text is read by this crate's own parser: its diagnostic is the whole story"
    );
}

#[test]
fn versions_unknown_legacy_and_missing() {
    let text = source();
    let unknown = text.replacen(
        "\"agentspec_version\": \"25.4.1\"",
        "\"agentspec_version\": \"9.9.9\"",
        1,
    );
    let errors = errors_of(&unknown);
    assert_eq!(errors[0].code, "unknown-version");
    assert!(
        errors[0]
            .message
            .contains("known: 25.4.1, 25.4.2, 26.1.0, 26.1.2, 26.2.0"),
        "{}",
        errors[0].message
    );
    let legacy = text.replacen(
        "\"agentspec_version\": \"25.4.1\"",
        "\"agentspec_version\": \"25.4.0\"",
        1,
    );
    let doc = Document::from_json_str(&legacy).unwrap();
    assert_eq!(doc.agentspec_version(), Version::new(25, 4, 1));
    assert_eq!(doc.warnings()[0].code, "legacy-version");
    let old_name = text.replacen("\"agentspec_version\"", "\"air_version\"", 1);
    let doc = Document::from_json_str(&old_name).unwrap();
    assert_eq!(
        (doc.agentspec_version(), doc.warnings()[0].code),
        (Version::new(25, 4, 1), "legacy-version-field")
    );
    assert!(
        doc.to_json_pretty()
            .ends_with("\"agentspec_version\": \"25.4.1\"\n}\n")
    );
    let missing =
        Document::from_path(fixture("edge-cases/missing_agentspec_version.json")).unwrap();
    assert_eq!(
        (missing.agentspec_version(), missing.warnings()[0].code),
        (Version::new(26, 4, 0), "missing-version")
    );
}

#[test]
fn unknown_keys_are_warnings_kept_on_writing_and_placeholders_load() {
    let path = fixture("edge-cases/unknown_extra_keys_ignored.json");
    let doc = Document::from_path(&path).unwrap();
    let warnings: Vec<_> = doc.warnings().iter().map(|d| d.code).collect();
    assert!(
        !warnings.is_empty() && warnings.iter().all(|c| *c == "unknown-field"),
        "{warnings:?}"
    );
    // kept: written back (nothing read is lost), unless dropping them is asked for
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc.to_value(), original);
    let unknown = doc.unknown_keys();
    assert_eq!(unknown.len(), warnings.len());
    let dropped = doc.to_value_with(&agentspec_types::WriteOptions::new().drop_unknown(true));
    for pointer in &unknown {
        assert!(original.pointer(pointer).is_some(), "{pointer}");
        assert!(dropped.pointer(pointer).is_none(), "{pointer}");
    }
    let redacted =
        Document::from_path(fixture("generated/sensitive_fields_redacted.json")).unwrap();
    let text =
        std::fs::read_to_string(fixture("generated/sensitive_fields_redacted.json")).unwrap();
    assert_eq!(redacted.to_json_pretty(), text);
}

#[test]
fn mangled_documents_never_panic() {
    let mut checked = 0;
    for path in fixtures("generated", "json")
        .into_iter()
        .chain(fixtures("generated", "yaml"))
        .step_by(7)
    {
        let text = std::fs::read_to_string(&path).unwrap();
        let bytes = text.as_bytes();
        for cut in (0..bytes.len()).step_by(bytes.len() / 23 + 1) {
            for mangled in [
                &bytes[..cut],
                &[&bytes[..cut], b"\"}]:,-\n".as_slice(), &bytes[cut..]].concat()[..],
            ] {
                let mangled = String::from_utf8_lossy(mangled);
                let as_json = Document::from_json_str(&mangled);
                let as_yaml = Document::from_yaml_str(&mangled);
                for result in [as_json, as_yaml] {
                    if let Err(e) = result {
                        assert!(e.errors().count() > 0, "an Err always holds an error");
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked}");
}

#[test]
fn rule_levels_deny_and_allow_codes_when_loading_and_validating() {
    use agentspec_types::diagnostic::Levels;
    use agentspec_types::{Format, LoadOptions};
    let text =
        std::fs::read_to_string(fixture("edge-cases/unknown_extra_keys_ignored.json")).unwrap();
    let deny = Levels::new().deny("unknown-field");
    let error = Document::from_str_with(&text, Format::Json, &LoadOptions::new().levels(&deny))
        .unwrap_err();
    assert!(
        error
            .errors()
            .all(|d| d.code == "unknown-field" && d.message.ends_with("(denied)"))
    );
    let allow = Levels::new().allow("unknown-field");
    let doc =
        Document::from_str_with(&text, Format::Json, &LoadOptions::new().levels(&allow)).unwrap();
    assert!(doc.warnings().is_empty());
    // validation: a warning of the rules, denied
    let branch =
        std::fs::read_to_string(fixture("edge-cases/from_branch_not_in_node_branches.json"))
            .unwrap();
    let doc = Document::from_json_str(&branch).unwrap();
    assert!(doc.validate().iter().all(|d| !d.is_error()));
    let denied = doc.validate_with(&Levels::new().deny("warnings"));
    assert!(
        denied
            .iter()
            .any(|d| d.code == "unknown-branch" && d.is_error())
    );
}

/// Found by the `load_json` and `load_yaml` fuzz targets: a root with no component in it was
/// refused with no error among its diagnostics (only the `missing-version` warning).
#[test]
fn a_root_without_a_component_is_an_error() {
    for text in ["{}", "{\"agentspec_version\": \"26.4.0\"}"] {
        assert_eq!(
            errors_of(text).iter().map(at).collect::<Vec<_>>(),
            [("missing-component-type", "", Some(1), Some(1))],
            "{text}"
        );
    }
    for text in ["{}\n", "agentspec_version: 26.4.0\n"] {
        let err = Document::from_yaml_str(text).unwrap_err();
        let codes: Vec<_> = err.errors().map(|d| d.code).collect();
        assert_eq!(codes, ["missing-component-type"], "{text}");
    }
}
