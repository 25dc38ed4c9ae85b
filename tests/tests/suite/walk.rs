//! A document lists every inline component and every `$referenced_components` map, at any
//! depth, in document order: checked against the raw JSON of the whole corpus.

use agentspec_tests::fixtures;
use agentspec_types::Document;
use serde_json::Value;

/// (component ids in pre-order, number of non-empty `$referenced_components` maps).
fn expected(value: &Value, ids: &mut Vec<String>, maps: &mut usize) {
    match value {
        Value::Object(map) => {
            if map.contains_key("component_type") {
                ids.push(
                    map.get("id")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                );
            }
            if map
                .get("$referenced_components")
                .and_then(Value::as_object)
                .is_some_and(|m| !m.is_empty())
            {
                *maps += 1;
            }
            map.values().for_each(|v| expected(v, ids, maps));
        }
        Value::Array(items) => items.iter().for_each(|v| expected(v, ids, maps)),
        _ => {}
    }
}

#[test]
fn components_and_referenced_maps_are_listed_in_document_order() {
    let mut documents = 0;
    let mut nested_maps = 0;
    for path in fixtures("generated", "json") {
        let Ok(doc) = Document::from_path(&path) else {
            continue;
        };
        let raw: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let (mut ids, mut maps) = (Vec::new(), 0);
        expected(&raw, &mut ids, &mut maps);
        let found: Vec<String> = doc.components().iter().map(|c| c.id().to_owned()).collect();
        assert_eq!(found, ids, "{}", path.display());
        assert_eq!(
            doc.referenced_components().len(),
            maps,
            "{}",
            path.display()
        );
        nested_maps += maps.saturating_sub(1);
        documents += 1;
    }
    assert_eq!(documents, 45);
    assert!(nested_maps > 0, "the corpus has maps below the root");
}

#[test]
fn walks_with_pointers_name_where_each_component_and_map_is_written() {
    use agentspec_types::walk::{Visit, Walk};
    let mut checked = 0;
    for path in fixtures("generated", "json") {
        let Ok(doc) = Document::from_path(&path) else {
            continue;
        };
        let written = doc.to_value();
        let mut components = 0;
        doc.root()
            .walk_at(&mut String::new(), &mut |pointer, visit| {
                let at = written
                    .pointer(pointer)
                    .unwrap_or_else(|| panic!("{}: no value at {pointer}", path.display()));
                match visit {
                    Visit::Component(c) => {
                        components += 1;
                        assert_eq!(at["component_type"], c.component_type(), "{pointer}");
                        assert_eq!(at["id"], c.id(), "{pointer}");
                    }
                    Visit::Referenced(map) => {
                        assert!(pointer.ends_with("/$referenced_components"), "{pointer}");
                        let keys: Vec<&String> = at.as_object().unwrap().keys().collect();
                        assert_eq!(keys, map.keys().collect::<Vec<_>>(), "{pointer}");
                    }
                }
            });
        let expected_components = doc.components().len();
        assert_eq!(components, expected_components, "{}", path.display());
        checked += 1;
    }
    // every loadable document of the corpus: one that drops out fails here
    assert_eq!(checked, 45, "documents walked");
}
