//! The bounds of the hostile shapes (issue 15), checked: the memory each operation takes at
//! size N and 2N, counted by this binary's allocator on the test's own thread (allocations are
//! deterministic, so the ratios are exact), grows no faster than the input. Linear growth
//! doubles it; a quadratic one quadruples it, an exponential one (the subflow bomb inlined at
//! every use) multiplies it by thousands.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use agentspec_tests::{
    fan_out_flow_document, linear_flow_document, reference_chain, subflow_bomb, to_json,
};
use agentspec_types::Document;

/// The system allocator, counting the bytes the current thread holds while it measures.
struct Counting;

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(bytes: isize) {
    // `try_with`: nothing is counted while the thread's locals are torn down
    let _ = MEASURING.try_with(|on| {
        if on.get() {
            let now = CURRENT.get() + bytes;
            CURRENT.set(now);
            PEAK.set(PEAK.get().max(now));
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
    CURRENT.set(0);
    PEAK.set(0);
    MEASURING.set(true);
    let kept = f();
    MEASURING.set(false);
    drop(kept);
    PEAK.get().max(0) as usize
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

#[test]
fn a_quadratic_operation_is_caught() {
    let quadratic = |n: usize| vec![0u8; n * n].len();
    let caught = std::panic::catch_unwind(|| {
        grows_at_most(2.5, &[("n² bytes", 100, &quadratic)]);
    });
    assert!(caught.is_err());
    grows_at_most(2.5, &[("n bytes", 100, &|n| vec![0u8; n].len())]);
}
