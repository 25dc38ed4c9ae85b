//! A transform's cache in PostgreSQL over TLS, in each `sslmode`, against the server
//! `scripts/pg-tls.sh` starts (CI runs it): a certificate authority's certificate for the
//! server, made out to `localhost` only, and a role `certuser` that logs in with a client
//! certificate. Ignored without that server.

use std::path::PathBuf;

use agentspec_runtime::llm::{ChatResponse, ScriptedLlm};
use agentspec_types::Document;
use serde_json::{Value, json};

use crate::answered;

/// What `scripts/pg-tls.sh` says of its server.
struct Server {
    /// The folder of the certificates and keys.
    tls: PathBuf,
    port: String,
    password: String,
}

impl Server {
    fn from_env() -> Server {
        let var = |name: &str| {
            std::env::var(name)
                .unwrap_or_else(|_| panic!("${name} is not set: run scripts/pg-tls.sh"))
        };
        Server {
            tls: PathBuf::from(var("AGENTSPEC_PG_TLS")),
            port: var("AGENTSPEC_PG_TLS_PORT"),
            password: var("AGENTSPEC_PG_TLS_PASSWORD"),
        }
    }

    fn file(&self, name: &str) -> Value {
        json!(self.tls.join(name).display().to_string())
    }
}

/// An agent whose user messages past 20 characters are summarized, the summaries cached in
/// the table `summaries` of the database `postgres`, reached as `connection` says.
fn agent(connection: Value) -> Document {
    let mut config = json!({
        "component_type": "TlsPostgresDatabaseConnectionConfig", "id": "pg", "name": "pg",
        "description": null, "metadata": {}, "sslcert": null, "sslkey": null,
        "sslrootcert": null, "sslcrl": null
    });
    for (key, value) in connection.as_object().expect("an object") {
        config[key] = value.clone();
    }
    let schema = json!({"type": "object", "properties": {
        "cache_key": {"type": "string"}, "cache_content": {"type": "string"},
        "created_at": {"type": "number"}, "last_used_at": {"type": "number"}}});
    let datastore = json!({
        "component_type": "PostgresDatabaseDatastore", "id": "ds", "name": "ds",
        "description": null, "metadata": {}, "datastore_schema": {"summaries": schema},
        "connection_config": config
    });
    let llm = json!({"$component_ref": "llm"});
    let transform = json!({
        "component_type": "MessageSummarizationTransform", "id": "t", "name": "t",
        "description": null, "metadata": {}, "llm": llm, "max_message_size": 20,
        "summarization_instructions": "Summarize: ",
        "summarized_message_template": "Summary: {{summary}}",
        "max_cache_size": 100, "max_cache_lifetime": 3600,
        "cache_collection_name": "summaries", "datastore": datastore
    });
    let model = json!({
        "component_type": "VllmConfig", "id": "llm", "name": "llm", "description": null,
        "metadata": {}, "default_generation_parameters": null,
        "url": "http://127.0.0.1:5099", "model_id": "scripted", "api_type": "chat_completions",
        "api_key": null
    });
    let agent = json!({
        "component_type": "Agent", "id": "a", "name": "a", "description": null, "metadata": {},
        "inputs": [], "outputs": [], "llm_config": llm, "system_prompt": "Answer.",
        "tools": [], "toolboxes": [], "human_in_the_loop": true, "transforms": [transform],
        "$referenced_components": {"llm": model}, "agentspec_version": "26.3.1"
    });
    Document::from_value(&agent).expect("the agent loads")
}

/// Sends `message` to the agent: its summary is looked up in the cache (and made and kept
/// there when missing), then the agent answers. How many requests the model got, or the
/// error.
async fn send(doc: &Document, message: &str, answers: Vec<ChatResponse>) -> Result<usize, String> {
    answered(doc, ScriptedLlm::new(answers), message)
        .await
        .map(|requests| requests.len())
}

/// Summarized and answered: two requests, the summary kept.
fn summarized(summary: &str) -> Vec<ChatResponse> {
    vec![ChatResponse::text(summary), ChatResponse::text("Noted.")]
}

#[tokio::test]
#[ignore = "needs the PostgreSQL with TLS that scripts/pg-tls.sh starts"]
async fn a_cache_in_postgresql_is_reached_over_tls_in_each_sslmode() {
    let server = Server::from_env();
    let localhost = json!(format!("localhost:{}/postgres", server.port));
    let by_address = json!(format!("127.0.0.1:{}/postgres", server.port));
    let postgres = |url: &Value, mode: &str| json!({"url": url, "sslmode": mode, "user": "postgres", "password": server.password});
    let with = |mut connection: Value, key: &str, value: Value| {
        connection[key] = value;
        connection
    };
    let authority = server.file("ca.crt");

    // each mode connects and keeps a summary: the message is new to the cache, so the
    // model is asked for its summary, then for the answer
    let connects = [
        ("disable", postgres(&localhost, "disable")),
        ("allow", postgres(&localhost, "allow")),
        ("prefer", postgres(&localhost, "prefer")),
        ("require", postgres(&localhost, "require")),
        (
            "require, checked against the authority",
            with(
                postgres(&localhost, "require"),
                "sslrootcert",
                authority.clone(),
            ),
        ),
        (
            "verify-ca, by address (a name the certificate is not made out to)",
            with(
                postgres(&by_address, "verify-ca"),
                "sslrootcert",
                authority.clone(),
            ),
        ),
        (
            "verify-full",
            with(
                postgres(&localhost, "verify-full"),
                "sslrootcert",
                authority.clone(),
            ),
        ),
        (
            "allow: without TLS refused (a role the server admits over TLS only), then with it",
            json!({"url": localhost, "sslmode": "allow", "user": "certuser",
                "password": "not checked", "sslcert": server.file("client.crt"),
                "sslkey": server.file("client.key")}),
        ),
        (
            "verify-full, a client certificate in place of a password",
            json!({"url": localhost, "sslmode": "verify-full", "user": "certuser",
                "password": "not checked", "sslrootcert": authority,
                "sslcert": server.file("client.crt"), "sslkey": server.file("client.key")}),
        ),
    ];
    for (i, (case, connection)) in connects.into_iter().enumerate() {
        let doc = agent(connection);
        let message = format!("Case {i}: a message long enough to be summarized.");
        let requests = send(&doc, &message, summarized(&format!("case {i}"))).await;
        assert_eq!(requests, Ok(2), "{case}");
        // the summary is read back from the cache: the model is asked for the answer only
        let requests = send(&doc, &message, vec![ChatResponse::text("Noted again.")]).await;
        assert_eq!(requests, Ok(1), "{case}, read back");
    }

    // and each refusal says why
    let refused = [
        (
            "verify-full, by address",
            with(
                postgres(&by_address, "verify-full"),
                "sslrootcert",
                authority.clone(),
            ),
            "certificate not valid for name",
        ),
        (
            "verify-full, another authority",
            with(
                postgres(&localhost, "verify-full"),
                "sslrootcert",
                server.file("other-ca.crt"),
            ),
            "invalid peer certificate: UnknownIssuer",
        ),
        (
            "allow, the client certificate's role without its certificate",
            json!({"url": localhost, "sslmode": "allow", "user": "certuser",
                "password": "not checked"}),
            "; with TLS: ",
        ),
        (
            "the client certificate's role without its certificate",
            json!({"url": localhost, "sslmode": "require", "user": "certuser",
                "password": "not checked"}),
            "connection requires a valid client certificate",
        ),
    ];
    for (case, connection, why) in refused {
        let doc = agent(connection);
        let error = send(
            &doc,
            "A message long enough to be summarized.",
            summarized("s"),
        )
        .await
        .expect_err(case);
        assert!(error.starts_with("llm-failed: "), "{case}: {error}");
        assert!(error.contains("datastore `ds` at "), "{case}: {error}");
        assert!(error.contains(why), "{case}: {error}");
    }
}
