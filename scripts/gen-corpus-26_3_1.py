"""Generate the 26.3.1 part of the conformance corpus with pyagentspec 26.3.1.

usage: gen-corpus-26_3_1.py FIXTURES_DIR
Writes FIXTURES_DIR/generated-26_3_1/*.json and INDEX.tsv:
- every loadable document of FIXTURES_DIR/generated (plugins and disaggregated parts aside),
  loaded by pyagentspec and written again at agentspec_version 26.3.1, its own version;
- components that exist only from 26.3.1: DbmsVectorChainLlmConfig (with a database credential,
  with a local host, with a connection config), MCPTool and MCPToolBox with a retry_policy.

It re-executes itself with PYTHONHASHSEED=0: pyagentspec gathers placeholders and the children
of a component in Python sets, whose order depends on string hashing.
"""

import json
import os
import sys
import warnings
from pathlib import Path

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

warnings.filterwarnings("ignore")

from oracle_common import placeholder_registry  # noqa: E402
from pyagentspec.agent import Agent  # noqa: E402
from pyagentspec.datastores import TlsOracleDatabaseConnectionConfig  # noqa: E402
from pyagentspec.llms import DbmsVectorChainLlmConfig  # noqa: E402
from pyagentspec.mcp import MCPTool, MCPToolBox, StreamableHTTPTransport  # noqa: E402
from pyagentspec.retrypolicy import RetryPolicy  # noqa: E402
from pyagentspec.serialization import AgentSpecDeserializer, AgentSpecSerializer  # noqa: E402
from pyagentspec.versioning import AgentSpecVersionEnum  # noqa: E402

V26_3_1 = AgentSpecVersionEnum.v26_3_1
SKIP_PREFIXES = ("plugin_", "disaggregated_")


def new_components():
    transport = StreamableHTTPTransport(id="mcp_http", name="mcp", url="https://mcp.example.com/mcp")
    retry = RetryPolicy(max_attempts=4, initial_retry_delay=0.5, max_retry_delay=8.0, backoff_factor=2.0)
    credential = DbmsVectorChainLlmConfig(
        id="dbms_llm", name="dbms", model_id="gpt-4o", provider="openai",
        url="https://api.openai.com/v1/chat/completions", credential_name="OPENAI_CRED",
        transfer_timeout=60,
    )
    local = DbmsVectorChainLlmConfig(
        id="dbms_local", name="dbms local", model_id="llama3", provider="ollama",
        url="http://localhost:11434/api/chat", host="local",
    )
    connection = TlsOracleDatabaseConnectionConfig(
        id="db_conn", name="db", user="scott", password="tiger", dsn="db.example.com:1522/svc",
    )
    with_connection = DbmsVectorChainLlmConfig(
        id="dbms_conn", name="dbms via connection", model_id="command-r", provider="cohere",
        url="https://api.cohere.ai/v1/chat", credential_name="COHERE_CRED",
        connection_config=connection,
    )
    return {
        "agent_dbms_vector_chain_llm": Agent(
            id="dbms_agent", name="dbms agent", llm_config=credential, system_prompt="Answer {{question}}."
        ),
        "llm_dbms_vector_chain_local_host": local,
        "llm_dbms_vector_chain_connection_config": with_connection,
        "agent_mcp_tool_with_retry_policy": Agent(
            id="mcp_agent", name="mcp agent", llm_config=local, system_prompt="Use the tools.",
            tools=[MCPTool(id="mcp_search", name="search", client_transport=transport, retry_policy=retry)],
        ),
        "agent_mcp_toolbox_with_retry_policy": Agent(
            id="mcp_box_agent", name="mcp toolbox agent", llm_config=local, system_prompt="Use the tools.",
            toolboxes=[MCPToolBox(id="mcp_box", name="box", client_transport=transport, retry_policy=retry)],
        ),
    }


def main():
    fixtures = Path(sys.argv[1])
    out = fixtures / "generated-26_3_1"
    out.mkdir(exist_ok=True)
    index = []
    for path in sorted((fixtures / "generated").glob("*.json")):
        if path.stem.startswith(SKIP_PREFIXES) or path.stem.endswith(".registry"):
            continue
        document = json.loads(path.read_text())
        registry = placeholder_registry(document)
        try:
            component = AgentSpecDeserializer().from_dict(document, components_registry=registry or None)
        except Exception as e:  # noqa: BLE001 - a document pyagentspec rejects stays out
            print(f"skip {path.name}: {' '.join(str(e).split())[:120]}")
            continue
        written = AgentSpecSerializer().to_dict(component, agentspec_version=V26_3_1)
        (out / path.name).write_text(json.dumps(written, indent=2) + "\n")
        index.append((path.name, f"generated/{path.name} written again at 26.3.1"))
    for name, component in new_components().items():
        written = AgentSpecSerializer().to_dict(component)
        assert written["agentspec_version"] == "26.3.1", name
        (out / f"{name}.json").write_text(json.dumps(written, indent=2) + "\n")
        index.append((f"{name}.json", "new in 26.3.1, written at its minimum version"))
    (out / "INDEX.tsv").write_text("file\tsource\n" + "".join(f"{f}\t{s}\n" for f, s in index))
    print(f"{len(index)} documents in {out}")


if __name__ == "__main__":
    main()
