"""The plugin components of the pyagentspec corpus (tests/fixtures/generated/plugin_*), declared
for pyagentspec as Pydantic components with the fields the documents give them, and the
plugins that read and write them (oracle.py, version-oracle.py)."""

from pyagentspec.component import Component
from pyagentspec.flows.node import Node
from pyagentspec.llms.llmconfig import LlmConfig
from pyagentspec.serialization import AgentSpecDeserializer, AgentSpecSerializer
from pyagentspec.serialization.pydanticdeserializationplugin import (
    PydanticComponentDeserializationPlugin,
)
from pyagentspec.serialization.pydanticserializationplugin import (
    PydanticComponentSerializationPlugin,
)


class PluginRegexNode(Node):
    """plugin_flow_regex_node's plugin node: a node with one extra field."""

    regex_pattern: str


class PluginWeatherService(Component):
    """plugin_custom_component_root's plugin root component, nesting an LLM."""

    endpoint: str
    units: str
    llm_config: LlmConfig


PLUGIN_MODELS = {"PluginRegexNode": PluginRegexNode, "PluginWeatherService": PluginWeatherService}


def has_plugin_component(value):
    """Whether a document holds a plugin component (one with `component_plugin_name`)."""
    if isinstance(value, dict):
        return "component_plugin_name" in value or any(has_plugin_component(v) for v in value.values())
    if isinstance(value, list):
        return any(has_plugin_component(v) for v in value)
    return False


def reader(plugins):
    """pyagentspec's deserializer, with the corpus's plugin components when `plugins`."""
    if plugins:
        return AgentSpecDeserializer(plugins=[PydanticComponentDeserializationPlugin(PLUGIN_MODELS)])
    return AgentSpecDeserializer()


def writer(plugins):
    """pyagentspec's serializer, with the corpus's plugin components when `plugins`."""
    if plugins:
        return AgentSpecSerializer(plugins=[PydanticComponentSerializationPlugin(PLUGIN_MODELS)])
    return AgentSpecSerializer()
