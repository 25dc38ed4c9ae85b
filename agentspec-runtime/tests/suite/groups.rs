//! Swarm, ManagerWorkers and SpecializedAgent against a scripted model: messages between
//! members in their own threads, answers going back to the caller, handoffs, refusals, and
//! a session saved and resumed mid-conversation.

use std::sync::Arc;

use agentspec_runtime::llm::{ChatMessage, ChatRequest, ChatResponse, ScriptedLlm};
use agentspec_runtime::{Loaded, Runtime, Status};
use agentspec_types::Toolbox;
use serde_json::{Value, json};

use super::{IncTool, doc, resumed_in, run};

fn load(name: &str, llm: &Arc<ScriptedLlm>) -> Loaded {
    Runtime::builder()
        .toolbox(Toolbox::new().with(IncTool).unwrap())
        .llm(Arc::clone(llm))
        .build()
        .load(&doc(name))
        .expect("loads")
}

fn system(request: &ChatRequest) -> &str {
    match &request.messages[0] {
        ChatMessage::System { content } => content,
        other => panic!("{other:?}"),
    }
}

fn tools(request: &ChatRequest) -> Vec<&str> {
    request.tools.iter().map(|t| t.name.as_str()).collect()
}

/// The texts of a request's messages after the system prompt.
fn texts(request: &ChatRequest) -> Vec<String> {
    request.messages[1..]
        .iter()
        .map(|m| match m {
            ChatMessage::User { content } => format!("user: {content}"),
            ChatMessage::Assistant {
                content,
                tool_calls,
            } if tool_calls.is_empty() => format!("agent: {content}"),
            ChatMessage::Assistant { tool_calls, .. } => format!("calls: {}", tool_calls[0].name),
            ChatMessage::Tool { content, .. } => format!("tool: {content}"),
            ChatMessage::System { content } => format!("system: {content}"),
        })
        .collect()
}

#[test]
fn a_swarm_messages_in_threads_hands_over_and_resumes_in_a_new_process() {
    let llm = Arc::new(ScriptedLlm::new([
        ChatResponse::text("How can I help?"),
        ChatResponse::call(
            "s0",
            "send_message",
            json!({"recipient": "sales", "message": "?"}),
        ),
        ChatResponse::call(
            "s1",
            "send_message",
            json!({"recipient": "billing", "message": "Check invoice 41."}),
        ),
        ChatResponse::call("i1", "inc", json!({"x": 41})),
        ChatResponse::text("The total is 42."),
        ChatResponse::call("h1", "handoff_conversation", json!({"recipient": "tech"})),
        ChatResponse::text("Tech here: your invoice says 42. What is broken?"),
        ChatResponse::text("Fixed."),
    ]));
    let loaded = load("swarm", &llm);
    let mut session = loaded.start(json!({})).unwrap();
    let Status::UserMessageRequest { messages } = run(&mut session) else {
        panic!("the first agent greets")
    };
    assert_eq!(messages[0].content, "How can I help?");
    session.append_user_message("My invoice is wrong.");
    let Status::UserMessageRequest { messages } = run(&mut session) else {
        panic!("tech asks")
    };
    assert_eq!(
        messages.last().unwrap().content,
        "Tech here: your invoice says 42. What is broken?"
    );
    // the session is saved with tech as the main agent, and goes on in a new process
    let mut session = resumed_in(session, load("swarm", &llm));
    session.append_user_message("The printer.");
    let Status::UserMessageRequest { messages } = run(&mut session) else {
        panic!("tech answers")
    };
    assert_eq!(messages.last().unwrap().content, "Fixed.");

    let requests = llm.requests();
    assert_eq!(requests.len(), 8);
    // triage reaches billing and tech, by messages or by handing over
    assert_eq!(system(&requests[1]), "Route the user.");
    assert_eq!(
        tools(&requests[1]),
        ["send_message", "handoff_conversation"]
    );
    assert!(
        requests[1].tools[0]
            .description
            .contains("billing (Answers questions on invoices.)"),
        "{}",
        requests[1].tools[0].description
    );
    // a recipient it cannot reach is refused, naming the ones it can
    assert!(
        texts(&requests[2])
            .last()
            .unwrap()
            .contains("No agent named `sales` can be reached: the recipients are billing, tech."),
        "{:?}",
        texts(&requests[2])
    );
    // billing answers in its own thread with triage, with its own prompt and tools
    assert_eq!(system(&requests[3]), "You handle invoices.");
    assert_eq!(texts(&requests[3]), ["user: Check invoice 41."]);
    assert_eq!(
        tools(&requests[3]),
        ["inc", "send_message", "handoff_conversation"]
    );
    assert_eq!(
        texts(&requests[4]),
        ["user: Check invoice 41.", "calls: inc", "tool: 42"]
    );
    // its answer is the result of triage's call
    assert_eq!(
        texts(&requests[5]).last().unwrap(),
        "tool: The total is 42."
    );
    // tech takes over the user's conversation
    assert_eq!(system(&requests[6]), "You fix things.");
    assert_eq!(
        texts(&requests[6]),
        [
            "agent: How can I help?",
            "user: My invoice is wrong.",
            "calls: send_message",
            "tool: No agent named `sales` can be reached: the recipients are billing, tech.",
            "calls: send_message",
            "tool: The total is 42.",
            "calls: handoff_conversation",
            "tool: The conversation is now with tech.",
        ]
    );
    assert!(tools(&requests[6]).is_empty(), "tech reaches no one");
    assert_eq!(texts(&requests[7]).last().unwrap(), "user: The printer.");
}

#[test]
fn a_manager_gives_work_to_its_workers_who_answer_it() {
    let llm = Arc::new(ScriptedLlm::new([
        ChatResponse::call(
            "m1",
            "send_message",
            json!({"recipient": "adder", "message": "Add one to 5."}),
        ),
        ChatResponse::call("i1", "inc", json!({"x": 5})),
        ChatResponse::text("6"),
        ChatResponse::call(
            "m2",
            "send_message",
            json!({"recipient": "writer", "message": "Write 6 in words."}),
        ),
        ChatResponse::call(
            "w1",
            "send_message",
            json!({"recipient": "lead", "message": "Why?"}),
        ),
        ChatResponse::text("six"),
        ChatResponse::text("The answer is six."),
    ]));
    let mut session = load("team", &llm).start(json!({})).unwrap();
    session.append_user_message("What is 5 + 1, in words?");
    let Status::UserMessageRequest { messages } = run(&mut session) else {
        panic!("the manager answers")
    };
    assert_eq!(messages.last().unwrap().content, "The answer is six.");
    let requests = llm.requests();
    assert_eq!(
        tools(&requests[0]),
        ["send_message"],
        "a manager does not hand over"
    );
    assert_eq!(
        requests[0].tools[0].parameters["properties"]["recipient"]["enum"],
        json!(["adder", "writer"])
    );
    assert_eq!(tools(&requests[1]), ["inc"], "a worker reaches no one");
    assert_eq!(texts(&requests[2]).last().unwrap(), "tool: 6");
    // a worker has no send_message: its call is a tool it does not have
    assert!(
        texts(&requests[5]).last().unwrap()
            == "tool: There is no tool named `send_message`, and no tool to call: answer in text.",
        "{:?}",
        texts(&requests[5])
    );
    assert_eq!(
        texts(&requests[6])[1..],
        [
            "calls: send_message",
            "tool: 6",
            "calls: send_message",
            "tool: six"
        ]
    );
    // the workers' threads stay out of the user's conversation
    let seen: Vec<&str> = session
        .messages()
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    assert!(!seen.contains(&"Add one to 5."), "{seen:?}");
}

/// Runs `swarm_outputs` (a Swarm in a flow's AgentNode) with `script` to its end, which
/// gives the Swarm's output `summary`; the requests its model got.
fn swarm_outputs_finish(script: Vec<ChatResponse>, summary: &str) -> Vec<ChatRequest> {
    let llm = Arc::new(ScriptedLlm::new(script));
    let mut session = load("swarm_outputs", &llm).start(json!({})).unwrap();
    let Status::Finished { outputs, .. } = run(&mut session) else {
        panic!("the Swarm's AgentNode finishes the flow")
    };
    assert_eq!(Value::Object(outputs), json!({ "summary": summary }));
    llm.requests()
}

#[test]
fn a_swarm_in_a_flow_finishes_with_its_own_outputs_from_its_main_agent() {
    let script = vec![
        ChatResponse::call("h1", "handoff_conversation", json!({"recipient": "fixer"})),
        // fixer's own output is not what the Swarm asks of the agent talking with the user
        ChatResponse::call("s1", "submit_result", json!({"ticket": 7})),
        ChatResponse::call(
            "s2",
            "submit_result",
            json!({"summary": "The printer is fixed."}),
        ),
    ];
    let requests = swarm_outputs_finish(script, "The printer is fixed.");
    assert_eq!(requests.len(), 3);
    assert_eq!(
        tools(&requests[0]),
        ["send_message", "handoff_conversation", "submit_result"]
    );
    let submit = |r: &ChatRequest| {
        let tool = r.tools.iter().find(|t| t.name == "submit_result").unwrap();
        tool.parameters["required"].clone()
    };
    assert_eq!(submit(&requests[0]), json!(["summary"]));
    // handed the conversation, fixer submits the Swarm's outputs, not its own
    assert_eq!(system(&requests[1]), "You fix things.");
    assert_eq!(submit(&requests[1]), json!(["summary"]));
    let refused = texts(&requests[2]).last().unwrap().clone();
    assert!(
        refused.starts_with("tool: The outputs were not accepted"),
        "{refused}"
    );
}

#[test]
fn a_swarm_member_written_to_answers_in_text_with_nothing_to_submit() {
    let script = vec![
        ChatResponse::call(
            "m1",
            "send_message",
            json!({"recipient": "fixer", "message": "Is the printer fixed?"}),
        ),
        // in the private thread fixer has no `submit_result`, not even for its own `ticket`
        ChatResponse::call("s1", "submit_result", json!({"ticket": 7})),
        ChatResponse::text("Yes, ticket 7."),
        ChatResponse::call(
            "s2",
            "submit_result",
            json!({"summary": "Fixed: ticket 7."}),
        ),
    ];
    let requests = swarm_outputs_finish(script, "Fixed: ticket 7.");
    assert_eq!(requests.len(), 4);
    assert_eq!(system(&requests[1]), "You fix things.");
    assert!(tools(&requests[1]).is_empty(), "{:?}", tools(&requests[1]));
    let refused = texts(&requests[2]).last().unwrap().clone();
    assert!(
        refused.starts_with("tool: There is no tool named `submit_result`"),
        "{refused}"
    );
    // the text answer is the result of desk_agent's message
    assert_eq!(texts(&requests[3]).last().unwrap(), "tool: Yes, ticket 7.");
    assert_eq!(tools(&requests[3]).last(), Some(&"submit_result"));
}

#[test]
fn a_manager_submits_the_groups_outputs_and_a_worker_answers_in_text() {
    let llm = Arc::new(ScriptedLlm::new([
        ChatResponse::call(
            "m1",
            "send_message",
            json!({"recipient": "counter", "message": "Add one to 1."}),
        ),
        ChatResponse::call("i1", "inc", json!({"x": 1})),
        ChatResponse::text("2"),
        ChatResponse::call("s1", "submit_result", json!({"x": 2})),
    ]));
    let mut session = load("team_outputs", &llm).start(json!({})).unwrap();
    session.append_user_message("Count one up from 1.");
    // saved while the manager waits for its model, finished in a new process
    let mut session = resumed_in(session, load("team_outputs", &llm));
    let Status::Finished { outputs, .. } = run(&mut session) else {
        panic!("the manager submits the group's outputs")
    };
    assert_eq!(Value::Object(outputs), json!({"x": 2}));

    let requests = llm.requests();
    assert_eq!(requests.len(), 4);
    // the manager's own output (`ticket`) gives way to the group's (`x`)
    assert_eq!(tools(&requests[0]), ["send_message", "submit_result"]);
    let submit = &requests[0].tools[1].parameters;
    assert_eq!(submit["required"], json!(["x"]));
    assert!(submit["properties"].get("ticket").is_none(), "{submit}");
    // the worker, answering the manager, has nothing to submit
    assert_eq!(tools(&requests[1]), ["inc"]);
    assert_eq!(texts(&requests[3]).last().unwrap(), "tool: 2");
}

#[test]
fn a_specialized_agent_adds_instructions_and_tools_and_overrides_the_human() {
    let llm = Arc::new(ScriptedLlm::new([ChatResponse::text(
        "Two plus two is four.",
    )]));
    let loaded = load("specialized", &llm);
    let mut session = loaded.start(json!({"topic": "arithmetic"})).unwrap();
    // no human in the loop and no outputs: the text answer ends the session
    let Status::Finished { messages, .. } = run(&mut session) else {
        panic!("finishes")
    };
    assert_eq!(messages[0].content, "Two plus two is four.");
    let request = &llm.requests()[0];
    assert_eq!(
        system(request),
        "You are helpful.\n\nTalk only about arithmetic."
    );
    assert_eq!(tools(request), ["inc", "read_screen"]);
    let e = loaded
        .start(json!({"topic": "x", "subject": "y"}))
        .err()
        .unwrap();
    assert_eq!(e.code, "unknown-input");
}
