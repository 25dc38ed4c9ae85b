"""The tools #[tool] writes, against the same tools built with pyagentspec 26.3.1.

usage: tool-interop.py DOCUMENTS_JSON KEY_ORDERS
DOCUMENTS_JSON is a JSON array of the documents (text) agentspec-tool-interop printed.
For each tool, pyagentspec must load our document, and two documents are compared with ours:
what pyagentspec writes for its own equivalent (`built`) and what it writes back for ours
(`reloaded`). Values, types and the keys of every mapping must be the same. The order of the
keys, at every level, must be the same too, except for the mappings KEY_ORDERS
(scripts/expected/tool-interop.txt) lists, each with both orders exactly:
`<tool> <built|reloaded> <JSON pointer>  ours <keys>; pyagentspec <keys>`. A key order that
differs and is not listed, or that is listed and no longer differs (or differs otherwise),
fails. Prints one line per tool and closes with 'N passed, N failed'.
"""

import json
import sys

from oracle_common import outcome_changes, read_expected
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


def step(pointer, key):
    return f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"


def differences(ours, theirs, pointer=""):
    """Every place two JSON values differ, as (kind, JSON pointer, ours, theirs): kind `value`
    where values, types or keys differ, `order` where a mapping has the same keys in another
    order (then ours and theirs are the two key lists)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in theirs:
            if key not in ours:
                yield "value", step(pointer, key), "<absent>", theirs[key]
        for key in ours:
            if key not in theirs:
                yield "value", step(pointer, key), ours[key], "<absent>"
        if set(ours) == set(theirs) and list(ours) != list(theirs):
            yield "order", pointer or "/", list(ours), list(theirs)
        for key in ours:
            if key in theirs:
                yield from differences(ours[key], theirs[key], step(pointer, key))
    elif isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            yield "value", f"{pointer} (length)", len(ours), len(theirs)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            yield from differences(a, b, step(pointer, i))
    elif not (ours == theirs and type(ours) is type(theirs)):
        yield "value", pointer or "/", ours, theirs


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
    expected_path = sys.argv[2]
    expected = read_expected(expected_path)
    theirs = list(python_tools())
    assert len(ours) == len(theirs), f"{len(ours)} Rust tools, {len(theirs)} Python tools"
    found = {}  # the key orders that differ: `<tool> <built|reloaded> <pointer>` -> both orders
    problems = {}
    for text, tool in zip(ours, theirs):
        problems[tool.name] = []
        try:
            loaded = AgentSpecDeserializer().from_json(text)
        except Exception as e:  # noqa: BLE001 - report any load failure
            problems[tool.name].append(f"pyagentspec cannot load ours: {e}")
            loaded = None
        our_value = json.loads(text)
        compared = [("built", json.loads(AgentSpecSerializer().to_json(tool)))]
        if loaded is not None:
            compared.append(("reloaded", json.loads(AgentSpecSerializer().to_json(loaded))))
        for which, their_value in compared:
            for kind, pointer, a, b in differences(our_value, their_value):
                if kind == "order":
                    found[f"{tool.name} {which} {pointer}"] = f"ours {','.join(a)}; pyagentspec {','.join(b)}"
                else:
                    problems[tool.name].append(
                        f"{which}: {pointer} is {json.dumps(a)} in ours, {json.dumps(b)} in pyagentspec's"
                    )
    changes = outcome_changes(expected, found, expected_path)
    for tool in theirs:
        problems[tool.name] += [c for c in changes if c.split()[1] == tool.name]
        orders = sum(name.split()[0] == tool.name for name in found)
        if problems[tool.name]:
            print(f"FAIL {tool.name}:" + "".join(f"\n  {p}" for p in problems[tool.name]))
        else:
            print(f"ok   {tool.name}" + (f" ({orders} key orders differ, as {expected_path} lists)" if orders else ""))
    other = [c for c in changes if c.split()[1] not in problems]
    for line in other:
        print(line)
    failed = sum(bool(p) for p in problems.values()) + len(other)
    print(f"{len(theirs) - sum(bool(p) for p in problems.values())} passed, {failed} failed; "
          f"{len(found)} key orders differ from pyagentspec's, {len(changes)} differences from {expected_path}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
