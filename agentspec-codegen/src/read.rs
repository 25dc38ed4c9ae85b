//! Reads published schema files into the [`Model`], by the schema's conventions:
//! `Base<X>` bodies, `x-abstract-component` families, `<X>` reference-or-inline wrappers,
//! `Versioned<X>` roots, `ReferencedComponents` and `Property`.
//!
//! Every shape without a rule is an [`Error::Unsupported`] naming its JSON pointer.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::declared::{self, Fact};
use crate::error::Error;
use crate::model::{
    Component, Family, Field, Missing, Model, StrEnum, Struct, Ty, Union, Upgrade, Version,
};
use crate::names::{pascal_case, variant_name};

/// One schema file, parsed.
pub(crate) struct SchemaFile {
    pub name: String,
    pub defs: Map<String, Value>,
    /// The versions its `AgentSpecVersionEnum` lists, sorted.
    pub versions: Vec<Version>,
}

impl SchemaFile {
    pub(crate) fn parse(name: &str, text: &str) -> Result<SchemaFile, Error> {
        let root: Value = serde_json::from_str(text).map_err(|source| Error::Json {
            file: name.to_owned(),
            source,
        })?;
        let unsupported = |pointer: &str, message: &str| Error::Unsupported {
            file: name.to_owned(),
            pointer: pointer.to_owned(),
            message: message.to_owned(),
        };
        let defs = root
            .get("$defs")
            .and_then(Value::as_object)
            .ok_or_else(|| unsupported("/$defs", "a schema file must have a `$defs` object"))?
            .clone();
        let mut versions = BTreeSet::new();
        for (key, def) in &defs {
            if !key.starts_with("Versioned") {
                continue;
            }
            let Some(prop) = def.pointer("/properties/agentspec_version") else {
                return Err(unsupported(
                    &format!("/$defs/{key}"),
                    "a `Versioned<X>` root has no `agentspec_version`",
                ));
            };
            let prop = match prop.get("$ref").and_then(Value::as_str) {
                Some(r) => defs.get(r.trim_start_matches("#/$defs/")).unwrap_or(prop),
                None => prop,
            };
            for v in prop
                .get("enum")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let parsed = v.as_str().and_then(Version::parse);
                versions.insert(parsed.ok_or_else(|| {
                    unsupported(&format!("/$defs/{key}"), &format!("`{v}` is not a version"))
                })?);
            }
        }
        if versions.is_empty() {
            return Err(unsupported(
                "/$defs",
                "no `Versioned<X>` root lists an `agentspec_version`",
            ));
        }
        Ok(SchemaFile {
            name: name.to_owned(),
            defs,
            versions: versions.into_iter().collect(),
        })
    }

    /// The newest version the file lists: the release it was published with.
    pub(crate) fn release(&self) -> Version {
        *self.versions.last().expect("checked non-empty at parse")
    }

    /// Every object body of the file by type name (components by their `component_type`,
    /// value structs by their definition name) with its property names.
    fn bodies(&self) -> BTreeMap<String, Vec<String>> {
        let mut out = BTreeMap::new();
        for (key, def) in &self.defs {
            if let Some(base) = key.strip_prefix("Base") {
                let mut add = |obj: &Value| {
                    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
                        let name = component_name(obj).unwrap_or(base);
                        out.insert(name.to_owned(), props.keys().cloned().collect());
                    }
                };
                add(def);
                for member in def
                    .get("anyOf")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if member.get("properties").is_some() {
                        let title = member.get("title").and_then(Value::as_str).unwrap_or(base);
                        if let Some(props) = member.get("properties").and_then(Value::as_object) {
                            out.insert(title.to_owned(), props.keys().cloned().collect());
                        }
                    }
                }
            } else if is_value_struct(def) {
                let props = def["properties"]
                    .as_object()
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                out.insert(key.clone(), props);
            }
        }
        out
    }
}

/// The `component_type` constant of a component body, if it declares one.
fn component_name(body: &Value) -> Option<&str> {
    body.pointer("/properties/component_type/const")
        .and_then(Value::as_str)
}

fn is_value_struct(def: &Value) -> bool {
    def.get("type").and_then(Value::as_str) == Some("object")
        && def.get("properties").is_some()
        && def.get("x-abstract-component").is_none()
        && component_name(def).is_none()
}

fn def_name(reference: &str) -> Option<&str> {
    reference.strip_prefix("#/$defs/")
}

/// For each version, the file published with it: the oldest release that lists it.
pub(crate) fn version_table(files: &[SchemaFile]) -> (Vec<Version>, BTreeMap<Version, usize>) {
    let mut by_release: Vec<usize> = (0..files.len()).collect();
    by_release.sort_by_key(|&i| files[i].release());
    let mut table = BTreeMap::new();
    for &i in &by_release {
        for v in &files[i].versions {
            table.entry(*v).or_insert(i);
        }
    }
    (table.keys().copied().collect(), table)
}

/// Builds the model from the newest file, with `since` versions from all of them.
pub(crate) fn read(files: &[SchemaFile]) -> Result<Model, Error> {
    let newest = files
        .iter()
        .max_by_key(|f| f.release())
        .ok_or(Error::NoSchema)?;
    let (versions, table) = version_table(files);
    let bodies: Vec<BTreeMap<String, Vec<String>>> = files.iter().map(SchemaFile::bodies).collect();
    // A version a later file drops from its list (26.2.0; 26.3.0 in the 26.4.0 file) is still
    // read, but nothing is dated to it: what a file published with it brings exists from the
    // next version the newest file lists, the one the reference SDK writes for it.
    let listed = |version: Version| -> Version {
        newest
            .versions
            .iter()
            .copied()
            .find(|v| *v >= version)
            .unwrap_or(version)
    };
    let since = |type_name: &str, field: Option<&str>| -> Version {
        for (version, &file) in &table {
            if let Some(props) = bodies[file].get(type_name)
                && field.is_none_or(|f| props.iter().any(|p| p == f))
            {
                return listed(*version);
            }
        }
        // Listed only in the newest file under another shape: it exists from its release.
        newest.release()
    };
    let mut reader = Reader {
        file: newest,
        model: Model {
            versions,
            ..Model::default()
        },
        since: &since,
        declared: declared::table(),
    };
    reader.read_all()?;
    let mut model = reader.model;
    drop_unrepresentable_upgrades(&mut model);
    Ok(model)
}

struct Reader<'a> {
    file: &'a SchemaFile,
    model: Model,
    since: &'a dyn Fn(&str, Option<&str>) -> Version,
    /// The declared table, resolved into the fields as they are read.
    declared: Vec<declared::Entry>,
}

/// Where a component reference resolves to.
enum Target {
    Concrete(String),
    Family(String),
}

impl Reader<'_> {
    fn unsupported(&self, pointer: &str, message: impl Into<String>) -> Error {
        Error::Unsupported {
            file: self.file.name.clone(),
            pointer: pointer.to_owned(),
            message: message.into(),
        }
    }

    fn def(&self, name: &str, pointer: &str) -> Result<&Value, Error> {
        self.file.defs.get(name).ok_or_else(|| {
            self.unsupported(pointer, format!("`$ref` to `{name}`, which is not defined"))
        })
    }

    fn read_all(&mut self) -> Result<(), Error> {
        // Pass 1: concrete components, so that families and fields can name them.
        let mut bodies: Vec<(String, String, Value)> = Vec::new();
        for (key, def) in &self.file.defs {
            let Some(base) = key.strip_prefix("Base") else {
                continue;
            };
            let pointer = format!("/$defs/{key}");
            if def.get("properties").is_some() {
                let name = component_name(def).unwrap_or(base).to_owned();
                bodies.push((name, pointer, def.clone()));
            } else if let Some(members) = def.get("anyOf").and_then(Value::as_array) {
                for (i, member) in members.iter().enumerate() {
                    if member.get("properties").is_some() {
                        let title = member
                            .get("title")
                            .and_then(Value::as_str)
                            .unwrap_or(base)
                            .to_owned();
                        bodies.push((title, format!("{pointer}/anyOf/{i}"), member.clone()));
                    } else if member.get("$ref").is_none() {
                        return Err(self.unsupported(
                            &format!("{pointer}/anyOf/{i}"),
                            "a family member is neither a `$ref` nor an object body",
                        ));
                    }
                }
            } else {
                return Err(self.unsupported(
                    &pointer,
                    "a `Base<X>` definition is neither an object body nor an `anyOf` family",
                ));
            }
        }
        for (name, pointer, _) in &bodies {
            self.model.components.insert(
                name.clone(),
                Component {
                    name: name.clone(),
                    doc: None,
                    fields: Vec::new(),
                    since: (self.since)(name, None),
                    pointer: pointer.clone(),
                },
            );
        }
        // Pass 2: families.
        for (key, def) in &self.file.defs {
            let Some(base) = key.strip_prefix("Base") else {
                continue;
            };
            if def.get("anyOf").is_some() {
                let members = self.leaves(key, &format!("/$defs/{key}"))?;
                let name = self.family_name(base);
                let doc = def
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.model.families.insert(
                    name.clone(),
                    Family {
                        name,
                        schema_name: base.to_owned(),
                        doc,
                        members: members.into_iter().collect(),
                    },
                );
            }
        }
        // Pass 3: fields.
        for (name, pointer, body) in bodies {
            let doc = body
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let fields = self.fields(&name, &body, &pointer, true)?;
            let component = self
                .model
                .components
                .get_mut(&name)
                .expect("inserted in pass 1");
            component.doc = doc;
            component.fields = fields;
        }
        Ok(())
    }

    fn family_name(&self, schema_name: &str) -> String {
        if self.model.components.contains_key(schema_name) {
            format!("Any{schema_name}")
        } else {
            schema_name.to_owned()
        }
    }

    /// The concrete components a `Base<X>` (or a wrapper around one) admits.
    fn leaves(&self, def_key: &str, pointer: &str) -> Result<BTreeSet<String>, Error> {
        let def = self.def(def_key, pointer)?;
        let mut out = BTreeSet::new();
        if def.get("properties").is_some() {
            out.insert(
                component_name(def)
                    .unwrap_or(def_key.trim_start_matches("Base"))
                    .to_owned(),
            );
            return Ok(out);
        }
        for (i, member) in def
            .get("anyOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let member_pointer = format!("/$defs/{def_key}/anyOf/{i}");
            if member.get("properties").is_some() {
                let title = member
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or(def_key.trim_start_matches("Base"));
                out.insert(title.to_owned());
            } else if let Some(r) = member
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(def_name)
            {
                if r == "ComponentReference" {
                    continue;
                }
                match self.target(r, &member_pointer)? {
                    Target::Concrete(c) => {
                        out.insert(c);
                    }
                    Target::Family(_) => {
                        let base = if r.starts_with("Base") {
                            r.to_owned()
                        } else {
                            format!("Base{r}")
                        };
                        out.extend(self.leaves(&base, &member_pointer)?);
                    }
                }
            }
        }
        Ok(out)
    }

    /// What a `$ref` to a component wrapper `<X>` (or `Base<X>`) designates.
    fn target(&self, reference: &str, pointer: &str) -> Result<Target, Error> {
        let base_key = if reference.starts_with("Base") {
            reference.to_owned()
        } else {
            format!("Base{reference}")
        };
        let base = self.def(&base_key, pointer)?;
        if base.get("properties").is_some() {
            let name = component_name(base).unwrap_or(reference.trim_start_matches("Base"));
            return Ok(Target::Concrete(name.to_owned()));
        }
        Ok(Target::Family(
            self.family_name(base_key.trim_start_matches("Base")),
        ))
    }

    fn is_component_wrapper(&self, name: &str) -> bool {
        self.file.defs.contains_key(&format!("Base{name}"))
            && self.file.defs[name]
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|members| {
                    members.iter().any(|m| {
                        m.get("$ref").and_then(Value::as_str) == Some("#/$defs/ComponentReference")
                    })
                })
    }

    fn fields(
        &mut self,
        owner: &str,
        body: &Value,
        pointer: &str,
        is_component: bool,
    ) -> Result<Vec<Field>, Error> {
        let props = body
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let required: BTreeSet<&str> = body
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut fields = Vec::new();
        for (json_name, schema) in &props {
            if is_component && json_name == "component_type" {
                continue;
            }
            let field_pointer = format!(
                "{pointer}/properties/{}",
                json_name.replace('~', "~0").replace('/', "~1")
            );
            fields.push(self.field(
                owner,
                json_name,
                schema,
                required.contains(json_name.as_str()),
                is_component,
                &field_pointer,
            )?);
        }
        if is_component {
            order_component_fields(&mut fields);
        }
        Ok(fields)
    }

    fn field(
        &mut self,
        owner: &str,
        json_name: &str,
        schema: &Value,
        required: bool,
        component: bool,
        pointer: &str,
    ) -> Result<Field, Error> {
        let facts: Vec<Fact> =
            declared::facts(&self.declared, owner, json_name, component).collect();
        let rust_name = if json_name == "$referenced_components" {
            "referenced_components".to_owned()
        } else {
            json_name.to_owned()
        };
        if !rust_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
            || rust_name.starts_with(|c: char| c.is_ascii_digit())
        {
            return Err(self.unsupported(
                pointer,
                format!("field name `{json_name}` is not a Rust identifier"),
            ));
        }
        let constant = schema.get("const").map(|c| {
            c.as_str()
                .map(str::to_owned)
                .ok_or_else(|| self.unsupported(pointer, "a `const` that is not a string"))
        });
        let constant = constant.transpose()?;
        let ty = if constant.is_some() {
            Ty::String
        } else {
            self.ty(owner, json_name, schema, pointer)?
        };
        let missing = if required {
            Missing::Required
        } else if let Some(value) = facts.iter().find_map(|f| match f {
            Fact::Default(v) => Some(v.clone()),
            _ => None,
        }) {
            Missing::Default(value)
        } else if let Some(default) = schema.get("default") {
            if default.is_null() {
                Missing::Empty
            } else {
                Missing::Default(default.clone())
            }
        } else if json_name == "id" {
            Missing::FreshId
        } else if matches!(
            ty,
            Ty::Option(_) | Ty::Vec(_) | Ty::Map(_) | Ty::JsonObject | Ty::ReferencedComponents
        ) || self.struct_has_default(&ty)
        {
            Missing::Empty
        } else {
            return Err(self.unsupported(
                pointer,
                "an optional field with no default, of a type with no empty value",
            ));
        };
        let ty = if facts.iter().any(|f| matches!(f, Fact::Sensitive)) {
            match ty {
                Ty::Option(inner) => Ty::Option(Box::new(Ty::Sensitive(inner))),
                other => Ty::Sensitive(Box::new(other)),
            }
        } else {
            ty
        };
        let minimum = bound(schema);
        Ok(Field {
            json_name: json_name.to_owned(),
            rust_name,
            doc: schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            ty,
            missing,
            constant,
            since: (self.since)(owner, Some(json_name)),
            written: facts.iter().find_map(|f| match f {
                Fact::Written(w) => Some(*w),
                _ => None,
            }),
            skip_null: facts.iter().any(|f| matches!(f, Fact::SkipNull)),
            written_in_clear: facts.iter().any(|f| matches!(f, Fact::WrittenInClear)),
            informational: facts.iter().any(|f| matches!(f, Fact::Informational)),
            gate: facts.iter().find_map(|f| match f {
                Fact::Gate(g) => Some(g.clone()),
                _ => None,
            }),
            upgrades: facts
                .iter()
                .filter_map(|f| match f {
                    Fact::Upgrade { from, to, message } => Some(Upgrade {
                        from: from.clone(),
                        to: to.clone(),
                        message: (*message).to_owned(),
                    }),
                    _ => None,
                })
                .collect(),
            minimum,
        })
    }

    /// A value struct whose fields all have defaults: its default is the empty value.
    fn struct_has_default(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Struct(name) => self.model.structs[name]
                .fields
                .iter()
                .all(|f| f.missing != Missing::Required),
            _ => false,
        }
    }

    fn ty(&mut self, owner: &str, field: &str, schema: &Value, pointer: &str) -> Result<Ty, Error> {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            return self.ty_of_ref(reference, pointer);
        }
        if let Some(members) = schema.get("anyOf").and_then(Value::as_array) {
            return self.ty_of_any_of(owner, field, members, pointer);
        }
        if schema.get("enum").is_some() {
            let name = format!("{owner}{}", pascal_case(field));
            self.string_enum(&name, schema, pointer)?;
            return Ok(Ty::Enum(name));
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string") => Ok(Ty::String),
            Some("boolean") => Ok(Ty::Bool),
            Some("integer") => Ok(Ty::Int),
            Some("number") => Ok(Ty::Float),
            Some("array") => {
                let items = schema
                    .get("items")
                    .ok_or_else(|| self.unsupported(pointer, "an array without `items`"))?;
                let items_pointer = format!("{pointer}/items");
                if let Some(prefix) = items.get("prefixItems").and_then(Value::as_array) {
                    let [a, b] = prefix.as_slice() else {
                        return Err(self.unsupported(
                            &items_pointer,
                            "`prefixItems` with other than two members",
                        ));
                    };
                    let a = self.ty(owner, field, a, &format!("{items_pointer}/prefixItems/0"))?;
                    let b = self.ty(owner, field, b, &format!("{items_pointer}/prefixItems/1"))?;
                    return Ok(Ty::Vec(Box::new(Ty::Pair(Box::new(a), Box::new(b)))));
                }
                Ok(Ty::Vec(Box::new(self.ty(
                    owner,
                    field,
                    items,
                    &items_pointer,
                )?)))
            }
            Some("object") => match schema.get("additionalProperties") {
                None | Some(Value::Bool(true)) if schema.get("properties").is_none() => {
                    Ok(Ty::JsonObject)
                }
                Some(inner @ Value::Object(_)) if schema.get("properties").is_none() => {
                    Ok(Ty::Map(Box::new(self.ty(
                        owner,
                        field,
                        inner,
                        &format!("{pointer}/additionalProperties"),
                    )?)))
                }
                _ => Err(self.unsupported(pointer, "an inline object with its own properties")),
            },
            None if schema.as_object().is_some_and(Map::is_empty) => Ok(Ty::Json),
            other => {
                Err(self.unsupported(pointer, format!("no rule for a schema of type {other:?}")))
            }
        }
    }

    fn ty_of_ref(&mut self, reference: &str, pointer: &str) -> Result<Ty, Error> {
        let name = def_name(reference).ok_or_else(|| {
            self.unsupported(pointer, format!("`$ref` outside `$defs`: {reference}"))
        })?;
        if name == "ReferencedComponents" {
            return Ok(Ty::ReferencedComponents);
        }
        if name == "Property" {
            return Ok(Ty::Property);
        }
        if self.is_component_wrapper(name) {
            return Ok(match self.target(name, pointer)? {
                Target::Concrete(c) => Ty::Component(c),
                Target::Family(f) => Ty::Family(f),
            });
        }
        let def = self.def(name, pointer)?.clone();
        let def_pointer = format!("/$defs/{name}");
        if def.get("enum").is_some() {
            self.string_enum(name, &def, &def_pointer)?;
            return Ok(Ty::Enum(name.to_owned()));
        }
        if is_value_struct(&def) {
            if !self.model.structs.contains_key(name) {
                // Insert first, so that a recursive reference finds it.
                self.model.structs.insert(
                    name.to_owned(),
                    Struct {
                        name: name.to_owned(),
                        doc: None,
                        fields: Vec::new(),
                        open: false,
                    },
                );
                let fields = self.fields(name, &def, &def_pointer, false)?;
                let open = match def.get("additionalProperties") {
                    Some(Value::Bool(b)) => *b,
                    // pydantic's default for a model: unknown keys are not part of it.
                    None => false,
                    Some(_) => {
                        return Err(self.unsupported(
                            &def_pointer,
                            "typed `additionalProperties` beside `properties`",
                        ));
                    }
                };
                let doc = def
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.model.structs.insert(
                    name.to_owned(),
                    Struct {
                        name: name.to_owned(),
                        doc,
                        fields,
                        open,
                    },
                );
            }
            return Ok(Ty::Struct(name.to_owned()));
        }
        Err(self.unsupported(
            &def_pointer,
            "a referenced definition that is neither a component, a value object nor an enum",
        ))
    }

    fn ty_of_any_of(
        &mut self,
        owner: &str,
        field: &str,
        members: &[Value],
        pointer: &str,
    ) -> Result<Ty, Error> {
        let is_null = |m: &Value| m.get("type").and_then(Value::as_str) == Some("null");
        let nullable = members.iter().any(is_null);
        let rest: Vec<(usize, &Value)> = members
            .iter()
            .enumerate()
            .filter(|(_, m)| !is_null(m))
            .collect();
        if rest
            .iter()
            .any(|(_, m)| m.as_object().is_some_and(Map::is_empty))
        {
            return Ok(Ty::Json);
        }
        let mut tys = Vec::new();
        for (i, member) in &rest {
            tys.push(self.ty(owner, field, member, &format!("{pointer}/anyOf/{i}"))?);
        }
        let ty = match tys.len() {
            0 => return Err(self.unsupported(pointer, "an `anyOf` that admits only `null`")),
            1 => tys.pop().expect("one member"),
            _ if tys
                .iter()
                .all(|t| matches!(t, Ty::Component(_) | Ty::Family(_))) =>
            {
                self.family_of(owner, field, &tys, pointer)?
            }
            _ => self.union(owner, field, tys, pointer)?,
        };
        Ok(if nullable {
            Ty::Option(Box::new(ty))
        } else {
            ty
        })
    }

    /// A union of component positions: the family that admits exactly those components,
    /// or a new family named after the field.
    fn family_of(
        &mut self,
        owner: &str,
        field: &str,
        tys: &[Ty],
        pointer: &str,
    ) -> Result<Ty, Error> {
        let mut members = BTreeSet::new();
        for ty in tys {
            match ty {
                Ty::Component(c) => {
                    members.insert(c.clone());
                }
                Ty::Family(f) => members.extend(self.model.families[f].members.iter().cloned()),
                _ => unreachable!("checked by the caller"),
            }
        }
        let members: Vec<String> = members.into_iter().collect();
        if let Some(family) = self.model.families.values().find(|f| f.members == members) {
            return Ok(Ty::Family(family.name.clone()));
        }
        let name = format!("{owner}{}", pascal_case(field));
        if self.model.components.contains_key(&name) {
            return Err(self.unsupported(pointer, format!("the union's name `{name}` is taken")));
        }
        self.model.families.insert(
            name.clone(),
            Family {
                name: name.clone(),
                schema_name: name.clone(),
                doc: None,
                members,
            },
        );
        Ok(Ty::Family(name))
    }

    fn union(
        &mut self,
        owner: &str,
        field: &str,
        tys: Vec<Ty>,
        pointer: &str,
    ) -> Result<Ty, Error> {
        let mut seen = BTreeSet::new();
        let mut variants = Vec::new();
        for ty in tys {
            let json_type = json_type(&ty);
            if !seen.insert(json_type) {
                return Err(self.unsupported(
                    pointer,
                    format!("two members of an `anyOf` are both of JSON type {json_type}"),
                ));
            }
            let name = match &ty {
                Ty::Enum(n) | Ty::Struct(n) | Ty::Component(n) | Ty::Family(n) | Ty::Union(n) => {
                    n.clone()
                }
                Ty::String => "String".into(),
                Ty::Bool => "Bool".into(),
                Ty::Int => "Int".into(),
                Ty::Float => "Float".into(),
                Ty::Vec(_) | Ty::Pair(..) => "List".into(),
                _ => "Object".into(),
            };
            variants.push((name, ty));
        }
        let name = format!("{owner}{}", pascal_case(field));
        self.model.unions.insert(
            name.clone(),
            Union {
                name: name.clone(),
                doc: None,
                variants,
            },
        );
        Ok(Ty::Union(name))
    }

    fn string_enum(&mut self, name: &str, def: &Value, pointer: &str) -> Result<(), Error> {
        if self.model.enums.contains_key(name) {
            return Ok(());
        }
        let values = def
            .get("enum")
            .and_then(Value::as_array)
            .ok_or_else(|| self.unsupported(pointer, "an enum without values"))?;
        let mut variants = Vec::new();
        for (i, v) in values.iter().enumerate() {
            let s = v.as_str().ok_or_else(|| {
                self.unsupported(
                    &format!("{pointer}/enum/{i}"),
                    "an enum value that is not a string",
                )
            })?;
            variants.push((s.to_owned(), variant_name(s)));
        }
        let is_version = variants.iter().all(|(s, _)| Version::parse(s).is_some());
        if is_version {
            variants.sort_by_key(|(s, _)| Version::parse(s));
        }
        let mut names = BTreeSet::new();
        if let Some((_, dup)) = variants.iter().find(|(_, n)| !names.insert(n.clone())) {
            return Err(self.unsupported(
                pointer,
                format!("two enum values map to the Rust variant `{dup}`"),
            ));
        }
        let doc = def
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.model.enums.insert(
            name.to_owned(),
            StrEnum {
                name: name.to_owned(),
                doc,
                variants,
                is_version,
            },
        );
        Ok(())
    }
}

/// The JSON type a value of `ty` is written as.
pub(crate) fn json_type(ty: &Ty) -> &'static str {
    match ty {
        Ty::String | Ty::Enum(_) => "string",
        Ty::Bool => "boolean",
        Ty::Int => "integer",
        Ty::Float => "number",
        Ty::Vec(_) | Ty::Pair(..) => "array",
        Ty::Option(inner) | Ty::Sensitive(inner) => json_type(inner),
        Ty::Json => "any",
        _ => "object",
    }
}

fn bound(schema: &Value) -> Option<(f64, bool)> {
    let direct = |s: &Value| {
        s.get("minimum")
            .and_then(Value::as_f64)
            .map(|m| (m, true))
            .or_else(|| {
                s.get("exclusiveMinimum")
                    .and_then(Value::as_f64)
                    .map(|m| (m, false))
            })
    };
    direct(schema).or_else(|| schema.get("anyOf")?.as_array()?.iter().find_map(direct))
}

/// pyagentspec's key order: `id`, `name`, `description` first (after `component_type`),
/// then the schema's order, `$referenced_components` last.
fn order_component_fields(fields: &mut [Field]) {
    let rank = |f: &Field| match f.json_name.as_str() {
        "id" => 0,
        "name" => 1,
        "description" => 2,
        "$referenced_components" => 4,
        _ => 3,
    };
    fields.sort_by_key(rank);
}

/// A declared upgrade applies only where its new form exists: in files older than the new
/// form (a Swarm `handoff` that is only a boolean), the legacy value is the value.
fn drop_unrepresentable_upgrades(model: &mut Model) {
    let snapshot = model.clone();
    for component in model.components.values_mut() {
        for field in &mut component.fields {
            field.upgrades.retain(|u| fits(&field.ty, &u.to, &snapshot));
        }
    }
}

/// Whether `value` is a value of `ty`.
fn fits(ty: &Ty, value: &Value, model: &Model) -> bool {
    match (ty, value) {
        (Ty::Option(_), Value::Null) | (Ty::Json, _) => true,
        (Ty::Option(inner) | Ty::Sensitive(inner), v) => fits(inner, v, model),
        (Ty::String, Value::String(_)) | (Ty::Bool, Value::Bool(_)) => true,
        (Ty::Int, Value::Number(n)) => n.is_i64(),
        (Ty::Float, Value::Number(_)) => true,
        (Ty::Enum(name), Value::String(s)) => model
            .enums
            .get(name)
            .is_some_and(|e| e.variants.iter().any(|(v, _)| v == s)),
        (Ty::Union(name), v) => model
            .unions
            .get(name)
            .is_some_and(|u| u.variants.iter().any(|(_, t)| fits(t, v, model))),
        (Ty::JsonObject | Ty::Property | Ty::Map(_) | Ty::Struct(_), Value::Object(_)) => true,
        (Ty::Vec(_) | Ty::Pair(..), Value::Array(_)) => true,
        _ => false,
    }
}
