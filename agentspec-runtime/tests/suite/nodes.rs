//! The nodes that run flows of their own (MapNode, ParallelMapNode, ParallelFlowNode,
//! CatchExceptionNode) and the nodes and tools that make HTTP requests (ApiNode,
//! RemoteTool).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use agentspec_runtime::{HostFuture, Runtime, Status};
use agentspec_types::{Document, Toolbox};
use serde_json::{Value, json};

use super::http::{Reply, error, server};
use super::{IncTool, doc, run};

/// A call that finishes only once `want` calls are in flight at once, and fails if that
/// does not happen within a few thousand polls: calls made one after the other fail.
struct Together {
    in_flight: Arc<AtomicUsize>,
    want: usize,
    polls: u32,
    value: Value,
}

impl Future for Together {
    type Output = Result<Value, String>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if self.in_flight.load(Ordering::SeqCst) >= self.want {
            return Poll::Ready(Ok(self.value.clone()));
        }
        self.polls += 1;
        if self.polls > 5_000 {
            return Poll::Ready(Err(format!(
                "only {} calls at once",
                self.in_flight.load(Ordering::SeqCst)
            )));
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn map_nodes_reduce_and_parallel_nodes_run_their_flows_at_once() {
    // `inc` in the ParallelMapNode runs 3 at once; `double` runs beside `inc` in the
    // ParallelFlowNode; the MapNode runs `inc` one at a time, through the toolbox
    let in_flight = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&in_flight);
    let host = move |name: &str, args: Value| -> HostFuture {
        let x = args["x"].as_i64().unwrap();
        let (want, value) = match name {
            "double" => (2, json!(x * 2)),
            _ => (3, json!(x + 1)),
        };
        counter.fetch_add(1, Ordering::SeqCst);
        let fut = Together {
            in_flight: Arc::clone(&counter),
            want,
            polls: 0,
            value,
        };
        Box::pin(fut)
    };
    let runtime = Runtime::builder().host_tools(host).parallelism(3).build();
    let loaded = runtime.load(&doc("fan_out")).unwrap();
    let mut session = loaded.start(json!({"xs": [1, 2, 3], "x": 10})).unwrap();
    let status = agentspec_types::tool::block_on(session.run());
    // the MapNode's `inc` calls go through the host one at a time: they wait for 3 at once
    // and fail; a MapNode is not parallel
    let e = status.unwrap_err();
    assert_eq!(e.code, "tool-failed", "{e}");
    assert!(e.message.contains("only 1 calls at once"), "{e}");

    // with `inc` in the toolbox, the MapNode sums, the ParallelMapNode keeps the order, and
    // the ParallelFlowNode merges both flows' outputs
    let in_flight = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&in_flight);
    let host = move |_: &str, args: Value| -> HostFuture {
        counter.fetch_add(1, Ordering::SeqCst);
        Box::pin(Together {
            in_flight: Arc::clone(&counter),
            want: 1,
            polls: 0,
            value: json!(args["x"].as_i64().unwrap() * 2),
        })
    };
    let runtime = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .host_tools(host)
        .build();
    let loaded = runtime.load(&doc("fan_out")).unwrap();
    let mut session = loaded.start(json!({"xs": [1, 2, 3], "x": 10})).unwrap();
    let Status::Finished { outputs, .. } = run(&mut session) else {
        panic!("finishes")
    };
    assert_eq!(
        Value::Object(outputs),
        json!({"total": 9, "incremented": [2, 3, 4], "x": 11, "y": 20})
    );
    // an empty list: no runs, an empty collection, a sum of nothing
    let mut session = loaded.start(json!({"xs": [], "x": 0})).unwrap();
    let Status::Finished { outputs, .. } = run(&mut session) else {
        panic!("finishes")
    };
    assert_eq!(outputs["total"], 0);
    assert_eq!(outputs["incremented"], json!([]));
}

#[test]
fn parallel_runs_keep_the_input_order_at_any_parallelism() {
    let host = |_: &str, args: Value| -> HostFuture {
        let x = args["x"].as_i64().unwrap();
        Box::pin(async move { Ok(json!(x * 2)) })
    };
    for parallelism in [1, 2, 16] {
        let runtime = Runtime::builder()
            .toolbox(Toolbox::new().with(IncTool).unwrap())
            .host_tools(host)
            .parallelism(parallelism)
            .build();
        let loaded = runtime.load(&doc("fan_out")).unwrap();
        let xs: Vec<i64> = (0..40).collect();
        let mut session = loaded.start(json!({"xs": xs, "x": 1})).unwrap();
        let Status::Finished { outputs, .. } = run(&mut session) else {
            panic!("finishes")
        };
        let want: Vec<i64> = (1..41).collect();
        assert_eq!(outputs["incremented"], json!(want));
        assert_eq!(outputs["total"], json!(want.iter().sum::<i64>()));
    }
}

#[test]
fn a_catch_exception_node_takes_its_branch_with_the_defaults_when_its_flow_fails() {
    let host = |_: &str, args: Value| -> HostFuture {
        let x = args["x"].as_i64().unwrap();
        Box::pin(async move {
            if x < 0 {
                Err("negative input".to_owned())
            } else {
                Ok(json!(x * 2))
            }
        })
    };
    let runtime = Runtime::builder().host_tools(host).build();
    let loaded = runtime.load(&doc("guarded")).unwrap();

    let mut session = loaded.start(json!({"x": 2})).unwrap();
    let Status::Finished { outputs, messages } = run(&mut session) else {
        panic!("finishes")
    };
    assert_eq!(outputs["y"], 4);
    assert!(messages.is_empty(), "{messages:?}");

    let mut session = loaded.start(json!({"x": -1})).unwrap();
    let Status::Finished { outputs, messages } = run(&mut session) else {
        panic!("finishes")
    };
    assert_eq!(outputs["y"], -1, "the output's default");
    assert_eq!(messages.len(), 1);
    assert!(
        messages[0].content.starts_with(
            "caught: tool-failed: tool `risky` of node `r_tool` failed: negative input"
        ),
        "{}",
        messages[0].content
    );
}

/// The `requests` fixture, its URLs pointed at `addr`.
fn requests(addr: std::net::SocketAddr) -> Document {
    let path = format!(
        "{}/tests/fixtures/requests.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("127.0.0.1:9", &addr.to_string());
    Document::from_json_str(&text).unwrap()
}

fn ok(body: Value) -> Reply {
    Reply {
        status: 200,
        content_type: "application/json",
        headers: "",
        body: body.to_string(),
    }
}

#[tokio::test]
async fn an_api_node_and_a_remote_tool_send_their_templated_requests() {
    let (addr, seen) = server(vec![
        ok(json!({"weather": "sunny in Rabat", "extra": 1})),
        ok(json!({"note": "saved"})),
    ])
    .await;
    let loaded = Runtime::builder().build().load(&requests(addr)).unwrap();
    let mut session = loaded.start(json!({"city": "Rabat"})).unwrap();
    let Status::Finished { outputs, .. } = session.run().await.unwrap() else {
        panic!("finishes")
    };
    assert_eq!(
        Value::Object(outputs),
        json!({"weather": "sunny in Rabat", "http_status_code": 200, "note": "saved"})
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].path, "/weather/rabat?units=metric");
    assert!(seen[0].headers.starts_with("post "), "{}", seen[0].headers);
    assert!(
        seen[0].headers.contains("x-city: rabat"),
        "{}",
        seen[0].headers
    );
    assert!(seen[0].headers.contains("content-type: application/json"));
    assert_eq!(seen[0].body, json!({"city": "Rabat", "days": 2}));
    assert_eq!(seen[1].path, "/notes");
    assert!(
        seen[1]
            .headers
            .contains("content-type: application/x-www-form-urlencoded")
    );
    assert_eq!(seen[1].body, json!("text=sunny+in+Rabat"));
}

#[tokio::test]
async fn a_failed_request_fails_the_flow_and_the_allow_list_is_kept() {
    let (addr, _) = server(vec![error(404, "", r#"{"detail": "no such city"}"#)]).await;
    let loaded = Runtime::builder().build().load(&requests(addr)).unwrap();
    let mut session = loaded.start(json!({"city": "Atlantis"})).unwrap();
    let e = session.run().await.unwrap_err();
    assert_eq!(e.code, "api-failed");
    assert!(e.message.contains("404"), "{e}");
    assert!(e.message.contains("no such city"), "{e}");
    assert_eq!(e.node.as_deref(), Some("lookup"));

    // a city that changes the path out of the allowed one is refused before any request
    let mut session = loaded.start(json!({"city": "../admin"})).unwrap();
    let e = session.run().await.unwrap_err();
    assert_eq!(e.code, "api-failed");
    assert!(e.message.contains("url_allow_list"), "{e}");

    // nothing listens: an error, not a hang
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = closed.local_addr().unwrap();
    drop(closed);
    let loaded = Runtime::builder().build().load(&requests(addr)).unwrap();
    let mut session = loaded.start(json!({"city": "Rabat"})).unwrap();
    let e = session.run().await.unwrap_err();
    assert_eq!(e.code, "api-failed");
    assert!(e.message.contains("could not be reached"), "{e}");
}
