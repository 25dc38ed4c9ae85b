"""The wayflowcore side of `agentspec-bench --wayflow`: times wayflowcore 26.3.1 on the
documents the benchmark writes, and prints one JSON object (times in ms, medians).

    bench_wayflow.py chain DOC.json N RUNS   load (Agent Spec -> wayflowcore) and execute a
                                             linear flow of N ToolNodes calling `inc`
    bench_wayflow.py agent DOC.json RUNS     an agent making 10 `inc` calls against the
                                             scripted endpoint DOC names: the run's wall time
                                             and this process's CPU time (the endpoint runs in
                                             the benchmark's process)
"""

import json
import statistics
import sys
import time

from wayflowcore.agentspec import AgentSpecLoader
from wayflowcore.executors.executionstatus import FinishedStatus, UserMessageRequestStatus


def inc(x):
    return x + 1


def chain(path, n, runs):
    text = open(path, encoding="utf-8").read()

    def once():
        start = time.perf_counter()
        flow = AgentSpecLoader(tool_registry={"inc": inc}).load_json(text)
        loaded = time.perf_counter()
        status = flow.start_conversation(inputs={"x": 0}).execute()
        done = time.perf_counter()
        assert isinstance(status, FinishedStatus), status
        assert status.output_values["x"] == n, status.output_values
        return (loaded - start) * 1e3, (done - loaded) * 1e3

    once()  # warm-up
    times = [once() for _ in range(runs)]
    return {
        "load_ms": statistics.median(t[0] for t in times),
        "run_ms": statistics.median(t[1] for t in times),
    }


def agent(path, runs):
    text = open(path, encoding="utf-8").read()

    def once():
        component = AgentSpecLoader(tool_registry={"inc": inc}).load_json(text)
        # wayflowcore caps an agent at 10 model calls, which Agent Spec cannot set: the run
        # needs 11 (10 calls and the answer)
        component.max_iterations = 20
        conversation = component.start_conversation()
        conversation.append_user_message("go")
        wall, cpu = time.perf_counter(), time.process_time()
        status = conversation.execute()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert isinstance(status, UserMessageRequestStatus), status
        return wall * 1e3, cpu * 1e3

    once()  # warm-up
    times = [once() for _ in range(runs)]
    return {
        "run_ms": statistics.median(t[0] for t in times),
        "cpu_ms": statistics.median(t[1] for t in times),
    }


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "chain":
        out = chain(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        out = agent(sys.argv[2], int(sys.argv[3]))
    print(json.dumps(out))
