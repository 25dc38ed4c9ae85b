//! `agentspec-bench [--quick] [--hostile | --yaml | --mcp | --phases | --processes | --runtime |
//! --wayflow]` (or `--write-linear N
//! FILE`, `--write-deep-wide DEPTH N FILE`, to write the linear flow of N LLM nodes for
//! profiling by hand; `--phases` times each step of `check` per node; `--write-tool-chain N
//! FILE` and `--load-runtime FILE TIMES`, to count what the runtime's load of a flow of N
//! ToolNodes costs with a profiler such as `valgrind --tool=cachegrind`; `--load-phases
//! ROUNDS [SMALL LARGE]` times that load's parts alone at 1,000 and 10,000 nodes, or the
//! sizes given): loads and writes
//! large generated documents with the typed model and, in the same run, parses and writes
//! the same bytes as `serde_json::Value`; prints a Markdown table of times (fastest of
//! several runs), ratios and peak memory. Then times calling `#[tool]` functions from JSON arguments, through the tool and
//! through a `Toolbox`, against calling the function directly and against hand-written
//! serde glue, in the same run; and one call over MCP (stdio and streamable HTTP, the server
//! in another process) against a direct `Toolbox::call`. `--mcp` runs that table alone.
//!
//! `--wayflow` runs the runtime beside wayflowcore 26.3.1 (in the project's venv,
//! `scripts/bench_wayflow.py`): a linear flow of 1,000 ToolNodes, loaded and executed, and an
//! agent making 10 tool calls against one scripted endpoint on 127.0.0.1, each side's time
//! per model turn with the endpoint's time left out. Run it from the workspace's root.
//!
//! It allocates with mimalloc, as the `agentspec` binary does; built with the feature
//! `system-allocator`, with the system allocator. Each baseline runs on the same allocator as
//! what it is compared with.

use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use agentspec_tests::{
    agent_with_tools_document, deep_wide_document, dense_flow_document, fan_out_flow_document,
    linear_flow_document, nested_flows_document, reference_chain, subflow_bomb, to_json,
    tool_chain_document,
};
use agentspec_types::Document;
use agentspec_types::tool::{RustTool, Toolbox, block_on};
use serde_json::json;

/// The allocator the benchmark times with: the `agentspec` binary's (mimalloc), or the
/// system's with the feature `system-allocator`. Baselines and measured code share it.
#[cfg(not(feature = "system-allocator"))]
const INNER: mimalloc::MiMalloc = mimalloc::MiMalloc;
#[cfg(feature = "system-allocator")]
const INNER: std::alloc::System = std::alloc::System;

/// Counts the bytes in use and their high-water mark, while [`peak`] measures: the timed
/// calls run on `INNER` with nothing added (the counting costs two atomic operations per
/// allocation, which would weigh on whatever allocates more).
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
/// Bytes allocated less bytes freed while counting: below zero when blocks allocated before
/// are freed.
static CURRENT: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

/// `bytes` more are in use (fewer, when negative).
fn count(bytes: isize) {
    if COUNTING.load(Ordering::Relaxed) {
        let now = CURRENT.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if bytes > 0 {
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
    }
}

// SAFETY: forwards every call to `INNER` unchanged; only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { INNER.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { INNER.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { INNER.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `serde_json::Value` parsing without serde_json's 128-level recursion limit (the deep
/// documents here go past it), as the baseline.
fn parse_value(text: &str) -> serde_json::Value {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    serde::Deserialize::deserialize(&mut de).expect("valid JSON")
}

/// Fastest of `runs` timings of `f`.
fn fastest<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// As [`fastest`], with the clock stopped before the result is dropped: the time to make a
/// value, not to make and free it.
fn fastest_kept<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            let kept = black_box(f());
            let elapsed = start.elapsed();
            drop(kept);
            elapsed
        })
        .min()
        .unwrap_or_default()
}

/// Peak bytes allocated above the level when `f` starts, while `f` runs, result kept
/// alive.
fn peak<T>(f: impl FnOnce() -> T) -> usize {
    CURRENT.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let kept = f();
    COUNTING.store(false, Ordering::Relaxed);
    drop(black_box(kept));
    PEAK.load(Ordering::Relaxed).max(0) as usize
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// Adds two numbers.
#[agentspec_types::tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// A forecast.
#[derive(serde::Serialize, agentspec_types::schemars::JsonSchema)]
#[schemars(crate = "agentspec_types::schemars")]
struct Forecast {
    city: String,
    temperature: f64,
    days: u8,
}

/// Gets the weather.
#[agentspec_types::tool]
fn get_weather(city: &str, #[arg(default = 1)] days: u8, unit: Option<String>) -> Forecast {
    let celsius = unit.as_deref() != Some("fahrenheit");
    Forecast {
        city: city.to_owned(),
        temperature: if celsius { 20.5 } else { 68.9 },
        days,
    }
}

#[derive(serde::Deserialize)]
struct WeatherArgs {
    city: String,
    #[serde(default = "one")]
    days: u8,
    unit: Option<String>,
}

fn one() -> u8 {
    1
}

/// Mean time of one call of `f`, over `n` calls, fastest of `runs` rounds.
fn per_call<T>(runs: usize, n: usize, mut f: impl FnMut() -> T) -> f64 {
    fastest(runs, || {
        for _ in 0..n {
            black_box(f());
        }
    })
    .as_secs_f64()
        * 1e9
        / n as f64
}

/// Calling tools from JSON: the function itself, hand-written serde glue, the `#[tool]`
/// type (static dispatch), and a `Toolbox` by name (one boxed future per call).
/// YAML: the YAML parser alone (saphyr-parser's own event parse, every event consumed) against
/// a typed load of the same text.
fn yaml_loads(runs: usize, quick: bool) {
    println!();
    println!(
        "| YAML document | bytes | parser events ms | tree parse ms | typed load ms | load / parser |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let sizes: &[usize] = if quick { &[1000] } else { &[1000, 5000, 20000] };
    for &n in sizes {
        let doc = Document::from_value(&linear_flow_document(n)).expect("loads");
        let text = doc.to_yaml();
        let events = fastest(runs, || {
            let mut count = 0usize;
            for event in saphyr_parser::Parser::new_from_str(&text) {
                event.expect("valid YAML");
                count += 1;
            }
            count
        });
        // the tree and the document are freed after the clock stops (the parser's events
        // hold nothing)
        let tree = fastest_kept(runs, || {
            agentspec_types::syntax::yaml::parse_yaml(&text).expect("parses")
        });
        let load = fastest_kept(runs, || Document::from_yaml_str(&text).expect("loads"));
        println!(
            "| linear flow, {n} LLM nodes | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            text.len(),
            ms(events),
            ms(tree),
            ms(load),
            load.as_secs_f64() / events.as_secs_f64()
        );
    }
}

fn tool_calls(runs: usize, n: usize) {
    let toolbox = Toolbox::new()
        .with(AddTool)
        .and_then(|t| t.with(GetWeatherTool))
        .expect("registers");
    let add_args = json!({"a": 2.0, "b": 40.0});
    let weather_args = json!({"city": "Zurich", "unit": "celsius"});
    println!();
    println!(
        "| tool call | direct ns | serde glue ns | #[tool] ns | toolbox ns | toolbox overhead ns | toolbox / serde glue |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let row = |name: &str, direct: f64, glue: f64, tool: f64, boxed: f64| {
        println!(
            "| {name} | {direct:.0} | {glue:.0} | {tool:.0} | {boxed:.0} | {:.0} | {:.2} |",
            boxed - direct,
            boxed / glue
        );
    };
    row(
        "add(a, b)",
        per_call(runs, n, || add(black_box(2.0), black_box(40.0))),
        per_call(runs, n, || {
            let v = add_args.clone();
            let a: f64 = serde_json::from_value(v["a"].clone()).expect("a");
            let b: f64 = serde_json::from_value(v["b"].clone()).expect("b");
            serde_json::to_value(add(a, b)).expect("writes")
        }),
        per_call(runs, n, || {
            block_on(AddTool.call(add_args.clone())).expect("calls")
        }),
        per_call(runs, n, || {
            toolbox
                .call_blocking("add", add_args.clone())
                .expect("calls")
        }),
    );
    row(
        "get_weather(city, days, unit)",
        per_call(runs, n, || {
            get_weather(
                black_box("Zurich"),
                black_box(1),
                Some("celsius".to_owned()),
            )
        }),
        per_call(runs, n, || {
            let a: WeatherArgs = serde_json::from_value(weather_args.clone()).expect("args");
            serde_json::to_value(get_weather(&a.city, a.days, a.unit)).expect("writes")
        }),
        per_call(runs, n, || {
            block_on(GetWeatherTool.call(weather_args.clone())).expect("calls")
        }),
        per_call(runs, n, || {
            toolbox
                .call_blocking("get_weather", weather_args.clone())
                .expect("calls")
        }),
    );
}

/// A toolbox of the benchmark's tools.
fn bench_toolbox() -> Toolbox {
    Toolbox::new()
        .with(AddTool)
        .and_then(|t| t.with(GetWeatherTool))
        .expect("registers")
}

/// One tool call over MCP, as a client in another process makes it, against a direct
/// `Toolbox::call` with the same arguments: over stdio (this binary started with
/// `--serve-mcp-stdio`) and over streamable HTTP on loopback (`--serve-mcp-http`). Mean
/// round trip of `n` calls in a row, fastest of `runs` rounds, one session per transport.
fn mcp_calls(runs: usize, n: usize) {
    use agentspec_types::mcp::rmcp::model::CallToolRequestParams;
    use agentspec_types::mcp::rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
    use agentspec_types::mcp::rmcp::{RoleClient, ServiceExt, service::RunningService};
    use std::io::BufRead;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let toolbox = bench_toolbox();
    let me = std::env::current_exe().expect("own path");
    let args = json!({"city": "Zurich", "unit": "celsius"});
    let object = args.as_object().expect("an object").clone();
    let direct = runtime.block_on(async {
        mean_of(runs, n, async || {
            toolbox
                .call("get_weather", args.clone())
                .await
                .expect("calls");
        })
        .await
    });
    let through = |client: RunningService<RoleClient, ()>| {
        let object = object.clone();
        runtime.block_on(async move {
            let mean = mean_of(runs, n, async || {
                let params =
                    CallToolRequestParams::new("get_weather").with_arguments(object.clone());
                let result = client.call_tool(params).await.expect("calls");
                assert_eq!(result.is_error, Some(false));
            })
            .await;
            let _ = client.cancel().await;
            mean
        })
    };
    // stdio: a child process
    let mut command = tokio::process::Command::new(&me);
    command.arg("--serve-mcp-stdio");
    let stdio = runtime.block_on(async {
        let process = TokioChildProcess::new(command).expect("starts the server");
        ().serve(process).await.expect("a session")
    });
    let stdio = through(stdio);
    // HTTP: a child process listening on loopback
    let mut server = std::process::Command::new(&me)
        .arg("--serve-mcp-http")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("starts the server");
    let mut url = String::new();
    std::io::BufReader::new(server.stdout.take().expect("its stdout"))
        .read_line(&mut url)
        .expect("its URL");
    let http = runtime.block_on(async {
        let transport = StreamableHttpClientTransport::from_uri(url.trim().to_owned());
        ().serve(transport).await.expect("a session")
    });
    let http = through(http);
    let _ = server.kill();
    let _ = server.wait();
    println!();
    println!("| one call of get_weather | µs per call | / direct |");
    println!("|---|---:|---:|");
    for (name, mean) in [
        ("`Toolbox::call`, in process", direct),
        ("MCP over stdio (a child process)", stdio),
        ("MCP over streamable HTTP (loopback)", http),
    ] {
        println!("| {name} | {:.1} | {:.0} |", mean * 1e6, mean / direct);
    }
}

/// Mean seconds of one `call`, over `n` calls in a row, fastest of `runs` rounds.
async fn mean_of(runs: usize, n: usize, mut call: impl AsyncFnMut()) -> f64 {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let start = Instant::now();
        for _ in 0..n {
            call().await;
        }
        best = best.min(start.elapsed());
    }
    best.as_secs_f64() / n as f64
}

/// `agentspec check` and `agentspec fmt` as whole processes against a process that only reads
/// the file and parses it into `serde_json::Value` (this binary with `--parse-value FILE`),
/// side by side, on the same files; then the peak memory of `fmt` against that of the `Value`
/// parse (the text and its tree), both counted in this process (`fmt` through the command's
/// library, writing to nothing). The `agentspec` binary is looked for next to this one
/// (`cargo build --release -p agentspec-cli` puts it there).
fn process_checks(runs: usize, quick: bool) {
    let me = std::env::current_exe().expect("own path");
    let cli = me.with_file_name(format!("agentspec{}", std::env::consts::EXE_SUFFIX));
    println!();
    if !cli.exists() {
        println!(
            "(no `agentspec` binary at {}: build it with `cargo build --release -p agentspec-cli` to time `check` and `fmt` as processes)",
            cli.display()
        );
        return;
    }
    println!(
        "| process | bytes | Value parse process ms | `agentspec check` ms | check / Value | check µs/node | µs/node / first row's | `agentspec fmt` ms | fmt / Value | fmt µs/node | µs/node / first row's | Value peak MiB | fmt peak MiB | fmt / Value memory |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut first_per_node = None;
    let mut first_fmt_per_node = None;
    let dir = std::env::temp_dir().join(format!("agentspec-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let sizes: &[usize] = if quick { &[1000] } else { &[1000, 5000, 20000] };
    for &n in sizes {
        let doc = Document::from_value(&linear_flow_document(n)).expect("loads");
        let text = doc.to_json_pretty();
        drop(doc);
        let file = dir.join(format!("linear-{n}.json"));
        std::fs::write(&file, &text).expect("writes the file");
        let run = |program: &std::path::Path, args: &[&std::ffi::OsStr]| {
            let status = std::process::Command::new(program)
                .args(args)
                .stdout(std::process::Stdio::null())
                .status()
                .expect("starts");
            assert!(status.success(), "{} failed", program.display());
        };
        let value = fastest(runs, || {
            run(&me, &["--parse-value".as_ref(), file.as_os_str()])
        });
        let check = fastest(runs, || run(&cli, &["check".as_ref(), file.as_os_str()]));
        let fmt = fastest(runs, || run(&cli, &["fmt".as_ref(), file.as_os_str()]));
        let per_node = check.as_secs_f64() * 1e6 / n as f64;
        let first = *first_per_node.get_or_insert(per_node);
        let fmt_per_node = fmt.as_secs_f64() * 1e6 / n as f64;
        let fmt_first = *first_fmt_per_node.get_or_insert(fmt_per_node);
        let value_peak = peak(|| parse_value(&std::fs::read_to_string(&file).expect("reads")));
        let fmt_peak = peak(|| fmt_in_process(&file));
        println!(
            "| linear flow, {n} LLM nodes | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} | {:.1} | {:.2} |",
            text.len(),
            ms(value),
            ms(check),
            check.as_secs_f64() / value.as_secs_f64(),
            per_node,
            per_node / first,
            ms(fmt),
            fmt.as_secs_f64() / value.as_secs_f64(),
            fmt_per_node,
            fmt_per_node / fmt_first,
            mib(value_peak),
            mib(fmt_peak),
            fmt_peak as f64 / value_peak as f64,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `agentspec fmt FILE` through the command's library, its output written to nothing.
fn fmt_in_process(file: &std::path::Path) {
    use clap::Parser as _;
    let cli = agentspec_cli::Cli::try_parse_from([
        "agentspec".as_ref(),
        "fmt".as_ref(),
        file.as_os_str(),
    ])
    .expect("the arguments parse");
    let mut err = Vec::new();
    let code = agentspec_cli::run(cli, &mut std::io::sink(), &mut err);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
}

/// Hostile shapes (issue 15): each operation at size N and 2N, with its time (fastest of
/// `runs`) and peak memory, and how both grow when the size doubles (2: linear).
fn hostile_shapes(runs: usize, quick: bool) {
    type Case = (&'static str, usize, Box<dyn Fn(usize) -> usize>);
    // full: sizes twice the quick ones (the reference chain stays under 1,024 levels once
    // inlined, the anchors under the nesting limit)
    let scale = if quick { 1 } else { 2 };
    let load = |v: &serde_json::Value| Document::from_value(v).expect("loads");
    // what `agentspec check` does to a document's text: load it, then validate it
    let check = |v: &serde_json::Value| {
        let text = to_json(v);
        Document::from_json_str(&text)
            .expect("loads")
            .validate()
            .len()
    };
    let cases: Vec<Case> = vec![
        (
            "reference chain (N flows, each referencing the next): normalized",
            40 * scale,
            Box::new(move |n| {
                let doc = load(&reference_chain(n));
                usize::from(doc.normalized().is_ok())
            }),
        ),
        (
            "reference chain: split one flow off",
            40 * scale,
            Box::new(move |n| {
                let doc = load(&reference_chain(n));
                usize::from(doc.split(&[("f1", None)]).is_ok())
            }),
        ),
        (
            "subflow bomb (each flow runs the next twice, N deep): graph, drawn",
            10 * scale,
            Box::new(move |n| {
                load(&subflow_bomb(n))
                    .graph()
                    .expect("a flow")
                    .to_mermaid()
                    .len()
            }),
        ),
        (
            "subflow bomb: check (load and validate)",
            10 * scale,
            Box::new(move |n| load(&subflow_bomb(n)).validate().len()),
        ),
        (
            "subflow bomb: normalized",
            10 * scale,
            Box::new(move |n| usize::from(load(&subflow_bomb(n)).normalized().is_ok())),
        ),
        (
            "fan-out (one BranchingNode, N branches): check",
            1000 * scale,
            Box::new(move |n| check(&fan_out_flow_document(n))),
        ),
        (
            "chain flow (N LLM nodes): check",
            1000 * scale,
            Box::new(move |n| check(&linear_flow_document(n))),
        ),
        (
            "deep and wide (30 nested flows, the innermost with N LLM nodes): check",
            500 * scale,
            Box::new(move |n| check(&deep_wide_document(30, n))),
        ),
        (
            "deep and wide, loaded from a value: normalized",
            500 * scale,
            Box::new(move |n| usize::from(load(&deep_wide_document(30, n)).normalized().is_ok())),
        ),
        (
            "one-line document, N unknown fields: load, diagnostics located",
            2000 * scale,
            Box::new(move |n| {
                let fields: Vec<String> = (0..n).map(|i| format!("\"x{i}\": {i}")).collect();
                let text = format!(
                    "{{\"component_type\": \"Agent\", \"id\": \"a\", \"name\": \"a\", \"system_prompt\": \"p\", \"llm_config\": {{\"component_type\": \"VllmConfig\", \"id\": \"l\", \"name\": \"l\", \"model_id\": \"m\", \"url\": \"u\"}}, {}, \"agentspec_version\": \"26.1.0\"}}",
                    fields.join(", ")
                );
                Document::from_json_str(&text)
                    .expect("loads")
                    .warnings()
                    .len()
            }),
        ),
        (
            "nested YAML anchors, N levels, never aliased: load",
            250 * scale,
            Box::new(move |n| {
                // flow style, so that the text grows linearly with N (block style indents
                // each level further: a text quadratic in N)
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
        ),
    ];
    println!();
    println!(
        "| hostile shape | N | ms at N | ms at 2N | time × | peak MiB at N | peak MiB at 2N | memory × |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, n, run) in cases {
        let (t1, t2) = (fastest(runs, || run(n)), fastest(runs, || run(2 * n)));
        let (m1, m2) = (peak(|| run(n)), peak(|| run(2 * n)));
        let mib = |b: usize| b as f64 / (1 << 20) as f64;
        println!(
            "| {name} | {n} | {:.2} | {:.2} | {:.2} | {:.1} | {:.1} | {:.2} |",
            ms(t1),
            ms(t2),
            t2.as_secs_f64() / t1.as_secs_f64(),
            mib(m1),
            mib(m2),
            m2 as f64 / m1 as f64
        );
    }
}

/// Each step of `check` in process, per node, on linear flows of growing size: how each
/// step's cost per node grows (the whole-process table shows the sum).
fn phases(runs: usize) {
    println!(
        "| LLM nodes | Value parse µs/node | tree parse µs/node | typed load µs/node | validate µs/node | drop µs/node |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for n in [1000, 5000, 20000] {
        let text = to_json(&linear_flow_document(n));
        let per = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
        let value = fastest_kept(runs, || parse_value(&text));
        let tree = fastest_kept(runs, || {
            agentspec_types::syntax::json::parse_json(&text).expect("parses")
        });
        let load = fastest_kept(runs, || Document::from_json_str(&text).expect("loads"));
        let doc = Document::from_json_str(&text).expect("loads");
        let validate = fastest(runs, || doc.validate());
        let dropped = (0..runs)
            .map(|_| {
                let doc = Document::from_json_str(&text).expect("loads");
                let start = Instant::now();
                drop(doc);
                start.elapsed()
            })
            .min()
            .expect("runs");
        println!(
            "| {n} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            per(value),
            per(tree),
            per(load),
            per(validate),
            per(dropped)
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, file] = args.as_slice()
        && flag == "--parse-value"
    {
        // the baseline process: read the file, parse it into a Value, exit
        let text = std::fs::read_to_string(file).expect("reads");
        black_box(parse_value(&text));
        return;
    }
    if let [_, flag, depth, n, file] = args.as_slice()
        && flag == "--write-deep-wide"
    {
        // for profiling by hand: the deep and wide shape of the growth table
        let value = deep_wide_document(
            depth.parse().expect("a depth"),
            n.parse().expect("a number of nodes"),
        );
        std::fs::write(file, to_json(&value)).expect("writes");
        return;
    }
    if let [_, flag, n, file] = args.as_slice()
        && flag == "--write-tool-chain"
    {
        // for profiling by hand: the runtime rows' flow of N ToolNodes
        let n = n.parse().expect("a node count");
        std::fs::write(file, to_json(&tool_chain_document(n))).expect("writes");
        return;
    }
    if let [_, flag, rounds, sizes @ ..] = args.as_slice()
        && flag == "--load-phases"
    {
        let sizes: Vec<usize> = sizes
            .iter()
            .map(|n| n.parse().expect("a node count"))
            .collect();
        let sizes = match sizes.as_slice() {
            [] => [1000, 10_000],
            &[small, large] => [small, large],
            _ => panic!("--load-phases ROUNDS [SMALL LARGE]"),
        };
        load_phases(rounds.parse().expect("a number of rounds"), sizes);
        return;
    }
    if let [_, flag, file, times] = args.as_slice()
        && flag == "--load-runtime"
    {
        // for profiling by hand: what the runtime rows time as loading, `times` times over
        let text = std::fs::read_to_string(file).expect("reads");
        let runtime = inc_runtime();
        for _ in 0..times.parse().expect("a number of times") {
            black_box(load_flow(&runtime, &text));
        }
        return;
    }
    if let [_, flag, n, file] = args.as_slice()
        && flag == "--write-linear"
    {
        // for profiling by hand: the linear flow of N LLM nodes, as the benchmark writes it
        let n = n.parse().expect("a node count");
        let doc = Document::from_value(&linear_flow_document(n)).expect("loads");
        std::fs::write(file, doc.to_json_pretty()).expect("writes");
        return;
    }
    if let [_, flag] = args.as_slice()
        && matches!(flag.as_str(), "--serve-mcp-stdio" | "--serve-mcp-http")
    {
        // the server side of the MCP rows
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let server = agentspec_types::mcp::McpServer::new(bench_toolbox());
        runtime.block_on(async {
            if flag == "--serve-mcp-stdio" {
                server.serve_stdio().await.expect("serves");
            } else {
                let http = server
                    .bind_http(agentspec_types::mcp::HttpOptions::new())
                    .await
                    .expect("binds");
                println!("{}", http.url());
                http.run_until_signal().await.expect("serves");
            }
        });
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let runs = if quick { 2 } else { 7 };
    println!(
        "(allocator: {})",
        if cfg!(feature = "system-allocator") {
            "the system's"
        } else {
            "mimalloc, as the `agentspec` binary"
        }
    );
    if args.iter().any(|a| a == "--phases") {
        // for profiling by hand: per-node cost of each step of `check` on linear flows
        phases(runs);
        return;
    }
    if args.iter().any(|a| a == "--hostile") {
        // the growth table alone
        hostile_shapes(runs, quick);
        return;
    }
    if args.iter().any(|a| a == "--mcp") {
        mcp_calls(runs, if quick { 200 } else { 2_000 });
        return;
    }
    if args.iter().any(|a| a == "--processes") {
        // `check` and `fmt` as processes, and `fmt`'s memory, alone
        process_checks(runs, quick);
        return;
    }
    if args.iter().any(|a| a == "--runtime") {
        // the runtime's table alone
        runtime_flows(runs, quick);
        return;
    }
    if args.iter().any(|a| a == "--wayflow") {
        // the runtime beside wayflowcore 26.3.1 (scripts/venv.sh installs it)
        beside_wayflowcore(if quick { 1 } else { 5 }, if quick { 100 } else { 1000 });
        return;
    }
    if args.iter().any(|a| a == "--yaml") {
        // the YAML table alone
        yaml_loads(runs, quick);
        return;
    }
    let mut cases: Vec<(String, usize, serde_json::Value)> = vec![
        (
            "linear flow, 10 LLM nodes".into(),
            10,
            linear_flow_document(10),
        ),
        (
            "linear flow, 1000 LLM nodes".into(),
            1000,
            linear_flow_document(1000),
        ),
        (
            "linear flow, 5000 LLM nodes".into(),
            5000,
            linear_flow_document(5000),
        ),
    ];
    if !quick {
        cases.push((
            "linear flow, 20000 LLM nodes".into(),
            20000,
            linear_flow_document(20000),
        ));
    }
    cases.push((
        "agent, 1000 tools".into(),
        1000,
        agent_with_tools_document(1000),
    ));
    // wide fan-out and many edges: how check grows with branches and edges
    for branches in if quick {
        vec![2000]
    } else {
        vec![1000, 5000, 20000]
    } {
        cases.push((
            format!("one BranchingNode, {branches} branches"),
            branches,
            fan_out_flow_document(branches),
        ));
    }
    for (nodes, edges) in if quick {
        vec![(200, 20_000)]
    } else {
        vec![(2000, 20_000), (2000, 200_000)]
    } {
        cases.push((
            format!("{nodes} LLM nodes, {edges} extra data edges"),
            nodes + edges,
            dense_flow_document(nodes, edges),
        ));
    }
    for depth in [5, 20, 50] {
        cases.push((
            format!("flows nested {depth} deep"),
            depth * 4,
            nested_flows_document(depth),
        ));
    }
    println!(
        "| document | bytes | Value parse ms | tree parse ms | typed load ms | load ratio | check ms | check ratio | Value write ms | typed write ms | write ratio | Value peak MiB | typed peak MiB | memory ratio | typed load µs/node | check µs/node |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, nodes, value) in cases {
        let text = to_json(&value);
        drop(value);
        let doc = Document::from_json_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let parsed = parse_value(&text);
        let value_parse = fastest(runs, || parse_value(&text));
        let typed_load = fastest(runs, || Document::from_json_str(&text).expect("loads"));
        // what `agentspec check` does to a document: load it, then validate it
        let check = fastest(runs, || {
            let doc = Document::from_json_str(&text).expect("loads");
            doc.validate()
        });
        let tree_parse = fastest(runs, || {
            agentspec_types::syntax::json::parse_json(&text).expect("parses")
        });
        let value_write = fastest(runs, || {
            serde_json::to_string_pretty(&parsed).expect("writes")
        });
        let typed_write = fastest(runs, || doc.to_json_pretty());
        drop((doc, parsed));
        let value_peak = peak(|| parse_value(&text));
        let typed_peak = peak(|| Document::from_json_str(&text).expect("loads"));
        let mib = |b: usize| b as f64 / (1 << 20) as f64;
        println!(
            "| {name} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} | {:.1} | {:.2} | {:.2} | {:.2} |",
            text.len(),
            ms(value_parse),
            ms(tree_parse),
            ms(typed_load),
            typed_load.as_secs_f64() / value_parse.as_secs_f64(),
            ms(check),
            check.as_secs_f64() / value_parse.as_secs_f64(),
            ms(value_write),
            ms(typed_write),
            typed_write.as_secs_f64() / value_write.as_secs_f64(),
            mib(value_peak),
            mib(typed_peak),
            typed_peak as f64 / value_peak as f64,
            typed_load.as_secs_f64() * 1e6 / nodes as f64,
            check.as_secs_f64() * 1e6 / nodes as f64,
        );
    }
    process_checks(runs, quick);
    hostile_shapes(runs, quick);
    yaml_loads(runs, quick);
    tool_calls(runs, if quick { 20_000 } else { 200_000 });
    mcp_calls(runs, if quick { 200 } else { 2_000 });
    runtime_flows(runs, quick);
}

/// Adds one: the trivial tool of the runtime's rows.
#[agentspec_types::tool]
fn inc(x: i64) -> i64 {
    x + 1
}

/// The runtime of the rows on flows of ToolNodes: `inc`, and steps enough for 10,000 nodes.
fn inc_runtime() -> agentspec_runtime::Runtime {
    agentspec_runtime::Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).expect("registers"))
        .max_steps(1_000_000)
        .build()
}

/// What the rows time as loading: parsing the JSON text, then compiling the flow.
fn load_flow(runtime: &agentspec_runtime::Runtime, text: &str) -> agentspec_runtime::Loaded {
    let doc = Document::from_json_str(text).expect("loads");
    runtime.load(&doc).expect("compiles")
}

/// For profiling by hand (`--load-phases ROUNDS [SMALL LARGE]`): the runtime rows' load of
/// flows of ToolNodes of two sizes (1,000 and 10,000) taken apart, each part timed alone
/// (the fastest of the rounds, the two sizes taking turns), per node, with its growth from
/// the small size to the large: which part of the load grows where a plain `Value` parse
/// does not. The parts: the `Value` parse; loading the document (parse, decode,
/// validation); writing it compact in pieces with the layout check (what the runtime
/// digests); resolving its references; `Runtime::load` whole (the last two and the
/// compiling); dropping what the load made.
fn load_phases(rounds: usize, sizes: [usize; 2]) {
    const PARTS: [&str; 6] = [
        "Value parse",
        "Document::from_json_str",
        "write_checked_to (compact)",
        "resolve",
        "Runtime::load",
        "drop",
    ];
    let runtime = inc_runtime();
    let texts: Vec<String> = sizes
        .iter()
        .map(|&n| to_json(&tool_chain_document(n)))
        .collect();
    let mut best = vec![[Duration::MAX; PARTS.len()]; sizes.len()];
    for _ in 0..rounds {
        for (k, text) in texts.iter().enumerate() {
            let value = fastest(1, || parse_value(text));
            let start = Instant::now();
            let doc = black_box(Document::from_json_str(text).expect("loads"));
            let load = start.elapsed();
            let write = fastest(1, || {
                doc.write_checked_to(
                    agentspec_types::Output::JsonCompact,
                    &agentspec_types::WriteOptions::new(),
                    |piece| {
                        black_box(piece);
                    },
                )
            });
            let resolve = fastest(1, || doc.resolve().components().len());
            let start = Instant::now();
            let loaded = black_box(runtime.load(&doc).expect("compiles"));
            let compile = start.elapsed();
            let start = Instant::now();
            drop((loaded, doc));
            let dropped = start.elapsed();
            let times = [value, load, write, resolve, compile, dropped];
            for (b, t) in best[k].iter_mut().zip(times) {
                *b = (*b).min(t);
            }
        }
    }
    let [small, large] = sizes;
    println!("| part of the load | µs/node at {small} | µs/node at {large} | growth |");
    println!("|---|---:|---:|---:|");
    for (p, part) in PARTS.iter().enumerate() {
        let per = |k: usize| best[k][p].as_secs_f64() * 1e6 / sizes[k] as f64;
        println!(
            "| {part} | {:.2} | {:.2} | {:.2} |",
            per(0),
            per(1),
            per(1) / per(0)
        );
    }
}

/// The runtime on linear flows of N ToolNodes calling `inc`: loading (parsing the JSON text
/// and compiling the flow) and running it to its end, per node, and the session saved at
/// the end (the shape wayflowcore's baseline times, `agentspec-cts/wayflow-baseline`). The
/// sizes take turns within each round, so that a host whose speed drifts over minutes slows
/// every row alike; the per-node ratios compare rows of one round.
fn runtime_flows(runs: usize, quick: bool) {
    use agentspec_runtime::{Loaded, Status};
    let runtime = inc_runtime();
    println!();
    println!(
        "| runtime: flow of N ToolNodes | bytes | load ms | load µs/node | µs/node / first row's | load / Value parse | Value parse µs/node / first row's | run ms | run µs/node | µs/node / first row's | saved session bytes |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let sizes: &[usize] = if quick { &[1000] } else { &[1000, 10_000] };
    let texts: Vec<String> = sizes
        .iter()
        .map(|&n| to_json(&tool_chain_document(n)))
        .collect();
    let load = |text: &str| load_flow(&runtime, text);
    let loaded: Vec<Loaded> = texts.iter().map(|text| load(text)).collect();
    let execute = |k: usize| {
        let mut session = loaded[k]
            .start(serde_json::json!({"x": 0}))
            .expect("starts");
        let status = block_on(session.run()).expect("runs");
        assert!(
            matches!(&status, Status::Finished { outputs, .. } if outputs["x"] == sizes[k] as i64),
            "{status:?}"
        );
        session
    };
    // per size, the fastest of every round: load, the plain `Value` parse of the same text
    // (what a document of this size costs any reader on this machine: caches and memory grow
    // with it, so its per-node growth is the baseline of load's), and the run
    // (three times the rounds of the other tables: the per-node ratios are what this table
    // is for, and on a shared host a round's noise is as large as the growth it measures)
    let mut best = vec![[Duration::MAX; 3]; sizes.len()];
    for _ in 0..runs * 3 {
        for (k, text) in texts.iter().enumerate() {
            let times = [
                fastest(1, || load(text)),
                fastest(1, || parse_value(text)),
                fastest(1, || execute(k)),
            ];
            for (b, t) in best[k].iter_mut().zip(times) {
                *b = (*b).min(t);
            }
        }
    }
    let [first_load, first_value, first_run] = best[0].map(|t| t.as_secs_f64() / sizes[0] as f64);
    for (k, &n) in sizes.iter().enumerate() {
        let [load_time, value_time, run_time] = best[k];
        let saved = serde_json::to_string(&execute(k).save()).expect("saves");
        let per_load = load_time.as_secs_f64() / n as f64;
        let per_run = run_time.as_secs_f64() / n as f64;
        println!(
            "| {n} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {} |",
            texts[k].len(),
            ms(load_time),
            per_load * 1e6,
            per_load / first_load,
            load_time.as_secs_f64() / value_time.as_secs_f64(),
            value_time.as_secs_f64() / n as f64 / first_value,
            ms(run_time),
            per_run * 1e6,
            per_run / first_run,
            saved.len(),
        );
    }
    agent_turns(runs);
}

/// An agent making 10 `inc` calls against a scripted model in process: the runtime's own
/// time per model turn (the model answers from memory, so the time is the runtime's), and a
/// session paused at a confirmation: its memory and the size of its saved state.
fn agent_turns(runs: usize) {
    use agentspec_runtime::llm::{ChatResponse, ScriptedLlm};
    use agentspec_runtime::{Runtime, Status};
    let agent = json!({
        "component_type": "Agent", "id": "counter", "name": "counter", "description": null,
        "metadata": {}, "inputs": [], "outputs": [], "system_prompt": "Count with inc.",
        "human_in_the_loop": true, "toolboxes": [], "transforms": [],
        "llm_config": {"component_type": "OpenAiCompatibleConfig", "id": "llm", "name": "llm",
            "description": null, "metadata": {}, "default_generation_parameters": null,
            "model_id": "scripted", "url": "http://127.0.0.1:5099"},
        "tools": [{"component_type": "ServerTool", "id": "inc", "name": "inc", "description": "Adds one.",
            "metadata": {}, "inputs": [{"title": "x", "type": "integer"}],
            "outputs": [{"title": "x", "type": "integer"}], "requires_confirmation": false}],
        "agentspec_version": "26.1.2"
    });
    let doc = Document::from_value(&agent).expect("loads");
    let script = || {
        let mut answers: Vec<ChatResponse> = (0..10)
            .map(|i| ChatResponse::call(format!("c{i}"), "inc", json!({"x": i})))
            .collect();
        answers.push(ChatResponse::text("done after 10 tool calls"));
        answers
    };
    let turns = fastest(runs, || {
        let runtime = Runtime::builder()
            .toolbox(Toolbox::new().with(IncTool).expect("registers"))
            .llm(ScriptedLlm::new(script()))
            .build();
        let mut session = runtime
            .load(&doc)
            .expect("compiles")
            .start(json!({}))
            .expect("starts");
        session.append_user_message("go");
        let status = block_on(session.run()).expect("runs");
        assert!(
            matches!(status, Status::UserMessageRequest { .. }),
            "{status:?}"
        );
    });
    // paused at a confirmation after 10 turns
    let mut confirm = agent.clone();
    confirm["tools"][0]["requires_confirmation"] = json!(true);
    let doc = Document::from_value(&confirm).expect("loads");
    let runtime = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).expect("registers"))
        .llm(ScriptedLlm::new(script()))
        .build();
    let loaded = runtime.load(&doc).expect("compiles");
    let mut saved_len = 0;
    let memory = peak(|| {
        let mut session = loaded.start(json!({})).expect("starts");
        session.append_user_message("go");
        for _ in 0..10 {
            let Status::ToolConfirmation(requests) = block_on(session.run()).expect("runs") else {
                panic!("a confirmation")
            };
            session.confirm(&requests[0].id).expect("confirms");
        }
        saved_len = serde_json::to_string(&session.save()).expect("saves").len();
        session
    });
    println!();
    println!(
        "| runtime: agent, 10 tool calls, scripted model in process | load + 11 model turns ms | µs per turn | paused session peak KiB (10 calls made) | saved state bytes |"
    );
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| one session | {:.3} | {:.1} | {:.1} | {saved_len} |",
        ms(turns),
        turns.as_secs_f64() * 1e6 / 11.0,
        memory as f64 / 1024.0,
    );
}

/// The CPU time the calling thread has used, in user and system mode, where the platform
/// tells it: the agent's client runs on one thread (a current-thread Tokio runtime), and
/// the scripted endpoint on another, so this is the runtime's own work per turn, its socket
/// calls included, without the time it waits for the endpoint.
fn thread_cpu() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable timespec, which is all the call writes to.
        let done = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
        (done == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Median of `runs` timings of `f` (the statistic wayflowcore's side reports).
fn median<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort_unstable();
    times[times.len() / 2]
}

/// A scripted chat-completions endpoint on 127.0.0.1, stateless as wayflowcore's baseline
/// had it: while a request holds fewer than 10 tool results it calls `inc` (with the count),
/// then answers in text; streamed when the request asks. One request per connection. It adds
/// up the time its handler takes, in nanoseconds.
fn scripted_endpoint() -> (String, std::sync::Arc<std::sync::atomic::AtomicU64>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    let spent = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let total = std::sync::Arc::clone(&spent);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let mut reader = BufReader::new(stream);
            let mut length = 0usize;
            let mut line = String::new();
            // the request line and headers
            loop {
                line.clear();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let start = Instant::now();
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            let tools = request["messages"]
                .as_array()
                .map_or(0, |m| m.iter().filter(|m| m["role"] == "tool").count());
            let message = if tools < 10 {
                json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0,
                    "id": format!("call{tools}"), "type": "function",
                    "function": {"name": "inc", "arguments": json!({"x": tools}).to_string()}}]})
            } else {
                json!({"role": "assistant", "content": "done after 10 tool calls"})
            };
            let (kind, text) = if request["stream"] == true {
                let chunk = json!({"choices": [{"index": 0, "delta": message}]});
                let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
                (
                    "text/event-stream",
                    format!("data: {chunk}\n\ndata: {end}\n\ndata: [DONE]\n\n"),
                )
            } else {
                let whole = json!({"id": "x", "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]});
                ("application/json", whole.to_string())
            };
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
            total.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
            let mut stream = reader.into_inner();
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    (url, spent)
}

/// The runtime beside wayflowcore 26.3.1, in one run: a linear flow of `n` ToolNodes (1,000;
/// 100 with `--quick`)
/// (load, execute), and an agent making 10 tool calls against the same scripted endpoint
/// (time per model turn, the endpoint's own time left out). wayflowcore runs in the project's
/// venv (`scripts/bench_wayflow.py`); both sides give medians of `runs` after a warm-up.
fn beside_wayflowcore(runs: usize, n: usize) {
    use agentspec_runtime::openai::OpenAiClient;
    use agentspec_runtime::{Runtime, Status};
    let python = "scripts/.venv/bin/python";
    let wayflow = |args: &[&str]| -> serde_json::Value {
        let out = std::process::Command::new(python)
            .arg("scripts/bench_wayflow.py")
            .args(args)
            .output()
            .expect("the venv's python runs (bash scripts/venv.sh; run from the workspace's root)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    let dir = std::env::temp_dir().join(format!("agentspec-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let runtime = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).expect("registers"))
        .max_steps(1_000_000)
        .build();
    println!(
        "| {n} ToolNodes calling `inc` (medians) | agentspec ms | wayflowcore 26.3.1 ms | wayflowcore / agentspec |"
    );
    println!("|---|---:|---:|---:|");
    let text = to_json(&tool_chain_document(n));
    let path = dir.join("chain.json");
    std::fs::write(&path, &text).expect("writes");
    let load = || {
        let doc = Document::from_json_str(&text).expect("loads");
        runtime.load(&doc).expect("compiles")
    };
    let loaded = load();
    let our_load = median(runs, load);
    let our_run = median(runs, || {
        let mut session = loaded.start(json!({"x": 0})).expect("starts");
        let status = block_on(session.run()).expect("runs");
        assert!(matches!(&status, Status::Finished { outputs, .. } if outputs["x"] == n as i64));
    });
    let theirs = wayflow(&[
        "chain",
        path.to_str().expect("a path"),
        &n.to_string(),
        &runs.to_string(),
    ]);
    for (what, ours, key) in [
        ("load", our_load, "load_ms"),
        ("execute", our_run, "run_ms"),
    ] {
        let their = theirs[key].as_f64().expect("a time");
        println!(
            "| {what} | {:.2} | {their:.0} | {:.0}× |",
            ms(ours),
            their / ms(ours)
        );
    }

    // the agent, over HTTP to the same endpoint
    let (url, spent) = scripted_endpoint();
    let mut agent = json!({
        "component_type": "Agent", "id": "counter", "name": "counter", "description": null,
        "metadata": {}, "inputs": [], "outputs": [], "system_prompt": "Count with inc.",
        "human_in_the_loop": true, "toolboxes": [], "transforms": [],
        "llm_config": {"component_type": "OpenAiCompatibleConfig", "id": "llm", "name": "llm",
            "description": null, "metadata": {}, "default_generation_parameters": null,
            "model_id": "scripted", "url": url},
        "tools": [{"component_type": "ServerTool", "id": "inc", "name": "inc", "description": "Adds one.",
            "metadata": {}, "inputs": [{"title": "x", "type": "integer"}],
            "outputs": [{"title": "x", "type": "integer"}], "requires_confirmation": false}],
        "agentspec_version": "26.1.2"
    });
    let doc = Document::from_value(&agent).expect("loads");
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let runtime = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).expect("registers"))
        .llm(OpenAiClient::new().expect("a client"))
        .build();
    let loaded = runtime.load(&doc).expect("compiles");
    let (mut own, mut cpu) = (Vec::new(), Vec::new());
    for i in 0..=runs {
        let before = spent.load(Ordering::Relaxed);
        let cpu_before = thread_cpu();
        let start = Instant::now();
        tokio.block_on(async {
            let mut session = loaded.start(json!({})).expect("starts");
            session.append_user_message("go");
            let status = session.run().await.expect("runs");
            assert!(
                matches!(status, Status::UserMessageRequest { .. }),
                "{status:?}"
            );
        });
        let wall = start.elapsed().as_secs_f64() * 1e3;
        let endpoint = (spent.load(Ordering::Relaxed) - before) as f64 / 1e6;
        if i > 0 {
            // the first run warms up
            own.push((wall - endpoint) / 11.0);
            if let (Some(from), Some(to)) = (cpu_before, thread_cpu()) {
                cpu.push((to - from).as_secs_f64() * 1e3 / 11.0);
            }
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    let ours = median(own).expect("one run at least");
    let our_cpu = median(cpu);
    agent["agentspec_version"] = json!("26.1.2");
    let agent_path = dir.join("agent.json");
    std::fs::write(&agent_path, agent.to_string()).expect("writes");
    let before = spent.load(Ordering::Relaxed);
    let theirs = wayflow(&[
        "agent",
        agent_path.to_str().expect("a path"),
        &runs.to_string(),
    ]);
    // the endpoint's time over wayflowcore's runs (warm-up included), per run
    let endpoint = (spent.load(Ordering::Relaxed) - before) as f64 / 1e6 / (runs + 1) as f64;
    let their_wall = (theirs["run_ms"].as_f64().expect("a time") - endpoint) / 11.0;
    let their_cpu = theirs["cpu_ms"].as_f64().expect("a time") / 11.0;
    println!();
    println!(
        "| agent, 10 tool calls, scripted endpoint on 127.0.0.1 (11 model turns) | agentspec | wayflowcore 26.3.1 | wayflowcore / agentspec |"
    );
    println!("|---|---:|---:|---:|");
    println!(
        "| own time per turn, endpoint excluded (ms) | {ours:.3} | {their_wall:.1} | {:.0}× |",
        their_wall / ours
    );
    match our_cpu {
        Some(ours) => println!(
            "| CPU per turn (ms): ours, the thread that runs the session; wayflowcore's, its process | {ours:.3} | {their_cpu:.1} | {:.0}× |",
            their_cpu / ours
        ),
        None => {
            println!("| CPU per turn (ms; this platform does not give ours) | | {their_cpu:.1} | |")
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
