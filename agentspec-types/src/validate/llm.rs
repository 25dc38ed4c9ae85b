//! LLM configuration rules: how a DbmsVectorChainLlmConfig reaches its model.

#[allow(
    clippy::wildcard_imports,
    reason = "the rules share the module's helpers"
)]
use super::*;
use crate::DbmsVectorChainLlmConfig;

/// The providers Oracle Database may call on the local host, without a database credential.
const LOCAL_PROVIDERS: [&str; 2] = ["openai", "ollama"];

/// The fields other LLM configurations authenticate with, which a DbmsVectorChainLlmConfig
/// inherits and refuses.
const INHERITED: [&str; 3] = ["api_key", "api_type", "api_provider"];

/// A DbmsVectorChainLlmConfig authenticates through a credential stored in the database
/// (`credential_name`), or, for a local OpenAI or Ollama provider, through none (`host:
/// local`): exactly one of the two, and never with an `api_key`, `api_type` or
/// `api_provider`. Its `model_id`, `provider`, `url` and `credential_name` are not empty,
/// and `host` can only be `local`.
pub(super) fn dbms_vector_chain(report: &mut Report, body: &dyn ComponentInfo, pointer: &str) {
    let Some(c) = typed::<DbmsVectorChainLlmConfig>(body) else {
        return;
    };
    let text = [
        ("model_id", Some(&c.model_id)),
        ("provider", Some(&c.provider)),
        ("url", Some(&c.url)),
        ("credential_name", c.credential_name.as_ref()),
    ];
    for (field, value) in text {
        if value.is_some_and(String::is_empty) {
            report.error(
                "invalid-length",
                body,
                token(pointer, field),
                format!("`{field}` cannot be empty"),
            );
        }
    }
    match (c.host.as_deref(), &c.credential_name) {
        (Some(host), _) if host != "local" => report.error(
            "invalid-value",
            body,
            token(pointer, "host"),
            format!("`host` can only be `local`, not `{host}`"),
        ),
        (None, None) => report.error(
            "dbms-credential",
            body,
            pointer.to_owned(),
            "a DbmsVectorChainLlmConfig needs `credential_name`, the database credential it calls its provider with, unless `host` is `local`",
        ),
        (Some(_), Some(_)) => report.error(
            "dbms-credential",
            body,
            token(pointer, "credential_name"),
            "`credential_name` and `host` exclude each other: a provider on the local host is called without a database credential",
        ),
        (Some(_), None) if !LOCAL_PROVIDERS.contains(&c.provider.as_str()) => report.error(
            "dbms-credential",
            body,
            token(pointer, "host"),
            format!(
                "`host: local` is for the `openai` and `ollama` providers, not `{}`",
                c.provider
            ),
        ),
        _ => {}
    }
    for field in INHERITED {
        if c.extra.get(field).is_some_and(|v| !v.is_null()) {
            report.error(
                "dbms-credential",
                body,
                token(pointer, field),
                format!("a DbmsVectorChainLlmConfig takes no `{field}`: it authenticates with `credential_name`, or not at all on the local host"),
            );
        }
    }
}
