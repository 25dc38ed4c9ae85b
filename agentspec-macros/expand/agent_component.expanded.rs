impl Swarm {
    ///A `Swarm` with its required fields (`name`, `first_agent`); every other field at its default. The `id` is a fresh UUID (set another with `with_id`).
    #[allow(clippy::new_without_default, reason = "a component's `new` generates an id")]
    pub fn new(
        name: impl ::core::convert::Into<String>,
        first_agent: impl ::core::convert::Into<RefOr<AgenticComponent>>,
    ) -> Self {
        Swarm {
            id: ::agentspec_types::__private::fresh_id(),
            name: {
                let value = name;
                ::core::convert::Into::into(value)
            },
            metadata: Self::__agentspec_default_metadata(),
            first_agent: {
                let value = first_agent;
                ::core::convert::Into::into(value)
            },
            handoff: Self::__agentspec_default_handoff(),
            api_key: ::core::default::Default::default(),
            referenced_components: ::core::default::Default::default(),
        }
    }
    ///Sets `id`.
    #[must_use]
    pub fn with_id(mut self, value: impl ::core::convert::Into<String>) -> Self {
        self.id = ::core::convert::Into::into(value);
        self
    }
    ///Sets `name`.
    #[must_use]
    pub fn with_name(mut self, value: impl ::core::convert::Into<String>) -> Self {
        self.name = ::core::convert::Into::into(value);
        self
    }
    ///Sets `metadata`.
    #[must_use]
    pub fn with_metadata(
        mut self,
        value: impl ::core::convert::Into<JsonObject>,
    ) -> Self {
        self.metadata = ::core::option::Option::Some(::core::convert::Into::into(value));
        self
    }
    ///Sets `first_agent`.
    #[must_use]
    pub fn with_first_agent(
        mut self,
        value: impl ::core::convert::Into<RefOr<AgenticComponent>>,
    ) -> Self {
        self.first_agent = ::core::convert::Into::into(value);
        self
    }
    ///Sets `handoff`.
    #[must_use]
    pub fn with_handoff(
        mut self,
        value: impl ::core::convert::Into<SwarmHandoff>,
    ) -> Self {
        self.handoff = ::core::convert::Into::into(value);
        self
    }
    ///Sets `api_key`.
    #[must_use]
    pub fn with_api_key(mut self, value: impl ::core::convert::Into<String>) -> Self {
        self.api_key = ::core::option::Option::Some(
            ::agentspec_types::__private::Sensitive::Value(
                ::core::convert::Into::into(value),
            ),
        );
        self
    }
}
::agentspec_types::__impl_serde!(component, Component, Swarm);
impl Swarm {
    #[doc(hidden)]
    pub const SECRET_FIELDS: &'static [(&'static str, bool)] = &[("api_key", false)];
    /// The `component_type` of this component.
    pub const COMPONENT_TYPE: &'static str = "Swarm";
    /// The first Agent Spec version that has this component.
    pub const SINCE: ::agentspec_types::__private::Version = ::agentspec_types::__private::Version::new(
        25u16,
        4u16,
        2u16,
    );
    /// The JSON keys this component reads, in write order.
    pub const FIELDS: &'static [&'static str] = &[
        "id",
        "name",
        "metadata",
        "first_agent",
        "handoff",
        "api_key",
        "$referenced_components",
    ];
    #[doc(hidden)]
    #[allow(non_snake_case, clippy::all)]
    fn __agentspec_default_metadata() -> Option<JsonObject> {
        Some(Default::default())
    }
    #[doc(hidden)]
    #[allow(non_snake_case, clippy::all)]
    fn __agentspec_default_handoff() -> SwarmHandoff {
        SwarmHandoff::HandoffMode(HandoffMode::Optional)
    }
    #[doc(hidden)]
    pub fn decode_body(
        entries: ::std::vec::Vec<::agentspec_types::__private::Entry>,
        offset: u32,
        cx: &mut ::agentspec_types::__private::Decoder,
        path: &::agentspec_types::__private::Path<'_>,
    ) -> ::core::option::Option<Self> {
        let mut slot_id: ::agentspec_types::__private::Slot<String> = ::agentspec_types::__private::Slot::Absent;
        let mut slot_name: ::agentspec_types::__private::Slot<String> = ::agentspec_types::__private::Slot::Absent;
        let mut slot_metadata: ::agentspec_types::__private::Slot<Option<JsonObject>> = ::agentspec_types::__private::Slot::Absent;
        let mut slot_first_agent: ::agentspec_types::__private::Slot<
            RefOr<AgenticComponent>,
        > = ::agentspec_types::__private::Slot::Absent;
        let mut slot_handoff: ::agentspec_types::__private::Slot<SwarmHandoff> = ::agentspec_types::__private::Slot::Absent;
        let mut slot_api_key: ::agentspec_types::__private::Slot<
            Option<Sensitive<String>>,
        > = ::agentspec_types::__private::Slot::Absent;
        let mut slot_referenced_components: ::agentspec_types::__private::Slot<
            IndexMap<String, Component>,
        > = ::agentspec_types::__private::Slot::Absent;
        for entry in entries {
            match entry.key.as_str() {
                "component_type" => {
                    cx.newer_component(Self::SINCE, "Swarm", entry.key_offset, path)
                }
                "id" => {
                    slot_id = <String as ::agentspec_types::__private::FieldType<
                        Component,
                    >>::read(entry.value, cx, &path.key("id"));
                }
                "name" => {
                    slot_name = <String as ::agentspec_types::__private::FieldType<
                        Component,
                    >>::read(entry.value, cx, &path.key("name"));
                }
                "metadata" => {
                    slot_metadata = <Option<
                        JsonObject,
                    > as ::agentspec_types::__private::FieldType<
                        Component,
                    >>::read(entry.value, cx, &path.key("metadata"));
                }
                "first_agent" => {
                    slot_first_agent = <RefOr<
                        AgenticComponent,
                    > as ::agentspec_types::__private::FieldType<
                        Component,
                    >>::read(entry.value, cx, &path.key("first_agent"));
                }
                "handoff" => {
                    slot_handoff = <SwarmHandoff as ::agentspec_types::__private::FieldType<
                        Component,
                    >>::read(entry.value, cx, &path.key("handoff"));
                    cx.newer_field(
                        &::agentspec_types::__private::NewerField {
                            since: ::agentspec_types::__private::Version::new(
                                26u16,
                                1u16,
                                0u16,
                            ),
                            what: "Swarm.handoff",
                            informational: false,
                        },
                        entry.key_offset,
                        &path.key("handoff"),
                        || {
                            matches!(
                                & slot_handoff,
                                ::agentspec_types::__private::Slot::Present(value) if { let
                                default : SwarmHandoff =
                                Self::__agentspec_default_handoff(); * value != default }
                            )
                        },
                    );
                }
                "api_key" => {
                    slot_api_key = <Option<
                        Sensitive<String>,
                    > as ::agentspec_types::__private::FieldType<
                        Component,
                    >>::read(entry.value, cx, &path.key("api_key"));
                }
                "$referenced_components" => {
                    cx.referenced(
                        &mut slot_referenced_components,
                        entry.value,
                        &path.key("$referenced_components"),
                    )
                }
                "agentspec_version" => cx.nested_version(entry, path),
                _ => cx.unknown_field(&entry, "Swarm", Self::FIELDS, path),
            }
        }
        let field_id = slot_id.or_else(|| ::agentspec_types::__private::fresh_id());
        let field_name = cx.required(slot_name, "name", "Swarm", offset, path);
        let field_metadata = slot_metadata
            .or_else(|| Self::__agentspec_default_metadata());
        let field_first_agent = cx
            .required(slot_first_agent, "first_agent", "Swarm", offset, path);
        let field_handoff = slot_handoff.or_else(|| Self::__agentspec_default_handoff());
        let field_api_key = slot_api_key.or_else(|| ::core::default::Default::default());
        let field_referenced_components = slot_referenced_components
            .or_else(|| ::core::default::Default::default());
        let field_handoff = match field_handoff {
            ::core::option::Option::Some(SwarmHandoff::Bool(true)) => {
                cx.warning(
                    "legacy-value",
                    "`handoff: true` is the legacy form of `\"optional\"`",
                    &path.key("handoff"),
                    offset,
                );
                ::core::option::Option::Some(
                    SwarmHandoff::HandoffMode(HandoffMode::Optional),
                )
            }
            other => other,
        };
        let component = Swarm {
            id: field_id?,
            name: field_name?,
            metadata: field_metadata?,
            first_agent: field_first_agent?,
            handoff: field_handoff?,
            api_key: field_api_key?,
            referenced_components: field_referenced_components?,
        };
        cx.define(
            ::agentspec_types::__private::ComponentInfo::id(&component),
            offset,
            path,
        );
        ::core::option::Option::Some(component)
    }
    #[doc(hidden)]
    pub fn encode_body(
        &self,
        sink: &mut dyn ::agentspec_types::__private::Sink,
        cx: &::agentspec_types::__private::Encoder,
    ) {
        cx.component(Self::SINCE, "Swarm", sink);
        sink.key("component_type");
        sink.str("Swarm");
        sink.key("id");
        <String as ::agentspec_types::__private::FieldType<
            Component,
        >>::write(&self.id, sink, cx);
        sink.key("name");
        <String as ::agentspec_types::__private::FieldType<
            Component,
        >>::write(&self.name, sink, cx);
        sink.key("metadata");
        <Option<
            JsonObject,
        > as ::agentspec_types::__private::FieldType<
            Component,
        >>::write(&self.metadata, sink, cx);
        sink.key("first_agent");
        <RefOr<
            AgenticComponent,
        > as ::agentspec_types::__private::FieldType<
            Component,
        >>::write(&self.first_agent, sink, cx);
        if cx.writes(::agentspec_types::__private::Version::new(26u16, 1u16, 0u16))
            || cx
                .forced(
                    ::agentspec_types::__private::Version::new(26u16, 1u16, 0u16),
                    "Swarm.handoff",
                    sink,
                    "handoff",
                    {
                        let default: SwarmHandoff = Self::__agentspec_default_handoff();
                        self.handoff != default
                    },
                )
        {
            sink.key("handoff");
            <SwarmHandoff as ::agentspec_types::__private::FieldType<
                Component,
            >>::write(&self.handoff, sink, cx);
        }
        sink.key("api_key");
        ::agentspec_types::__private::SecretField::encode_secret(
            &self.api_key,
            &self.id,
            "api_key",
            sink,
            cx,
        );
        if !self.referenced_components.is_empty() {
            sink.key("$referenced_components");
            <IndexMap<
                String,
                Component,
            > as ::agentspec_types::__private::FieldType<
                Component,
            >>::write(&self.referenced_components, sink, cx);
        }
    }
}
#[automatically_derived]
impl ::agentspec_types::__private::Tagged for Swarm {
    const FAMILY: &'static str = "Swarm";
    const MEMBERS: &'static [&'static str] = &["Swarm"];
}
#[automatically_derived]
impl ::agentspec_types::__private::ComponentInfo for Swarm {
    fn component_type(&self) -> &'static str {
        "Swarm"
    }
    fn id(&self) -> &str {
        &self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn as_any(&self) -> &dyn ::core::any::Any {
        self
    }
    fn since(&self) -> ::agentspec_types::__private::Version {
        Self::SINCE
    }
    fn field(&self, key: &str) -> ::core::option::Option<&dyn ::core::any::Any> {
        match key {
            "id" => ::core::option::Option::Some(&self.id),
            "name" => ::core::option::Option::Some(&self.name),
            "metadata" => ::core::option::Option::Some(&self.metadata),
            "first_agent" => ::core::option::Option::Some(&self.first_agent),
            "handoff" => ::core::option::Option::Some(&self.handoff),
            "api_key" => ::core::option::Option::Some(&self.api_key),
            "$referenced_components" => {
                ::core::option::Option::Some(&self.referenced_components)
            }
            _ => ::core::option::Option::None,
        }
    }
}
#[automatically_derived]
impl ::agentspec_types::__private::Decode for Swarm {
    fn decode(
        node: ::agentspec_types::__private::Node,
        cx: &mut ::agentspec_types::__private::Decoder,
        path: &::agentspec_types::__private::Path<'_>,
    ) -> ::core::option::Option<Self> {
        cx.decode_tagged(
            node,
            path,
            "Swarm",
            &["Swarm"],
            ::core::option::Option::None,
            |_, entries, offset, cx, path| Swarm::decode_body(entries, offset, cx, path),
        )
    }
}
#[automatically_derived]
impl ::agentspec_types::__private::Encode for Swarm {
    fn encode(
        &self,
        sink: &mut dyn ::agentspec_types::__private::Sink,
        cx: &::agentspec_types::__private::Encoder,
    ) {
        sink.begin_object();
        self.encode_body(sink, cx);
        sink.end_object();
    }
}
#[automatically_derived]
impl ::agentspec_types::__private::Walk<Component> for Swarm {
    fn walk<'a>(
        &'a self,
        f: &mut dyn FnMut(::agentspec_types::__private::Visit<'a, Component>),
    ) {
        f(::agentspec_types::__private::Visit::Component(self));
        <String as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field(&self.id, f);
        <String as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field(&self.name, f);
        <Option<
            JsonObject,
        > as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field(&self.metadata, f);
        <RefOr<
            AgenticComponent,
        > as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field(&self.first_agent, f);
        <SwarmHandoff as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field(&self.handoff, f);
        <Option<
            Sensitive<String>,
        > as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field(&self.api_key, f);
        if !self.referenced_components.is_empty() {
            f(
                ::agentspec_types::__private::Visit::Referenced(
                    &self.referenced_components,
                ),
            );
        }
        <IndexMap<
            String,
            Component,
        > as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field(&self.referenced_components, f);
    }
    fn walk_at<'a>(
        &'a self,
        at: &mut ::std::string::String,
        f: &mut dyn FnMut(&str, ::agentspec_types::__private::Visit<'a, Component>),
    ) {
        f(at, ::agentspec_types::__private::Visit::Component(self));
        <String as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field_at(&self.id, "id", at, f);
        <String as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field_at(&self.name, "name", at, f);
        <Option<
            JsonObject,
        > as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field_at(&self.metadata, "metadata", at, f);
        <RefOr<
            AgenticComponent,
        > as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field_at(&self.first_agent, "first_agent", at, f);
        <SwarmHandoff as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field_at(&self.handoff, "handoff", at, f);
        <Option<
            Sensitive<String>,
        > as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field_at(&self.api_key, "api_key", at, f);
        if !self.referenced_components.is_empty() {
            let len = at.len();
            ::agentspec_types::__private::push_pointer_token(
                at,
                "$referenced_components",
            );
            f(
                at,
                ::agentspec_types::__private::Visit::Referenced(
                    &self.referenced_components,
                ),
            );
            at.truncate(len);
        }
        <IndexMap<
            String,
            Component,
        > as ::agentspec_types::__private::FieldType<
            Component,
        >>::walk_field_at(&self.referenced_components, "$referenced_components", at, f);
    }
}
#[automatically_derived]
impl ::agentspec_types::__private::FieldSchema for Swarm {
    fn field_schema() -> ::agentspec_types::__private::serde_json::Value {
        ::agentspec_types::__private::serde_json::json!({ "$ref" : "#/$defs/Swarm" })
    }
}
#[automatically_derived]
impl ::agentspec_types::__private::FieldType<Component> for Swarm {}
