/// A built-in component as the generator emits it: the derive writes its wire format.
#[derive(Debug, Clone, PartialEq, AgentSpec)]
#[agentspec(component = "Swarm", since = "25.4.2")]
pub struct Swarm {
    #[agentspec(id)]
    pub id: String,
    pub name: String,
    #[agentspec(default = Some(Default::default()))]
    pub metadata: Option<JsonObject>,
    pub first_agent: RefOr<AgenticComponent>,
    #[agentspec(
        since = "26.1.0",
        default = SwarmHandoff::HandoffMode(HandoffMode::Optional),
        upgrade(
            from = SwarmHandoff::Bool(true),
            to = SwarmHandoff::HandoffMode(HandoffMode::Optional),
            message = "`handoff: true` is the legacy form of `\"optional\"`"
        )
    )]
    pub handoff: SwarmHandoff,
    pub api_key: Option<Sensitive<String>>,
    #[agentspec(referenced)]
    pub referenced_components: IndexMap<String, Component>,
}
