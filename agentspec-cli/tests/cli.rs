//! The `agentspec` command, run as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(relative)
}

fn agentspec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agentspec"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn fmt_writes_pyagentspec_json_byte_for_byte() {
    let path = fixture("generated/flow_branching.json");
    let out = agentspec(&["fmt", path.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out), std::fs::read_to_string(&path).unwrap());
}

#[test]
fn fmt_writes_what_pyagentspec_writes_for_a_document_in_another_layout() {
    // an upstream fixture: edges referenced from the root's map, a node stored under a key
    // that is not its id, a flow and a node without inputs, outputs or branches
    let path = fixture("upstream/tests/serialized_flow_with_inlined_components.yaml");
    let out = agentspec(&["fmt", path.to_str().unwrap(), "--to", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    // inferred as pyagentspec infers them when it loads the document
    assert_eq!(doc["inputs"], serde_json::json!([]));
    assert_eq!(doc["outputs"], serde_json::json!([]));
    let node = &doc["$referenced_components"]["promptnode2"];
    assert_eq!(
        node["inputs"],
        serde_json::json!([{"title": "x", "type": "string"}])
    );
    assert_eq!(node["branches"], serde_json::json!(["next"]));
    // a component used once is written inline; one used twice is referenced by its id
    assert_eq!(
        doc["control_flow_connections"][0]["component_type"],
        "ControlFlowEdge"
    );
    assert_eq!(
        doc["nodes"][1],
        serde_json::json!({"$component_ref": "promptnode2"})
    );
    let mut keys: Vec<&str> = doc["$referenced_components"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["START_NODE", "end_node", "promptnode2"]);
}

#[test]
fn fmt_converts_yaml_to_json() {
    let yaml = fixture("generated/flow_branching.yaml");
    let json = fixture("generated/flow_branching.json");
    let out = agentspec(&["fmt", yaml.to_str().unwrap(), "--to", "json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), std::fs::read_to_string(json).unwrap());
}

/// A document without errors gets one line saying what was checked; `--quiet` leaves it out,
/// and the JSON format never has it.
#[test]
fn check_says_what_it_checked_in_one_line_per_good_document() {
    let a = fixture("generated/agent_all_tools.json");
    let b = fixture("generated/swarm.yaml");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = agentspec(&["check", a, b]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "ok: {a} (Agent \"Ops assistant\", 11 components, agentspec_version 25.4.2, 0 warnings)\n\
             ok: {b} (Swarm \"Support swarm\", 5 components, agentspec_version 25.4.2, 0 warnings)\n"
        )
    );
    let quiet = agentspec(&["check", "--quiet", a, b]);
    assert_eq!(
        (quiet.status.code(), stdout(&quiet).as_str()),
        (Some(0), "")
    );
    let json = agentspec(&["check", "--format", "json", a, b]);
    assert_eq!(
        (json.status.code(), stdout(&json).as_str()),
        (Some(0), "[]\n")
    );
    // after the warnings of a document without errors, none after one with errors
    let warned = fixture("edge-cases/missing_agentspec_version.json");
    let broken = fixture("negative/unknown_component_type.json");
    let (warned, broken) = (warned.to_str().unwrap(), broken.to_str().unwrap());
    let out = agentspec(&["check", warned, broken]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let ok: Vec<&str> = text.lines().filter(|l| l.starts_with("ok: ")).collect();
    assert_eq!(
        ok,
        [format!(
            "ok: {warned} (Flow \"Basic LLM flow\", 9 components, agentspec_version 26.4.0, 1 warning)"
        )]
    );
    assert!(
        text.starts_with(&format!("{warned}:1:1: warning[missing-version]")),
        "{text}"
    );
    let quiet = agentspec(&["check", "-q", warned]);
    assert!(stdout(&quiet).contains("warning[missing-version]"));
    assert!(!stdout(&quiet).contains("ok: "));
}

#[test]
fn check_reports_errors_with_file_line_column_code_and_pointer() {
    let path = fixture("negative/unknown_component_type.json");
    let shown = path.to_str().unwrap();
    let out = agentspec(&["check", shown]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with(&format!("{shown}:")), "{first}");
    assert!(
        first.contains(": error[unknown-component-type]: "),
        "{first}"
    );
    assert!(first.ends_with("(at /component_type)"), "{first}");
}

#[test]
fn check_json_output_lists_every_field() {
    let path = fixture("negative/missing_component_type.json");
    let out = agentspec(&["check", "--format", "json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let list: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let first = &list[0];
    let keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "file", "severity", "code", "message", "pointer", "line", "column"
        ]
    );
    assert_eq!(first["severity"], "error");
    assert_eq!(first["code"], "missing-component-type");
    assert_eq!(first["line"], 1);
}

#[test]
fn check_exits_2_for_a_missing_file_and_for_bad_usage() {
    let missing = agentspec(&["check", "/no/such/file.json"]);
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.starts_with("error: /no/such/file.json: cannot read: "),
        "{stderr}"
    );
    assert_eq!(agentspec(&["check"]).status.code(), Some(2));
    assert_eq!(agentspec(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn an_unreadable_components_file_is_reported_without_a_position() {
    let doc = fixture("generated/flow_branching.json");
    let out = agentspec(&[
        "check",
        doc.to_str().unwrap(),
        "--components",
        "/no/such/components.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "/no/such/components.json: error[io-error]: cannot read /no/such/components.json: "
        ),
        "{stderr}"
    );
    assert!(stderr.trim_end().ends_with("(at /)"), "{stderr}");
}

#[test]
fn check_accepts_warnings() {
    let path = fixture("edge-cases/missing_agentspec_version.json");
    let out = agentspec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("warning[missing-version]"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn check_and_fmt_take_a_components_file() {
    let main = fixture("generated/disaggregated_main.json");
    let components = fixture("generated/disaggregated_components.json");
    let (main, components) = (main.to_str().unwrap(), components.to_str().unwrap());
    let without = agentspec(&["check", main]);
    assert_eq!(without.status.code(), Some(1));
    assert!(stdout(&without).contains("error[unresolved-reference]"));
    let with = agentspec(&["check", "--quiet", main, "--components", components]);
    assert_eq!((with.status.code(), stdout(&with).as_str()), (Some(0), ""));
    let out = agentspec(&["fmt", main, "--components", components]);
    assert_eq!(
        stdout(&out),
        std::fs::read_to_string(fixture("generated/disaggregated_main.json")).unwrap()
    );
    assert_eq!(
        agentspec(&["check", main, "--components", "/no/such.json"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn check_takes_values_and_fmt_includes_secrets_on_request() {
    let redacted = fixture("generated/sensitive_fields_redacted.json");
    let values = fixture("generated/sensitive_fields_redacted.registry.json");
    let (redacted, values) = (redacted.to_str().unwrap(), values.to_str().unwrap());
    let plain = agentspec(&["check", redacted]);
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(stdout(&plain).matches("warning[missing-secret]").count(), 2);
    let with_values = agentspec(&["check", "-q", redacted, "--values", values]);
    assert_eq!(
        (with_values.status.code(), stdout(&with_values).as_str()),
        (Some(0), "")
    );
    let out = agentspec(&["fmt", redacted, "--values", values, "--include-secrets"]);
    assert!(stdout(&out).contains("\"api_key\": \"sk-from-registry\""));
    let redacted_again = agentspec(&["fmt", redacted, "--values", values]);
    assert_eq!(
        stdout(&redacted_again),
        std::fs::read_to_string(fixture("generated/sensitive_fields_redacted.json")).unwrap()
    );
}

#[test]
fn join_then_split_gives_back_the_disaggregated_pair() {
    let main = fixture("generated/disaggregated_main.json");
    let components = fixture("generated/disaggregated_components.json");
    let joined = agentspec(&[
        "join",
        main.to_str().unwrap(),
        "--components",
        components.to_str().unwrap(),
    ]);
    assert_eq!(
        joined.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&joined.stderr)
    );
    let dir = std::env::temp_dir().join(format!("agentspec-cli-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let whole = dir.join("whole.json");
    std::fs::write(&whole, stdout(&joined)).unwrap();
    let (main_out, components_out) = (dir.join("main.json"), dir.join("components.json"));
    let split = agentspec(&[
        "split",
        whole.to_str().unwrap(),
        "--component",
        "dis_llm=shared_llm_config",
        "--component",
        "dis_tool",
        "--main",
        main_out.to_str().unwrap(),
        "--components-out",
        components_out.to_str().unwrap(),
    ]);
    assert_eq!(
        split.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&split.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&main_out).unwrap(),
        std::fs::read_to_string(&main).unwrap()
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&components_out).unwrap()).unwrap();
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&components).unwrap()).unwrap();
    assert_eq!(written, original);
    let root = agentspec(&[
        "split",
        whole.to_str().unwrap(),
        "--component",
        "dis_agent",
        "--main",
        "/tmp/x",
        "--components-out",
        "/tmp/y",
    ]);
    assert_eq!(root.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&root.stderr).contains("error[invalid-split]"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_shows_the_source_line_with_a_marker() {
    let path = fixture("negative/llmnode_extra_branch.json");
    let out = agentspec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0]
            .contains(":116:7: error[branches-mismatch]: LlmNode `describe weather` (llm_node)"),
        "{text}"
    );
    assert_eq!(
        &lines[1..4],
        ["    |", "116 |       \"branches\": [", "    |       ^"]
    );
}

#[test]
fn graph_draws_the_root_flow() {
    let flow = fixture("generated/flow_branching.json");
    let out = agentspec(&["graph", flow.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("flowchart TD\n"));
    let dot = agentspec(&["graph", flow.to_str().unwrap(), "--format", "dot"]);
    assert!(stdout(&dot).starts_with("digraph flow {"));
    let agent = fixture("generated/agent_simple_server_tool.json");
    assert_eq!(
        agentspec(&["graph", agent.to_str().unwrap()]).status.code(),
        Some(1)
    );
}

#[test]
fn min_version_explains_and_fmt_writes_at_a_version() {
    let path = fixture("generated/agent_with_summarization_transforms.json");
    let path = path.to_str().unwrap();
    let out = agentspec(&["min-version", path]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "26.1.2 because `Agent.transforms` is set at /transforms\n"
    );
    let old = agentspec(&["fmt", path, "--version", "25.4.2"]);
    assert_eq!(old.status.code(), Some(1));
    let message = String::from_utf8_lossy(&old.stderr).into_owned();
    assert!(message.contains(":16:3: error[version-too-old]: cannot write at 25.4.2: `Agent.transforms` is set, which needs 26.1.2"), "{message}");
    let simple = fixture("generated/agent_simple_server_tool.json");
    let newer = agentspec(&["fmt", simple.to_str().unwrap(), "--version", "26.1.2"]);
    assert_eq!(newer.status.code(), Some(0));
    assert!(stdout(&newer).ends_with("\"agentspec_version\": \"26.1.2\"\n}\n"));
    assert_eq!(
        agentspec(&["fmt", simple.to_str().unwrap(), "--version", "soon"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn fmt_drops_newer_fields_only_when_asked() {
    let path = fixture("edge-cases/newer_field_in_older_version_dropped_on_reserialize.json");
    let path = path.to_str().unwrap();
    let kept = agentspec(&["fmt", path]);
    assert_eq!(kept.status.code(), Some(0));
    assert!(stdout(&kept).contains("\"provider\": \"meta\""));
    assert!(stdout(&kept).ends_with("\"agentspec_version\": \"26.1.2\"\n}\n"));
    let refused = agentspec(&["fmt", path, "--version", "25.4.1"]);
    assert_eq!(refused.status.code(), Some(1));
    let dropped = agentspec(&["fmt", path, "--version", "25.4.1", "--drop-newer"]);
    assert_eq!(dropped.status.code(), Some(0));
    assert!(!stdout(&dropped).contains("provider"));
    assert!(stdout(&dropped).ends_with("\"agentspec_version\": \"25.4.1\"\n}\n"));
    let report = String::from_utf8_lossy(&dropped.stderr).into_owned();
    assert!(
        report.contains(":132:9: warning[dropped-field]: `VllmConfig.provider` is dropped: it exists from Agent Spec 26.1.2, and the document is written at 25.4.1 (at /$referenced_components/llm_node/llm_config/provider)"),
        "{report}"
    );
    let without_version = agentspec(&["fmt", path, "--drop-newer"]);
    assert_eq!(without_version.status.code(), Some(2));
}

#[test]
fn schema_prints_the_schema_of_a_version() {
    let out = agentspec(&["schema", "--version", "25.4.1"]);
    assert_eq!(out.status.code(), Some(0));
    let printed = stdout(&out);
    let expected =
        agentspec_types::version::json_schema(agentspec_types::Version::new(25, 4, 1)).unwrap();
    assert_eq!(printed, format!("{expected}\n"));
    let schema: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(schema["title"], "Agent Spec 25.4.1 document");
    let newest = agentspec(&["schema"]);
    let schema: serde_json::Value = serde_json::from_str(&stdout(&newest)).unwrap();
    assert_eq!(schema["$defs"]["RootAgentSpecVersion"]["const"], "26.4.0");
    let unknown = agentspec(&["schema", "--version", "25.4.0"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&unknown.stderr),
        "error: no schema for Agent Spec version `25.4.0` (known: 25.4.1, 25.4.2, 26.1.0, 26.1.2, 26.2.0, 26.3.0, 26.3.1, 26.4.0)\n"
    );
}

#[test]
fn keep_unknown_writes_plugin_components_back_unchanged() {
    let path = fixture("generated/plugin_flow_regex_node.json");
    let plain = agentspec(&["check", path.to_str().unwrap()]);
    assert_eq!(plain.status.code(), Some(1));
    assert!(stdout(&plain).contains("error[plugin-not-registered]"));
    let kept = agentspec(&["check", "--keep-unknown", path.to_str().unwrap()]);
    assert_eq!(
        kept.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&kept.stderr)
    );
    let out = agentspec(&["fmt", "--keep-unknown", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), std::fs::read_to_string(&path).unwrap());
}

#[test]
fn fmt_keeps_unknown_keys_and_drops_them_on_request_with_a_report() {
    let path = fixture("edge-cases/unknown_extra_keys_ignored.json");
    let kept = agentspec(&["fmt", path.to_str().unwrap()]);
    assert_eq!(kept.status.code(), Some(0));
    assert!(stdout(&kept).contains("\"colour\": \"blue\""));
    assert!(String::from_utf8_lossy(&kept.stderr).contains("warning[unknown-field]"));
    let dropped = agentspec(&["fmt", "--drop-unknown", path.to_str().unwrap()]);
    assert_eq!(dropped.status.code(), Some(0));
    assert!(!stdout(&dropped).contains("colour"));
    assert!(
        String::from_utf8_lossy(&dropped.stderr)
            .contains("dropped the key Agent Spec does not define at /colour")
    );
}

#[test]
fn fmt_reports_each_secret_it_writes_as_a_placeholder() {
    let path = fixture("generated/sensitive_fields_included.json");
    let out = agentspec(&["fmt", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for pointer in ["/llm_config/api_key", "/tools/0/sensitive_headers"] {
        assert!(
            stderr.contains(&format!("wrote the secret at {pointer} as a placeholder")),
            "{stderr}"
        );
    }
    assert!(!stderr.contains("sk-"), "no value is printed: {stderr}");
    let included = agentspec(&["fmt", "--include-secrets", path.to_str().unwrap()]);
    assert!(!String::from_utf8_lossy(&included.stderr).contains("placeholder"));
}

#[test]
fn check_denies_and_allows_codes() {
    let path = fixture("edge-cases/unknown_extra_keys_ignored.json");
    let file = path.to_str().unwrap();
    // a warning by default: exit 0
    let default = agentspec(&["check", file]);
    assert_eq!(default.status.code(), Some(0));
    assert!(stdout(&default).contains("warning[unknown-field]"));
    // denied: an error, exit 1
    for deny in ["unknown-field", "warnings"] {
        let denied = agentspec(&["check", "--deny", deny, file]);
        assert_eq!(denied.status.code(), Some(1), "--deny {deny}");
        assert!(stdout(&denied).contains("error[unknown-field]"));
    }
    // allowed: not reported
    let allowed = agentspec(&["check", "--allow", "unknown-field", file]);
    assert_eq!(allowed.status.code(), Some(0));
    assert!(!stdout(&allowed).contains("unknown-field"));
    // an error cannot be allowed, and a code that does not exist is refused, before any
    // file is read
    let refused = agentspec(&["check", "--allow", "missing-field", file]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "error: --deny/--allow: `missing-field` is an error, and errors cannot be allowed\n"
    );
    let misspelt = agentspec(&["check", "--deny", "unknown-feild", "--deny", "nope", file]);
    assert_eq!(misspelt.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&misspelt.stderr),
        "error: --deny/--allow: there is no diagnostic code `nope`\n\
         error: --deny/--allow: there is no diagnostic code `unknown-feild`; did you mean `unknown-field`?\n"
    );
    assert!(stdout(&misspelt).is_empty());
}

/// A fresh folder holding a copy of the disaggregation fixture joined into one document.
fn scratch(name: &str) -> (PathBuf, PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("agentspec-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let joined = agentspec(&[
        "join",
        fixture("generated/disaggregated_main.json")
            .to_str()
            .unwrap(),
        "--components",
        fixture("generated/disaggregated_components.json")
            .to_str()
            .unwrap(),
    ]);
    let whole = dir.join("in.json");
    std::fs::write(&whole, stdout(&joined)).unwrap();
    (dir, whole, stdout(&joined))
}

/// Asserts that `dir` holds only `in.json` (no output, no temporary file), then removes it.
fn only_the_input_is_left(dir: &std::path::Path) {
    let names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["in.json"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn split_never_loses_its_input() {
    let (dir, input, original) = scratch("split-safe");
    let file = input.to_str().unwrap();
    let elsewhere = dir.join("c.json");
    let main_out = dir.join("main.json");
    let cases: [(&str, &str, &str); 3] = [
        // the components file in a missing folder: the main document is not written either
        (
            main_out.to_str().unwrap(),
            "missing-dir/c.json",
            "cannot write",
        ),
        // the main document over the input
        (file, elsewhere.to_str().unwrap(), "is also an input"),
        // both outputs one file
        (
            elsewhere.to_str().unwrap(),
            elsewhere.to_str().unwrap(),
            "name the same file",
        ),
    ];
    for (main, components_out, expected) in cases {
        let components_out = if components_out.starts_with("missing") {
            dir.join(components_out)
        } else {
            PathBuf::from(components_out)
        };
        let run = agentspec(&[
            "split",
            file,
            "--component",
            "dis_tool",
            "--main",
            main,
            "--components-out",
            components_out.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{main} {stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert_eq!(std::fs::read_to_string(&input).unwrap(), original);
        assert!(!elsewhere.exists() && !main_out.exists());
    }
    only_the_input_is_left(&dir);
}

#[test]
fn fmt_write_rewrites_in_place_or_leaves_the_file_as_it_was() {
    let (dir, input, original) = scratch("fmt-write");
    let file = input.to_str().unwrap();
    // compact JSON in, pyagentspec's layout back in the same file
    let value: serde_json::Value = serde_json::from_str(&original).unwrap();
    std::fs::write(&input, value.to_string()).unwrap();
    let run = agentspec(&["fmt", "--write", file]);
    assert_eq!(run.status.code(), Some(0));
    assert!(run.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&input).unwrap(), original);
    // YAML written into a .json file is refused
    let run = agentspec(&["fmt", "--write", "--to", "yaml", file]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&input).unwrap(), original);
    // a document that does not load is left untouched
    let broken = original.replacen("\"name\"", "\"nmae\"", 1);
    std::fs::write(&input, &broken).unwrap();
    let run = agentspec(&["fmt", "-w", file]);
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&input).unwrap(), broken);
    only_the_input_is_left(&dir);
}

fn check_text(name: &str, text: &str, args: &[&str]) -> Output {
    let dir = std::env::temp_dir().join(format!("agentspec-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ext = if text.trim_start().starts_with('{') {
        "json"
    } else {
        "yaml"
    };
    let path = dir.join(format!("doc.{ext}"));
    std::fs::write(&path, text).unwrap();
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.push(path.to_str().unwrap());
    let out = agentspec(&all);
    std::fs::remove_dir_all(&dir).unwrap();
    out
}

#[test]
fn no_secret_reaches_a_report() {
    let llm =
        r#""component_type":"OpenAiCompatibleConfig","id":"x","name":"x","model_id":"m","url":"u""#;
    let cases = [
        // an unquoted value on a compact line
        format!(r#"{{{llm},"api_key": sk-unquoted-secret}}"#),
        // a warning on a compact line that also holds a key
        format!(r#"{{{llm},"api_key": "sk-quoted-secret", "bogus": 1}}"#),
        // YAML flow style, and a value that does not fit its tag
        "{component_type: OpenAiCompatibleConfig, id: x, name: x, model_id: m, url: u, api_key: sk-flow-secret, bogus: 1}\n".to_owned(),
        "component_type: OpenAiCompatibleConfig\nid: x\nname: x\nmodel_id: m\nurl: u\napi_key: !!int sk-tagged-secret\n".to_owned(),
    ];
    for text in cases {
        for format in ["human", "json"] {
            let out = check_text("hidden", &text, &["--format", format]);
            let shown = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
            assert!(
                !out.status.success() || shown.contains("warning"),
                "{shown}"
            );
            assert!(!shown.contains("-secret"), "{format}: {shown}");
            assert!(!shown.contains("sk-"), "{format}: {shown}");
        }
    }
    let human = check_text(
        "hidden-marker",
        &format!(r#"{{{llm},"api_key": "sk-quoted-secret", "bogus": 1}}"#),
        &[],
    );
    assert!(
        stdout(&human).contains(r#""api_key": "****************", "bogus""#),
        "{}",
        stdout(&human)
    );
}

#[test]
fn excerpts_escape_control_characters_and_cut_long_lines() {
    // a raw ESC in a string is not JSON: the error's excerpt shows it escaped
    let text = "{\"component_type\": \"Agent\", \"name\": \"\u{1b}[2J\"}";
    let shown = stdout(&check_text("control", text, &[]));
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
    assert!(shown.contains("\\u{1b}[2J"), "{shown}");
    // a 10,000-character line is cut around the marker
    let padding = "x".repeat(10_000);
    let text = format!(
        "{{\"component_type\":\"OpenAiCompatibleConfig\",\"id\":\"x\",\"name\":\"x\",\"description\":\"{padding}\",\"model_id\":\"m\",\"url\":\"u\",\"bogus\":1}}"
    );
    let shown = stdout(&check_text("long", &text, &[]));
    let longest = shown.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest < 200, "{longest}");
    let lines: Vec<&str> = shown.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("no field `bogus`"))
        .unwrap();
    let (code, marker) = (lines[at + 2], lines[at + 3]);
    let column = marker.chars().position(|c| c == '^').unwrap();
    let from: String = code.chars().skip(column).collect();
    assert!(from.starts_with("\"bogus\""), "{code}\n{marker}");
}

#[test]
fn thousands_of_dangling_references_give_a_bounded_report() {
    let n = 4_000;
    let tools: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"$component_ref": "missing_{i}"}}"#))
        .collect();
    let text = format!(
        r#"{{"component_type": "Agent", "id": "a", "name": "a", "system_prompt": "p", "llm_config": {{"$component_ref": "llm"}}, "tools": [{}], "agentspec_version": "26.1.0"}}"#,
        tools.join(", ")
    );
    let out = check_text("dangling", &text, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = stdout(&out);
    let all: Vec<serde_json::Value> = serde_json::from_str(&report).unwrap();
    assert_eq!(all.len(), n + 1);
    // each names ten of the missing ids and counts the rest
    assert!(
        all[0]["message"]
            .as_str()
            .unwrap()
            .contains("and 3991 more")
    );
    assert!(report.len() < 1_000 * (n + 1), "{}", report.len());
}

/// `check --mcp-servers`: a stdio command runs only with `--allow-stdio`; a server that does
/// not answer is an error located at the transport; without the flag nothing is reached.
#[test]
fn check_reaches_mcp_servers_only_when_asked() {
    let dir = std::env::temp_dir().join(format!("agentspec-cli-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("agent.yaml");
    std::fs::write(
        &path,
        "\
component_type: Agent
id: a
name: a
llm_config: {component_type: VllmConfig, id: llm, name: llm, url: 'http://localhost:8000', model_id: m}
system_prompt: You help.
tools:
- component_type: MCPTool
  id: t1
  name: lookup
  client_transport:
    component_type: StdioTransport
    id: local
    name: local
    command: no-such-command-xyz
- component_type: MCPTool
  id: t2
  name: fetch
  client_transport:
    component_type: StreamableHTTPTransport
    id: closed
    name: closed
    url: http://127.0.0.1:1/mcp
agentspec_version: 26.1.0
",
    )
    .unwrap();
    let file = path.to_str().unwrap();
    let out = agentspec(&["check", file]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let out = agentspec(&["check", "--mcp-servers", file]);
    assert_eq!(out.status.code(), Some(1));
    let shown = stdout(&out);
    assert!(
        shown.contains(&format!(
            "{file}:10:3: error[mcp-stdio-refused]: the StdioTransport would run no-such-command-xyz;"
        )),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("{file}:18:3: error[mcp-server-unreachable]: the MCP server at http://127.0.0.1:1/mcp could not be asked for its tools")),
        "{shown}"
    );
    let out = agentspec(&["check", "--mcp-servers", "--allow-stdio", file]);
    let shown = stdout(&out);
    assert!(
        shown.contains("error[mcp-server-unreachable]: the MCP server run as no-such-command-xyz could not be asked for its tools: cannot start it"),
        "{shown}"
    );
    let out = agentspec(&["check", "--allow-stdio", file]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--allow-stdio needs --mcp-servers"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh folder for a test's files.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentspec-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn to_mcp_writes_a_document_check_accepts() {
    let dir = folder("to-mcp");
    let input = fixture("generated-26_3_1/agent_all_tools.json");
    let output = dir.join("agent.json");
    let run = agentspec(&[
        "to-mcp",
        input.to_str().unwrap(),
        "--http",
        "http://127.0.0.1:8808/mcp",
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        format!(
            "{}: 1 ServerTool is an MCPTool now reached over MCP through `mcp_server`: `get_weather`\n",
            input.display()
        )
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&input).unwrap()).unwrap();
    let tool = &written["tools"][0];
    assert_eq!(tool["component_type"], "MCPTool");
    for key in [
        "id",
        "name",
        "description",
        "metadata",
        "inputs",
        "outputs",
        "requires_confirmation",
    ] {
        assert_eq!(tool[key], original["tools"][0][key], "{key}");
    }
    assert_eq!(
        tool["client_transport"],
        serde_json::json!({
            "component_type": "StreamableHTTPTransport",
            "id": "mcp_server",
            "name": "127.0.0.1:8808",
            "description": null,
            "metadata": {},
            "session_parameters": {"read_timeout_seconds": 60.0},
            "url": "http://127.0.0.1:8808/mcp",
            "auth": null,
            "headers": null,
            "sensitive_headers": null,
            "retry_policy": null
        })
    );
    assert_eq!(tool["retry_policy"], serde_json::Value::Null);
    // the rest is as it was
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&written), keys(&original));
    assert_eq!(
        written["tools"].as_array().unwrap()[1..],
        original["tools"].as_array().unwrap()[1..]
    );
    assert_eq!(written["toolboxes"], original["toolboxes"]);
    let check = agentspec(&["check", output.to_str().unwrap()]);
    assert_eq!(
        (check.status.code(), stdout(&check)),
        (
            Some(0),
            format!(
                "ok: {} (Agent \"Ops assistant\", 12 components, agentspec_version 26.3.1, 0 warnings)\n",
                output.display()
            )
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn to_mcp_shares_one_stdio_transport_and_takes_only_the_tools_named() {
    let dir = folder("to-mcp-stdio");
    let input = dir.join("agent.yaml");
    std::fs::write(
        &input,
        "\
component_type: Agent
id: a
name: a
llm_config: {component_type: VllmConfig, id: llm, name: llm, url: 'http://localhost:8000', model_id: m}
system_prompt: You help.
tools:
- {component_type: ServerTool, id: t1, name: lookup, inputs: [{title: key, type: string}]}
- {component_type: ServerTool, id: t2, name: fetch}
- {component_type: ServerTool, id: t3, name: store}
agentspec_version: 26.1.0
",
    )
    .unwrap();
    let file = input.to_str().unwrap();
    let run = agentspec(&[
        "to-mcp",
        file,
        "--tool",
        "lookup",
        "--tool",
        "t3",
        "--transport-id",
        "local",
        "--to",
        "json",
        "--stdio",
        "python",
        "-m",
        "tools_server",
        "--port",
        "0",
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written: serde_json::Value = serde_json::from_str(&stdout(&run)).unwrap();
    let types: Vec<&str> = written["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["component_type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["MCPTool", "ServerTool", "MCPTool"]);
    for i in [0, 2] {
        assert_eq!(
            written["tools"][i]["client_transport"],
            serde_json::json!({"$component_ref": "local"})
        );
    }
    let transport = &written["$referenced_components"]["local"];
    assert_eq!(transport["component_type"], "StdioTransport");
    assert_eq!(transport["name"], "python");
    assert_eq!(transport["command"], "python");
    assert_eq!(
        transport["args"],
        serde_json::json!(["-m", "tools_server", "--port", "0"])
    );
    let output = dir.join("out.json");
    std::fs::write(&output, stdout(&run)).unwrap();
    let check = agentspec(&["check", output.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    assert!(stdout(&check).starts_with("ok: "), "{}", stdout(&check));

    // an option of to-mcp after `--stdio` is the command's, with a note
    let late = agentspec(&[
        "to-mcp", file, "--to", "json", "--stdio", "server", "-o", "out.json",
    ]);
    assert_eq!(late.status.code(), Some(0));
    let written: serde_json::Value = serde_json::from_str(&stdout(&late)).unwrap();
    assert_eq!(
        written["$referenced_components"]["mcp_server"]["args"],
        serde_json::json!(["-o", "out.json"])
    );
    assert!(
        String::from_utf8_lossy(&late.stderr).starts_with(
            "note: `-o` follows `--stdio`, so it is an argument of the server's command; to-mcp's own options go before `--stdio`\n"
        ),
        "{}",
        String::from_utf8_lossy(&late.stderr)
    );
    // a name that is no ServerTool's, no transport, two transports
    let misspelt = agentspec(&["to-mcp", file, "--tool", "lokup", "--sse", "http://h/sse"]);
    assert_eq!(misspelt.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&misspelt.stderr),
        format!(
            "error: {file}: the document has no `ServerTool` named `lokup` (did you mean `lookup`?); its `ServerTool`s are `lookup`, `fetch`, `store`\n"
        )
    );
    assert_eq!(agentspec(&["to-mcp", file]).status.code(), Some(2));
    let both = agentspec(&[
        "to-mcp",
        file,
        "--http",
        "http://h/mcp",
        "--sse",
        "http://h/sse",
    ]);
    assert_eq!(both.status.code(), Some(2));
    // the output over the input is refused
    let over = agentspec(&["to-mcp", file, "--http", "http://h/mcp", "-o", file]);
    assert_eq!(over.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A server on a free port that answers each request with the next of `replies` (content
/// type, body), in order, as an OpenAI-compatible endpoint would; returns its address and
/// the bodies of the requests it read.
fn chat_server(
    replies: Vec<(&'static str, String)>,
) -> (String, std::sync::mpsc::Receiver<serde_json::Value>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (seen, bodies) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for (content_type, body) in replies {
            let (mut socket, _) = listener.accept().unwrap();
            let mut data = Vec::new();
            let mut buf = [0u8; 4096];
            let head = loop {
                let n = socket.read(&mut buf).unwrap();
                data.extend_from_slice(&buf[..n]);
                if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                    break at + 4;
                }
            };
            let text = String::from_utf8_lossy(&data[..head]).to_lowercase();
            let length: usize = text
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            while data.len() < head + length {
                let n = socket.read(&mut buf).unwrap();
                data.extend_from_slice(&buf[..n]);
            }
            let _ = seen.send(serde_json::from_slice(&data[head..head + length]).unwrap());
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            socket.write_all(answer.as_bytes()).unwrap();
        }
    });
    (addr, bodies)
}

fn completion(message: serde_json::Value) -> (&'static str, String) {
    let body = serde_json::json!({"choices": [{"index": 0, "message": message}]});
    ("application/json", body.to_string())
}

fn tool_call(id: &str, name: &str, args: &str) -> (&'static str, String) {
    completion(
        serde_json::json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": id, "type": "function", "function": {"name": name, "arguments": args}}]}),
    )
}

/// Runs `agentspec` with `input` on its stdin.
fn agentspec_with_input(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentspec"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn run_chats_in_the_terminal_and_resumes_a_saved_session() {
    let stream = [
        r#"{"choices":[{"index":0,"delta":{"content":"It is "}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"42."}}]}"#,
    ]
    .iter()
    .map(|e| format!("data: {e}\n\n"))
    .collect::<String>()
        + "data: [DONE]\n\n";
    let (addr, bodies) = chat_server(vec![
        tool_call("c1", "read_screen", "{}"),
        tool_call("c2", "inc", r#"{"x": 41}"#),
        ("text/event-stream", stream),
        completion(serde_json::json!({"role": "assistant", "content": "Bye, Ada."})),
    ]);
    let doc = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../agentspec-runtime/tests/fixtures/calculator.json");
    let saved = std::env::temp_dir().join(format!("agentspec-run-{}.json", std::process::id()));
    let url = format!("http://{addr}/v1");
    let common = [
        "run",
        doc.to_str().unwrap(),
        "--llm-url",
        url.as_str(),
        "--save",
        saved.to_str().unwrap(),
    ];
    // confirm the client tool, answer it, answer the ServerTool (no implementation here),
    // then end the input at the user's turn: the session is saved
    let first = agentspec_with_input(
        &[&common[..], &["--input", "user=Ada"]].concat(),
        "y\n41\n42\n",
    );
    let printed = stdout(&first);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{printed}{}",
        String::from_utf8_lossy(&first.stderr)
    );
    for expected in [
        "run read_screen({})? [y/N] ",
        "[client tool] read_screen({}): type its result",
        "[tool] inc({\"x\":41}) has no implementation here",
        "It is 42.\n",
        "result> [call] inc({\"x\":41})\n[tool] inc",
        "[result] 42\nIt is 42.\nyou> saved to",
    ] {
        assert!(
            printed.contains(expected),
            "{expected:?} missing from:\n{printed}"
        );
    }
    let first_request: serde_json::Value = bodies.recv().unwrap();
    assert!(
        first_request["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Ada")
    );
    assert!(
        std::fs::read_to_string(&saved)
            .unwrap()
            .contains("\"format\"")
    );

    // a second process continues it
    let second = agentspec_with_input(
        &[&common[..], &["--resume", saved.to_str().unwrap()]].concat(),
        "thanks\n",
    );
    let printed = stdout(&second);
    assert_eq!(
        second.status.code(),
        Some(0),
        "{printed}{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(printed.contains("Bye, Ada."), "{printed}");
    let last: serde_json::Value = bodies.iter().nth(2).unwrap();
    let messages = last["messages"].as_array().unwrap();
    assert_eq!(messages.last().unwrap()["content"], "thanks");
    let _ = std::fs::remove_file(&saved);
}

#[test]
fn run_reports_a_document_it_cannot_run_and_bad_inputs() {
    let doc = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../agentspec-runtime/tests/fixtures/calculator.json");
    let out = agentspec_with_input(&["run", doc.to_str().unwrap(), "--input", "user"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected NAME=VALUE"));
    let out = agentspec_with_input(
        &[
            "run",
            doc.to_str().unwrap(),
            "--input",
            "user=Ada",
            "--input",
            "nobody=1",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("error[unknown-input]"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // a component the runtime blocks (an MCP server it would start): at its line and column
    let dir = std::env::temp_dir().join(format!("agentspec-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stdio = dir.join("stdio.yaml");
    std::fs::write(
        &stdio,
        "component_type: Agent\nname: a\nsystem_prompt: Hi.\nagentspec_version: 26.3.1\n\
         llm_config: {component_type: OpenAiCompatibleConfig, name: l, model_id: m, url: localhost:1}\n\
         tools:\n- component_type: MCPTool\n  name: t\n  client_transport:\n    component_type: StdioTransport\n    name: server\n    command: server-binary\n",
    )
    .unwrap();
    let out = agentspec_with_input(&["run", stdio.to_str().unwrap()], "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("stdio.yaml:9:3: error[blocked-component]"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `agentspec serve` driven as a host program drives it: JSON lines both ways.
struct Served {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl Served {
    fn start() -> Self {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentspec"))
            .arg("serve")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        Served {
            child,
            input,
            output,
        }
    }

    fn send(&mut self, line: serde_json::Value) {
        use std::io::Write;
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    fn read(&mut self) -> serde_json::Value {
        let line = self.output.next().expect("a line").unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

#[test]
fn serve_runs_a_flow_and_calls_the_hosts_tools_back_several_at_once() {
    use serde_json::json;
    let runtime_fixture = |name: &str| {
        std::fs::read_to_string(format!(
            "{}/../agentspec-runtime/tests/fixtures/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let mut served = Served::start();
    // a document that does not load: every problem, located
    served.send(json!({"id": 1, "method": "load", "params": {"document": runtime_fixture("inc_twice"), "host_tools": ["dec"]}}));
    let reply = served.read();
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["error"]["code"], "load-failed");
    let d = &reply["error"]["diagnostics"][0];
    assert_eq!(d["code"], "missing-tool");
    assert!(d["message"].as_str().unwrap().contains("`dec`"), "{d}");
    assert!(
        d["line"].as_u64().is_some() && d["pointer"].as_str().is_some(),
        "{d}"
    );

    // the ParallelMapNode's three calls are in flight together: answered in reverse order
    served.send(json!({"id": 2, "method": "load", "params": {"document": runtime_fixture("fan_out"), "host_tools": true}}));
    assert_eq!(served.read()["result"]["component_type"], "Flow");
    served.send(
        json!({"id": 3, "method": "start", "params": {"inputs": {"xs": [1, 2, 3], "x": 10}}}),
    );
    assert_eq!(served.read()["result"]["session"], "s1");
    served.send(json!({"id": 4, "method": "run"}));
    let answer = |served: &mut Served, call: &serde_json::Value| {
        let x = call["params"]["args"]["x"].as_i64().unwrap();
        let result = if call["params"]["name"] == "inc" {
            x + 1
        } else {
            x * 2
        };
        served.send(json!({"id": call["id"], "result": result}));
    };
    // the MapNode: one call at a time
    for _ in 0..3 {
        let call = served.read();
        assert_eq!(call["method"], "tool.call");
        answer(&mut served, &call);
    }
    // the ParallelMapNode: three calls before any answer
    let calls: Vec<_> = (0..3).map(|_| served.read()).collect();
    assert!(
        calls.iter().all(|c| c["method"] == "tool.call"),
        "{calls:?}"
    );
    for call in calls.iter().rev() {
        answer(&mut served, call);
    }
    // the ParallelFlowNode: inc and double together
    let calls: Vec<_> = (0..2).map(|_| served.read()).collect();
    let mut names: Vec<&str> = calls
        .iter()
        .map(|c| c["params"]["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["double", "inc"]);
    for call in &calls {
        answer(&mut served, call);
    }
    let done = served.read();
    assert_eq!(done["id"], 4);
    assert_eq!(
        done["result"],
        json!({"status": "finished", "outputs": {"total": 9, "incremented": [2, 3, 4], "x": 11, "y": 20}, "messages": []})
    );

    // a tool that fails fails the flow with the host's message
    served.send(json!({"id": 5, "method": "start", "params": {"inputs": {"xs": [1], "x": 0}}}));
    assert_eq!(served.read()["result"]["session"], "s2");
    served.send(json!({"id": 6, "method": "run"}));
    let call = served.read();
    served.send(json!({"id": call["id"], "error": {"message": "ValueError: no"}}));
    let failed = served.read();
    assert_eq!(failed["error"]["code"], "tool-failed");
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("ValueError: no")
    );

    // bad requests are answered, never fatal
    served.send(json!({"id": 7, "method": "fly"}));
    assert_eq!(served.read()["error"]["code"], "unknown-method");
    served.send(json!({"id": 8, "method": "append_tool_result", "params": {"session": "s9", "tool_request_id": "x"}}));
    assert_eq!(served.read()["error"]["code"], "unknown-session");
    drop(served.input);
    assert!(served.child.wait().unwrap().success());
}
