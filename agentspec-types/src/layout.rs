//! pyagentspec's layout of shared components, computed from scratch.
//!
//! A document is first *expanded*: every `{"$component_ref": id}` that names an entry of a
//! `$referenced_components` map (or a supplied component) is replaced by a copy of its body,
//! and the maps are removed. The expanded tree is then *laid out*: components are the
//! objects with a `component_type` and an `id` (copies with the same id are one component,
//! and must be identical); a component used at one place is written inline there, a component
//! used at several places is written as a reference at every place, its body stored once in
//! the `$referenced_components` of the closest component all its uses pass through (its
//! immediate dominator in the graph of components).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::diagnostic::Diagnostic;

/// Why a layout could not be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LayoutError {
    /// Two different bodies share one id.
    Conflict(String),
    /// A reference comes back to a component that contains it.
    Cycle(String),
    /// Expanding the references would make more values than the budget allows (shared
    /// components referenced from shared components, many times over).
    TooLarge,
}

/// The number of values the expansion of a document of `values` values may make: ten times
/// as many, and at least two million (a legitimate document that uses a large subflow from
/// many places stays under it; a reference bomb does not).
fn expansion_budget(values: usize) -> usize {
    values.saturating_mul(10).max(2_000_000)
}

/// The number of values in `value`, itself included.
fn count(value: &Value) -> usize {
    let mut n = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            Value::Object(map) => stack.extend(map.values()),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    n
}

/// The entries of every `$referenced_components` map of `value`, at any depth.
fn namespace(value: &Value, out: &mut HashMap<String, Value>) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if let Some(Value::Object(entries)) = map.get("$referenced_components") {
                    for (k, body) in entries {
                        out.entry(k.clone()).or_insert_with(|| body.clone());
                    }
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}

/// The id named by a `{"$component_ref": id}` object.
fn reference(map: &Map<String, Value>) -> Option<&str> {
    if map.len() == 1 {
        map.get("$component_ref")?.as_str()
    } else {
        None
    }
}

/// Inlines every reference to an entry of the document's maps or of `supplied`; returns the
/// expanded tree and the map entries no reference used.
pub(crate) fn expand(
    value: &Value,
    supplied: &HashMap<String, Value>,
) -> Result<(Value, Vec<(String, Value)>), LayoutError> {
    let mut ns = supplied.clone();
    namespace(value, &mut ns);
    let mut used = HashSet::new();
    let mut open = Vec::new();
    let mut left = expansion_budget(count(value) + ns.values().map(count).sum::<usize>());
    let expanded = expand_value(value, &ns, &mut used, &mut open, &mut left)?;
    let mut local = HashMap::new();
    namespace(value, &mut local);
    let mut unused: Vec<(String, Value)> = local
        .into_iter()
        .filter(|(k, _)| !used.contains(k))
        .collect();
    unused.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((expanded, unused))
}

fn expand_value(
    value: &Value,
    ns: &HashMap<String, Value>,
    used: &mut HashSet<String>,
    open: &mut Vec<String>,
    left: &mut usize,
) -> Result<Value, LayoutError> {
    // every value made counts against the budget: expansion stops, with an error, before a
    // reference bomb exhausts memory
    *left = left.checked_sub(1).ok_or(LayoutError::TooLarge)?;
    Ok(match value {
        Value::Object(map) => {
            if let Some(id) = reference(map)
                && let Some(body) = ns.get(id)
            {
                if open.iter().any(|o| o == id) {
                    return Err(LayoutError::Cycle(id.to_owned()));
                }
                used.insert(id.to_owned());
                open.push(id.to_owned());
                let body = expand_value(body, ns, used, open, left)?;
                open.pop();
                return Ok(body);
            }
            let mut out = Map::new();
            for (k, v) in map {
                if k != "$referenced_components" {
                    out.insert(k.clone(), expand_value(v, ns, used, open, left)?);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| expand_value(v, ns, used, open, left))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

/// A component's id, when `map` is a component.
fn component_id(map: &Map<String, Value>) -> Option<&str> {
    map.get("component_type")?.as_str()?;
    map.get("id")?.as_str()
}

/// The components directly inside `value` (not inside another component), in order.
fn children(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(id) = component_id(map) {
                out.push(id.to_owned());
            } else {
                map.values().for_each(|v| children(v, out));
            }
        }
        Value::Array(items) => items.iter().for_each(|v| children(v, out)),
        _ => {}
    }
}

struct Graph {
    ids: Vec<String>,
    index: HashMap<String, usize>,
    bodies: Vec<Value>,
    /// Direct uses: for each component, the components in its body (one entry per place).
    uses: Vec<Vec<usize>>,
}

impl Graph {
    /// Every component of `root` (itself a component), each once; copies must be equal.
    fn build(root: &Value) -> Result<Graph, LayoutError> {
        let mut g = Graph {
            ids: Vec::new(),
            index: HashMap::new(),
            bodies: Vec::new(),
            uses: Vec::new(),
        };
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(map) => {
                    if let Some(id) = component_id(map) {
                        match g.index.get(id) {
                            Some(&i) if g.bodies[i] != *v => {
                                return Err(LayoutError::Conflict(id.to_owned()));
                            }
                            Some(_) => continue,
                            None => {
                                g.index.insert(id.to_owned(), g.ids.len());
                                g.ids.push(id.to_owned());
                                g.bodies.push(v.clone());
                            }
                        }
                    }
                    stack.extend(map.values().rev());
                }
                Value::Array(items) => stack.extend(items.iter().rev()),
                _ => {}
            }
        }
        for body in &g.bodies {
            let mut direct = Vec::new();
            if let Value::Object(map) = body {
                map.values().for_each(|v| children(v, &mut direct));
            }
            g.uses.push(direct.iter().map(|id| g.index[id]).collect());
        }
        Ok(g)
    }

    /// The immediate dominator of every component reachable from component 0.
    fn dominators(&self) -> Vec<usize> {
        let n = self.ids.len();
        // Reverse post-order from the root.
        let mut order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&child) = self.uses[node].get(*next) {
                *next += 1;
                if !seen[child] {
                    seen[child] = true;
                    stack.push((child, 0));
                }
            } else {
                order.push(node);
                stack.pop();
            }
        }
        order.reverse();
        let mut parents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (p, uses) in self.uses.iter().enumerate() {
            for &c in uses {
                parents[c].push(p);
            }
        }
        let mut idom = vec![usize::MAX; n];
        let mut depth = vec![0usize; n];
        idom[0] = 0;
        for &node in order.iter().skip(1) {
            let mut dom = usize::MAX;
            for &p in &parents[node] {
                if idom[p] == usize::MAX {
                    continue;
                }
                dom = if dom == usize::MAX {
                    p
                } else {
                    intersect(dom, p, &idom, &depth)
                };
            }
            idom[node] = dom;
            depth[node] = depth[dom] + 1;
        }
        idom
    }
}

fn intersect(mut a: usize, mut b: usize, idom: &[usize], depth: &[usize]) -> usize {
    while a != b {
        if depth[a] > depth[b] {
            a = idom[a];
        } else {
            b = idom[b];
        }
    }
    a
}

/// Lays out an expanded component tree; `extra` entries (unused ones) go to the root's map.
pub(crate) fn layout(root: &Value, extra: Vec<(String, Value)>) -> Result<Value, LayoutError> {
    let g = Graph::build(root)?;
    if g.ids.is_empty() {
        return Ok(root.clone());
    }
    let mut in_degree = vec![0usize; g.ids.len()];
    for uses in &g.uses {
        for &c in uses {
            in_degree[c] += 1;
        }
    }
    let idom = g.dominators();
    // Owned shared components, in first-use order.
    let mut owned: Vec<Vec<usize>> = vec![Vec::new(); g.ids.len()];
    let mut placed = vec![false; g.ids.len()];
    let mut stack = vec![0usize];
    let mut visited = vec![false; g.ids.len()];
    visited[0] = true;
    while let Some(node) = stack.pop() {
        for &c in g.uses[node].iter().rev() {
            if in_degree[c] > 1 && !placed[c] {
                placed[c] = true;
                owned[idom[c]].push(c);
            }
            if !visited[c] {
                visited[c] = true;
                stack.push(c);
            }
        }
    }
    for list in &mut owned {
        list.sort_by_key(|&c| first_use(&g, c));
    }
    let mut out = emit(&g, 0, &in_degree, &owned);
    if !extra.is_empty()
        && let Value::Object(map) = &mut out
    {
        let rc = map
            .entry("$referenced_components")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(rc) = rc {
            for (k, v) in extra {
                rc.entry(k).or_insert(v);
            }
        }
    }
    Ok(out)
}

/// A stable order for owned components: the position of the first body that uses them.
fn first_use(g: &Graph, c: usize) -> usize {
    g.uses
        .iter()
        .position(|u| u.contains(&c))
        .unwrap_or(usize::MAX)
}

/// Writes component `node`: shared children as references, the others inline, then the
/// shared components it owns in its `$referenced_components`.
fn emit(g: &Graph, node: usize, in_degree: &[usize], owned: &[Vec<usize>]) -> Value {
    let Value::Object(body) = &g.bodies[node] else {
        return g.bodies[node].clone();
    };
    let mut out = Map::new();
    let mut version = None;
    for (k, v) in body {
        if k == "agentspec_version" && node == 0 {
            version = Some(v.clone());
            continue;
        }
        out.insert(k.clone(), emit_value(g, v, in_degree, owned));
    }
    if !owned[node].is_empty() {
        let mut rc = Map::new();
        for &c in &owned[node] {
            rc.insert(g.ids[c].clone(), emit(g, c, in_degree, owned));
        }
        out.insert("$referenced_components".to_owned(), Value::Object(rc));
    }
    if let Some(v) = version {
        out.insert("agentspec_version".to_owned(), v);
    }
    Value::Object(out)
}

fn emit_value(g: &Graph, value: &Value, in_degree: &[usize], owned: &[Vec<usize>]) -> Value {
    match value {
        Value::Object(map) => match component_id(map).and_then(|id| g.index.get(id)) {
            Some(&c) if in_degree[c] > 1 => {
                let mut r = Map::new();
                r.insert("$component_ref".to_owned(), Value::String(g.ids[c].clone()));
                Value::Object(r)
            }
            Some(&c) => emit(g, c, in_degree, owned),
            None => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), emit_value(g, v, in_degree, owned)))
                    .collect(),
            ),
        },
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| emit_value(g, v, in_degree, owned))
                .collect(),
        ),
        other => other.clone(),
    }
}

impl LayoutError {
    /// The diagnostic that reports it.
    pub(crate) fn diagnostic(self) -> Diagnostic {
        match self {
            LayoutError::Conflict(id) => Diagnostic::error(
                "duplicate-id",
                format!("two different components have the id `{id}`; an id names one component"),
                "",
                None,
            ),
            LayoutError::Cycle(id) => Diagnostic::error(
                "reference-cycle",
                format!("the component `{id}` contains a reference to itself"),
                "",
                None,
            ),
            LayoutError::TooLarge => Diagnostic::error(
                "too-large",
                "inlining the references would make more than ten times the document's values \
                 (shared components that reference shared components, many times over)",
                "",
                None,
            ),
        }
    }
}

/// Gives a fresh id to every component (an object with a `component_type`) without one.
pub(crate) fn give_fresh_ids(value: &mut serde_json::Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(map) => {
                let is_component = map
                    .get("component_type")
                    .is_some_and(serde_json::Value::is_string);
                let has_id = map
                    .get("id")
                    .and_then(serde_json::Value::as_str)
                    .is_some_and(|id| !id.is_empty());
                if is_component && !has_id {
                    map.insert(
                        "id".into(),
                        serde_json::Value::String(crate::codec::fresh_id()),
                    );
                }
                stack.extend(map.values_mut());
            }
            serde_json::Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// The first component with `id` in an expanded document.
pub(crate) fn find_component<'a>(
    value: &'a serde_json::Value,
    id: &str,
) -> Option<&'a serde_json::Value> {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(map) => {
                if map.get("component_type").is_some()
                    && map.get("id").and_then(serde_json::Value::as_str) == Some(id)
                {
                    return Some(v);
                }
                stack.extend(map.values());
            }
            serde_json::Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    None
}

/// Replaces every component whose id is a key of `keys` by a reference to its new key.
pub(crate) fn replace_components(
    value: &serde_json::Value,
    keys: &HashMap<String, String>,
) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            if map.get("component_type").is_some()
                && let Some(key) = map
                    .get("id")
                    .and_then(serde_json::Value::as_str)
                    .and_then(|id| keys.get(id))
            {
                return serde_json::json!({ "$component_ref": key });
            }
            serde_json::Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), replace_components(v, keys)))
                    .collect(),
            )
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(|v| replace_components(v, keys)).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(id: &str, extra: Value) -> Value {
        let mut v = json!({"component_type": "X", "id": id});
        if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
            m.extend(e);
        }
        v
    }

    #[test]
    fn shares_what_is_used_twice_and_inlines_the_rest() {
        let llm = node("llm", json!({}));
        let a = node("a", json!({"llm": llm.clone()}));
        let b = node(
            "b",
            json!({"llm": llm.clone(), "own": node("only_b", json!({}))}),
        );
        let root = node(
            "root",
            json!({"items": [a, b], "agentspec_version": "25.4.1"}),
        );
        let out = layout(&root, Vec::new()).unwrap();
        assert_eq!(out["items"][0]["llm"], json!({"$component_ref": "llm"}));
        assert_eq!(out["items"][1]["own"]["id"], "only_b");
        assert_eq!(out["$referenced_components"]["llm"]["id"], "llm");
        assert_eq!(
            out.as_object().unwrap().keys().next_back().unwrap(),
            "agentspec_version"
        );
    }

    #[test]
    fn stores_a_shared_body_at_the_closest_common_owner() {
        let shared = node("s", json!({}));
        let inner = node("inner", json!({"x": shared.clone(), "y": shared.clone()}));
        let root = node("root", json!({"sub": inner}));
        let out = layout(&root, Vec::new()).unwrap();
        assert!(out.get("$referenced_components").is_none());
        assert_eq!(out["sub"]["$referenced_components"]["s"]["id"], "s");
    }

    #[test]
    fn rejects_different_bodies_with_one_id_and_cycles() {
        let root = node(
            "root",
            json!({"a": node("x", json!({"v": 1})), "b": node("x", json!({"v": 2}))}),
        );
        assert_eq!(
            layout(&root, Vec::new()),
            Err(LayoutError::Conflict("x".into()))
        );
        let cyclic = json!({"component_type": "X", "id": "r", "a": {"$component_ref": "x"},
                            "$referenced_components": {"x": {"component_type": "X", "id": "x", "b": {"$component_ref": "x"}}}});
        assert_eq!(
            expand(&cyclic, &HashMap::new()).unwrap_err(),
            LayoutError::Cycle("x".into())
        );
    }

    #[test]
    fn a_reference_bomb_is_too_large_not_an_abort() {
        // 12 entries, each referencing the next 8 times: 8^12 copies if expanded
        let mut entries = serde_json::Map::new();
        for i in 0..12 {
            let refs: Vec<Value> = (0..8)
                .map(|_| json!({"$component_ref": format!("c{}", i + 1)}))
                .collect();
            entries.insert(
                format!("c{i}"),
                json!({"component_type": "X", "id": format!("c{i}"), "items": refs}),
            );
        }
        entries.insert("c12".into(), json!({"component_type": "X", "id": "c12"}));
        let root = json!({"component_type": "X", "id": "r", "a": {"$component_ref": "c0"},
                          "$referenced_components": entries});
        assert!(root.to_string().len() < 5_000);
        assert_eq!(
            expand(&root, &HashMap::new()).unwrap_err(),
            LayoutError::TooLarge
        );
        // the expansion stopped at the budget (two million values), not at 8^12
        assert_eq!(LayoutError::TooLarge.diagnostic().code, "too-large");
    }
}
