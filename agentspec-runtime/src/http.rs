//! ApiNode and RemoteTool: an HTTP request made from the component's templates.
//!
//! - The URL, the `data`, the `query_params` and the `headers` (keys and values, at any
//!   depth) have their placeholders filled from the inputs; `sensitive_headers` are added
//!   over `headers` and never leave the plan (a saved session holds none).
//! - The body: a string `data` is sent as it is (as `text/plain` unless the headers give a
//!   type); an object or a list as JSON, or, with `Content-Type:
//!   application/x-www-form-urlencoded`, an object as form fields. A GET or HEAD sends no
//!   body, nor does any request whose `data` is empty.
//! - `url_allow_list`: the URL, once filled, must have the scheme, host and port of an entry
//!   and start with its path (the query and the fragment are not compared); else the call
//!   is refused before anything is sent.
//! - An answer outside 2xx is a failure naming the status and the start of the body. The
//!   `retry_policy` (or its defaults: 2 retries, 1 s doubling up to 8 s) retries failed
//!   connections, 408, 429 and 5xx, never 400, 401, 403 or 422; `request_timeout` bounds
//!   each attempt (60 s when not given).
//! - The outputs ([`outputs`]): `http_status_code` is the status, `http_response` the body
//!   as text, and any other output the field of that name in the JSON body; one output the
//!   body has no field for gets the whole body (its JSON, else its text). A RemoteTool an
//!   agent calls gives the body's text, as it came, as the call's result (as wayflowcore does).

// The plan's types are the same in every build. Without the `http` feature a document with
// ApiNodes or RemoteTools is refused at load (`unsupported-component`, naming the feature),
// and what only the client reads is unused.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use serde_json::{Map, Value};

use agentspec_types::JsonObject;

use crate::props::Prop;
use crate::template::{render, render_value, value_text};

/// The retries of a call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Retry {
    /// Retries after the first attempt.
    pub retries: u32,
    pub initial_delay: f64,
    pub max_delay: f64,
    pub factor: f64,
    /// Seconds each attempt may take.
    pub timeout: f64,
    pub any_5xx: bool,
}

impl Default for Retry {
    fn default() -> Self {
        Retry {
            retries: 2,
            initial_delay: 1.0,
            max_delay: 8.0,
            factor: 2.0,
            timeout: 60.0,
            any_5xx: true,
        }
    }
}

impl Retry {
    pub fn from_policy(policy: Option<&agentspec_types::RetryPolicy>) -> Self {
        let Some(p) = policy else {
            return Retry::default();
        };
        Retry {
            retries: u32::try_from(p.max_attempts.max(0)).unwrap_or(u32::MAX),
            initial_delay: p.initial_retry_delay.max(0.0),
            max_delay: p.max_retry_delay.max(0.0),
            factor: p.backoff_factor.max(1.0),
            timeout: p.request_timeout.filter(|t| *t > 0.0).unwrap_or(60.0),
            any_5xx: p.service_error_retry_on_any_5xx,
        }
    }
}

/// The request an ApiNode or a RemoteTool makes, as the document writes it.
#[derive(Debug, Clone)]
pub(crate) struct HttpCall {
    /// The component's name, for messages.
    pub name: String,
    pub url: String,
    pub method: String,
    pub data: Value,
    pub query_params: JsonObject,
    pub headers: JsonObject,
    /// Secrets: added to the headers when the request is sent, never saved.
    pub sensitive_headers: JsonObject,
    pub url_allow_list: Option<Vec<String>>,
    pub retry: Retry,
}

/// What is sent: the call with its placeholders filled.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Filled {
    pub method: String,
    pub url: String,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Option<(String, Vec<u8>)>,
}

/// A JSON value as the text of a query parameter, a header or a form field.
fn field_text(value: &Value) -> String {
    value_text(value)
}

/// Adds `key = value` pairs: a list gives the key once per item.
fn pairs(object: &Map<String, Value>, out: &mut Vec<(String, String)>) {
    for (key, value) in object {
        match value {
            Value::Array(items) => {
                out.extend(items.iter().map(|v| (key.clone(), field_text(v))));
            }
            other => out.push((key.clone(), field_text(other))),
        }
    }
}

impl HttpCall {
    /// The request with the placeholders filled from `inputs`.
    pub fn fill(&self, inputs: &Map<String, Value>) -> Result<Filled, String> {
        let lookup = |name: &str| inputs.get(name);
        let url = render(&self.url, lookup);
        let method = render(&self.method, lookup).trim().to_uppercase();
        let mut query = Vec::new();
        if let Value::Object(q) = render_value(&Value::Object(self.query_params.clone()), &lookup) {
            pairs(&q, &mut query);
        }
        let mut headers = Vec::new();
        if let Value::Object(h) = render_value(&Value::Object(self.headers.clone()), &lookup) {
            pairs(&h, &mut headers);
        }
        for (key, value) in &self.sensitive_headers {
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case(key));
            headers.push((key.clone(), field_text(&render_value(value, &lookup))));
        }
        let content_type = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.to_ascii_lowercase());
        let data = render_value(&self.data, &lookup);
        let empty = match &data {
            Value::Null => true,
            Value::Object(m) => m.is_empty(),
            Value::String(s) => s.is_empty(),
            _ => false,
        };
        let body = if matches!(method.as_str(), "GET" | "HEAD") || empty {
            None
        } else {
            let form = content_type
                .as_deref()
                .is_some_and(|t| t.contains("application/x-www-form-urlencoded"));
            Some(match (&data, form) {
                (Value::String(text), _) => (
                    content_type
                        .clone()
                        .unwrap_or_else(|| "text/plain; charset=utf-8".to_owned()),
                    text.clone().into_bytes(),
                ),
                (Value::Object(fields), true) => {
                    let mut list = Vec::new();
                    pairs(fields, &mut list);
                    let mut text = String::new();
                    for (i, (k, v)) in list.iter().enumerate() {
                        if i > 0 {
                            text.push('&');
                        }
                        form_encode(k, &mut text);
                        text.push('=');
                        form_encode(v, &mut text);
                    }
                    (
                        "application/x-www-form-urlencoded".to_owned(),
                        text.into_bytes(),
                    )
                }
                (other, _) => (
                    content_type
                        .clone()
                        .unwrap_or_else(|| "application/json".to_owned()),
                    other.to_string().into_bytes(),
                ),
            })
        };
        if body.is_some() {
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
        }
        if let Some(allowed) = &self.url_allow_list {
            check_allowed(&url, allowed)?;
        }
        Ok(Filled {
            method,
            url,
            query,
            headers,
            body,
        })
    }
}

impl Filled {
    /// The URL with the query parameters added.
    pub fn full_url(&self) -> String {
        let mut url = self.url.clone();
        for (i, (k, v)) in self.query.iter().enumerate() {
            url.push(if i == 0 && !self.url.contains('?') {
                '?'
            } else {
                '&'
            });
            form_encode(k, &mut url);
            url.push('=');
            form_encode(v, &mut url);
        }
        url
    }
}

/// `application/x-www-form-urlencoded` encoding of one key or value.
fn form_encode(text: &str, out: &mut String) {
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
}

/// The parts of a URL an allow list compares: scheme, host, port (the scheme's when not
/// written) and path.
fn url_parts(url: &str) -> Option<(String, String, Option<u16>, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && !p.contains(']') => (h, Some(p.parse().ok()?)),
        _ => (authority, None),
    };
    let port = port.or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    });
    let path_end = tail.find(['?', '#']).unwrap_or(tail.len());
    Some((
        scheme,
        host.to_ascii_lowercase(),
        port,
        normalized_path(&tail[..path_end]),
    ))
}

/// A URL's path as an HTTP client sends it: `\` read as `/`, and the `.` and `..`
/// segments (written with `%2e` too) resolved, so that `/allowed/../other` is compared as
/// `/other`.
fn normalized_path(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut segments: Vec<&str> = Vec::new();
    let parts: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        match segment.to_ascii_lowercase().replace("%2e", ".").as_str() {
            "." => {
                if last {
                    segments.push("");
                }
            }
            ".." => {
                segments.pop();
                if last {
                    segments.push("");
                }
            }
            _ => segments.push(segment),
        }
    }
    format!("/{}", segments.join("/"))
}

/// Whether `url` is one the allow list lets through.
fn check_allowed(url: &str, allowed: &[String]) -> Result<(), String> {
    let refused = || {
        format!(
            "the URL `{url}` is not in the call's url_allow_list ({})",
            allowed.join(", ")
        )
    };
    let Some((scheme, host, port, path)) = url_parts(url) else {
        return Err(refused());
    };
    let fits = allowed.iter().any(|entry| {
        url_parts(entry).is_some_and(|(s, h, p, prefix)| {
            s == scheme
                && h == host
                && p == port
                && (prefix == "/"
                    || path == prefix
                    || path.starts_with(&format!("{}/", prefix.trim_end_matches('/'))))
        })
    });
    if fits { Ok(()) } else { Err(refused()) }
}

/// The outputs of an answer (see the module's documentation).
pub(crate) fn outputs(props: &[Prop], status: u16, body: &str) -> Map<String, Value> {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let mut out = Map::new();
    for prop in props {
        let value = match prop.name.as_str() {
            "http_status_code" => Some(Value::from(status)),
            "http_response" => Some(Value::String(body.to_owned())),
            name => match &parsed {
                Some(Value::Object(fields)) if fields.contains_key(name) => {
                    fields.get(name).cloned()
                }
                _ if props.len() == 1 => Some(
                    parsed
                        .clone()
                        .unwrap_or_else(|| Value::String(body.to_owned())),
                ),
                _ => None,
            },
        };
        if let Some(value) = value {
            out.insert(prop.name.clone(), value);
        }
    }
    out
}

#[cfg(feature = "http")]
mod send {
    use std::time::Duration;

    use super::{Filled, HttpCall};

    /// The start of a body, for messages.
    fn excerpt(text: &str) -> String {
        let mut end = text.len().min(300);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end < text.len() {
            format!("{}…", &text[..end])
        } else {
            text.to_owned()
        }
    }

    /// Sends the request, retrying as the call's policy says: the status and the body of a
    /// 2xx answer, or why there is none.
    pub(crate) async fn send(
        client: &reqwest::Client,
        call: &HttpCall,
        request: Filled,
    ) -> Result<(u16, String), String> {
        let method = reqwest::Method::from_bytes(request.method.as_bytes())
            .map_err(|_| format!("`{}` is not an HTTP method", request.method))?;
        let retry = call.retry;
        let mut wait = retry.initial_delay;
        let mut attempt = 0u32;
        let what = format!("{} {}", request.method, request.url);
        let url = request.full_url();
        loop {
            attempt += 1;
            let mut builder = client
                .request(method.clone(), &url)
                .timeout(Duration::from_secs_f64(retry.timeout));
            for (k, v) in &request.headers {
                builder = builder.header(k.as_str(), v.as_str());
            }
            if let Some((content_type, body)) = &request.body {
                builder = builder
                    .header("content-type", content_type.as_str())
                    .body(body.clone());
            }
            let failure = match builder.send().await {
                Ok(response) => {
                    let status = response.status();
                    let text = response
                        .text()
                        .await
                        .map_err(|e| format!("{what}: the answer broke off: {e}"))?;
                    if status.is_success() {
                        return Ok((status.as_u16(), text));
                    }
                    let error = format!("{what} answered {status}: {}", excerpt(text.trim()));
                    let again = matches!(status.as_u16(), 408 | 429)
                        || (status.is_server_error() && (retry.any_5xx || status.as_u16() == 503));
                    if !again {
                        return Err(error);
                    }
                    error
                }
                Err(e) if e.is_timeout() => {
                    format!("{what} did not answer within {} s", retry.timeout)
                }
                Err(e) if e.is_builder() => return Err(format!("{what}: {e}")),
                Err(e) => format!("{what} could not be reached: {}", crate::error_chain(&e)),
            };
            if attempt > retry.retries {
                return Err(if attempt > 1 {
                    format!("{failure} (after {attempt} attempts)")
                } else {
                    failure
                });
            }
            tokio::time::sleep(Duration::from_secs_f64(wait.min(retry.max_delay))).await;
            wait *= retry.factor;
        }
    }
}

#[cfg(feature = "http")]
pub(crate) use send::send;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(data: Value, headers: Value) -> HttpCall {
        HttpCall {
            name: "n".to_owned(),
            url: "http://h:5008/orders/{{ id }}".to_owned(),
            method: "post".to_owned(),
            data,
            query_params: json!({"store": "{{ store }}", "tag": ["a", "b"]})
                .as_object()
                .cloned()
                .unwrap(),
            headers: headers.as_object().cloned().unwrap(),
            sensitive_headers: json!({"Authorization": "Bearer s"})
                .as_object()
                .cloned()
                .unwrap(),
            url_allow_list: None,
            retry: Retry::default(),
        }
    }

    fn inputs() -> Map<String, Value> {
        json!({"id": "7", "store": "s1", "city": "Rabat"})
            .as_object()
            .cloned()
            .unwrap()
    }

    #[test]
    fn fills_url_query_headers_and_a_json_body() {
        let filled = call(
            json!({"item": "{{ city }}", "n": 1}),
            json!({"x-s": "{{store}}"}),
        )
        .fill(&inputs())
        .unwrap();
        assert_eq!(filled.method, "POST");
        assert_eq!(filled.url, "http://h:5008/orders/7");
        assert_eq!(
            filled.full_url(),
            "http://h:5008/orders/7?store=s1&tag=a&tag=b"
        );
        assert_eq!(
            filled.query,
            [("store", "s1"), ("tag", "a"), ("tag", "b")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
        assert_eq!(
            filled.headers,
            [("x-s", "s1"), ("Authorization", "Bearer s")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
        let (kind, body) = filled.body.unwrap();
        assert_eq!(kind, "application/json");
        assert_eq!(body, br#"{"item":"Rabat","n":1}"#);
    }

    #[test]
    fn form_and_raw_bodies() {
        let form = call(
            json!({"city": "{{city}}", "note": "a b&c"}),
            json!({"Content-Type": "application/x-www-form-urlencoded"}),
        )
        .fill(&inputs())
        .unwrap();
        assert_eq!(
            form.body.unwrap(),
            (
                "application/x-www-form-urlencoded".to_owned(),
                b"city=Rabat&note=a+b%26c".to_vec()
            )
        );
        let raw = call(json!("city: {{ city }}"), json!({}))
            .fill(&inputs())
            .unwrap();
        assert_eq!(
            raw.body.unwrap(),
            (
                "text/plain; charset=utf-8".to_owned(),
                b"city: Rabat".to_vec()
            )
        );
        let mut get = call(json!({"a": 1}), json!({}));
        get.method = "GET".to_owned();
        assert_eq!(get.fill(&inputs()).unwrap().body, None);
    }

    #[test]
    fn the_allow_list_compares_scheme_host_port_and_path_prefix() {
        let allowed = ["https://api.example.com/v1".to_owned()];
        assert!(check_allowed("https://api.example.com/v1/x?q=1", &allowed).is_ok());
        assert!(check_allowed("https://api.example.com:443/v1", &allowed).is_ok());
        assert!(check_allowed("https://api.example.com/v1/a/../b/./c", &allowed).is_ok());
        for refused in [
            "https://api.example.com/v1/../admin",
            "https://api.example.com/v1/%2E%2E/admin",
            "https://api.example.com/v1/..\\admin",
            "http://api.example.com/v1/x",
            "https://api.example.com:8443/v1/x",
            "https://api.example.com/v10",
            "https://evil.com/v1",
            "https://api.example.com.evil.com/v1",
            "not a url",
        ] {
            assert!(check_allowed(refused, &allowed).is_err(), "{refused}");
        }
        let mut c = call(json!({}), json!({}));
        c.url_allow_list = Some(vec!["http://h:5008/orders".to_owned()]);
        assert!(c.fill(&inputs()).is_ok());
        c.url = "http://h:5008/{{ id }}".to_owned();
        assert!(c.fill(&inputs()).unwrap_err().contains("url_allow_list"));
    }

    #[test]
    fn outputs_take_fields_status_and_body() {
        let prop = |name: &str| Prop {
            name: name.to_owned(),
            schema: JsonObject::new(),
        };
        let body = r#"{"weather": {"t": 22}, "city": "Zurich"}"#;
        let out = outputs(
            &[prop("weather"), prop("http_status_code"), prop("missing")],
            200,
            body,
        );
        assert_eq!(
            Value::Object(out),
            json!({"weather": {"t": 22}, "http_status_code": 200})
        );
        let whole = outputs(&[prop("response")], 201, body);
        assert_eq!(whole["response"]["city"], "Zurich");
        let text = outputs(&[prop("http_response")], 200, "plain");
        assert_eq!(text["http_response"], "plain");
    }
}
