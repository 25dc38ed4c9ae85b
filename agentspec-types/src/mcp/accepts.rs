//! Whether one JSON Schema accepts every value another one does: what `ServerCheck`
//! compares an input or output of a document with the MCP server's.
//!
//! An MCP server validates a call's arguments against its `inputSchema`: a document's input
//! fits when every value its property admits, the server's property admits too; an output
//! fits when every value the server's property admits, the document's does. Compared:
//!
//! - types exactly (`integer` is not `string`), except that an `integer` fits a `number`;
//! - unions: `anyOf`, `oneOf`, a list of types, `nullable: true` (each alternative of the
//!   narrower one must fit one of the wider one);
//! - `enum` and `const` (each value of the narrower one must be a value of the wider one);
//! - objects: the properties both declare, property by property; the wider one's
//!   `required` (the narrower one must require them too); `additionalProperties` (`false`,
//!   or a schema the narrower one's extra properties must fit);
//! - arrays: `items` and `prefixItems` (or `items` as a list);
//! - `$ref` to a place in the same schema (`#/$defs/…`).
//!
//! Other keywords (bounds, lengths, patterns, formats, `allOf`, `not`) are not compared: a
//! schema that uses them is taken to fit. A property of the wider object that the narrower
//! one neither declares nor rules out is not compared either (a document's plain
//! `{"type": "object"}` fits a server's object with optional properties).

use serde_json::Value;

/// Nesting beyond which schemas are taken to fit (a `$ref` may recurse forever).
const DEPTH: usize = 32;

/// A schema and the document it is part of (what its `$ref`s point into).
#[derive(Clone, Copy)]
pub(super) struct Schema<'a> {
    value: &'a Value,
    root: &'a Value,
}

impl<'a> Schema<'a> {
    /// `value`, whose references point into `root`.
    pub(super) fn new(value: &'a Value, root: &'a Value) -> Self {
        Schema { value, root }
    }

    fn at(self, value: &'a Value) -> Self {
        Schema {
            value,
            root: self.root,
        }
    }

    fn get(self, key: &str) -> Option<&'a Value> {
        self.value.get(key)
    }

    /// The schema a `$ref` points to (itself without one; `true`, any value, when the
    /// reference leads outside the document).
    fn resolved(self, depth: usize) -> Self {
        let mut schema = self;
        for _ in depth..DEPTH {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                return schema;
            };
            let target = reference
                .strip_prefix('#')
                .and_then(|pointer| schema.root.pointer(pointer));
            match target {
                Some(target) => schema = schema.at(target),
                None => return schema.at(&ANY),
            }
        }
        schema.at(&ANY)
    }

    /// Its types: `None` for any type (no `type`, and nothing that says one).
    fn types(self) -> Option<Vec<&'a str>> {
        let mut types: Vec<&str> = match self.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            _ => return None,
        };
        if self.get("nullable") == Some(&Value::Bool(true)) && !types.contains(&"null") {
            types.push("null");
        }
        Some(types)
    }

    /// Whether a value of type `kind` may be valid (its type allows it, or it has none).
    fn may_be(self, kind: &str) -> bool {
        self.types().is_none_or(|types| types.contains(&kind))
    }

    /// Its alternatives, when it is a union: each `anyOf` or `oneOf` branch with the
    /// schema's other keywords, or each of its types.
    fn alternatives(self) -> Option<Vec<Value>> {
        let Value::Object(map) = self.value else {
            return None;
        };
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let mut rest = map.clone();
                rest.shift_remove(key);
                return Some(
                    branches
                        .iter()
                        .map(|branch| match branch {
                            Value::Object(b) => {
                                let mut merged = rest.clone();
                                merged.extend(b.clone());
                                Value::Object(merged)
                            }
                            other => other.clone(),
                        })
                        .collect(),
                );
            }
        }
        let types = self.types()?;
        if types.len() < 2 {
            return None;
        }
        let mut rest = map.clone();
        rest.shift_remove("nullable");
        Some(
            types
                .iter()
                .map(|t| {
                    let mut one = rest.clone();
                    one.insert("type".into(), Value::from(*t));
                    Value::Object(one)
                })
                .collect(),
        )
    }

    /// The values it allows, when it lists them (`enum`, `const`).
    fn values(self) -> Option<Vec<&'a Value>> {
        if let Some(one) = self.get("const") {
            return Some(vec![one]);
        }
        self.get("enum")
            .and_then(Value::as_array)
            .map(|all| all.iter().collect())
    }

    /// Whether it admits any value: `true`, or no keyword this module compares.
    fn is_any(self) -> bool {
        match self.value {
            Value::Bool(b) => *b,
            Value::Object(map) => map.keys().all(|k| !COMPARED.contains(&k.as_str())),
            _ => true,
        }
    }

    /// Whether it says the same of a value as `other` (annotations aside).
    fn same_as(self, other: Schema<'_>) -> bool {
        match (shape(self.value), shape(other.value)) {
            (Some(a), Some(b)) => {
                // a `$ref` means the same only within the same document
                a == b && (self.get("$ref").is_none() || std::ptr::eq(self.root, other.root))
            }
            _ => self.value == other.value,
        }
    }
}

/// The keywords of a schema that say which values are valid, in order of key.
fn shape(schema: &Value) -> Option<Vec<(&String, &Value)>> {
    let mut keywords: Vec<(&String, &Value)> = schema
        .as_object()?
        .iter()
        .filter(|(k, _)| !ANNOTATIONS.contains(&k.as_str()))
        .collect();
    keywords.sort_by_key(|(k, _)| *k);
    Some(keywords)
}

/// The keywords this module compares (a schema with none of them admits anything).
const COMPARED: &[&str] = &[
    "type",
    "nullable",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "$ref",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
];

/// The keywords that say nothing of which values are valid.
const ANNOTATIONS: &[&str] = &["title", "description", "default", "examples", "$comment"];

/// One step into a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    /// A property of an object.
    Property(String),
    /// Any item of an array.
    Items,
    /// The item at an index of an array.
    Item(usize),
}

/// Why a schema does not fit another one, and where in the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Misfit {
    /// The steps from the property to where the schemas differ.
    pub path: Vec<Step>,
    /// How they differ.
    pub kind: MisfitKind,
}

/// How two schemas differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum MisfitKind {
    /// The narrower one admits values (named as [`describe`] names them) the wider one
    /// does not.
    Values {
        /// What the narrower one admits.
        narrower: String,
        /// What the wider one admits.
        wider: String,
    },
    /// The wider one requires this property; the narrower one does not.
    Required(String),
    /// The narrower one declares this property; the wider one takes no other properties.
    Extra(String),
}

impl Misfit {
    fn values(narrower: Schema<'_>, wider: Schema<'_>) -> Self {
        Misfit {
            path: Vec::new(),
            kind: MisfitKind::Values {
                narrower: describe(narrower),
                wider: describe(wider),
            },
        }
    }

    fn under(mut self, step: Step) -> Self {
        self.path.insert(0, step);
        self
    }
}

/// `Ok` when `wider` admits every value `narrower` admits (as far as the module's list
/// goes), else where and how they first differ.
pub(super) fn fits(narrower: Schema<'_>, wider: Schema<'_>) -> Result<(), Misfit> {
    fits_at(narrower, wider, 0)
}

fn fits_at(narrower: Schema<'_>, wider: Schema<'_>, depth: usize) -> Result<(), Misfit> {
    if depth >= DEPTH {
        return Ok(());
    }
    let (n, w) = (narrower.resolved(depth), wider.resolved(depth));
    if w.is_any() || n.value == &Value::Bool(false) || n.same_as(w) {
        return Ok(());
    }
    if w.value == &Value::Bool(false) {
        return Err(Misfit::values(n, w));
    }
    // every alternative of the narrower one fits; the wider one's whole shape is named
    if let Some(alternatives) = n.alternatives() {
        for alternative in &alternatives {
            fits_at(n.at(alternative), w, depth + 1).map_err(|m| whole(m, n, w))?;
        }
        return Ok(());
    }
    // a list of values fits when the wider one admits each (whatever its shape)
    let listed = match (n.values(), w.values()) {
        (Some(values), _) => Some(values),
        (None, Some(_)) => Some(finite(n).ok_or_else(|| Misfit::values(n, w))?),
        (None, None) => None,
    };
    if let Some(values) = listed {
        if values.iter().all(|v| admits(w, v, depth + 1)) {
            return Ok(());
        }
        return Err(Misfit::values(n, w));
    }
    if let Some(alternatives) = w.alternatives() {
        return fits_one_of(n, w, &alternatives, depth);
    }
    if let Some(theirs) = w.types() {
        let ours = n.types().ok_or_else(|| Misfit::values(n, w))?;
        let covered =
            |t: &&str| theirs.contains(t) || (*t == "integer" && theirs.contains(&"number"));
        if !ours.iter().all(covered) {
            return Err(Misfit::values(n, w));
        }
    }
    if n.may_be("object") && w.may_be("object") {
        objects(n, w, depth)?;
    }
    if n.may_be("array") && w.may_be("array") {
        arrays(n, w, depth)?;
    }
    Ok(())
}

static ANY: Value = Value::Bool(true);
static NULL: Value = Value::Null;
static BOOLEANS: [Value; 2] = [Value::Bool(false), Value::Bool(true)];

/// Every value of a schema whose only type has few (`null`, `boolean`).
fn finite<'a>(s: Schema<'a>) -> Option<Vec<&'a Value>> {
    match s.types()?.as_slice() {
        ["null"] => Some(vec![&NULL]),
        ["boolean"] => Some(BOOLEANS.iter().collect()),
        _ => None,
    }
}

/// A misfit found in an alternative of `n`, at `n` itself, named as the whole of `n` and
/// `w` (not as the alternative).
fn whole(misfit: Misfit, n: Schema<'_>, w: Schema<'_>) -> Misfit {
    match misfit.kind {
        MisfitKind::Values { .. } if misfit.path.is_empty() => Misfit::values(n, w),
        _ => misfit,
    }
}

/// `n` fits one of `w`'s alternatives. When it fits none, the reason is the alternative of
/// its type's (the only one it could fit), else that `n` is none of them.
fn fits_one_of(
    n: Schema<'_>,
    w: Schema<'_>,
    alternatives: &[Value],
    depth: usize,
) -> Result<(), Misfit> {
    let mut reasons = Vec::new();
    for alternative in alternatives {
        match fits_at(n, w.at(alternative), depth + 1) {
            Ok(()) => return Ok(()),
            Err(misfit) => reasons.push(misfit),
        }
    }
    let deeper: Vec<Misfit> = reasons
        .into_iter()
        .filter(|m| !matches!(m.kind, MisfitKind::Values { .. }) || !m.path.is_empty())
        .collect();
    match <[Misfit; 1]>::try_from(deeper) {
        Ok([only]) => Err(only),
        Err(_) => Err(Misfit::values(n, w)),
    }
}

fn objects(n: Schema<'_>, w: Schema<'_>, depth: usize) -> Result<(), Misfit> {
    let ours = n.get("properties").and_then(Value::as_object);
    let theirs = w.get("properties").and_then(Value::as_object);
    let closed = n.get("additionalProperties") == Some(&Value::Bool(false));
    for (key, their) in theirs.into_iter().flatten() {
        let our = match ours.and_then(|o| o.get(key)) {
            Some(our) => our,
            // the narrower one never has it, or has it of any type (not compared)
            None if closed => continue,
            None => match n.get("additionalProperties") {
                Some(extra @ Value::Object(_)) => extra,
                _ => continue,
            },
        };
        fits_at(n.at(our), w.at(their), depth + 1)
            .map_err(|m| m.under(Step::Property(key.clone())))?;
    }
    let required = |s: Schema<'_>| -> Vec<String> {
        s.get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    let our_required = required(n);
    if let Some(missing) = required(w).into_iter().find(|r| !our_required.contains(r)) {
        return Err(Misfit {
            path: Vec::new(),
            kind: MisfitKind::Required(missing),
        });
    }
    // the narrower one's properties the wider one does not declare
    let undeclared = ours
        .into_iter()
        .flatten()
        .filter(|(key, _)| !theirs.is_some_and(|t| t.contains_key(*key)));
    match w.get("additionalProperties") {
        Some(Value::Bool(false)) => {
            if let Some((key, _)) = undeclared.into_iter().next() {
                return Err(Misfit {
                    path: Vec::new(),
                    kind: MisfitKind::Extra(key.clone()),
                });
            }
        }
        Some(extra @ Value::Object(_)) => {
            for (key, our) in undeclared {
                fits_at(n.at(our), w.at(extra), depth + 1)
                    .map_err(|m| m.under(Step::Property(key.clone())))?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// An array schema's item schemas: those of its first items (`prefixItems`, or `items` as a
/// list), and that of the rest (`items`, `additionalItems` after a list).
fn item_schemas(s: Schema<'_>) -> (Vec<&Value>, Option<&Value>) {
    match (s.get("prefixItems"), s.get("items")) {
        (Some(Value::Array(first)), rest) => (first.iter().collect(), rest),
        (None, Some(Value::Array(first))) => (first.iter().collect(), s.get("additionalItems")),
        (_, rest) => (Vec::new(), rest),
    }
}

fn arrays(n: Schema<'_>, w: Schema<'_>, depth: usize) -> Result<(), Misfit> {
    let (our_first, our_rest) = item_schemas(n);
    let (their_first, their_rest) = item_schemas(w);
    let ours = |i: usize| our_first.get(i).copied().or(our_rest);
    let step = |i: usize| {
        if our_first.is_empty() && their_first.is_empty() {
            Step::Items
        } else {
            Step::Item(i)
        }
    };
    for (i, their) in their_first.iter().enumerate() {
        if let Some(our) = ours(i) {
            fits_at(n.at(our), w.at(their), depth + 1).map_err(|m| m.under(step(i)))?;
        }
    }
    if let Some(their) = their_rest {
        for (i, our) in our_first.iter().enumerate().skip(their_first.len()) {
            fits_at(n.at(our), w.at(their), depth + 1).map_err(|m| m.under(step(i)))?;
        }
        if let Some(our) = our_rest {
            let i = our_first.len().max(their_first.len());
            fits_at(n.at(our), w.at(their), depth + 1).map_err(|m| m.under(step(i)))?;
        }
    }
    Ok(())
}

/// Whether `schema` admits `value`, as far as the module's keywords go.
fn admits(schema: Schema<'_>, value: &Value, depth: usize) -> bool {
    if depth >= DEPTH {
        return true;
    }
    let s = schema.resolved(depth);
    match s.value {
        Value::Bool(b) => return *b,
        Value::Object(_) => {}
        _ => return true,
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = s.get(key)
            && !branches.iter().any(|b| admits(s.at(b), value, depth + 1))
        {
            return false;
        }
    }
    if let Some(values) = s.values()
        && !values.contains(&value)
    {
        return false;
    }
    if let Some(types) = s.types()
        && !types.iter().any(|t| of_type(value, t))
    {
        return false;
    }
    match value {
        Value::Object(map) => {
            let properties = s.get("properties").and_then(Value::as_object);
            let required = s.get("required").and_then(Value::as_array);
            required
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .all(|r| map.contains_key(r))
                && map.iter().all(|(k, v)| {
                    match (
                        properties.and_then(|p| p.get(k)),
                        s.get("additionalProperties"),
                    ) {
                        (Some(p), _) => admits(s.at(p), v, depth + 1),
                        (None, Some(extra)) => admits(s.at(extra), v, depth + 1),
                        (None, None) => true,
                    }
                })
        }
        Value::Array(items) => {
            let (first, rest) = item_schemas(s);
            items.iter().enumerate().all(|(i, item)| {
                first
                    .get(i)
                    .copied()
                    .or(rest)
                    .is_none_or(|p| admits(s.at(p), item, depth + 1))
            })
        }
        _ => true,
    }
}

fn of_type(value: &Value, kind: &str) -> bool {
    match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    }
}

/// What a schema admits, as messages name it: `string`, `integer or null`,
/// `one of "celsius", "fahrenheit"`, `any`.
pub(super) fn describe(schema: Schema<'_>) -> String {
    describe_at(schema, 0)
}

fn describe_at(schema: Schema<'_>, depth: usize) -> String {
    let s = schema.resolved(depth);
    match s.value {
        Value::Bool(true) => return "any".into(),
        Value::Bool(false) => return "nothing".into(),
        Value::Object(_) => {}
        _ => return "any".into(),
    }
    if let Some(values) = s.values() {
        let listed: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        return match listed.as_slice() {
            [one] => one.clone(),
            _ => format!("one of {}", listed.join(", ")),
        };
    }
    if depth < DEPTH
        && let Some(alternatives) = s.alternatives()
    {
        let mut names: Vec<String> = Vec::new();
        for alternative in &alternatives {
            let name = describe_at(s.at(alternative), depth + 1);
            if !names.contains(&name) {
                names.push(name);
            }
        }
        return names.join(" or ");
    }
    match s.types() {
        Some(types) => types.join(" or "),
        None if s.get("properties").is_some() => "object".into(),
        None if s.get("items").is_some() || s.get("prefixItems").is_some() => "array".into(),
        None => "any".into(),
    }
}

/// The path of a misfit after the property's title: `.limit`, `[]`, `[0]`.
pub(super) fn shown_path(path: &[Step]) -> String {
    let mut shown = String::new();
    for step in path {
        match step {
            Step::Property(key) => {
                shown.push('.');
                shown.push_str(key);
            }
            Step::Items => shown.push_str("[]"),
            Step::Item(i) => shown.push_str(&format!("[{i}]")),
        }
    }
    shown
}
