//! The reference checks run after a document is decoded: one namespace of ids for all
//! `$referenced_components` maps and the supplied components; duplicate ids, references to
//! nothing, to the wrong family or in a cycle, unused entries and unsupplied secrets, all
//! reported at once, located lazily from the source text.

use foldhash::{HashMap, HashMapExt, HashSet};

use crate::codec::Decoder;
use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::model::component::{a, names};
use crate::syntax::tree::{Node, Value};
use crate::syntax::{Source, parse_with_depth};

/// Components supplied from outside the document (a components file), by id.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    pub types: HashMap<String, String>,
    /// Values of sensitive fields by placeholder, when supplied.
    pub values: Option<serde_json::Map<String, serde_json::Value>>,
    /// Keep components of unknown types as raw plugin components.
    pub keep_unknown: bool,
    /// Registered plugin component types.
    pub plugins: Option<crate::codec::plugin::PluginRegistry>,
}

/// The `$referenced_components` checks, all reported at once: ids defined twice,
/// references to nothing, to the wrong family or in a cycle, and entries nobody uses.
pub(crate) fn check_references(cx: &mut Decoder, origin: Origin<'_>, registry: &Registry) {
    let mut found = Vec::new();
    let mut need_pointers: Vec<u32> = Vec::new();
    let mut need_keys: Vec<u32> = Vec::new();
    let mut keys: HashMap<&str, usize> = HashMap::with_capacity(cx.entries.len());
    for (i, entry) in cx.entries.iter().enumerate() {
        if let Some(first) = keys.insert(entry.key.as_str(), i) {
            keys.insert(entry.key.as_str(), first);
            found.push(Found::DuplicateKey { entry: i, first });
            need_keys.extend([entry.key_offset, cx.entries[first].key_offset]);
        }
    }
    let mut ids: HashMap<&str, usize> = HashMap::with_capacity(cx.components.len());
    for (i, c) in cx.components.iter().enumerate() {
        if c.id.is_empty() {
            continue;
        }
        if let Some(&first) = ids.get(c.id.as_str()) {
            found.push(Found::DuplicateComponent {
                component: i,
                first,
            });
            need_pointers.extend([c.offset, cx.components[first].offset]);
        } else {
            ids.insert(c.id.as_str(), i);
        }
    }
    let mut used = vec![false; cx.entries.len()];
    let mut edges: Vec<Vec<(usize, usize)>> = vec![Vec::new(); cx.entries.len()];
    for (i, entry) in cx.entries.iter().enumerate() {
        if registry.types.contains_key(entry.key.as_str()) {
            found.push(Found::AlsoSupplied(i));
            need_keys.push(entry.key_offset);
        }
    }
    for (r, reference) in cx.references.iter().enumerate() {
        match keys.get(reference.id.as_str()) {
            None => match registry.types.get(reference.id.as_str()) {
                None => found.push(Found::Unresolved(r)),
                Some(ty) if !ty.is_empty() && !reference.members.contains(&ty.as_str()) => {
                    found.push(Found::WrongSupplied(r, ty.clone()))
                }
                Some(_) => continue,
            },
            Some(&target) => {
                used[target] = true;
                let ty = cx.entries[target].component_type.as_str();
                if !ty.is_empty() && !cx.entry_admitted(target, reference.members) {
                    found.push(Found::WrongFamily(r, target));
                    need_pointers.push(reference.offset);
                }
                if let Some(owner) = reference.owner {
                    edges[owner].push((target, r));
                }
                continue;
            }
        }
        need_pointers.push(reference.offset);
    }
    for cycle in cycles(&edges) {
        need_pointers.push(cx.references[cycle.closing_ref].offset);
        found.push(Found::Cycle(cycle));
    }
    for (i, secret) in cx.secrets.iter().enumerate() {
        if !secret.supplied {
            found.push(Found::MissingSecret {
                secret: i,
                values_given: registry.values.is_some(),
            });
            need_pointers.push(secret.offset);
        }
    }
    let duplicates: HashSet<usize> = found
        .iter()
        .filter_map(|f| {
            if let Found::DuplicateKey { entry, .. } = f {
                Some(*entry)
            } else {
                None
            }
        })
        .collect();
    for (i, used) in used.iter().enumerate() {
        if !used && !duplicates.contains(&i) {
            found.push(Found::Unused(i));
            need_keys.push(cx.entries[i].key_offset);
        }
    }
    if found.is_empty() {
        return;
    }
    let pointers = pointers_at(
        origin,
        need_pointers.into_iter().collect(),
        need_keys.into_iter().collect(),
    );
    let missing: Vec<&str> = {
        let mut ids: Vec<&str> = found
            .iter()
            .filter_map(|f| {
                if let Found::Unresolved(r) = f {
                    Some(cx.references[*r].id.as_str())
                } else {
                    None
                }
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    // every diagnostic repeats the list, so it names at most ten ids
    let missing_list = match missing.len() {
        n if n > 10 => format!("{}, … and {} more", missing[..10].join(", "), n - 10),
        _ => missing.join(", "),
    };
    let mut out = Vec::new();
    for f in &found {
        out.push(f.diagnostic(cx, &pointers, &missing_list));
    }
    cx.diagnostics.extend(out);
}

/// One reference problem, before it is worded.
enum Found {
    DuplicateKey {
        entry: usize,
        first: usize,
    },
    DuplicateComponent {
        component: usize,
        first: usize,
    },
    Unresolved(usize),
    WrongFamily(usize, usize),
    /// A reference to a supplied component of the wrong family.
    WrongSupplied(usize, String),
    /// A `$referenced_components` key that the supplied components define too.
    AlsoSupplied(usize),
    /// A sensitive field whose value was not supplied.
    MissingSecret {
        secret: usize,
        values_given: bool,
    },
    Cycle(Cycle),
    Unused(usize),
}

impl Found {
    fn diagnostic(&self, cx: &Decoder, pointers: &Pointers, missing: &str) -> Diagnostic {
        let at = |pointer: &Option<String>, offset: u32| {
            pointer
                .clone()
                .or_else(|| pointers.values.get(&offset).cloned())
                .unwrap_or_default()
        };
        let entry_at = |i: usize| {
            let e = &cx.entries[i];
            e.pointer
                .clone()
                .or_else(|| pointers.keys.get(&e.key_offset).cloned())
                .unwrap_or_default()
        };
        let reference_at = |r: usize| at(&cx.references[r].pointer, cx.references[r].offset);
        match self {
            Found::DuplicateKey { entry, first } => {
                let e = &cx.entries[*entry];
                let message = format!(
                    "the id `{}` is defined in two `$referenced_components` maps (also at {}); an id names one component",
                    e.key,
                    entry_at(*first)
                );
                Diagnostic::error(
                    "duplicate-id",
                    message,
                    entry_at(*entry),
                    Some(e.key_offset as usize),
                )
            }
            Found::DuplicateComponent { component, first } => {
                let (c, other) = (&cx.components[*component], &cx.components[*first]);
                let message = format!(
                    "two components have the id `{}` (the other at {}); ids must be unique",
                    c.id,
                    at(&other.pointer, other.offset)
                );
                Diagnostic::error(
                    "duplicate-id",
                    message,
                    at(&c.pointer, c.offset),
                    Some(c.offset as usize),
                )
            }
            Found::Unresolved(r) => {
                let reference = &cx.references[*r];
                let message = format!(
                    "no component with id `{}` is defined in any `$referenced_components` map of this document or in the supplied components (missing ids: {})",
                    reference.id, missing
                );
                Diagnostic::error(
                    "unresolved-reference",
                    message,
                    reference_at(*r),
                    Some(reference.offset as usize),
                )
            }
            Found::WrongFamily(r, target) => {
                let reference = &cx.references[*r];
                let ty = &cx.entries[*target].component_type;
                let message = format!(
                    "`{}` is {}, which cannot stand where {} is expected (expected one of: {})",
                    reference.id,
                    a(&format!("`{ty}`")),
                    a(reference.family),
                    names(reference.members)
                );
                Diagnostic::error(
                    "wrong-component-family",
                    message,
                    reference_at(*r),
                    Some(reference.offset as usize),
                )
            }
            Found::WrongSupplied(r, ty) => {
                let reference = &cx.references[*r];
                let message = format!(
                    "`{}` is a supplied `{ty}`, which cannot stand where {} is expected (expected one of: {})",
                    reference.id,
                    a(reference.family),
                    names(reference.members)
                );
                Diagnostic::error(
                    "wrong-component-family",
                    message,
                    reference_at(*r),
                    Some(reference.offset as usize),
                )
            }
            Found::AlsoSupplied(i) => {
                let e = &cx.entries[*i];
                let message = format!(
                    "the id `{}` is defined in this document and in the supplied components; an id names one component",
                    e.key
                );
                Diagnostic::error(
                    "duplicate-id",
                    message,
                    entry_at(*i),
                    Some(e.key_offset as usize),
                )
            }
            Found::MissingSecret {
                secret,
                values_given,
            } => {
                let s = &cx.secrets[*secret];
                let pointer = at(&s.pointer, s.offset);
                if *values_given {
                    let message = format!(
                        "the supplied values have no value for the secret `{}`",
                        s.placeholder
                    );
                    Diagnostic::error("missing-secret", message, pointer, Some(s.offset as usize))
                } else {
                    let message = format!(
                        "the secret `{}` is a placeholder: supply its value to use it",
                        s.placeholder
                    );
                    Diagnostic::warning("missing-secret", message, pointer, Some(s.offset as usize))
                }
            }
            Found::Cycle(cycle) => {
                let path: Vec<&str> = cycle
                    .entries
                    .iter()
                    .map(|&e| cx.entries[e].key.as_str())
                    .collect();
                let message = format!(
                    "reference cycle: {} → {}; a component cannot contain itself",
                    path.join(" → "),
                    path[0]
                );
                let reference = &cx.references[cycle.closing_ref];
                Diagnostic::error(
                    "reference-cycle",
                    message,
                    reference_at(cycle.closing_ref),
                    Some(reference.offset as usize),
                )
            }
            Found::Unused(i) => {
                let e = &cx.entries[*i];
                let message = format!(
                    "the component `{}` of `$referenced_components` is not referenced anywhere; it is kept when the document is written",
                    e.key
                );
                Diagnostic::warning(
                    "unused-component",
                    message,
                    entry_at(*i),
                    Some(e.key_offset as usize),
                )
            }
        }
    }
}

/// A cycle of `$referenced_components` entries, and the reference that closes it.
struct Cycle {
    entries: Vec<usize>,
    closing_ref: usize,
}

/// Every cycle of the graph `edges` (entry → (target entry, reference)), found by an
/// iterative depth-first search; each cycle is reported once, from the entry first reached.
fn cycles(edges: &[Vec<(usize, usize)>]) -> Vec<Cycle> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; edges.len()];
    let mut found = Vec::new();
    for start in 0..edges.len() {
        if mark[start] != Mark::New {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        mark[start] = Mark::Open;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&(target, reference)) = edges[node].get(*next) {
                *next += 1;
                match mark[target] {
                    Mark::New => {
                        mark[target] = Mark::Open;
                        stack.push((target, 0));
                    }
                    Mark::Open => {
                        let from = stack.iter().position(|&(n, _)| n == target).unwrap_or(0);
                        found.push(Cycle {
                            entries: stack[from..].iter().map(|&(n, _)| n).collect(),
                            closing_ref: reference,
                        });
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                stack.pop();
            }
        }
    }
    found
}

/// JSON pointers found by offset: of values (components, reference objects) and of object
/// entries by their key's offset. (In YAML a block mapping starts where its first key does,
/// so the two are kept apart.)
#[derive(Default)]
struct Pointers {
    values: HashMap<u32, String>,
    keys: HashMap<u32, String>,
}

/// Where the pointers of a document's diagnostics are found again, when they are needed.
#[derive(Clone, Copy)]
pub(crate) enum Origin<'a> {
    /// Its source text (offsets are byte offsets).
    Text(Source<'a>),
    /// The value it was loaded from (offsets number the tree's values and keys in order,
    /// [`value_to_numbered_node`](crate::syntax::value::value_to_numbered_node)).
    Value(&'a serde_json::Value),
    /// Nowhere: the decoder records the pointer of every reference and component as it
    /// reads it (a tree given as it is).
    Unknown,
}

/// Finds the pointers of the values at `values` and of the entries whose keys are at `keys`
/// where the document came from (done only when there is a problem to report).
fn pointers_at(origin: Origin<'_>, values: HashSet<u32>, keys: HashSet<u32>) -> Pointers {
    match origin {
        Origin::Text(source) => match parse_with_depth(source.text, source.format) {
            Ok((tree, ..)) => pointers_in(&tree, &values, &keys),
            Err(_) => Pointers::default(),
        },
        Origin::Value(value) => pointers_in(
            &crate::syntax::value::value_to_numbered_node(value),
            &values,
            &keys,
        ),
        Origin::Unknown => Pointers::default(),
    }
}

/// One walk of `tree` in document order with one pointer buffer (linear in the tree, however
/// deep): the first place each offset is met.
fn pointers_in(tree: &Node, values: &HashSet<u32>, keys: &HashSet<u32>) -> Pointers {
    let mut found = Pointers::default();
    if values.contains(&tree.offset) {
        found.values.insert(tree.offset, String::new());
    }
    let mut pointer = String::new();
    // each open container: the node, its next child, and the length of its own pointer
    let mut stack: Vec<(&Node, usize, usize)> = vec![(tree, 0, 0)];
    while let Some(frame) = stack.last_mut() {
        let (node, i, len) = *frame;
        frame.1 += 1;
        let (child, entry) = match &node.value {
            Value::Array(items) if i < items.len() => (&items[i], None),
            Value::Object(entries) if i < entries.len() => (&entries[i].value, Some(&entries[i])),
            _ => {
                stack.pop();
                continue;
            }
        };
        pointer.truncate(len);
        match entry {
            Some(entry) => {
                push_pointer_token(&mut pointer, &entry.key);
                if keys.contains(&entry.key_offset) {
                    found
                        .keys
                        .entry(entry.key_offset)
                        .or_insert_with(|| pointer.clone());
                }
            }
            None => push_pointer_token(&mut pointer, &i.to_string()),
        }
        if values.contains(&child.offset) {
            found
                .values
                .entry(child.offset)
                .or_insert_with(|| pointer.clone());
        }
        if matches!(child.value, Value::Array(_) | Value::Object(_)) {
            stack.push((child, 0, pointer.len()));
        }
    }
    found
}
