"""Runs Agent Spec documents with the Rust runtime, from Python.

The Rust runtime runs in its own process, ``agentspec serve``, and this module speaks its
protocol (JSON lines on the process's stdin and stdout, described in the toolkit's guide,
``agentspec-runtime/docs/guide.md``). The ServerTools of a document run here, in Python: the runtime calls
them back while a run is under way, several at once (each call in a thread of a pool).

``RustAgentSpecLoader`` is the loader of upstream's runtime conformance suite::

    RUNTIME_CLASS_IMPORT_PATH=agentspec_rust.RustAgentSpecLoader

The ``agentspec`` binary is taken from ``$AGENTSPEC_BIN``, else from ``PATH``.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess  # nosec B404: the runtime is a process of ours
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

__all__ = ["AgentSpecRuntimeError", "Connection", "RustAgentSpecLoader", "RustRunnableComponent"]


class AgentSpecRuntimeError(Exception):
    """An error the runtime answered: a stable ``code``, a ``message``, and for a load error
    the ``diagnostics`` (each with its code, message, JSON pointer, line and column)."""

    def __init__(self, code: str, message: str, diagnostics: Optional[List[dict]] = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.diagnostics = diagnostics or []


def _plain(value: Any) -> Any:
    """What ``json`` cannot write as it is: numpy scalars and arrays, sets, dataclasses."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, frozenset)):
        return list(value)
    if hasattr(value, "__dataclass_fields__"):
        return {name: getattr(value, name) for name in value.__dataclass_fields__}
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    raise TypeError(f"a value of type {type(value).__name__} has no JSON form")


def _dumps(value: Any) -> str:
    return json.dumps(value, default=_plain, allow_nan=False)


class Connection:
    """One ``agentspec serve`` process: requests to it, and its calls of the tools."""

    def __init__(self, tools: Dict[str, Callable[..., Any]], binary: Optional[str] = None):
        self._tools = dict(tools)
        self._process = subprocess.Popen(  # nosec B603: a fixed argument list
            [binary or os.environ.get("AGENTSPEC_BIN", "agentspec"), "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._write_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._waiting: Dict[int, Future] = {}
        self._waiting_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="agentspec-tool")
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _send(self, message: dict) -> None:
        line = (_dumps(message) + "\n").encode()
        with self._write_lock:
            assert self._process.stdin is not None
            self._process.stdin.write(line)
            self._process.stdin.flush()

    def request(self, method: str, params: Optional[dict] = None) -> Any:
        """Sends one request and waits for its reply; an error reply is raised."""
        request_id = next(self._ids)
        reply: Future = Future()
        with self._waiting_lock:
            self._waiting[request_id] = reply
        try:
            self._send({"id": request_id, "method": method, "params": params or {}})
        except (BrokenPipeError, OSError) as e:
            raise AgentSpecRuntimeError("runtime-exited", f"the runtime process is gone: {e}")
        return reply.result()

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            message = json.loads(line)
            if message.get("method") == "tool.call":
                self._pool.submit(self._call, message["id"], message.get("params") or {})
                continue
            if "method" in message:
                continue  # an event: this module does not show them
            with self._waiting_lock:
                reply = self._waiting.pop(message.get("id"), None)
            if reply is None:
                continue
            if "error" in message:
                error = message["error"]
                reply.set_exception(
                    AgentSpecRuntimeError(
                        error.get("code", "error"),
                        error.get("message", ""),
                        error.get("diagnostics"),
                    )
                )
            else:
                reply.set_result(message.get("result"))
        # the process ended: every request still waiting fails
        with self._waiting_lock:
            waiting, self._waiting = self._waiting, {}
        for reply in waiting.values():
            reply.set_exception(
                AgentSpecRuntimeError("runtime-exited", "the runtime process ended")
            )

    def _call(self, call_id: str, params: dict) -> None:
        name = params.get("name")
        try:
            tool = self._tools[name]
        except KeyError:
            self._send({"id": call_id, "error": {"message": f"no tool named {name!r} here"}})
            return
        try:
            result = tool(**(params.get("args") or {}))
            line = {"id": call_id, "result": result}
            _dumps(line)  # a result with no JSON form is the tool's failure
        except Exception as e:  # the tool's failure is the runtime's to report
            line = {"id": call_id, "error": {"message": f"{type(e).__name__}: {e}"}}
        self._send(line)

    def close(self) -> None:
        """Ends the process (it stops when its input ends)."""
        try:
            if self._process.stdin is not None:
                self._process.stdin.close()
            self._process.wait(timeout=10)
        except Exception:
            self._process.kill()
        self._pool.shutdown(wait=False)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def _values(components_registry: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """The values of a ``components_registry``: plain values as they are, pyagentspec
    components as the JSON pyagentspec writes for them."""
    values: Dict[str, Any] = {}
    for key, value in (components_registry or {}).items():
        if hasattr(value, "component_type") and hasattr(value, "model_dump"):
            from pyagentspec.serialization import AgentSpecSerializer

            value = json.loads(AgentSpecSerializer().to_json(value))
        values[key] = value
    return values


@dataclass
class _Cts:
    """The conformance suite's SDK, imported once it is needed."""

    sdk: Any = None

    def get(self) -> Any:
        if self.sdk is None:
            import agentspec_cts_sdk

            self.sdk = agentspec_cts_sdk
        return self.sdk


_CTS = _Cts()


class RustRunnableComponent:
    """A loaded document, with one session: the conformance suite's runnable component."""

    def __init__(self, connection: Connection):
        self._connection = connection

    def start(self, inputs: Optional[Dict[str, Any]] = None) -> None:
        self._connection.request("start", {"inputs": inputs or {}})

    def run(self) -> Any:
        sdk = _CTS.get()
        status = self._connection.request("run")
        kind = status["status"]
        if kind in ("finished", "user_message_request"):
            messages = [m["content"] for m in status.get("messages", []) if m["role"] == "agent"]
            if kind == "finished":
                return sdk.AgentSpecFinishedExecutionStatus(
                    outputs=status.get("outputs", {}), agent_messages=messages
                )
            return sdk.AgentSpecUserMessageRequestExecutionStatus(agent_messages=messages)
        requests = [
            sdk.ToolRequest(name=r["name"], args=r.get("args"), tool_request_id=r["id"])
            for r in status.get("tool_requests", [])
        ]
        if kind == "tool_request":
            return sdk.AgentSpecToolRequestExecutionStatus(tool_requests=requests)
        return sdk.AgentSpecToolExecutionConfirmationStatus(tool_requests=requests)

    def append_user_message(self, user_message: str) -> None:
        self._connection.request("append_user_message", {"text": user_message})

    def append_tool_results(self, tool_result: Any) -> None:
        self._connection.request(
            "append_tool_result",
            {"tool_request_id": tool_result.tool_request_id, "content": tool_result.content},
        )

    def confirm_or_reject_tool_confirmation(self, tool_request: Any, decision: str) -> None:
        if decision not in ("accept", "reject"):
            raise ValueError(f"the decision is 'accept' or 'reject', not {decision!r}")
        self._connection.request(
            "confirm",
            {"tool_request_id": tool_request.tool_request_id, "accept": decision == "accept"},
        )

    def save(self) -> dict:
        """The session's state, to continue with ``resume`` (in another process too)."""
        return self._connection.request("save")

    def resume(self, saved: dict) -> None:
        """Continues a session saved from the same document."""
        self._connection.request("resume", {"saved": saved})

    def close(self) -> None:
        self._connection.close()


class RustAgentSpecLoader:
    """Loads a document into a new ``agentspec serve`` process."""

    @staticmethod
    def load(
        agentspec_config: str,
        tool_registry: Optional[Dict[str, Callable[..., Any]]] = None,
        components_registry: Optional[Dict[str, Any]] = None,
    ) -> RustRunnableComponent:
        tools = dict(tool_registry or {})
        connection = Connection(tools)
        try:
            connection.request(
                "load",
                {
                    "document": agentspec_config,
                    "host_tools": sorted(tools),
                    "values": _values(components_registry),
                    # the suite loads model configs it never runs (OCI): a config the
                    # runtime cannot serve fails when it is called, not at load
                    "check_models": False,
                },
            )
        except Exception:
            connection.close()
            raise
        return RustRunnableComponent(connection)
