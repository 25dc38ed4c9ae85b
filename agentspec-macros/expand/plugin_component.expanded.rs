const _: () = {
    fn extends<
        B: ::agentspec_types::__private::FamilyFields<Family = agentspec_types::Node>,
    >() {}
    let _: fn() = extends::<NodeFields>;
};
#[automatically_derived]
impl ::core::convert::From<PluginRegexNode> for agentspec_types::Node {
    fn from(component: PluginRegexNode) -> Self {
        agentspec_types::Node::Plugin(
            ::agentspec_types::__private::Plugin::new(component),
        )
    }
}
#[automatically_derived]
impl ::core::convert::From<PluginRegexNode>
for ::agentspec_types::__private::RefOr<agentspec_types::Node> {
    fn from(component: PluginRegexNode) -> Self {
        ::agentspec_types::__private::RefOr::Inline(
            agentspec_types::Node::Plugin(
                ::agentspec_types::__private::Plugin::new(component),
            ),
        )
    }
}
const _: () = ::core::assert!(
    ! ::agentspec_types::__private::has_key(< NodeFields as
    ::agentspec_types::__private::FamilyFields > ::KEYS, "regex_pattern"),
    "the field `regex_pattern` of `PluginRegexNode` collides with a field of its base: a plugin may only add fields"
);
const _: () = ::core::assert!(
    ! ::agentspec_types::__private::has_key(< NodeFields as
    ::agentspec_types::__private::FamilyFields > ::KEYS, "port"),
    "the field `port` of `PluginRegexNode` collides with a field of its base: a plugin may only add fields"
);
#[automatically_derived]
impl PluginRegexNode {
    #[doc(hidden)]
    #[allow(non_snake_case, clippy::all)]
    fn __agentspec_default_port() -> u16 {
        8080
    }
}
#[automatically_derived]
impl ::agentspec_types::plugin::PluginType for PluginRegexNode {
    const COMPONENT_TYPE: &'static str = "PluginRegexNode";
    const PLUGIN_NAME: &'static str = "regex-nodes";
    const PLUGIN_VERSION: &'static str = "1.0.0";
    fn family_schema_name() -> &'static str {
        <NodeFields as ::agentspec_types::__private::FamilyFields>::SCHEMA_NAME
    }
    fn json_schema() -> ::agentspec_types::__private::serde_json::Value {
        let mut properties = ::agentspec_types::__private::JsonObject::new();
        properties
            .insert(
                "component_type".into(),
                ::agentspec_types::__private::serde_json::json!(
                    { "const" : "PluginRegexNode" }
                ),
            );
        <NodeFields as ::agentspec_types::__private::FamilyFields>::schema_properties(
            &mut properties,
        );
        properties
            .insert(
                "regex_pattern".into(),
                {
                    #[allow(unused_mut)]
                    let mut schema = <String as ::agentspec_types::__private::FieldType<
                        ::agentspec_types::Component,
                    >>::schema();
                    if let ::agentspec_types::__private::serde_json::Value::Object(m) = &mut schema {
                        m.insert(
                            "description".into(),
                            "Regex applied to the input text.".into(),
                        );
                    }
                    schema
                },
            );
        properties
            .insert(
                "port".into(),
                {
                    #[allow(unused_mut)]
                    let mut schema = <u16 as ::agentspec_types::__private::FieldType<
                        ::agentspec_types::Component,
                    >>::schema();
                    schema
                },
            );
        for key in ["component_plugin_name", "component_plugin_version"] {
            properties
                .insert(
                    key.into(),
                    ::agentspec_types::__private::serde_json::json!(
                        { "type" : "string" }
                    ),
                );
        }
        let mut required: ::std::vec::Vec<&str> = ::std::vec!["component_type"];
        required
            .extend_from_slice(
                <NodeFields as ::agentspec_types::__private::FamilyFields>::REQUIRED,
            );
        required.extend_from_slice(&["regex_pattern"]);
        let mut schema = ::agentspec_types::__private::JsonObject::new();
        schema.insert("title".into(), "PluginRegexNode".into());
        schema
            .insert(
                "description".into(),
                "A plugin node: the same derive, through its `#[component]` front."
                    .into(),
            );
        schema.insert("type".into(), "object".into());
        schema
            .insert(
                "properties".into(),
                ::agentspec_types::__private::serde_json::Value::Object(properties),
            );
        schema.insert("required".into(), required.into());
        schema.insert("additionalProperties".into(), false.into());
        ::agentspec_types::__private::serde_json::Value::Object(schema)
    }
    fn extends() -> &'static [&'static str] {
        <<NodeFields as ::agentspec_types::__private::FamilyFields>::Family as ::agentspec_types::__private::Tagged>::MEMBERS
    }
    fn decode_body(
        entries: ::std::vec::Vec<::agentspec_types::__private::Entry>,
        offset: u32,
        cx: &mut ::agentspec_types::__private::Decoder,
        path: &::agentspec_types::__private::Path<'_>,
    ) -> ::core::option::Option<Self> {
        let mut base_entries = ::std::vec::Vec::new();
        let mut slot_regex_pattern: ::agentspec_types::__private::Slot<String> = ::agentspec_types::__private::Slot::Absent;
        let mut slot_port: ::agentspec_types::__private::Slot<u16> = ::agentspec_types::__private::Slot::Absent;
        for entry in entries {
            match entry.key.as_str() {
                "component_type" | "component_plugin_name"
                | "component_plugin_version" => {}
                "regex_pattern" => {
                    slot_regex_pattern = <String as ::agentspec_types::__private::FieldType<
                        ::agentspec_types::Component,
                    >>::read(entry.value, cx, &path.key("regex_pattern"));
                }
                "port" => {
                    slot_port = <u16 as ::agentspec_types::__private::FieldType<
                        ::agentspec_types::Component,
                    >>::read(entry.value, cx, &path.key("port"));
                }
                "agentspec_version" => cx.nested_version(entry, path),
                key if <NodeFields as ::agentspec_types::__private::FamilyFields>::KEYS
                    .contains(&key) => base_entries.push(entry),
                _ => {
                    let known: ::std::vec::Vec<&str> = <NodeFields as ::agentspec_types::__private::FamilyFields>::KEYS
                        .iter()
                        .copied()
                        .chain(["regex_pattern", "port"])
                        .collect();
                    cx.unknown_field(&entry, "PluginRegexNode", &known, path);
                }
            }
        }
        let base_node = ::agentspec_types::__private::Node {
            offset,
            value: ::agentspec_types::__private::TreeValue::Object(base_entries),
        };
        let __base = <NodeFields as ::agentspec_types::__private::Decode>::decode(
            base_node,
            cx,
            path,
        );
        let field_regex_pattern = cx
            .required(
                slot_regex_pattern,
                "regex_pattern",
                "PluginRegexNode",
                offset,
                path,
            );
        let field_port = slot_port.or_else(|| Self::__agentspec_default_port());
        let component = PluginRegexNode {
            base: __base?,
            regex_pattern: field_regex_pattern?,
            port: field_port?,
        };
        cx.define(
            ::agentspec_types::__private::FamilyFields::id(&component.base),
            offset,
            path,
        );
        ::core::option::Option::Some(component)
    }
}
#[automatically_derived]
impl ::agentspec_types::plugin::PluginComponent for PluginRegexNode {
    fn component_type(&self) -> &str {
        <Self as ::agentspec_types::plugin::PluginType>::COMPONENT_TYPE
    }
    fn id(&self) -> &str {
        ::agentspec_types::__private::FamilyFields::id(&self.base)
    }
    fn name(&self) -> &str {
        ::agentspec_types::__private::FamilyFields::name(&self.base)
    }
    fn inputs(
        &self,
    ) -> ::core::option::Option<&[::agentspec_types::__private::JsonObject]> {
        ::agentspec_types::__private::FamilyFields::inputs(&self.base)
    }
    fn outputs(
        &self,
    ) -> ::core::option::Option<&[::agentspec_types::__private::JsonObject]> {
        ::agentspec_types::__private::FamilyFields::outputs(&self.base)
    }
    fn branches(&self) -> ::core::option::Option<&[::std::string::String]> {
        ::agentspec_types::__private::FamilyFields::branches(&self.base)
    }
    fn field(&self, key: &str) -> ::core::option::Option<&dyn ::core::any::Any> {
        match key {
            "regex_pattern" => ::core::option::Option::Some(&self.regex_pattern),
            "port" => ::core::option::Option::Some(&self.port),
            _ => ::agentspec_types::__private::FamilyFields::field(&self.base, key),
        }
    }
    fn encode_body(
        &self,
        sink: &mut dyn ::agentspec_types::__private::Sink,
        cx: &::agentspec_types::__private::Encoder,
    ) {
        sink.key("component_type");
        sink.str(<Self as ::agentspec_types::plugin::PluginType>::COMPONENT_TYPE);
        ::agentspec_types::__private::FamilyFields::encode_fields(&self.base, sink, cx);
        sink.key("regex_pattern");
        <String as ::agentspec_types::__private::FieldType<
            ::agentspec_types::Component,
        >>::write(&self.regex_pattern, sink, cx);
        sink.key("port");
        <u16 as ::agentspec_types::__private::FieldType<
            ::agentspec_types::Component,
        >>::write(&self.port, sink, cx);
        sink.key("component_plugin_name");
        sink.str(<Self as ::agentspec_types::plugin::PluginType>::PLUGIN_NAME);
        sink.key("component_plugin_version");
        sink.str(<Self as ::agentspec_types::plugin::PluginType>::PLUGIN_VERSION);
        ::agentspec_types::__private::FamilyFields::encode_referenced(
            &self.base,
            sink,
            cx,
        );
    }
    fn clone_box(
        &self,
    ) -> ::std::boxed::Box<dyn ::agentspec_types::plugin::PluginComponent> {
        ::std::boxed::Box::new(::core::clone::Clone::clone(self))
    }
    fn eq_dyn(&self, other: &dyn ::agentspec_types::plugin::PluginComponent) -> bool {
        other.as_any().downcast_ref::<Self>() == ::core::option::Option::Some(self)
    }
    fn register_type(&self) -> ::core::option::Option<fn(&mut dyn ::core::any::Any)> {
        ::core::option::Option::Some(
            ::agentspec_types::__private::register_plugin::<Self>,
        )
    }
    fn as_any(&self) -> &dyn ::core::any::Any {
        self
    }
    fn visit_components<'a>(
        &'a self,
        f: &mut dyn FnMut(::agentspec_types::__private::ErasedVisit<'a>),
    ) {
        let f = &mut |
            v: ::agentspec_types::__private::Visit<'a, ::agentspec_types::Component>|
        f(v.erase());
        ::agentspec_types::__private::Walk::<
            ::agentspec_types::Component,
        >::walk(&self.base, f);
        <String as ::agentspec_types::__private::FieldType<
            ::agentspec_types::Component,
        >>::walk_field(&self.regex_pattern, f);
        <u16 as ::agentspec_types::__private::FieldType<
            ::agentspec_types::Component,
        >>::walk_field(&self.port, f);
    }
    fn visit_components_at<'a>(
        &'a self,
        at: &mut ::std::string::String,
        f: &mut dyn FnMut(&str, ::agentspec_types::__private::ErasedVisit<'a>),
    ) {
        let f = &mut |
            pointer: &str,
            v: ::agentspec_types::__private::Visit<'a, ::agentspec_types::Component>|
        f(pointer, v.erase());
        ::agentspec_types::__private::Walk::<
            ::agentspec_types::Component,
        >::walk_at(&self.base, at, f);
        <String as ::agentspec_types::__private::FieldType<
            ::agentspec_types::Component,
        >>::walk_field_at(&self.regex_pattern, "regex_pattern", at, f);
        <u16 as ::agentspec_types::__private::FieldType<
            ::agentspec_types::Component,
        >>::walk_field_at(&self.port, "port", at, f);
    }
}
