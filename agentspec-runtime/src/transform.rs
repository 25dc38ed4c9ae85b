//! An agent's transforms: what its model is sent is reshaped before each call, the
//! conversation itself staying as it is.
//!
//! - **MessageSummarizationTransform.** Each message (the system prompt aside) longer than
//!   `max_message_size` characters is sent as `summarized_message_template` with
//!   `{{summary}}` filled: the summary the transform's model gives for one user message,
//!   `summarization_instructions` followed by the message.
//! - **ConversationSummarizationTransform.** When the conversation has more than
//!   `max_num_messages` messages (or more than `max_num_characters` characters), all but the
//!   last `min_num_messages` (a tool's result is kept with the call it answers) are sent as
//!   one user message, `summarized_conversation_template` with the summary of a transcript of
//!   them (`role: text` lines after `summarization_instructions`).
//! - Transforms apply in the order the agent lists them.
//! - **Caches.** A summary is kept in the transform's datastore, in its
//!   `cache_collection_name` collection, under a digest of what was summarized, the
//!   instructions and the model: `cache_key`, `cache_content`, `created_at`, `last_used_at`
//!   (and `prefix_size`, the messages a conversation summary covers). An entry older than
//!   `max_cache_lifetime` seconds is not used; past `max_cache_size` entries, the least
//!   recently used go. Without a datastore the summaries are kept in memory by the runtime.
//!   An `InMemoryCollectionDatastore` lives as long as the [`crate::Runtime`] and its clones;
//!   a `PostgresDatabaseDatastore` is a table of that name (feature `postgres`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::llm::{ChatMessage, ChatRequest, ModelInfo};
use crate::template::render;

/// A datastore of the document.
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) enum DatastorePlan {
    /// Kept by the runtime, under the component's id.
    Memory { id: String },
    /// A PostgreSQL database.
    Postgres(Box<PgConfig>),
}

/// How to reach a PostgreSQL database (the password is a secret: never saved).
#[derive(Clone)]
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) struct PgConfig {
    pub name: String,
    pub host: String,
    pub port: u16,
    pub dbname: String,
    pub user: String,
    pub password: String,
    pub tls: PgTls,
}

/// How a connection to PostgreSQL uses TLS: libpq's `sslmode` and the files it names (paths,
/// read when the runtime first connects).
#[derive(Clone, Default)]
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) struct PgTls {
    pub mode: SslMode,
    /// The certificate authorities that sign the server's certificate (`sslrootcert`).
    pub rootcert: Option<String>,
    /// The client's certificate and its key (`sslcert`, `sslkey`), for a server that asks
    /// for one.
    pub cert: Option<String>,
    pub key: Option<String>,
    /// Certificates revoked (`sslcrl`).
    pub crl: Option<String>,
}

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) enum SslMode {
    /// Never TLS.
    Disable,
    /// Without TLS, then with it when the server refuses a plain connection.
    Allow,
    /// TLS when the server speaks it, else without.
    Prefer,
    /// TLS; the server's certificate is checked when certificate authorities are given.
    #[default]
    Require,
    /// TLS, the server's certificate signed by the given authorities.
    VerifyCa,
    /// TLS, the server's certificate signed by the given authorities and made out to the
    /// host connected to.
    VerifyFull,
}

impl std::fmt::Debug for PgConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgConfig")
            .field("name", &self.name)
            .field("host", &self.host)
            .field("port", &self.port)
            .field("dbname", &self.dbname)
            .finish_non_exhaustive()
    }
}

impl PgConfig {
    /// A connection config's `url`: `[postgres[ql]://]host[:port][/dbname]`.
    pub fn parse_url(url: &str) -> Option<(String, u16, Option<String>)> {
        let rest = url
            .strip_prefix("postgresql://")
            .or_else(|| url.strip_prefix("postgres://"))
            .unwrap_or(url);
        let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
        let (authority, db) = match rest.split_once('/') {
            Some((a, d)) => (a, Some(d.split('?').next().unwrap_or(d).to_owned())),
            None => (rest, None),
        };
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => (h, p.parse().ok()?),
            None => (authority, 5432),
        };
        if host.is_empty() {
            return None;
        }
        Some((host.to_owned(), port, db.filter(|d| !d.is_empty())))
    }
}

/// Where a transform keeps its summaries.
#[derive(Debug, Clone)]
pub(crate) struct CachePlan {
    /// The datastore, by index in `plan.datastores`; `None`: the runtime's memory.
    pub datastore: Option<usize>,
    pub collection: String,
    pub max_size: Option<u64>,
    pub lifetime: Option<f64>,
}

#[derive(Debug, Clone)]
pub(crate) enum TransformKind {
    Message {
        max_message_size: usize,
        template: String,
    },
    Conversation {
        max_num_messages: Option<usize>,
        max_num_characters: Option<usize>,
        min_num_messages: usize,
        template: String,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct TransformPlan {
    pub name: String,
    pub model: ModelInfo,
    pub instructions: String,
    pub kind: TransformKind,
    pub cache: CachePlan,
}

/// A cached summary.
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) struct Entry {
    pub content: String,
    pub created_at: f64,
    pub last_used_at: f64,
    pub prefix_size: Option<i64>,
}

pub(crate) fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The summaries kept in memory, by datastore (or transform), collection and key.
#[derive(Default)]
pub(crate) struct Memory {
    entries: Mutex<HashMap<(String, String), HashMap<String, Entry>>>,
}

impl Memory {
    pub fn get(&self, store: &str, cache: &CachePlan, key: &str) -> Option<String> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let collection = entries.get_mut(&(store.to_owned(), cache.collection.clone()))?;
        let now = now();
        let entry = collection.get_mut(key)?;
        if cache.lifetime.is_some_and(|l| now - entry.created_at > l) {
            collection.remove(key);
            return None;
        }
        entry.last_used_at = now;
        Some(entry.content.clone())
    }

    pub fn put(&self, store: &str, cache: &CachePlan, key: String, entry: Entry) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let collection = entries
            .entry((store.to_owned(), cache.collection.clone()))
            .or_default();
        collection.insert(key, entry);
        if let Some(max) = cache.max_size {
            let max = usize::try_from(max).unwrap_or(usize::MAX);
            while collection.len() > max {
                let oldest = collection
                    .iter()
                    .min_by(|a, b| a.1.last_used_at.total_cmp(&b.1.last_used_at))
                    .map(|(k, _)| k.clone());
                match oldest {
                    Some(k) => collection.remove(&k),
                    None => break,
                };
            }
        }
    }
}

/// A summarization to make: what is summarized, under which cache key.
pub(crate) struct Summarize {
    pub key: String,
    pub request: ChatRequest,
    pub prefix_size: Option<i64>,
}

/// The text of a message, for transcripts and sizes.
fn text_of(message: &ChatMessage) -> (&'static str, &str) {
    match message {
        ChatMessage::System { content } => ("system", content),
        ChatMessage::User { content } => ("user", content),
        ChatMessage::Assistant { content, .. } => ("assistant", content),
        ChatMessage::Tool { content, .. } => ("tool", content),
    }
}

fn key(plan: &TransformPlan, what: &str) -> String {
    crate::props::digest(&format!(
        "{}\u{0}{}\u{0}{}",
        plan.model.model_id, plan.instructions, what
    ))
}

fn summary_request(plan: &TransformPlan, text: String) -> ChatRequest {
    ChatRequest {
        model: plan.model.clone(),
        messages: vec![ChatMessage::User {
            content: format!("{}{text}", plan.instructions),
        }],
        tools: Vec::new(),
        response_format: None,
    }
}

/// The summaries `plan` needs for `request`, in order.
pub(crate) fn needed(plan: &TransformPlan, request: &ChatRequest) -> Vec<Summarize> {
    match &plan.kind {
        TransformKind::Message {
            max_message_size, ..
        } => request
            .messages
            .iter()
            .filter(|m| !matches!(m, ChatMessage::System { .. }))
            .map(|m| text_of(m).1)
            .filter(|text| text.chars().count() > *max_message_size)
            .map(|text| Summarize {
                key: key(plan, text),
                request: summary_request(plan, text.to_owned()),
                prefix_size: None,
            })
            .collect(),
        TransformKind::Conversation { .. } => {
            let Some(cut) = conversation_cut(plan, request) else {
                return Vec::new();
            };
            let transcript = transcript(&request.messages[cut.0..cut.1]);
            vec![Summarize {
                key: key(plan, &transcript),
                request: summary_request(plan, transcript),
                prefix_size: i64::try_from(cut.1 - cut.0).ok(),
            }]
        }
    }
}

fn transcript(messages: &[ChatMessage]) -> String {
    let mut out = String::new();
    for m in messages {
        let (role, text) = text_of(m);
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(role);
        out.push_str(": ");
        out.push_str(text);
    }
    out
}

/// The messages a conversation summary replaces, `start..end` in the request: none when
/// the conversation is within the limits.
fn conversation_cut(plan: &TransformPlan, request: &ChatRequest) -> Option<(usize, usize)> {
    let TransformKind::Conversation {
        max_num_messages,
        max_num_characters,
        min_num_messages,
        ..
    } = &plan.kind
    else {
        return None;
    };
    let start = request
        .messages
        .iter()
        .take_while(|m| matches!(m, ChatMessage::System { .. }))
        .count();
    let count = request.messages.len() - start;
    let characters: usize = request.messages[start..]
        .iter()
        .map(|m| text_of(m).1.chars().count())
        .sum();
    let over = max_num_messages.is_some_and(|max| count > max)
        || max_num_characters.is_some_and(|max| characters > max);
    if !over {
        return None;
    }
    let mut end = request.messages.len() - (*min_num_messages).min(count);
    // a tool's result stays with the call it answers
    while end > start && matches!(request.messages[end], ChatMessage::Tool { .. }) {
        end -= 1;
    }
    (end > start).then_some((start, end))
}

/// `request` reshaped by `plan`, given the summaries [`needed`] asked for (in its order).
pub(crate) fn apply(plan: &TransformPlan, request: &mut ChatRequest, summaries: &[String]) {
    match &plan.kind {
        TransformKind::Message {
            max_message_size,
            template,
        } => {
            let mut summaries = summaries.iter();
            for m in &mut request.messages {
                let content = match m {
                    ChatMessage::System { .. } => continue,
                    ChatMessage::User { content }
                    | ChatMessage::Assistant { content, .. }
                    | ChatMessage::Tool { content, .. } => content,
                };
                if content.chars().count() > *max_message_size
                    && let Some(summary) = summaries.next()
                {
                    *content = fill(template, summary);
                }
            }
        }
        TransformKind::Conversation { template, .. } => {
            if let (Some((start, end)), Some(summary)) =
                (conversation_cut(plan, request), summaries.first())
            {
                request.messages.splice(
                    start..end,
                    [ChatMessage::User {
                        content: fill(template, summary),
                    }],
                );
            }
        }
    }
}

fn fill(template: &str, summary: &str) -> String {
    let summary = serde_json::Value::String(summary.to_owned());
    render(template, |name| (name == "summary").then_some(&summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(kind: TransformKind) -> TransformPlan {
        TransformPlan {
            name: "t".into(),
            model: ModelInfo::default(),
            instructions: "Sum up: ".into(),
            kind,
            cache: CachePlan {
                datastore: None,
                collection: "c".into(),
                max_size: Some(2),
                lifetime: Some(100.0),
            },
        }
    }

    fn request(texts: &[&str]) -> ChatRequest {
        let mut messages = vec![ChatMessage::System {
            content: "sys".into(),
        }];
        messages.extend(texts.iter().map(|t| ChatMessage::User {
            content: (*t).into(),
        }));
        ChatRequest {
            model: ModelInfo::default(),
            messages,
            tools: Vec::new(),
            response_format: None,
        }
    }

    #[test]
    fn long_messages_are_summarized() {
        let p = plan(TransformKind::Message {
            max_message_size: 5,
            template: "S: {{summary}}".into(),
        });
        let mut r = request(&["short", "much longer", "also too long"]);
        let needed = needed(&p, &r);
        assert_eq!(needed.len(), 2);
        let ChatMessage::User { content } = &needed[0].request.messages[0] else {
            panic!()
        };
        assert_eq!(content, "Sum up: much longer");
        apply(&p, &mut r, &["a".into(), "b".into()]);
        let texts: Vec<&str> = r.messages.iter().map(|m| text_of(m).1).collect();
        assert_eq!(texts, ["sys", "short", "S: a", "S: b"]);
    }

    #[test]
    fn a_long_conversation_keeps_its_last_messages() {
        let p = plan(TransformKind::Conversation {
            max_num_messages: Some(3),
            max_num_characters: None,
            min_num_messages: 1,
            template: "Before: {{summary}}".into(),
        });
        let mut short = request(&["a", "b", "c"]);
        assert!(needed(&p, &short).is_empty());
        apply(&p, &mut short, &[]);
        assert_eq!(short.messages.len(), 4);
        let mut long = request(&["a", "b", "c", "d"]);
        let needed = needed(&p, &long);
        assert_eq!(needed[0].prefix_size, Some(3));
        let ChatMessage::User { content } = &needed[0].request.messages[0] else {
            panic!()
        };
        assert_eq!(content, "Sum up: user: a\nuser: b\nuser: c");
        apply(&p, &mut long, &["abc".into()]);
        let texts: Vec<&str> = long.messages.iter().map(|m| text_of(m).1).collect();
        assert_eq!(texts, ["sys", "Before: abc", "d"]);
    }

    #[test]
    fn the_memory_cache_forgets_old_and_least_used_entries() {
        let p = plan(TransformKind::Message {
            max_message_size: 1,
            template: String::new(),
        });
        let memory = Memory::default();
        let entry = |content: &str, at: f64| Entry {
            content: content.into(),
            created_at: at,
            last_used_at: at,
            prefix_size: None,
        };
        let now = now();
        memory.put("s", &p.cache, "old".into(), entry("x", now - 1000.0));
        assert_eq!(memory.get("s", &p.cache, "old"), None, "past its lifetime");
        memory.put("s", &p.cache, "a".into(), entry("A", now - 3.0));
        memory.put("s", &p.cache, "b".into(), entry("B", now - 2.0));
        assert_eq!(memory.get("s", &p.cache, "a").as_deref(), Some("A"));
        memory.put("s", &p.cache, "c".into(), entry("C", now - 1.0));
        assert_eq!(
            memory.get("s", &p.cache, "b"),
            None,
            "the least recently used went"
        );
        assert_eq!(memory.get("s", &p.cache, "a").as_deref(), Some("A"));
        assert_eq!(memory.get("other", &p.cache, "a"), None);
    }

    #[test]
    fn postgres_urls_read_as_libpq_reads_them() {
        assert_eq!(
            PgConfig::parse_url("localhost:5432"),
            Some(("localhost".into(), 5432, None))
        );
        assert_eq!(
            PgConfig::parse_url("postgresql://u@db.example:6543/app?x=1"),
            Some(("db.example".into(), 6543, Some("app".into())))
        );
        assert_eq!(PgConfig::parse_url("db"), Some(("db".into(), 5432, None)));
        assert_eq!(PgConfig::parse_url(":1"), None);
    }
}
