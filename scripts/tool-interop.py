"""The tools #[tool] writes, against the same tools built with pyagentspec 26.3.1.

usage: tool-interop.py DOCUMENTS_JSON
DOCUMENTS_JSON is a JSON array of the documents (text) agentspec-tool-interop printed.
For each tool, pyagentspec must load our document, and what it writes for our tool and
for its own equivalent must be the same JSON value as ours. Prints one line per tool and
closes with 'N passed, N failed'.
"""

import json
import sys

from pyagentspec.property import (
    BooleanProperty,
    DictProperty,
    FloatProperty,
    IntegerProperty,
    ListProperty,
    NullProperty,
    NumberProperty,
    Property,
    StringProperty,
    UnionProperty,
)
from pyagentspec.serialization import AgentSpecDeserializer, AgentSpecSerializer
from pyagentspec.tools import ClientTool, ServerTool

UNIT = {"type": "string", "enum": ["celsius", "fahrenheit"]}


def python_tools():
    """The same tools, the way a pyagentspec user writes them."""
    yield ServerTool(
        id="get_weather",
        name="get_weather",
        description="Gets the weather forecast for a city.",
        inputs=[
            StringProperty(title="city", description='Name of the city, e.g. "Zurich".'),
            Property(
                title="unit", description="Temperature unit.", default="celsius", json_schema=UNIT
            ),
            UnionProperty(
                title="days",
                description="How many days ahead.",
                default=None,
                any_of=[
                    Property(json_schema={"type": "integer", "minimum": 0, "maximum": 255}),
                    NullProperty(),
                ],
            ),
        ],
        outputs=[
            Property(
                title="tool_output",
                description="A forecast.",
                json_schema={
                    "type": "object",
                    "properties": {
                        "temperature": {
                            "type": "number",
                            "description": "Temperature in the requested unit.",
                        },
                        "unit": UNIT,
                        "summary": {"type": "string"},
                    },
                    "required": ["temperature", "unit", "summary"],
                },
            )
        ],
    )
    yield ServerTool(
        id="add",
        name="add",
        description="Adds two numbers.",
        inputs=[
            NumberProperty(title="a", description="The first addend."),
            FloatProperty(title="b", description="The second addend."),
        ],
        outputs=[NumberProperty(title="sum", description="The sum.")],
    )
    yield ServerTool(
        id="take_items",
        name="take_items",
        description="Keeps the first items of a list.",
        inputs=[
            ListProperty(title="items", item_type=StringProperty()),
            IntegerProperty(title="limit", default=10),
            BooleanProperty(title="verbose"),
        ],
        outputs=[ListProperty(title="tool_output", item_type=StringProperty())],
    )
    yield ServerTool(
        id="split_name",
        name="split_name",
        description="Splits a full name.",
        inputs=[StringProperty(title="full_name")],
        outputs=[
            StringProperty(title="first", description="Given name."),
            UnionProperty(
                title="last",
                description="Family name, if any.",
                any_of=[StringProperty(), NullProperty()],
            ),
            Property(
                title="words",
                description="How many words the name has.",
                json_schema={"type": "integer", "minimum": 0},
            ),
        ],
    )
    yield ServerTool(
        id="search",
        name="search",
        description="Looks a query up with filters.",
        inputs=[
            StringProperty(title="query"),
            DictProperty(
                title="filters",
                description="Field filters, by field name.",
                value_type=StringProperty(),
            ),
        ],
        outputs=[
            ListProperty(title="tool_output", item_type=DictProperty(value_type=StringProperty()))
        ],
    )
    person = {
        "description": "Someone to invite.",
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "email": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["name"],
    }
    yield ServerTool(
        id="create_event",
        name="create_event",
        description="Creates a calendar event.",
        inputs=[
            Property(
                title="event",
                description="An event to create.",
                json_schema={
                    "type": "object",
                    "properties": {
                        "title": {"type": "string"},
                        "attendees": {"type": "array", "items": person},
                        "priority": {"type": "string", "enum": ["low", "high"]},
                    },
                    "required": ["title", "attendees", "priority"],
                },
            )
        ],
        outputs=[StringProperty(title="tool_output")],
        requires_confirmation=True,
    )
    yield ClientTool(
        id="confirm-order",
        name="confirm-order",
        description="Asks the user to confirm an order.",
        inputs=[IntegerProperty(title="order_id"), NumberProperty(title="ratio", default=1.5)],
        outputs=[BooleanProperty(title="tool_output")],
    )


def main():
    with open(sys.argv[1]) as f:
        ours = json.load(f)
    theirs = list(python_tools())
    assert len(ours) == len(theirs), f"{len(ours)} Rust tools, {len(theirs)} Python tools"
    passed = failed = 0
    for text, tool in zip(ours, theirs):
        problems = []
        try:
            loaded = AgentSpecDeserializer().from_json(text)
        except Exception as e:  # noqa: BLE001 - report any load failure
            problems.append(f"pyagentspec cannot load ours: {e}")
            loaded = None
        our_value = json.loads(text)
        their_value = json.loads(AgentSpecSerializer().to_json(tool))
        if their_value != our_value:
            problems.append(
                "differs from pyagentspec's:\n  ours:   "
                + json.dumps(our_value, sort_keys=True)
                + "\n  theirs: "
                + json.dumps(their_value, sort_keys=True)
            )
        if loaded is not None:
            rewritten = json.loads(AgentSpecSerializer().to_json(loaded))
            if rewritten != our_value:
                problems.append("pyagentspec writes ours back differently")
        if problems:
            failed += 1
            print(f"FAIL {tool.name}: " + "; ".join(problems))
        else:
            passed += 1
            print(f"ok   {tool.name}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
