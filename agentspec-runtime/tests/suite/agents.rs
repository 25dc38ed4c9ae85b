//! Agents run against a scripted model, on documents pyagentspec wrote
//! (`tests/fixtures/generate.py`): the tool loop with every kind of tool and pause, saved
//! and resumed in a fresh runtime, outputs submitted, and the errors a caller can act on.

use std::sync::Arc;

use agentspec_runtime::llm::{ChatMessage, ChatResponse, ScriptedLlm};
use agentspec_runtime::{Loaded, Role, Runtime, Session, Status};
use agentspec_types::Toolbox;
use serde_json::{Value, json};

use super::{IncTool, doc, resumed_in, run};

fn load(name: &str, llm: &Arc<ScriptedLlm>) -> Loaded {
    Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .llm(Arc::clone(llm))
        .max_iterations(5)
        .build()
        .load(&doc(name))
        .expect("loads")
}

/// Saves the session and resumes it in a runtime built anew, through JSON text.
fn through_a_new_process(session: Session, name: &str, llm: &Arc<ScriptedLlm>) -> Session {
    resumed_in(session, load(name, llm))
}

#[test]
fn an_agent_confirms_asks_the_client_calls_a_server_tool_and_answers_the_user() {
    let llm = Arc::new(ScriptedLlm::new([
        ChatResponse::call("c1", "read_screen", json!({})),
        ChatResponse::call("c2", "inc", json!({"x": 41})),
        ChatResponse::text("It is 42."),
        ChatResponse::text("Goodbye, Ada."),
    ]));
    let mut session = load("calculator", &llm)
        .start(json!({"user": "Ada"}))
        .unwrap();

    // the client tool requires confirmation: asked first, then run by the caller
    let Status::ToolConfirmation(requests) = run(&mut session) else {
        panic!("a confirmation")
    };
    assert_eq!(
        (requests[0].id.as_str(), requests[0].name.as_str()),
        ("c1", "read_screen")
    );
    let mut session = through_a_new_process(session, "calculator", &llm);
    session.confirm("c1").unwrap();
    let Status::ToolRequest(requests) = run(&mut session) else {
        panic!("a client tool call")
    };
    assert_eq!(requests[0].id, "c1");
    let mut session = through_a_new_process(session, "calculator", &llm);
    session.append_tool_result("c1", json!(41)).unwrap();

    // inc runs from the toolbox, and the text answer goes to the user
    let Status::UserMessageRequest { messages } = run(&mut session) else {
        panic!("an answer for the user")
    };
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].content, "It is 42.");
    let mut session = through_a_new_process(session, "calculator", &llm);
    session.append_user_message("Thanks!");
    let Status::UserMessageRequest { messages } = run(&mut session) else {
        panic!("an answer for the user")
    };
    assert_eq!(messages[0].content, "Goodbye, Ada.");

    let requests = llm.requests();
    assert_eq!(requests.len(), 4);
    // the first call: the system prompt with its placeholder filled, and the tools with the
    // schemas of the document
    assert_eq!(
        requests[0].messages,
        [ChatMessage::System {
            content: "You help Ada count. Use the tools.".into()
        }]
    );
    let tools: Vec<(&str, &Value)> = requests[0]
        .tools
        .iter()
        .map(|t| (t.name.as_str(), &t.parameters))
        .collect();
    assert_eq!(
        tools,
        [
            (
                "inc",
                &json!({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]})
            ),
            (
                "read_screen",
                &json!({"type": "object", "properties": {}, "required": []})
            ),
        ]
    );
    assert_eq!(requests[0].model.model_id, "scripted");
    assert_eq!(
        requests[0].model.url.as_deref(),
        Some("http://127.0.0.1:5099")
    );
    // the third call sees both tool results, in order
    let results: Vec<(&str, &str)> = requests[2]
        .messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool {
                tool_call_id,
                content,
            } => Some((tool_call_id.as_str(), content.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(results, [("c1", "41"), ("c2", "42")]);
    let roles: Vec<Role> = session.messages().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::Agent,
            Role::Tool,
            Role::Agent,
            Role::Tool,
            Role::Agent,
            Role::User,
            Role::Agent
        ]
    );
}

#[test]
fn an_agent_without_a_human_submits_its_outputs_after_a_reminder_and_a_refusal() {
    let llm = Arc::new(ScriptedLlm::new([
        ChatResponse::text("Let me think."),
        ChatResponse::call("c1", "inc", json!({"x": 2})),
        ChatResponse::call("c2", "submit_result", json!({})),
        ChatResponse::call("c3", "submit_result", json!({"total": "3"})),
    ]));
    let mut session = load("summer", &llm).start(json!({"start": "2"})).unwrap();
    let Status::Finished { outputs, .. } = run(&mut session) else {
        panic!("finished")
    };
    // cast to the output's type
    assert_eq!(Value::Object(outputs), json!({"total": 3}));
    let requests = llm.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(
        requests[1].messages.last(),
        Some(&ChatMessage::User {
            content: "No user will answer. Finish by calling `submit_result` with the outputs."
                .into()
        })
    );
    assert_eq!(
        requests[3].messages.last(),
        Some(&ChatMessage::Tool {
            tool_call_id: "c2".into(),
            content: "The outputs were not accepted: `total` is missing.".into()
        })
    );
    let names: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["inc", "submit_result"]);
}

#[test]
fn unknown_tools_and_rejections_go_back_to_the_model() {
    let llm = Arc::new(ScriptedLlm::new([
        ChatResponse::call("c1", "multiply", json!({"x": 2})),
        ChatResponse::call("c2", "read_screen", json!({})),
        ChatResponse::text("Alright."),
    ]));
    let mut session = load("calculator", &llm)
        .start(json!({"user": "Bo"}))
        .unwrap();
    let Status::ToolConfirmation(requests) = run(&mut session) else {
        panic!("a confirmation")
    };
    session.reject(&requests[0].id, "not now").unwrap();
    assert!(matches!(
        run(&mut session),
        Status::UserMessageRequest { .. }
    ));
    let last = llm.requests().pop().unwrap();
    let results: Vec<String> = last
        .messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            "There is no tool named `multiply`. The tools are: inc, read_screen.",
            "The user rejected the call of `read_screen`. Reason: not now"
        ]
    );
}

#[test]
fn a_model_that_fails_or_never_finishes_is_an_error_the_caller_sees() {
    let llm = Arc::new(ScriptedLlm::new([]));
    let mut session = load("summer", &llm).start(json!({"start": "1"})).unwrap();
    let err = agentspec_types::tool::block_on(session.run()).unwrap_err();
    assert_eq!(err.code, "llm-failed");
    assert_eq!(
        err.message,
        "the model failed: the scripted model has no answer left"
    );

    let llm =
        Arc::new(ScriptedLlm::new((0..10).map(|i| {
            ChatResponse::call(format!("c{i}"), "inc", json!({"x": i}))
        })));
    let mut session = load("summer", &llm).start(json!({"start": "1"})).unwrap();
    let err = agentspec_types::tool::block_on(session.run()).unwrap_err();
    assert_eq!(err.code, "iteration-limit");
    assert_eq!(llm.requests().len(), 5);
}

#[test]
fn an_agent_needs_a_model_and_its_inputs() {
    let err = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .build()
        .load(&doc("summer"))
        .err()
        .expect("refused");
    let codes: Vec<(&str, &str)> = err
        .diagnostics
        .iter()
        .map(|d| (d.code, d.pointer.as_str()))
        .collect();
    assert_eq!(codes, [("missing-llm", "")]);
    let llm = Arc::new(ScriptedLlm::new([]));
    let err = load("summer", &llm).start(json!({})).err().unwrap();
    assert_eq!(err.code, "missing-input");
}

#[test]
fn an_agent_node_pauses_inside_the_flow_and_its_outputs_go_on_along_the_data_edges() {
    let llm = Arc::new(ScriptedLlm::new([
        ChatResponse::call("c1", "read_screen", json!({})),
        ChatResponse::call("c2", "inc", json!({"x": 41})),
        ChatResponse::call("c3", "submit_result", json!({"answer": "42"})),
    ]));
    let mut session = load("helpdesk", &llm)
        .start(json!({"question": "What is on my screen, plus one?"}))
        .unwrap();
    let Status::ToolConfirmation(requests) = run(&mut session) else {
        panic!("a confirmation")
    };
    let mut session = through_a_new_process(session, "helpdesk", &llm);
    session.confirm(&requests[0].id).unwrap();
    let Status::ToolRequest(requests) = run(&mut session) else {
        panic!("a client tool call")
    };
    let mut session = through_a_new_process(session, "helpdesk", &llm);
    session
        .append_tool_result(&requests[0].id, json!(41))
        .unwrap();
    let Status::Finished { outputs, messages } = run(&mut session) else {
        panic!("finished")
    };
    assert_eq!(Value::Object(outputs), json!({"answer": "42"}));
    let said: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(said, ["The answer is 42."]);
    // the agent's prompt, its input filled by the flow
    assert_eq!(
        llm.requests()[0].messages,
        [ChatMessage::System {
            content: "Answer: What is on my screen, plus one?".into()
        }]
    );
}

#[test]
fn events_tell_a_ui_what_happens_in_order() {
    let llm = Arc::new(ScriptedLlm::new([
        ChatResponse::call("c1", "inc", json!({"x": 41})),
        ChatResponse::text("It is 42."),
    ]));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let runtime = Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .llm(Arc::clone(&llm))
        .on_event(move |event| {
            let line = match event {
                agentspec_runtime::Event::ModelAnswered(a) => format!(
                    "answer {:?} {:?}",
                    a.content,
                    a.tool_calls.iter().map(|c| &c.name).collect::<Vec<_>>()
                ),
                agentspec_runtime::Event::ToolStarted(r) => format!("start {} {}", r.name, r.args),
                agentspec_runtime::Event::ToolFinished { request, result } => {
                    format!("end {} {result:?}", request.name)
                }
                _ => "other".to_owned(),
            };
            log.lock().unwrap().push(line);
        })
        .build();
    let mut session = runtime
        .load(&doc("calculator"))
        .unwrap()
        .start(json!({"user": "Ada"}))
        .unwrap();
    assert!(matches!(
        run(&mut session),
        Status::UserMessageRequest { .. }
    ));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            r#"answer "" ["inc"]"#,
            r#"start inc {"x":41}"#,
            "end inc Ok(Number(42))",
            r#"answer "It is 42." []"#,
        ]
    );
}
