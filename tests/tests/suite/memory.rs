//! The bounds of the hostile shapes (issue 15), checked: the memory each operation takes at
//! size N and 2N, counted by this binary's allocator on the test's own thread (allocations are
//! deterministic, so the ratios are exact), grows no faster than the input. Linear growth
//! doubles it; a quadratic one quadruples it, an exponential one (the subflow bomb inlined at
//! every use) multiplies it by thousands.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use agentspec_tests::{
    fan_out_flow_document, linear_flow_document, reference_chain, subflow_bomb, to_json,
    tool_chain_document,
};
use agentspec_types::Document;

/// The system allocator, counting the bytes the current thread holds while it measures.
struct Counting;

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count(bytes: isize) {
    // `try_with`: nothing is counted while the thread's locals are torn down
    let _ = MEASURING.try_with(|on| {
        if on.get() {
            let now = CURRENT.get() + bytes;
            CURRENT.set(now);
            PEAK.set(PEAK.get().max(now));
            if bytes > 0 {
                ALLOCATIONS.set(ALLOCATIONS.get() + 1);
            }
        }
    });
}

// SAFETY: forwards every call to the system allocator unchanged; only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes `f` held at once on this thread (what it allocates and keeps, less what it
/// frees of its own).
fn peak<T>(f: impl FnOnce() -> T) -> usize {
    measured(f).0
}

/// The most bytes `f` held at once on this thread, and how many allocations (and growths
/// of one) it made.
fn measured<T>(f: impl FnOnce() -> T) -> (usize, usize) {
    CURRENT.set(0);
    PEAK.set(0);
    ALLOCATIONS.set(0);
    MEASURING.set(true);
    let kept = f();
    MEASURING.set(false);
    drop(kept);
    (PEAK.get().max(0) as usize, ALLOCATIONS.get())
}

/// A case: its name, its size N, and the operation at a size.
type Case<'a> = (&'a str, usize, &'a dyn Fn(usize) -> usize);

/// Each case's peak at N and 2N; every ratio is under `bound`.
fn grows_at_most(bound: f64, cases: &[Case<'_>]) {
    let mut found = Vec::new();
    for (name, n, run) in cases {
        let (at_n, at_2n) = (peak(|| run(*n)), peak(|| run(2 * n)));
        let ratio = at_2n as f64 / at_n.max(1) as f64;
        found.push(format!(
            "{name}: {at_n} B at {n}, {at_2n} B at {}: × {ratio:.2}",
            2 * n
        ));
        assert!(at_n > 0, "{name}: nothing was counted");
        assert!(ratio <= bound, "{}", found.join("\n"));
    }
}

fn load(value: &serde_json::Value) -> Document {
    Document::from_value(value).expect("loads")
}

#[test]
fn the_subflow_bomb_and_the_reference_chain_take_memory_linear_in_their_size() {
    grows_at_most(
        2.5,
        &[
            ("subflow bomb: graph, drawn", 10, &|n| {
                load(&subflow_bomb(n))
                    .graph()
                    .expect("a flow")
                    .to_mermaid()
                    .len()
            }),
            ("subflow bomb: load and validate", 10, &|n| {
                load(&subflow_bomb(n)).validate().len()
            }),
            ("subflow bomb: normalized", 10, &|n| {
                usize::from(load(&subflow_bomb(n)).normalized().is_ok())
            }),
            ("reference chain: normalized", 40, &|n| {
                usize::from(load(&reference_chain(n)).normalized().is_ok())
            }),
            ("reference chain: split one flow off", 40, &|n| {
                usize::from(load(&reference_chain(n)).split(&[("f1", None)]).is_ok())
            }),
        ],
    );
}

#[test]
fn wide_flows_long_lines_and_nested_anchors_take_memory_linear_in_their_size() {
    let check = |text: &str| {
        Document::from_json_str(text)
            .expect("loads")
            .validate()
            .len()
    };
    grows_at_most(
        2.5,
        &[
            ("fan-out: check", 1000, &|n| {
                check(&to_json(&fan_out_flow_document(n)))
            }),
            ("chain flow: check", 1000, &|n| {
                check(&to_json(&linear_flow_document(n)))
            }),
            ("chain flow: fmt's layout check and writing", 1000, &|n| {
                let doc =
                    Document::from_json_str(&to_json(&linear_flow_document(n))).expect("loads");
                usize::from(doc.is_as_pyagentspec_writes()) + doc.to_json_pretty().len()
            }),
            (
                "one-line document, N unknown fields: load, located",
                2000,
                &|n| {
                    let fields: Vec<String> = (0..n).map(|i| format!("\"x{i}\": {i}")).collect();
                    let text = format!(
                        "{{\"component_type\": \"Agent\", \"id\": \"a\", \"name\": \"a\", \"system_prompt\": \"p\", \"llm_config\": {{\"component_type\": \"VllmConfig\", \"id\": \"l\", \"name\": \"l\", \"model_id\": \"m\", \"url\": \"u\"}}, {}, \"agentspec_version\": \"26.1.0\"}}",
                        fields.join(", ")
                    );
                    Document::from_json_str(&text)
                        .expect("loads")
                        .warnings()
                        .len()
                },
            ),
            ("nested YAML anchors, never aliased: load", 250, &|n| {
                let mut text = String::from(
                    "component_type: Agent\nid: a\nname: a\nsystem_prompt: p\nllm_config: {component_type: VllmConfig, id: l, name: l, model_id: m, url: u}\nmetadata: ",
                );
                for i in 0..n {
                    text.push_str(&format!("{{k{i}: &a{i} "));
                }
                text.push_str("{end: 1}");
                text.push_str(&"}".repeat(n));
                text.push_str("\nagentspec_version: 26.1.0\n");
                usize::from(Document::from_yaml_str(&text).is_ok())
            }),
        ],
    );
}

/// Adds one: the tool of the runtime's chain.
#[agentspec_types::tool]
fn inc(x: i64) -> i64 {
    x + 1
}

/// The runtime's work per node does not grow with the flow: loading a chain of N ToolNodes
/// (reading the text and compiling the flow) takes ten times the allocations and the memory
/// at 5,000 nodes as at 500, and running it ten times the allocations in the same memory
/// (each node's data is dropped once it has run), all within 5 %. The benchmark's per-node
/// times, counted exactly: a step that looked a node up in a list, or copied a growing
/// state at every node, would show here as a ratio of 100.
#[test]
fn the_runtime_loads_and_runs_a_flow_with_work_linear_in_its_nodes() {
    use agentspec_runtime::{Runtime, Status};
    use agentspec_types::tool::{Toolbox, block_on};
    let runtime = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).expect("registers"))
        .max_steps(1_000_000)
        .build();
    let texts = [500, 5_000].map(|n| to_json(&tool_chain_document(n)));
    let load = |text: &str| {
        let doc = Document::from_json_str(text).expect("loads");
        runtime.load(&doc).expect("compiles")
    };
    let mut found = Vec::new();
    let mut off = false;
    for (what, per_size) in [("load", 0), ("run", 1)] {
        let [small, large] = [0, 1].map(|k| {
            let text = &texts[k];
            if per_size == 0 {
                measured(|| load(text))
            } else {
                let loaded = load(text);
                measured(|| {
                    let mut session = loaded.start(serde_json::json!({"x": 0})).expect("starts");
                    let status = block_on(session.run()).expect("runs");
                    let n = if k == 0 { 500 } else { 5_000 };
                    assert!(
                        matches!(&status, Status::Finished { outputs, .. } if outputs["x"] == n),
                        "{status:?}"
                    );
                    session
                })
            }
        });
        // a run holds the same memory at any length
        let bytes_grow = if per_size == 0 { 10.0 } else { 1.0 };
        for (unit, a, b, expected) in [
            ("bytes at most", small.0, large.0, bytes_grow),
            ("allocations", small.1, large.1, 10.0),
        ] {
            let ratio = b as f64 / a.max(1) as f64;
            found.push(format!(
                "{what}: {unit} {a} at 500 nodes, {b} at 5,000: × {ratio:.2} (expected × {expected})"
            ));
            off |= a == 0 || (ratio / expected - 1.0).abs() > 0.05;
        }
    }
    assert!(!off, "{}", found.join("\n"));
}

#[test]
fn a_quadratic_operation_is_caught() {
    let quadratic = |n: usize| vec![0u8; n * n].len();
    let caught = std::panic::catch_unwind(|| {
        grows_at_most(2.5, &[("n² bytes", 100, &quadratic)]);
    });
    assert!(caught.is_err());
    grows_at_most(2.5, &[("n bytes", 100, &|n| vec![0u8; n].len())]);
}
