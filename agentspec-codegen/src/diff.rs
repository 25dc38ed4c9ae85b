//! What changes between two schema sets: component types and fields added and removed, field
//! types, defaults and requiredness changed, and which changes break documents.

use std::fmt;

use crate::model::{Field, Missing, Model, Ty};

/// One change between two models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// What changed (`Agent`, `Agent.transforms`).
    pub item: String,
    /// How.
    pub kind: ChangeKind,
    /// Whether a document valid before can be invalid, or mean something else, after.
    pub breaking: bool,
}

/// The kinds of change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    /// A component type was added.
    ComponentAdded,
    /// A component type was removed.
    ComponentRemoved,
    /// A field was added (`required`: documents must now give it).
    FieldAdded {
        /// Whether the new field is required.
        required: bool,
    },
    /// A field was removed.
    FieldRemoved,
    /// A field's type changed.
    TypeChanged {
        /// Before.
        from: String,
        /// After.
        to: String,
    },
    /// A field's default changed (documents that leave it out now mean something else).
    DefaultChanged {
        /// Before.
        from: String,
        /// After.
        to: String,
    },
    /// A field became required, or stopped being required.
    RequiredChanged {
        /// Whether it is required now.
        required: bool,
    },
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = if self.breaking {
            "breaking"
        } else {
            "compatible"
        };
        match &self.kind {
            ChangeKind::ComponentAdded => write!(f, "{mark}: component {} added", self.item),
            ChangeKind::ComponentRemoved => write!(f, "{mark}: component {} removed", self.item),
            ChangeKind::FieldAdded { required } => {
                write!(
                    f,
                    "{mark}: field {} added{}",
                    self.item,
                    if *required { " (required)" } else { "" }
                )
            }
            ChangeKind::FieldRemoved => write!(f, "{mark}: field {} removed", self.item),
            ChangeKind::TypeChanged { from, to } => {
                write!(f, "{mark}: field {} type {from} -> {to}", self.item)
            }
            ChangeKind::DefaultChanged { from, to } => {
                write!(f, "{mark}: field {} default {from} -> {to}", self.item)
            }
            ChangeKind::RequiredChanged { required } => {
                write!(
                    f,
                    "{mark}: field {} is {}",
                    self.item,
                    if *required {
                        "now required"
                    } else {
                        "no longer required"
                    }
                )
            }
        }
    }
}

fn default_text(field: &Field) -> String {
    match &field.missing {
        Missing::Required => "(required)".into(),
        Missing::Default(v) => v.to_string(),
        Missing::Empty => "(empty)".into(),
        Missing::FreshId => "(fresh id)".into(),
    }
}

/// Whether every value of `from` is also a value of `to` (in the new model): a widening keeps
/// old documents valid.
fn widens(from: &Ty, to: &Ty, new: &Model) -> bool {
    match to {
        _ if from == to => true,
        Ty::Json => true,
        Ty::Option(inner) => {
            matches!(from, Ty::Option(f) if widens(f, inner, new)) || widens(from, inner, new)
        }
        Ty::Union(name) => new
            .unions
            .get(name)
            .is_some_and(|u| u.variants.iter().any(|(_, t)| widens(from, t, new))),
        _ => false,
    }
}

/// The changes from `old` to `new`, in name order.
pub fn diff(old: &Model, new: &Model) -> Vec<Change> {
    let mut out = Vec::new();
    let change = |item: String, kind: ChangeKind, breaking: bool| Change {
        item,
        kind,
        breaking,
    };
    for (name, component) in &old.components {
        let Some(after) = new.components.get(name) else {
            out.push(change(name.clone(), ChangeKind::ComponentRemoved, true));
            continue;
        };
        for field in &component.fields {
            let item = format!("{name}.{}", field.json_name);
            let Some(now) = after.fields.iter().find(|f| f.json_name == field.json_name) else {
                out.push(change(item, ChangeKind::FieldRemoved, true));
                continue;
            };
            let (from, to) = (format!("{:?}", field.ty), format!("{:?}", now.ty));
            if from != to {
                let breaking = !widens(&field.ty, &now.ty, new);
                out.push(change(
                    item.clone(),
                    ChangeKind::TypeChanged { from, to },
                    breaking,
                ));
            }
            let (was, is) = (
                field.missing == Missing::Required,
                now.missing == Missing::Required,
            );
            if was != is {
                out.push(change(
                    item.clone(),
                    ChangeKind::RequiredChanged { required: is },
                    is,
                ));
            } else if !is && default_text(field) != default_text(now) {
                out.push(change(
                    item,
                    ChangeKind::DefaultChanged {
                        from: default_text(field),
                        to: default_text(now),
                    },
                    true,
                ));
            }
        }
        for field in after
            .fields
            .iter()
            .filter(|f| !component.fields.iter().any(|g| g.json_name == f.json_name))
        {
            let required = field.missing == Missing::Required;
            out.push(change(
                format!("{name}.{}", field.json_name),
                ChangeKind::FieldAdded { required },
                required,
            ));
        }
    }
    for name in new
        .components
        .keys()
        .filter(|n| !old.components.contains_key(*n))
    {
        out.push(change(name.clone(), ChangeKind::ComponentAdded, false));
    }
    out.sort_by(|a, b| a.item.cmp(&b.item));
    out
}
