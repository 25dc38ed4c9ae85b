//! pyagentspec's layout of shared components, computed from scratch.
//!
//! Components are the objects with a `component_type` and an `id`; a `{"$component_ref": key}`
//! names the body stored under `key` in a `$referenced_components` map (or a supplied
//! component). [`lay_out`] builds the graph of the components reachable from the root once,
//! following references without copying anything (copies with the same id are one component,
//! and must be identical), then writes it: a component used at one place inline there, a
//! component used at several places as a reference at every place, its body stored once in
//! the `$referenced_components` of the closest component all its uses pass through (its
//! immediate dominator in the graph of components). The work is linear in the document.
//!
//! [`expand`] inlines every reference instead (`Document::expanded`): its output can be
//! exponentially larger than the document, so it stops at a budget (`too-large`) and at
//! [`MAX_DEPTH`] levels (`too-deep`).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::diagnostic::Diagnostic;
use crate::syntax::tree::MAX_DEPTH;
use crate::syntax::value::field;
use crate::syntax::view::{Id, Kind, View};

/// A map by name ([`Id`]) that keeps the first entry of each name, in the order they came.
/// Where the tree numbers its names (a skeleton), an entry is found through an array indexed
/// by the number: at 10,000 components a hash table of them no longer fits the caches, and
/// its probes cost every lookup a miss, where the array is read in the order the names were
/// given (the document's). Otherwise (a `Value`'s texts) through a hash table.
struct IdMap<K, V> {
    /// Each name's entry, by its number ([`NO_ENTRY`]: none); empty when names are not
    /// numbered.
    numbered: Vec<u32>,
    /// Each name's entry, for names without a number below `numbered`'s length.
    hashed: foldhash::HashMap<K, usize>,
    entries: Vec<(K, V)>,
}

const NO_ENTRY: u32 = u32::MAX;

impl<'a, K: Id<'a>, V> IdMap<K, V> {
    /// A map by hash.
    fn hashed() -> Self {
        IdMap::numbered(0)
    }

    /// A map of names numbered below `numbers`, through an array of 4 bytes per number (by
    /// hash when `numbers` is 0).
    fn numbered(numbers: usize) -> Self {
        IdMap {
            numbered: vec![NO_ENTRY; numbers],
            hashed: foldhash::HashMap::default(),
            entries: Vec::new(),
        }
    }

    /// For a map of about `len` entries of a tree whose names take `numbers` numbers: the
    /// array when the map holds an eighth of the numbers or more, so that the arrays of a
    /// tree's maps (one per `$referenced_components`) stay linear in it together.
    fn for_entries(len: usize, numbers: usize) -> Self {
        if len.saturating_mul(8) >= numbers {
            IdMap::numbered(numbers)
        } else {
            IdMap::hashed()
        }
    }

    fn position(&self, key: K) -> Option<usize> {
        match key.number() {
            Some(n) if (n as usize) < self.numbered.len() => {
                let at = self.numbered[n as usize];
                (at != NO_ENTRY).then_some(at as usize)
            }
            _ => self.hashed.get(&key).copied(),
        }
    }

    /// Adds `key` with `value` unless it is held already (the first entry wins).
    fn insert_first(&mut self, key: K, value: V) {
        if self.position(key).is_some() {
            return;
        }
        let at = self.entries.len();
        match key.number() {
            // each entry of a numbered map has a number of its own, below a u32's range
            Some(n) if (n as usize) < self.numbered.len() => self.numbered[n as usize] = at as u32,
            _ => {
                self.hashed.insert(key, at);
            }
        }
        self.entries.push((key, value));
    }

    fn get(&self, key: K) -> Option<&V> {
        self.position(key).map(|at| &self.entries[at].1)
    }

    fn contains_key(&self, key: K) -> bool {
        self.position(key).is_some()
    }

    /// The entries, in the order they were added.
    fn iter(&self) -> impl Iterator<Item = &(K, V)> {
        self.entries.iter()
    }

    fn into_entries(self) -> Vec<(K, V)> {
        self.entries
    }
}

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
    /// Expanding the references would nest values deeper than a document may be
    /// ([`MAX_DEPTH`]): a long chain of references.
    TooDeep,
}

/// Runs `f` with at least 64 MiB of stack, on the current thread (a new segment when less is
/// left): the recursive walks here go at most [`MAX_DEPTH`] levels deep (more is `TooDeep`),
/// which is more than a 2 MiB thread holds in a debug build. One segment per call, at the
/// entry points: growing at every level would map and unmap a segment for every value at
/// the boundary. The segment is reserved, and only the pages used are committed.
fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 << 20, 64 << 20, f)
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

/// The entries of every `$referenced_components` map of `value`, at any depth (borrowed: a
/// map's entries hold the maps nested in them, so copies would be quadratic in the depth).
fn namespace<'a, N: View<'a>>(value: N, out: &mut IdMap<N::Id, N>) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        if let Some(entries) = v.referenced_components()
            && entries.is_object()
        {
            for (k, body) in entries.keyed_children() {
                out.insert_first(k, body);
            }
        }
        stack.extend(v.children().map(|(_, c)| c));
    }
}

/// The id named by a `{"$component_ref": id}` object.
fn reference(map: &Map<String, Value>) -> Option<&str> {
    if map.len() == 1 {
        field(map, "$component_ref")?.as_str()
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
    with_stack(|| expand_on_stack(value, supplied))
}

fn expand_on_stack(
    value: &Value,
    supplied: &HashMap<String, Value>,
) -> Result<(Value, Vec<(String, Value)>), LayoutError> {
    let mut ns = IdMap::hashed();
    for (k, v) in supplied {
        ns.insert_first(k.as_str(), v);
    }
    namespace(value, &mut ns);
    let mut used = HashSet::new();
    let mut open = HashSet::new();
    // the document and the supplied components, each value once
    let mut left = expansion_budget(count(value) + supplied.values().map(count).sum::<usize>());
    let expanded = expand_value(value, &ns, &mut used, &mut open, &mut left, 0)?;
    let mut local = IdMap::hashed();
    namespace(value, &mut local);
    let mut unused: Vec<(String, Value)> = local
        .into_entries()
        .into_iter()
        .filter(|(k, _)| !used.contains(*k))
        .map(|(k, v)| (k.to_owned(), v.clone()))
        .collect();
    unused.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((expanded, unused))
}

fn expand_value(
    value: &Value,
    ns: &IdMap<&str, &Value>,
    used: &mut HashSet<String>,
    open: &mut HashSet<String>,
    left: &mut usize,
    depth: usize,
) -> Result<Value, LayoutError> {
    // every value made counts against the budget: expansion stops, with an error, before a
    // reference bomb exhausts memory
    *left = left.checked_sub(1).ok_or(LayoutError::TooLarge)?;
    if depth > MAX_DEPTH {
        return Err(LayoutError::TooDeep);
    }
    expand_inner(value, ns, used, open, left, depth)
}

fn expand_inner(
    value: &Value,
    ns: &IdMap<&str, &Value>,
    used: &mut HashSet<String>,
    open: &mut HashSet<String>,
    left: &mut usize,
    depth: usize,
) -> Result<Value, LayoutError> {
    Ok(match value {
        Value::Object(map) => {
            if let Some(id) = reference(map)
                && let Some(body) = ns.get(id)
            {
                if open.contains(id) {
                    return Err(LayoutError::Cycle(id.to_owned()));
                }
                used.insert(id.to_owned());
                open.insert(id.to_owned());
                // the reference itself is replaced: the body stands at its depth
                let body = expand_value(body, ns, used, open, left, depth)?;
                open.remove(id);
                return Ok(body);
            }
            let mut out = Map::new();
            for (k, v) in map {
                if k != "$referenced_components" {
                    out.insert(k.clone(), expand_value(v, ns, used, open, left, depth + 1)?);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| expand_value(v, ns, used, open, left, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

/// Where the layout finds components: the bodies of every `$referenced_components` map of
/// a value (the first entry of a key wins) and the supplied ones, by key.
struct Scope<'a, N: View<'a>> {
    by_key: IdMap<N::Id, N>,
    /// Components to leave out, written as a reference to their new key instead (`split`).
    cut: Option<&'a HashMap<String, String>>,
}

impl<'a, N: View<'a>> Scope<'a, N> {
    fn new(value: N, supplied: &[(N::Id, N)], cut: Option<&'a HashMap<String, String>>) -> Self {
        let mut by_key = IdMap::numbered(value.id_numbers());
        namespace(value, &mut by_key);
        // the supplied components, then the maps inside them
        for &(k, body) in supplied {
            by_key.insert_first(k, body);
        }
        for &(_, body) in supplied {
            namespace(body, &mut by_key);
        }
        Scope { by_key, cut }
    }

    /// The new key of a component cut out.
    fn cut_to(&self, id: N::Id) -> Option<&'a String> {
        self.cut?.get(id.text())
    }

    /// The component `value` is or names: (its id, its body). A reference to nothing known
    /// is not one.
    fn component(&self, value: N) -> Option<(N::Id, N)> {
        if !value.is_object() {
            return None;
        }
        if let Some(id) = value.component_key() {
            return Some((id, value));
        }
        let body = *self.by_key.get(value.reference_key()?)?;
        body.component_key().map(|id| (id, body))
    }

    /// The components directly inside `value` (not inside another component), in order;
    /// those cut out are not uses.
    fn uses(&self, value: N, out: &mut Vec<(N::Id, N)>) {
        match value.kind() {
            Kind::Object => match self.component(value) {
                Some((id, _)) if self.cut_to(id).is_some() => {}
                Some(c) => out.push(c),
                None => value.children().for_each(|(_, v)| self.uses(v, out)),
            },
            Kind::Array => value.children().for_each(|(_, v)| self.uses(v, out)),
            _ => {}
        }
    }
}

/// The components reachable from a root, each once, with the places each one uses.
struct Graph<'a, N: View<'a>> {
    ids: Vec<N::Id>,
    index: IdMap<N::Id, usize>,
    /// Each component's body as written (borrowed: nothing is copied or inlined).
    bodies: Vec<N>,
    /// Direct uses: for each component, where its uses are in `used` (from, to).
    spans: Vec<(usize, usize)>,
    /// The components each body uses (one entry per place), body after body: one array for
    /// the whole graph, not one per component (at 10,000 components, as many allocations
    /// scattered through memory).
    used: Vec<usize>,
}

impl<'a, N: View<'a>> Graph<'a, N> {
    /// Every component reachable from `root` (itself a component, the graph's node 0),
    /// following references through `scope`, each once. Two copies of one id must be
    /// identical. Linear in the bodies, however often a component is referenced.
    fn build(root: (N::Id, N), scope: &Scope<'a, N>) -> Result<Self, LayoutError> {
        let mut index = IdMap::numbered(root.1.id_numbers());
        index.insert_first(root.0, 0);
        let mut g = Graph {
            ids: vec![root.0],
            index,
            bodies: vec![root.1],
            spans: vec![(0, 0)],
            used: Vec::new(),
        };
        let mut stack = vec![0];
        let mut direct = Vec::new();
        while let Some(i) = stack.pop() {
            direct.clear();
            let body = g.bodies[i];
            if body.is_object() {
                for (k, v) in body.children() {
                    if k != "$referenced_components" {
                        scope.uses(v, &mut direct);
                    }
                }
            }
            let from = g.used.len();
            for &(id, body) in &direct {
                let j = match g.index.get(id) {
                    Some(&j) => {
                        if !g.bodies[j].equal(body) {
                            return Err(LayoutError::Conflict(id.text().to_owned()));
                        }
                        j
                    }
                    None => {
                        let j = g.ids.len();
                        g.index.insert_first(id, j);
                        g.ids.push(id);
                        g.bodies.push(body);
                        g.spans.push((0, 0));
                        stack.push(j);
                        j
                    }
                };
                g.used.push(j);
            }
            g.spans[i] = (from, g.used.len());
        }
        g.check_acyclic()?;
        Ok(g)
    }

    /// The components `node`'s body uses, one entry per place, in order.
    fn uses(&self, node: usize) -> &[usize] {
        let (from, to) = self.spans[node];
        &self.used[from..to]
    }

    /// A component that uses itself, directly or through others, cannot be laid out.
    fn check_acyclic(&self) -> Result<(), LayoutError> {
        // 0: not seen, 1: on the path, 2: done
        let mut state = vec![0u8; self.ids.len()];
        let mut stack = vec![(0usize, 0usize)];
        state[0] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&child) = self.uses(node).get(*next) {
                *next += 1;
                match state[child] {
                    0 => {
                        state[child] = 1;
                        stack.push((child, 0));
                    }
                    1 => return Err(LayoutError::Cycle(self.ids[child].text().to_owned())),
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
        Ok(())
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
            if let Some(&child) = self.uses(node).get(*next) {
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
        // each component's parents, one entry per place, component after component (as
        // `used`): counted, then filled in
        let mut starts = vec![0usize; n + 1];
        for &c in &self.used {
            starts[c + 1] += 1;
        }
        for c in 0..n {
            starts[c + 1] += starts[c];
        }
        let mut filled = starts.clone();
        let mut parents = vec![0usize; self.used.len()];
        for p in 0..n {
            for &c in self.uses(p) {
                parents[filled[c]] = p;
                filled[c] += 1;
            }
        }
        let mut idom = vec![usize::MAX; n];
        let mut depth = vec![0usize; n];
        idom[0] = 0;
        for &node in order.iter().skip(1) {
            let mut dom = usize::MAX;
            for &p in &parents[starts[node]..starts[node + 1]] {
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

/// Lays out the component `root` in pyagentspec's way, finding the components it references
/// in the maps of `scope_of` and in `supplied`, and writing the components of `cut` as a
/// reference to their new key. With `keep_unused`, the map entries nothing uses are kept in
/// the root's `$referenced_components`. Nothing is inlined first: the work is linear in
/// the document, however often a component is referenced.
pub(crate) fn lay_out(
    root: &Value,
    scope_of: &Value,
    supplied: &HashMap<String, Value>,
    cut: &HashMap<String, String>,
    keep_unused: bool,
) -> Result<Value, LayoutError> {
    with_stack(|| lay_out_on_stack(root, scope_of, supplied, cut, keep_unused))
}

fn lay_out_on_stack(
    root: &Value,
    scope_of: &Value,
    supplied: &HashMap<String, Value>,
    cut: &HashMap<String, String>,
    keep_unused: bool,
) -> Result<Value, LayoutError> {
    let supplied: Vec<(&str, &Value)> = supplied.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let scope = Scope::new(scope_of, &supplied, Some(cut));
    let Some(start) = scope.component(root) else {
        return Ok(root.clone());
    };
    let plan = Plan::new(start, &scope)?;
    let writer = Writer {
        g: &plan.g,
        scope: &scope,
        in_degree: &plan.in_degree,
        owned: &plan.owned,
    };
    let mut out = writer.component(0, 0)?;
    if keep_unused {
        let mut local = IdMap::hashed();
        namespace(scope_of, &mut local);
        let unused = unused(local.into_entries(), &scope, &plan.g)
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect();
        keep_entries(&mut out, unused);
    }
    Ok(out)
}

/// The entries of a document's maps (`local`, from [`namespace`]) whose component the graph
/// does not reach, by key.
fn unused<'a, N: View<'a>>(
    local: impl IntoIterator<Item = (N::Id, N)>,
    scope: &Scope<'a, N>,
    g: &Graph<'a, N>,
) -> Vec<(N::Id, N)> {
    let mut unused: Vec<(N::Id, N)> = local
        .into_iter()
        .filter(|(_, body)| {
            let id = scope.component(*body).map(|(id, _)| id);
            !id.is_some_and(|id| g.index.contains_key(id))
        })
        .collect();
    unused.sort_by(|a, b| a.0.text().cmp(b.0.text()));
    unused
}

/// Where each component of a layout goes: the graph, how many places use each component,
/// and the shared components each one holds in its `$referenced_components`.
struct Plan<'a, N: View<'a>> {
    g: Graph<'a, N>,
    in_degree: Vec<usize>,
    /// Owned shared components, in first-use order.
    owned: Vec<Vec<usize>>,
}

impl<'a, N: View<'a>> Plan<'a, N> {
    fn new(start: (N::Id, N), scope: &Scope<'a, N>) -> Result<Self, LayoutError> {
        let g = Graph::build(start, scope)?;
        let mut in_degree = vec![0usize; g.ids.len()];
        for &c in &g.used {
            in_degree[c] += 1;
        }
        let idom = g.dominators();
        let mut owned: Vec<Vec<usize>> = vec![Vec::new(); g.ids.len()];
        let mut placed = vec![false; g.ids.len()];
        let mut stack = vec![0usize];
        let mut visited = vec![false; g.ids.len()];
        visited[0] = true;
        while let Some(node) = stack.pop() {
            for &c in g.uses(node).iter().rev() {
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
        // a stable order for owned components: the position of the first body that uses them
        let mut first_use = vec![usize::MAX; g.ids.len()];
        for p in 0..g.ids.len() {
            for &c in g.uses(p) {
                first_use[c] = first_use[c].min(p);
            }
        }
        for list in &mut owned {
            list.sort_by_key(|&c| first_use[c]);
        }
        Ok(Plan {
            g,
            in_degree,
            owned,
        })
    }
}

/// Whether `value` (a document with its ids) is laid out already: what [`lay_out`] of it with
/// its unused entries kept would give, up to the order of map entries. Checked in one walk
/// beside the plan, without writing the layout.
pub(crate) fn is_laid_out<'a>(value: impl View<'a>) -> bool {
    with_stack(|| {
        let scope = Scope::new(value, &[], None);
        let Some(start) = scope.component(value) else {
            return true;
        };
        let Ok(plan) = Plan::new(start, &scope) else {
            return false;
        };
        let check = Check {
            plan: &plan,
            scope: &scope,
            // nothing supplied: the scope's map is the document's own
            unused: unused(scope.by_key.iter().copied(), &scope, &plan.g),
        };
        check.component(0, value, 0)
    })
}

/// Walks a value beside the plan of its layout, as [`Writer`] writes it.
struct Check<'p, 'a, N: View<'a>> {
    plan: &'p Plan<'a, N>,
    scope: &'p Scope<'a, N>,
    /// The entries the root keeps though nothing uses them.
    unused: Vec<(N::Id, N)>,
}

impl<'a, N: View<'a>> Check<'_, 'a, N> {
    /// Whether `written` is what the writer writes for component `node` at `depth`.
    fn component(&self, node: usize, written: N, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let body = self.plan.g.bodies[node];
        // the body the plan read (or, for an id held twice, an equal copy)
        if !body.equal(written) {
            return false;
        }
        if !(body.is_object() && written.is_object()) {
            return true;
        }
        let fields = written
            .children()
            .filter(|(k, _)| *k != "$referenced_components")
            .all(|(k, v)| (k == "agentspec_version" && node == 0) || self.value(v, depth + 1));
        if !fields {
            return false;
        }
        let owned = &self.plan.owned[node];
        let unused: &[(N::Id, N)] = if node == 0 { &self.unused } else { &[] };
        let held = match written.referenced_components() {
            Some(rc) if rc.is_object() => rc,
            None => return owned.is_empty() && unused.is_empty(),
            // not a map: the writer replaces it
            Some(_) => return false,
        };
        let ids = &self.plan.g.ids;
        // every entry the writer writes, and no other
        let expected = owned.len()
            + unused
                .iter()
                .filter(|(k, _)| !owned.iter().any(|&c| ids[c] == *k))
                .count();
        if held.len() != expected {
            return false;
        }
        // a map of shared components may hold thousands: its entries are looked up by key
        let by_key: IdMap<N::Id, N> = if held.len() > 16 {
            let mut by_key = IdMap::for_entries(held.len(), held.id_numbers());
            for (k, v) in held.keyed_children() {
                by_key.insert_first(k, v);
            }
            by_key
        } else {
            IdMap::hashed()
        };
        let get = |key: N::Id| {
            if held.len() > 16 {
                by_key.get(key).copied()
            } else {
                held.keyed_children()
                    .find(|&(k, _)| k == key)
                    .map(|(_, v)| v)
            }
        };
        owned
            .iter()
            .all(|&c| get(ids[c]).is_some_and(|v| self.component(c, v, depth + 2)))
            && unused.iter().all(|&(k, v)| {
                owned.iter().any(|&c| ids[c] == k) || get(k).is_some_and(|held| held.equal(v))
            })
    }

    /// Whether `written` is what the writer writes for it at `depth`.
    fn value(&self, written: N, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match written.kind() {
            Kind::Object => match self.scope.component(written) {
                Some((id, _)) => match self.plan.g.index.get(id) {
                    // shared: a reference to it, and nothing else
                    Some(&c) if self.plan.in_degree[c] > 1 => written.reference_key() == Some(id),
                    // used once: inline, where the plan read it
                    Some(&c) => {
                        written.component_id().is_some() && self.component(c, written, depth)
                    }
                    None => true,
                },
                None => written.children().all(|(_, v)| self.value(v, depth + 1)),
            },
            Kind::Array => written.children().all(|(_, v)| self.value(v, depth + 1)),
            _ => true,
        }
    }
}

/// Adds `entries` to the `$referenced_components` of the laid-out `root` (an entry it has
/// already stays).
pub(crate) fn keep_entries(root: &mut Value, entries: Vec<(String, Value)>) {
    if entries.is_empty() {
        return;
    }
    if let Value::Object(map) = root
        && let Value::Object(rc) = map
            .entry("$referenced_components")
            .or_insert_with(|| Value::Object(Map::new()))
    {
        for (k, v) in entries {
            rc.entry(k).or_insert(v);
        }
    }
}

/// Writes the laid-out components.
struct Writer<'g, 'a> {
    g: &'g Graph<'a, &'a Value>,
    scope: &'g Scope<'a, &'a Value>,
    in_degree: &'g [usize],
    owned: &'g [Vec<usize>],
}

impl<'a> Writer<'_, 'a> {
    /// Component `node`, written at nesting `depth`: shared children as references, the
    /// others inline, then the shared components it owns in its `$referenced_components`
    /// (the root's version last). Past [`MAX_DEPTH`] levels it is `TooDeep`: inlining a long
    /// chain of references would make a document too deep to load.
    fn component(&self, node: usize, depth: usize) -> Result<Value, LayoutError> {
        if depth > MAX_DEPTH {
            return Err(LayoutError::TooDeep);
        }
        {
            let Value::Object(body) = self.g.bodies[node] else {
                return Ok(self.g.bodies[node].clone());
            };
            let mut out = Map::new();
            let mut version = None;
            for (k, v) in body {
                match k.as_str() {
                    "$referenced_components" => {}
                    "agentspec_version" if node == 0 => version = Some(v.clone()),
                    _ => {
                        out.insert(k.clone(), self.value(v, depth + 1)?);
                    }
                }
            }
            if !self.owned[node].is_empty() {
                let mut rc = Map::new();
                for &c in &self.owned[node] {
                    rc.insert(self.g.ids[c].to_owned(), self.component(c, depth + 2)?);
                }
                out.insert("$referenced_components".to_owned(), Value::Object(rc));
            }
            if let Some(v) = version {
                out.insert("agentspec_version".to_owned(), v);
            }
            Ok(Value::Object(out))
        }
    }

    fn value(&self, value: &'a Value, depth: usize) -> Result<Value, LayoutError> {
        let reference = |id: &str| {
            let mut r = Map::new();
            r.insert("$component_ref".to_owned(), Value::String(id.to_owned()));
            Value::Object(r)
        };
        if depth > MAX_DEPTH {
            return Err(LayoutError::TooDeep);
        }
        Ok(match value {
            Value::Object(map) => match self.scope.component(value) {
                Some((id, _)) => match (self.scope.cut_to(id), self.g.index.get(id)) {
                    (Some(key), _) => reference(key),
                    (None, Some(&c)) if self.in_degree[c] > 1 => reference(self.g.ids[c]),
                    (None, Some(&c)) => self.component(c, depth)?,
                    (None, None) => value.clone(),
                },
                None => Value::Object(
                    map.iter()
                        .map(|(k, v)| Ok((k.clone(), self.value(v, depth + 1)?)))
                        .collect::<Result<_, LayoutError>>()?,
                ),
            },
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.value(v, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
            other => other.clone(),
        })
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
            LayoutError::TooDeep => Diagnostic::error(
                "too-deep",
                format!(
                    "inlining the references would nest values more than {MAX_DEPTH} levels deep \
                     (a long chain of components that reference the next)"
                ),
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

/// Whether a component of `value` has no id (or an empty one): what [`give_fresh_ids`] fills.
/// A skeleton finds it as it is built (`Skeleton::lacks_an_id`); this walk is what its test
/// holds it to.
#[cfg(test)]
pub(crate) fn lacks_an_id<'a>(value: impl View<'a>) -> bool {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        if v.is_object() {
            let is_component = v.get("component_type").and_then(View::as_str).is_some();
            let has_id = v
                .get("id")
                .and_then(View::as_str)
                .is_some_and(|id| !id.is_empty());
            if is_component && !has_id {
                return true;
            }
        }
        stack.extend(v.children().map(|(_, c)| c));
    }
    false
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn layout(root: &Value) -> Result<Value, LayoutError> {
        lay_out(root, root, &HashMap::new(), &HashMap::new(), false)
    }

    fn node(id: &str, extra: Value) -> Value {
        let mut v = json!({"component_type": "X", "id": id});
        if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
            m.extend(e);
        }
        v
    }

    /// The skeleton a writer makes of `value`.
    fn skeleton_of(value: &Value) -> crate::syntax::skeleton::Skeleton {
        let mut sink = crate::syntax::skeleton::SkeletonSink::default();
        crate::syntax::value::write_value(value, &mut sink);
        sink.finish()
    }

    #[test]
    fn finds_a_component_without_an_id_as_the_walk_does() {
        let cases = [
            serde_json::json!({"component_type": "Flow", "id": "f",
                "nodes": [{"component_type": "EndNode", "id": "e"}]}),
            serde_json::json!({"component_type": "Flow", "id": "f",
                "nodes": [{"component_type": "EndNode", "name": "no id"}]}),
            serde_json::json!({"component_type": "Flow", "id": ""}),
            serde_json::json!({"component_type": "Flow", "id": 7}),
            serde_json::json!({"component_type": 7, "name": "not a component"}),
            serde_json::json!({"a": {"b": [{"component_type": "X", "id": null}]}}),
            serde_json::json!({"component_type": "Flow", "id": "f",
                "$referenced_components": {"n": {"component_type": "StartNode"}}}),
            serde_json::json!([{"id": "x"}, {"component_type": "X", "id": "y"}]),
        ];
        let found: Vec<bool> = cases.iter().map(|c| skeleton_of(c).lacks_an_id()).collect();
        let walked: Vec<bool> = cases
            .iter()
            .map(|c| lacks_an_id(skeleton_of(c).root()))
            .collect();
        assert_eq!(found, walked);
        assert_eq!(found, [false, true, true, true, false, true, true, false]);
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
        let out = layout(&root).unwrap();
        assert_eq!(out["items"][0]["llm"], json!({"$component_ref": "llm"}));
        assert_eq!(out["items"][1]["own"]["id"], "only_b");
        assert_eq!(out["$referenced_components"]["llm"]["id"], "llm");
        assert_eq!(
            out.as_object().unwrap().keys().next_back().unwrap(),
            "agentspec_version"
        );
    }

    /// The check of a layout reads a skeleton's maps through arrays by name number, or by
    /// hash for a nested map holding few of the names: both agree with the check of the same
    /// tree as a `Value` (maps by text), on a laid-out tree and on each way it stops being one.
    #[test]
    fn a_skeleton_and_a_value_agree_on_large_maps_by_number_and_by_hash() {
        use crate::syntax::skeleton::SkeletonSink;
        use crate::syntax::value::write_value;
        let check = |tree: &Value| {
            let mut sink = SkeletonSink::default();
            write_value(tree, &mut sink);
            let skeleton = sink.finish();
            let by_text = is_laid_out(tree);
            assert_eq!(is_laid_out(skeleton.root()), by_text, "{tree}");
            by_text
        };
        // `inner` holds 17 components it shares (more than a map looked up entry by entry);
        // 300 other components make that a small part of the names, so that its map is hashed
        for others in [0, 300] {
            let mut fields = serde_json::Map::new();
            for i in 0..17 {
                let shared = node(&format!("s{i}"), json!({}));
                fields.insert(format!("x{i}"), shared.clone());
                fields.insert(format!("y{i}"), shared);
            }
            let inner = node("inner", Value::Object(fields));
            let many: Vec<Value> = (0..others)
                .map(|i| node(&format!("u{i}"), json!({})))
                .collect();
            let root = node("root", json!({"sub": inner, "many": many}));
            let out = layout(&root).unwrap();
            assert_eq!(
                out["sub"]["$referenced_components"]
                    .as_object()
                    .unwrap()
                    .len(),
                17
            );
            assert!(check(&out));
            // an entry held by the root, where `inner` should hold it
            let mut moved = out.clone();
            let s5 = moved["sub"]["$referenced_components"]
                .as_object_mut()
                .unwrap()
                .shift_remove("s5")
                .unwrap();
            moved["$referenced_components"] = json!({ "s5": s5 });
            assert!(!check(&moved));
            // a shared component written inline where a reference belongs
            let mut inline = out.clone();
            inline["sub"]["x3"] = node("s3", json!({}));
            assert!(!check(&inline));
            // an entry nothing uses
            let mut extra = out.clone();
            extra["sub"]["$referenced_components"]["z"] = node("z", json!({}));
            assert!(!check(&extra));
        }
    }

    #[test]
    fn stores_a_shared_body_at_the_closest_common_owner() {
        let shared = node("s", json!({}));
        let inner = node("inner", json!({"x": shared.clone(), "y": shared.clone()}));
        let root = node("root", json!({"sub": inner}));
        let out = layout(&root).unwrap();
        assert!(out.get("$referenced_components").is_none());
        assert_eq!(out["sub"]["$referenced_components"]["s"]["id"], "s");
    }

    #[test]
    fn rejects_different_bodies_with_one_id_and_cycles() {
        let root = node(
            "root",
            json!({"a": node("x", json!({"v": 1})), "b": node("x", json!({"v": 2}))}),
        );
        assert_eq!(layout(&root), Err(LayoutError::Conflict("x".into())));
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
