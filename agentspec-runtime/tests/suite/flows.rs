//! Flows run end to end on documents pyagentspec wrote (`tests/fixtures/generate.py`): every
//! kind of pause, saved and resumed in a fresh runtime, and the errors a caller can act on.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentspec_runtime::{HostFuture, Loaded, Role, Runtime, SavedSession, Session, Status};
use agentspec_types::Toolbox;
use serde_json::{Value, json};

use super::{IncTool, doc, resumed_in, run};

/// The booking tool of the desk, as a host callback that counts its calls.
fn booking_host(calls: Arc<AtomicUsize>) -> impl Fn(&str, Value) -> HostFuture + Send + Sync {
    move |name: &str, args: Value| {
        calls.fetch_add(1, Ordering::SeqCst);
        let name = name.to_owned();
        Box::pin(async move {
            assert_eq!(name, "book");
            Ok(json!(format!(
                "a trip to {} ({})",
                args["city"].as_str().unwrap(),
                args["weather"].as_str().unwrap()
            )))
        }) as HostFuture
    }
}

fn desk(calls: Arc<AtomicUsize>) -> Loaded {
    Runtime::builder()
        .host_tools(booking_host(calls))
        .build()
        .load(&doc("desk"))
        .expect("loads")
}

/// Saves the session and resumes it in a runtime built anew, through JSON text: what a
/// second process does.
fn through_a_new_process(session: Session, calls: &Arc<AtomicUsize>) -> Session {
    resumed_in(session, desk(Arc::clone(calls)))
}

#[test]
fn a_flow_of_server_tools_runs_to_its_outputs() {
    let runtime = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .build();
    let loaded = runtime.load(&doc("inc_twice")).unwrap();
    let mut session = loaded.start(json!({"x": 40})).unwrap();
    match run(&mut session) {
        Status::Finished { outputs, messages } => {
            assert_eq!(Value::Object(outputs), json!({"x": 42}));
            assert!(messages.is_empty());
        }
        other => panic!("{other:?}"),
    }
    // a finished session stays finished
    assert!(matches!(run(&mut session), Status::Finished { .. }));
}

#[test]
fn every_pause_of_the_desk_is_saved_and_resumed_in_a_fresh_runtime() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut session = desk(Arc::clone(&calls)).start(json!({})).unwrap();

    // the InputMessageNode asks, with its message rendered from the input's default
    let Status::UserMessageRequest { messages } = run(&mut session) else {
        panic!("a question")
    };
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].content, "Hello! Which city?");
    let mut session = through_a_new_process(session, &calls);
    session.append_user_message("Lisbon");

    // the client tool: the caller runs it
    let Status::ToolRequest(requests) = run(&mut session) else {
        panic!("a client tool call")
    };
    assert_eq!(requests.len(), 1);
    assert_eq!(
        (requests[0].name.as_str(), &requests[0].args),
        ("forecast", &json!({"city": "Lisbon"}))
    );
    let mut session = through_a_new_process(session, &calls);
    session
        .append_tool_result(&requests[0].id, json!("sunny"))
        .unwrap();

    // the ServerTool inside the nested flow requires confirmation: nothing runs before it
    let Status::ToolConfirmation(requests) = run(&mut session) else {
        panic!("a confirmation")
    };
    assert_eq!(requests[0].name, "book");
    assert_eq!(
        requests[0].args,
        json!({"city": "Lisbon", "weather": "sunny"})
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    let mut session = through_a_new_process(session, &calls);
    session.confirm(&requests[0].id).unwrap();

    // booked through the host callback, the subflow's EndNode branch taken, a goodbye said
    let Status::Finished { outputs, messages } = run(&mut session) else {
        panic!("finished")
    };
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(
        Value::Object(outputs),
        json!({"booking": "a trip to Lisbon (sunny)"})
    );
    assert_eq!(messages.len(), 1);
    assert_eq!(
        messages[0].content,
        "Booked: a trip to Lisbon (sunny) (sunny)"
    );
    // the whole conversation: question, answer, the client call and its result, goodbye
    let roles: Vec<Role> = session.messages().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::Agent,
            Role::User,
            Role::Agent,
            Role::Tool,
            Role::Agent
        ]
    );
}

#[test]
fn a_branch_to_an_end_without_the_output_gives_the_flow_default() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut session = desk(Arc::clone(&calls))
        .start(json!({"greeting": "Hi"}))
        .unwrap();
    let Status::UserMessageRequest { messages } = run(&mut session) else {
        panic!("a question")
    };
    assert_eq!(messages[0].content, "Hi! Which city?");
    session.append_user_message("Atlantis");
    let Status::Finished { outputs, messages } = run(&mut session) else {
        panic!("finished")
    };
    assert_eq!(Value::Object(outputs), json!({"booking": "none"}));
    assert_eq!(messages[0].content, "There is no Atlantis.");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[test]
fn a_rejected_confirmation_fails_the_flow_with_its_reason() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut session = desk(Arc::clone(&calls)).start(json!({})).unwrap();
    run(&mut session);
    session.append_user_message("Oslo");
    let Status::ToolRequest(requests) = run(&mut session) else {
        panic!()
    };
    session
        .append_tool_result(&requests[0].id, json!("snow"))
        .unwrap();
    let Status::ToolConfirmation(requests) = run(&mut session) else {
        panic!()
    };
    session.reject(&requests[0].id, "too cold").unwrap();
    let err = agentspec_types::tool::block_on(session.run()).unwrap_err();
    assert_eq!(err.code, "tool-rejected");
    assert_eq!(
        err.message,
        "the call of tool `book` was rejected: too cold"
    );
    assert_eq!(err.node.as_deref(), Some("inner_book"));
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    // the session keeps its failure, saved and resumed too
    let mut again = through_a_new_process(session, &calls);
    assert_eq!(
        agentspec_types::tool::block_on(again.run()).unwrap_err(),
        err
    );
}

#[test]
fn answers_to_questions_not_asked_are_refused() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut session = desk(Arc::clone(&calls)).start(json!({})).unwrap();
    run(&mut session);
    let err = session.append_tool_result("call-9", json!(1)).unwrap_err();
    assert_eq!(err.code, "unexpected-answer");
    assert_eq!(
        session.confirm("call-1").unwrap_err().code,
        "unexpected-answer"
    );
    // still waiting for the user
    assert!(matches!(
        run(&mut session),
        Status::UserMessageRequest { .. }
    ));
}

#[test]
fn loading_names_every_missing_server_tool_and_what_the_toolbox_has() {
    let err = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .build()
        .load(&doc("desk"))
        .err()
        .expect("refused");
    let found: Vec<(&str, &str, &str)> = err
        .diagnostics
        .iter()
        .map(|d| (d.code, d.message.as_str(), d.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [(
            "missing-tool",
            "ServerTool `book` has no implementation: the toolbox has `inc`, and no host callback is set",
            "/$referenced_components/book_node/subflow/$referenced_components/inner_book/tool"
        )]
    );
}

#[test]
fn inputs_are_checked_and_cast_at_start() {
    let runtime = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .build();
    let loaded = runtime.load(&doc("inc_twice")).unwrap();
    let err = loaded.start(json!({"y": 1})).err().unwrap();
    assert_eq!(err.code, "unknown-input");
    assert_eq!(
        err.message,
        "flow `inc_twice` has no input `y`; its inputs: `x`"
    );
    // a string that reads as an integer is cast to the declared type
    let mut session = loaded.start(json!({"x": "5"})).unwrap();
    let Status::Finished { outputs, .. } = run(&mut session) else {
        panic!()
    };
    assert_eq!(outputs["x"], 7);
    // one that does not is an error naming the input and the node
    let mut session = loaded.start(json!({"x": "five"})).unwrap();
    let err = agentspec_types::tool::block_on(session.run()).unwrap_err();
    assert_eq!(err.code, "cast-failed");
    assert_eq!(
        err.message,
        "input `x` of node `start`: \"five\" cannot be cast to integer"
    );
    // and one left out, with no default
    let mut session = loaded.start(json!({})).unwrap();
    let err = agentspec_types::tool::block_on(session.run()).unwrap_err();
    assert_eq!(err.code, "missing-input");
}

#[test]
fn a_saved_session_resumes_only_with_its_own_document_and_format() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut session = desk(Arc::clone(&calls)).start(json!({})).unwrap();
    run(&mut session);
    let saved = session.save();
    let other = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .build()
        .load(&doc("inc_twice"))
        .unwrap();
    let err = other.resume(saved.clone()).err().unwrap();
    assert_eq!(err.code, "saved-session-mismatch");
    assert!(
        err.message
            .starts_with("the session was saved from another document"),
        "{}",
        err.message
    );
    // saved by a runtime that digested documents with FNV-1a
    let digested_otherwise = SavedSession {
        document: "fnv1a64:0123456789abcdef".to_owned(),
        ..saved.clone()
    };
    let err = desk(Arc::clone(&calls))
        .resume(digested_otherwise)
        .err()
        .unwrap();
    assert_eq!(err.code, "saved-session-mismatch");
    assert_eq!(
        err.message,
        "the session names its document by a digest this runtime does not make (fnv1a64, where this one makes mix64): it was saved by another version of agentspec-runtime"
    );
    let newer = SavedSession {
        format: 99,
        ..saved.clone()
    };
    let err = desk(Arc::clone(&calls)).resume(newer).err().unwrap();
    assert_eq!(
        err.message,
        "the session was saved in format 99; this runtime reads format 3"
    );
    let broken = SavedSession {
        state: json!({"frames": []}),
        ..saved
    };
    assert_eq!(
        desk(calls).resume(broken).err().unwrap().code,
        "saved-session-mismatch"
    );
}

#[test]
fn a_failing_tool_fails_the_flow_with_the_tools_message() {
    let runtime = Runtime::builder()
        .host_tools(|_: &str, _: Value| -> HostFuture {
            Box::pin(async { Err("the service is down".to_owned()) })
        })
        .build();
    let loaded = runtime.load(&doc("inc_twice")).unwrap();
    let mut session = loaded.start(json!({"x": 1})).unwrap();
    let err = agentspec_types::tool::block_on(session.run()).unwrap_err();
    assert_eq!(err.code, "tool-failed");
    assert_eq!(
        err.message,
        "tool `inc` of node `first` failed: the service is down"
    );
}

#[test]
fn llm_nodes_give_free_text_or_structured_outputs_and_leave_the_conversation_alone() {
    use agentspec_runtime::llm::{ChatMessage, ChatResponse, ScriptedLlm};
    let llm = Arc::new(ScriptedLlm::new([
        ChatResponse::text("Rain sings on tin roofs."),
        ChatResponse::text("Here it is:\n```json\n{\"score\": \"8\"}\n```"),
    ]));
    let loaded = Runtime::builder()
        .llm(Arc::clone(&llm))
        .build()
        .load(&doc("poem"))
        .unwrap();
    let mut session = loaded.start(json!({"topic": "rain"})).unwrap();
    let Status::Finished { outputs, messages } = run(&mut session) else {
        panic!("finished")
    };
    // the score cast to its type, the reason left out by the model given its default
    assert_eq!(
        Value::Object(outputs),
        json!({"generated_text": "Rain sings on tin roofs.", "score": 8, "reason": "none given"})
    );
    assert!(messages.is_empty() && session.messages().is_empty());
    let requests = llm.requests();
    assert_eq!(
        requests[0].messages,
        [ChatMessage::User {
            content: "Write one line about rain.".into()
        }]
    );
    assert_eq!(requests[0].response_format, None);
    assert_eq!(
        requests[1].messages,
        [ChatMessage::User {
            content: "Rate this line from 1 to 10: Rain sings on tin roofs.".into()
        }]
    );
    assert_eq!(
        requests[1].response_format,
        Some(json!({"type": "object", "properties": {
            "score": {"type": "integer"},
            "reason": {"type": "string", "default": "none given"}},
            "required": ["score"]}))
    );
}

#[test]
fn an_llm_node_whose_answer_holds_no_json_fails_naming_the_node() {
    use agentspec_runtime::llm::{ChatResponse, ScriptedLlm};
    let llm = ScriptedLlm::new([
        ChatResponse::text("A line."),
        ChatResponse::text("I would say eight."),
    ]);
    let loaded = Runtime::builder()
        .llm(llm)
        .build()
        .load(&doc("poem"))
        .unwrap();
    let mut session = loaded.start(json!({"topic": "rain"})).unwrap();
    let err = agentspec_types::tool::block_on(session.run()).unwrap_err();
    assert_eq!(err.code, "llm-output");
    assert_eq!(
        err.message,
        "the model's answer to node `rate` holds no JSON value: \"I would say eight.\""
    );
    assert_eq!(err.node.as_deref(), Some("rate"));
}

#[test]
fn events_tell_which_nodes_a_flow_enters_and_leaves() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let runtime = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .on_event(move |event| {
            let line = match event {
                agentspec_runtime::Event::NodeEntered {
                    name, node_type, ..
                } => format!("enter {name} ({node_type})"),
                agentspec_runtime::Event::NodeLeft { name, branch, .. } => {
                    format!("leave {name} by {branch}")
                }
                agentspec_runtime::Event::ToolStarted(r) => format!("call {}", r.name),
                _ => return,
            };
            log.lock().unwrap().push(line);
        })
        .build();
    let mut session = runtime
        .load(&doc("inc_twice"))
        .unwrap()
        .start(json!({"x": 1}))
        .unwrap();
    assert!(matches!(run(&mut session), Status::Finished { .. }));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "enter start (StartNode)",
            "leave start by next",
            "enter first (ToolNode)",
            "call inc",
            "leave first by next",
            "enter second (ToolNode)",
            "call inc",
            "leave second by next",
            "enter end (EndNode)",
            "leave end by next",
        ]
    );
}

/// A component of type `ty` named `id`, with `fields`.
fn component(ty: &str, id: &str, fields: Value) -> Value {
    let mut component =
        json!({"component_type": ty, "id": id, "name": id, "description": null, "metadata": {}});
    component
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    component
}

/// A flow of `n` ToolNodes calling `inc`, then a ClientTool node `ask` (x → y), whose data
/// edges are left out: values go from node to node by name.
fn chain_without_data_edges(n: usize) -> agentspec_types::Document {
    let x = || json!({"title": "x", "type": "integer"});
    let y = || json!({"title": "y", "type": "string"});
    let node = component;
    let mut ids = vec!["start".to_owned()];
    let mut components = serde_json::Map::new();
    components.insert(
        "start".into(),
        node(
            "StartNode",
            "start",
            json!({"inputs": [x()], "outputs": [x()]}),
        ),
    );
    for i in 1..=n {
        let id = format!("inc_{i}");
        let tool = json!({"inputs": [x()], "outputs": [x()], "tool": {"$component_ref": "inc"}});
        components.insert(id.clone(), node("ToolNode", &id, tool));
        ids.push(id);
    }
    let ask = json!({"inputs": [x()], "outputs": [y()], "tool": {"$component_ref": "ask"}});
    components.insert("ask_node".into(), node("ToolNode", "ask_node", ask));
    ids.push("ask_node".into());
    let end = json!({"inputs": [x(), y()], "outputs": [x(), y()]});
    components.insert("end".into(), node("EndNode", "end", end));
    ids.push("end".into());
    let inc = json!({"inputs": [x()], "outputs": [x()], "requires_confirmation": false});
    components.insert("inc".into(), node("ServerTool", "inc", inc));
    let ask = json!({"inputs": [x()], "outputs": [y()], "requires_confirmation": false});
    components.insert("ask".into(), node("ClientTool", "ask", ask));
    let edges: Vec<Value> = ids
        .windows(2)
        .enumerate()
        .map(|(i, pair)| {
            let id = format!("c{i}");
            node(
                "ControlFlowEdge",
                &id,
                json!({"from_node": {"$component_ref": pair[0]}, "from_branch": null,
                       "to_node": {"$component_ref": pair[1]}}),
            )
        })
        .collect();
    let nodes: Vec<Value> = ids.iter().map(|id| json!({"$component_ref": id})).collect();
    let mut flow = node(
        "Flow",
        "chain",
        json!({"inputs": [x()], "outputs": [x(), y()], "start_node": {"$component_ref": "start"},
               "nodes": nodes, "control_flow_connections": edges, "data_flow_connections": null,
               "$referenced_components": components, "agentspec_version": "25.4.1"}),
    );
    flow.as_object_mut().unwrap().remove("metadata");
    agentspec_types::Document::from_value(&flow).expect("loads")
}

#[test]
fn without_data_edges_values_meet_by_name_and_the_saved_state_stays_small() {
    // every `inc` reads the `x` the one before wrote (the last writer), `ask` reads the
    // last `x` and writes `y`, and the EndNode reads both; the state holds the values by
    // name, not by node, so a paused session of 600 nodes saves what one of 6 does
    let saved = |n: usize| {
        let loaded = Runtime::builder()
            .toolbox(Toolbox::new().with(IncTool).unwrap())
            .build()
            .load(&chain_without_data_edges(n))
            .unwrap();
        let mut session = loaded.start(json!({"x": 1})).unwrap();
        let Status::ToolRequest(requests) = run(&mut session) else {
            panic!("the client tool asks")
        };
        assert_eq!(requests[0].args, json!({"x": 1 + n as i64}));
        (session.save(), requests[0].id.clone())
    };
    let (small, _) = saved(5);
    let (big, asked) = saved(600);
    // the two differ in numbers only (the node it stopped at, the count of steps, x)
    let shape = |saved: &SavedSession| {
        let text = serde_json::to_string(&saved.state).unwrap();
        text.replace(|c: char| c.is_ascii_digit(), "")
    };
    assert_eq!(shape(&big), shape(&small));
    let fresh = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .build()
        .load(&chain_without_data_edges(600))
        .unwrap();
    let mut session = fresh.resume(big).unwrap();
    session
        .append_tool_result(&asked, json!("601 it is"))
        .unwrap();
    match run(&mut session) {
        Status::Finished { outputs, .. } => {
            assert_eq!(
                outputs,
                json!({"x": 601, "y": "601 it is"})
                    .as_object()
                    .unwrap()
                    .clone()
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_node_on_a_loop_reads_again_what_it_was_given_once() {
    // start → add → route, route loops back to add until `add` says "done"; `step` comes
    // from the StartNode once, and `add` reads it again at every turn of the loop
    let prop = |title: &str, ty: &str| json!({"title": title, "type": ty});
    let node = component;
    let at = |id: &str| json!({"$component_ref": id});
    let control = |id: &str, from: &str, branch: Value, to: &str| {
        node(
            "ControlFlowEdge",
            id,
            json!({"from_node": at(from), "from_branch": branch, "to_node": at(to)}),
        )
    };
    let data = |id: &str, from: &str, output: &str, to: &str, input: &str| {
        node(
            "DataFlowEdge",
            id,
            json!({"source_node": at(from), "source_output": output,
                   "destination_node": at(to), "destination_input": input}),
        )
    };
    let ints = json!([prop("x", "integer"), prop("step", "integer")]);
    let add_tool = node(
        "ServerTool",
        "add",
        json!({"inputs": ints, "outputs": [prop("x", "integer"), prop("word", "string")],
               "requires_confirmation": false}),
    );
    let flow = node(
        "Flow",
        "loop",
        json!({
            "inputs": ints, "outputs": [prop("x", "integer")], "start_node": at("start"),
            "nodes": [at("start"), at("add_node"), at("route"), at("end")],
            "control_flow_connections": [
                control("c0", "start", Value::Null, "add_node"),
                control("c1", "add_node", Value::Null, "route"),
                control("c2", "route", json!("default"), "add_node"),
                control("c3", "route", json!("done"), "end"),
            ],
            "data_flow_connections": [
                data("d0", "start", "x", "add_node", "x"),
                data("d1", "start", "step", "add_node", "step"),
                data("d2", "add_node", "x", "add_node", "x"),
                data("d3", "add_node", "word", "route", "word"),
                data("d4", "add_node", "x", "end", "x"),
            ],
            "$referenced_components": {
                "start": node("StartNode", "start", json!({"inputs": ints, "outputs": ints})),
                "add_node": node("ToolNode", "add_node", json!({"inputs": ints,
                    "outputs": [prop("x", "integer"), prop("word", "string")], "tool": add_tool})),
                "route": node("BranchingNode", "route", json!({"inputs": [prop("word", "string")],
                    "outputs": [], "mapping": {"done": "done"}})),
                "end": node("EndNode", "end", json!({"inputs": [prop("x", "integer")],
                    "outputs": [prop("x", "integer")]})),
            },
            "agentspec_version": "25.4.1"
        }),
    );
    let doc = agentspec_types::Document::from_value(&flow).expect("loads");
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let add = move |_: &str, args: Value| -> HostFuture {
        counted.fetch_add(1, Ordering::SeqCst);
        let x = args["x"].as_i64().unwrap() + args["step"].as_i64().unwrap();
        let word = if x >= 7 { "done" } else { "more" };
        Box::pin(async move { Ok(json!({"x": x, "word": word})) })
    };
    let loaded = Runtime::builder()
        .host_tools(add)
        .build()
        .load(&doc)
        .unwrap();
    let mut session = loaded.start(json!({"x": 1, "step": 2})).unwrap();
    match run(&mut session) {
        Status::Finished { outputs, .. } => assert_eq!(outputs["x"], 7),
        other => panic!("{other:?}"),
    }
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    // `step` reached `add` three times from one write; once the flow is over, the state
    // keeps its outputs and none of what the nodes were given
    let state = session.save().state;
    assert_eq!(state["finished"], json!({"x": 7}));
    assert!(state["frames"][0].get("slots").is_none(), "{state}");
}
