//! The table of diagnostic codes (the guide's documents page) is complete and true: every code in it is
//! produced by its example document, and every code the test documents produce is in it.

use std::collections::BTreeSet;

use agentspec_tests::{diagnostics_of, fixture, fixtures};
use agentspec_types::Document;

/// (code, example file) of every row of the guide's table.
fn table() -> Vec<(String, Option<String>)> {
    rows()
        .into_iter()
        .map(|(code, _, example)| (code, example))
        .collect()
}

/// (code, severity column, example file) of every row of the guide's table.
fn rows() -> Vec<(String, String, Option<String>)> {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../agentspec-types/docs/guide/documents.md"
    ))
    .unwrap();
    let start = readme.find("<!-- codes:").expect("the code table");
    let end = readme
        .find("<!-- /codes -->")
        .expect("the end of the code table");
    readme[start..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let code = cells[0]
                .trim_start_matches("| ")
                .trim_matches('`')
                .to_owned();
            let severity = cells[1].to_owned();
            let example = cells
                .last()
                .and_then(|c| c.trim_end_matches(" |").strip_prefix('`'))
                .map(|c| c.trim_end_matches('`').to_owned());
            (code, severity, example)
        })
        .collect()
}

#[test]
fn the_library_lists_the_table_codes_with_their_default_levels() {
    let listed: Vec<(String, String)> = agentspec_types::diagnostic::CODES
        .iter()
        .map(|(code, level)| ((*code).to_owned(), level.as_str().to_owned()))
        .collect();
    let table: Vec<(String, String)> = rows()
        .into_iter()
        .map(|(code, severity, _)| {
            // "warning (error once values are given)": the default level comes first
            let level = severity.split(' ').next().unwrap_or_default().to_owned();
            (code, level)
        })
        .collect();
    assert_eq!(listed, table);
}

#[test]
fn every_code_in_the_table_is_produced_by_its_example() {
    let rows = table();
    assert_eq!(rows.len(), 67);
    for (code, example) in &rows {
        match example {
            Some(file) => {
                let found = diagnostics_of(&fixture(file));
                assert!(
                    found.iter().any(|d| d.code == code),
                    "{file} does not produce {code}: {found:?}"
                );
            }
            None if code == "io-error" => {
                let err = Document::from_path("/no/such/file.json").unwrap_err();
                assert_eq!(err.diagnostics[0].code, "io-error");
            }
            None if code == "invalid-split" => {
                let doc = Document::from_path(fixture("generated/agent_simple_server_tool.json"))
                    .unwrap();
                assert_eq!(
                    doc.split(&[("nope", None)]).unwrap_err().diagnostics[0].code,
                    "invalid-split"
                );
            }
            None if code == "dropped-field" => {
                let doc = Document::from_path(fixture(
                    "edge-cases/newer_field_in_older_version_dropped_on_reserialize.json",
                ))
                .unwrap();
                let (_, report) = doc
                    .with_version_dropping(agentspec_types::Version::new(25, 4, 1))
                    .unwrap();
                assert_eq!(report[0].code, "dropped-field");
            }
            None => panic!("{code} has no example"),
        }
    }
}

#[test]
fn every_code_the_test_documents_produce_is_in_the_table() {
    let listed: BTreeSet<String> = table().into_iter().map(|(code, _)| code).collect();
    let two_levels: BTreeSet<String> = rows()
        .into_iter()
        .filter(|(_, severity, _)| severity.contains('('))
        .map(|(code, ..)| code)
        .collect();
    let mut produced = BTreeSet::new();
    for folder in ["generated", "negative", "edge-cases", "codes"] {
        for path in fixtures(folder, "json")
            .into_iter()
            .chain(fixtures(folder, "yaml"))
        {
            for d in diagnostics_of(&path) {
                // produced at its default level (no levels are applied here), unless the
                // table names the cases where it is the other
                let level = agentspec_types::diagnostic::default_level(d.code);
                assert!(
                    level == Some(d.severity) || two_levels.contains(d.code),
                    "{}: {} at {:?}, listed as {level:?}",
                    path.display(),
                    d.code,
                    d.severity
                );
                produced.insert(d.code.to_owned());
            }
        }
    }
    let unlisted: Vec<&String> = produced.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "codes missing from the guide's table: {unlisted:?}"
    );
    assert!(produced.len() >= 50, "{}", produced.len());
}
