//! What changes between two schema sets: component types and fields added and removed, and
//! every fact of a field that changed (type, default, requiredness, the version it is
//! written from, value gates, legacy upgrades, secrecy, bounds), with which changes break
//! documents. Value structs' fields are compared as components' are.

use std::fmt;

use crate::model::{Field, GateCheck, Missing, Model, Ty};

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
    /// The version a component or field exists from, or is written from, changed.
    VersionChanged {
        /// Before.
        from: String,
        /// After.
        to: String,
    },
    /// A value gate changed: some values now need another version.
    GateChanged {
        /// Before (`none`).
        from: String,
        /// After (`none`).
        to: String,
    },
    /// The legacy values upgraded when read changed.
    UpgradesChanged {
        /// Before.
        from: String,
        /// After.
        to: String,
    },
    /// Another fact of a field changed: `sensitive`, `skip_null`, `informational`,
    /// `minimum`.
    FactChanged {
        /// Which fact.
        fact: &'static str,
        /// Before.
        from: String,
        /// After.
        to: String,
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
            ChangeKind::VersionChanged { from, to } => {
                write!(f, "{mark}: {} exists from {from} -> {to}", self.item)
            }
            ChangeKind::GateChanged { from, to } => {
                write!(f, "{mark}: field {} value gate {from} -> {to}", self.item)
            }
            ChangeKind::UpgradesChanged { from, to } => {
                write!(
                    f,
                    "{mark}: field {} legacy upgrades {from} -> {to}",
                    self.item
                )
            }
            ChangeKind::FactChanged { fact, from, to } => {
                write!(f, "{mark}: field {} {fact} {from} -> {to}", self.item)
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

fn version_text(field: &Field) -> String {
    match field.written_since() {
        Some(v) if v == field.since => v.to_string(),
        Some(v) => format!("{} (written from {v})", field.since),
        None => format!("{} (never written by default)", field.since),
    }
}

fn gate_text(field: &Field) -> String {
    match &field.gate {
        None => "none".into(),
        Some(g) => {
            let check = match &g.check {
                GateCheck::Equals(v) => format!("= {v}"),
                GateCheck::Function(f) => format!("{f}()"),
            };
            format!("{check} needs {}", g.since)
        }
    }
}

fn upgrades_text(field: &Field) -> String {
    let all: Vec<String> = field
        .upgrades
        .iter()
        .map(|u| format!("{} -> {}", u.from, u.to))
        .collect();
    format!("[{}]", all.join(", "))
}

/// The changes of one field (`item`: `Owner.key`) from `field` to `now`.
fn field_changes(item: &str, field: &Field, now: &Field, new: &Model, out: &mut Vec<Change>) {
    let mut push = |kind: ChangeKind, breaking: bool| {
        out.push(Change {
            item: item.to_owned(),
            kind,
            breaking,
        })
    };
    let (from, to) = (format!("{:?}", field.ty), format!("{:?}", now.ty));
    if from != to {
        let breaking = !widens(&field.ty, &now.ty, new);
        push(ChangeKind::TypeChanged { from, to }, breaking);
    }
    let (was, is) = (
        field.missing == Missing::Required,
        now.missing == Missing::Required,
    );
    if was != is {
        push(ChangeKind::RequiredChanged { required: is }, is);
    } else if !is && default_text(field) != default_text(now) {
        let (from, to) = (default_text(field), default_text(now));
        push(ChangeKind::DefaultChanged { from, to }, true);
    }
    if version_text(field) != version_text(now) {
        let (from, to) = (version_text(field), version_text(now));
        push(ChangeKind::VersionChanged { from, to }, false);
    }
    if field.gate != now.gate {
        let (from, to) = (gate_text(field), gate_text(now));
        push(ChangeKind::GateChanged { from, to }, true);
    }
    if field.upgrades != now.upgrades {
        let (from, to) = (upgrades_text(field), upgrades_text(now));
        push(ChangeKind::UpgradesChanged { from, to }, false);
    }
    let facts: [(&'static str, String, String, bool); 4] = [
        (
            "sensitive",
            field.is_sensitive().to_string(),
            now.is_sensitive().to_string(),
            false,
        ),
        (
            "skip_null",
            field.skip_null.to_string(),
            now.skip_null.to_string(),
            false,
        ),
        (
            "informational",
            field.informational.to_string(),
            now.informational.to_string(),
            false,
        ),
        (
            "minimum",
            format!("{:?}", field.minimum),
            format!("{:?}", now.minimum),
            true,
        ),
    ];
    for (fact, from, to, breaking) in facts {
        if from != to {
            push(ChangeKind::FactChanged { fact, from, to }, breaking);
        }
    }
}

/// The changes of the fields of one type from `before` to `after`.
fn fields_changes(
    name: &str,
    before: &[Field],
    after: &[Field],
    new: &Model,
    out: &mut Vec<Change>,
) {
    for field in before {
        let item = format!("{name}.{}", field.json_name);
        match after.iter().find(|f| f.json_name == field.json_name) {
            None => out.push(Change {
                item,
                kind: ChangeKind::FieldRemoved,
                breaking: true,
            }),
            Some(now) => field_changes(&item, field, now, new, out),
        }
    }
    for field in after
        .iter()
        .filter(|f| !before.iter().any(|g| g.json_name == f.json_name))
    {
        let required = field.missing == Missing::Required;
        out.push(Change {
            item: format!("{name}.{}", field.json_name),
            kind: ChangeKind::FieldAdded { required },
            breaking: required,
        });
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
        if component.since != after.since {
            let (from, to) = (component.since.to_string(), after.since.to_string());
            out.push(change(
                name.clone(),
                ChangeKind::VersionChanged { from, to },
                false,
            ));
        }
        fields_changes(name, &component.fields, &after.fields, new, &mut out);
    }
    for name in new
        .components
        .keys()
        .filter(|n| !old.components.contains_key(*n))
    {
        out.push(change(name.clone(), ChangeKind::ComponentAdded, false));
    }
    for (name, strukt) in &old.structs {
        if let Some(after) = new.structs.get(name) {
            fields_changes(name, &strukt.fields, &after.fields, new, &mut out);
        }
    }
    out.sort_by(|a, b| a.item.cmp(&b.item));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Upgrade, ValueGate, Version, Written};

    fn bundled() -> Model {
        crate::Generator::new(crate::Settings::new().bundled_schemas())
            .model()
            .unwrap()
    }

    fn field<'a>(model: &'a mut Model, component: &str, key: &str) -> &'a mut Field {
        model
            .components
            .get_mut(component)
            .unwrap()
            .fields
            .iter_mut()
            .find(|f| f.json_name == key)
            .unwrap()
    }

    #[test]
    fn sees_gates_upgrades_versions_and_secrecy() {
        let old = bundled();
        let mut new = old.clone();
        field(&mut new, "OciGenAiConfig", "provider").gate = None;
        field(&mut new, "Swarm", "handoff").upgrades.push(Upgrade {
            from: serde_json::json!("always"),
            to: serde_json::json!("optional"),
            message: "legacy".into(),
        });
        field(&mut new, "Agent", "tools").written = Some(Written::From(Version(26, 1, 0)));
        field(&mut new, "Agent", "llm_config").gate = Some(ValueGate {
            since: Version(26, 2, 0),
            check: GateCheck::Function("f".into()),
            what: "x".into(),
        });
        let changes: Vec<String> = diff(&old, &new).iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            [
                "breaking: field Agent.llm_config value gate none -> f() needs 26.2.0",
                "compatible: Agent.tools exists from 25.4.1 -> 25.4.1 (written from 26.1.0)",
                "breaking: field OciGenAiConfig.provider value gate = XAI needs 26.1.2 -> none",
                "compatible: field Swarm.handoff legacy upgrades [true -> \"optional\", false -> \"never\"] -> [true -> \"optional\", false -> \"never\", \"always\" -> \"optional\"]",
            ]
        );
    }

    #[test]
    fn the_same_model_has_no_changes() {
        let model = bundled();
        assert_eq!(diff(&model, &model), Vec::<Change>::new());
    }
}
