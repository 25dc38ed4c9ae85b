//! The client side of MCP's HTTP with SSE transport (protocol version 2024-11-05), which
//! Agent Spec's `SSETransport` names and rmcp no longer has: a GET opens an event stream;
//! its first `endpoint` event says where to POST the client's messages; the server's
//! messages arrive as `message` events on the stream.

use std::borrow::Cow;

use futures_util::StreamExt;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use sse_stream::SseStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Why a message could not be sent.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct SseError(String);

/// An open SSE session: where messages go, and the server's messages as they arrive.
pub(crate) struct SseTransport {
    http: reqwest::Client,
    headers: HeaderMap,
    post: reqwest::Url,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    /// Reads the event stream into `incoming`, until the stream ends or this is dropped.
    reader: JoinHandle<()>,
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Opens the event stream at `url` with the client `http` and waits for its endpoint
/// (`what` names the server in errors).
pub(crate) async fn connect(
    http: reqwest::Client,
    url: &str,
    headers: HeaderMap,
    what: &str,
) -> Result<SseTransport, String> {
    let base =
        reqwest::Url::parse(url).map_err(|e| format!("{what}: `{url}` is not a URL: {e}"))?;
    let response = http
        .get(base.clone())
        .headers(headers.clone())
        .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
        .send()
        .await
        .map_err(|e| {
            format!(
                "{what} at {url} could not be reached: {}",
                crate::error_chain(&e)
            )
        })?;
    if !response.status().is_success() {
        return Err(format!(
            "{what} at {url} answered {} to the request for its event stream",
            response.status()
        ));
    }
    let mut events = SseStream::from_bytes_stream(response.bytes_stream());
    // the stream says first where the client's messages go
    let endpoint = loop {
        match events.next().await {
            Some(Ok(event)) if event.event.as_deref() == Some("endpoint") => {
                break event.data.unwrap_or_default();
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(format!("{what} at {url}: its event stream broke: {e}")),
            None => {
                return Err(format!(
                    "{what} at {url}: the event stream ended before naming the endpoint for messages"
                ));
            }
        }
    };
    let post = base
        .join(endpoint.trim())
        .map_err(|e| format!("{what} at {url}: its endpoint `{endpoint}` is not a URL: {e}"))?;
    let (sender, incoming) = mpsc::channel(64);
    let reader = tokio::spawn(async move {
        while let Some(Ok(event)) = events.next().await {
            // events of other kinds, and messages that are not JSON-RPC, are skipped
            if !matches!(event.event.as_deref(), None | Some("message")) {
                continue;
            }
            let Some(data) = event.data else { continue };
            match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&data) {
                Ok(message) => {
                    if sender.send(message).await.is_err() {
                        break;
                    }
                }
                Err(e) => tracing::warn!("an MCP server sent a message that is not JSON-RPC: {e}"),
            }
        }
    });
    Ok(SseTransport {
        http,
        headers,
        post,
        incoming,
        reader,
    })
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn name() -> Cow<'static, str> {
        "SSETransport".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        let request = self
            .http
            .post(self.post.clone())
            .headers(self.headers.clone())
            .json(&item);
        let post = self.post.clone();
        async move {
            let response = request.send().await.map_err(|e| {
                SseError(format!(
                    "posting a message to {post}: {}",
                    crate::error_chain(&e)
                ))
            })?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(SseError(format!(
                    "posting a message to {post}: the server answered {}",
                    response.status()
                )))
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), SseError> {
        self.reader.abort();
        Ok(())
    }
}
