//! `ask-popup mcp`: the MCP server on stdio (the `rmcp` SDK). Its one tool, `ask_user_question`,
//! asks in the popup as `ask-popup ask` does, each call on a blocking thread of its own, and a
//! call's question is withdrawn when the client cancels the call (`notifications/cancelled`, sent
//! e.g. when its tool timeout runs out), closes stdin, or stops the server (a signal, or its
//! parent ending). What the result says is decided in `result.rs`.

use super::result as mcp;
use crate::ask::command::fresh_id;
use crate::ask::stop::{Interrupts, Stop};
use crate::ask::waiting::answer;
use crate::ask::Caller;
use crate::later::command as later;
use crate::later::Standing;
use ask_popup_protocol::tool;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::Value;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::thread;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How long the server waits, once its client has gone, for its questions to be withdrawn.
const WITHDRAW_LIMIT: Duration = Duration::from_secs(15);
/// How long it then lets the answers of those calls go out to a client that closed stdin.
const DRAIN_LIMIT: Duration = Duration::from_secs(6);

/// Runs the server until its client goes away; the process's exit status.
pub fn serve(plugin: &str) -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            say_err!("ask-popup mcp: cannot start: {e}");
            return 1;
        }
    };
    let status = runtime.block_on(run(plugin));
    // The blocking thread that reads stdin may still be in a read.
    runtime.shutdown_timeout(Duration::from_millis(100));
    status
}

async fn run(plugin: &str) -> i32 {
    // Cancelled when the client has gone: stdin closed, a signal, or the parent ended.
    let gone = CancellationToken::new();
    // Cancelled when stdin closed (the client may still read what the server answers).
    let closed = CancellationToken::new();
    {
        let gone = gone.clone();
        let interrupts = Interrupts::install();
        thread::spawn(move || {
            while !gone.is_cancelled() {
                if interrupts.wait(Duration::from_millis(200)) {
                    gone.cancel();
                }
            }
        });
    }
    let server = Server {
        plugin: plugin.to_owned(),
        gone: gone.clone(),
        calls: TaskTracker::new(),
    };
    let calls = server.calls.clone();
    // `closed` first: whoever sees `gone` must also see `closed`, or a client that closed stdin
    // would be taken for one that went away, and lose the answers still in flight.
    let stdin = UntilEnd {
        inner: tokio::io::stdin(),
        ended: vec![closed.clone(), gone.clone()],
    };
    let service = match server.serve((stdin, tokio::io::stdout())).await {
        Ok(service) => service,
        Err(e) => {
            say_err!("ask-popup mcp: the client did not start a session: {e}");
            return 1;
        }
    };
    let serving = service.waiting();
    tokio::pin!(serving);
    // Whether the session's future has completed: a completed future must not be polled again
    // (rmcp's `waiting` is an async fn, which panics when resumed after completion).
    let ended = tokio::select! {
        _ = &mut serving => true,
        _ = gone.cancelled() => false,
    };
    // Every call still waiting withdraws its question and answers.
    gone.cancel();
    calls.close();
    let _ = tokio::time::timeout(WITHDRAW_LIMIT, calls.wait()).await;
    if closed.is_cancelled() && !ended {
        // Stdin closed: what the calls answered still goes out (the SDK writes the responses
        // in flight before it ends).
        let _ = tokio::time::timeout(DRAIN_LIMIT, serving).await;
    }
    0
}

/// The server's state: the plugin it asks and the calls waiting in the popup.
struct Server {
    plugin: String,
    gone: CancellationToken,
    calls: TaskTracker,
}

/// The tools as clients list them (asking without waiting is `ask_user_question`'s `wait`,
/// within the budget of `tool::Budget`): the library's names, descriptions and schemas, marked
/// read-only (they change nothing on the machine) so clients that honour the hint run them
/// without asking.
fn definitions() -> Vec<Tool> {
    let tool = |name: &'static str, description: &'static str, schema: Value, title: &str| {
        let schema = schema.as_object().cloned().unwrap_or_default();
        Tool::new(name, description, schema).with_annotations(
            ToolAnnotations::with_title(title)
                .read_only(true)
                .destructive(false)
                .idempotent(false)
                .open_world(false),
        )
    };
    vec![
        tool(
            tool::NAME,
            tool::DESCRIPTION,
            tool::mcp_parameters(),
            "Ask the user",
        ),
        tool(
            tool::ANSWER_NAME,
            tool::ANSWER_DESCRIPTION,
            tool::answer_parameters(),
            "Get the user's answer",
        ),
    ]
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("ask-popup", ask_popup_protocol::VERSION);
        info.with_instructions(
            "ask_user_question puts structured questions to the user in a Zellij popup and waits for the answers.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut arguments = request.arguments.unwrap_or_default();
        // Asked not to wait (`wait` false; the tool of the older name always did).
        let wait = arguments.remove(tool::WAIT);
        let arguments = serde_json::Value::Object(arguments);
        match request.name.as_ref() {
            tool::NAME if wait != Some(Value::Bool(false)) => {}
            tool::NAME | tool::LATER_NAME => {
                return Ok(self.ask_later(&arguments, &context).into())
            }
            tool::ANSWER_NAME => return Ok(get_answer(&arguments).await.into()),
            name => {
                return Err(ErrorData::invalid_params(
                    format!("there is no tool named {name:?}"),
                    None,
                ))
            }
        }
        let payload = arguments.to_string().into_bytes();
        // The client says who it is when the session starts (`initialize`), or, in the
        // inline lifecycle (`server/discover`, protocol 2026-07-28, as Claude Code speaks it),
        // in each request's `_meta`.
        let caller = caller_of(&context, false);
        let stop = Cancelled {
            call: context.ct.clone(),
            gone: self.gone.clone(),
        };
        let plugin = self.plugin.clone();
        let asking = self
            .calls
            .spawn_blocking(move || answer(Ok(payload), &caller, &plugin, &stop));
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| tokio::spawn(report_progress(context.peer.clone(), token)));
        let envelope = asking.await;
        if let Some(progress) = progress {
            progress.abort();
        }
        let envelope = envelope.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(envelope_result(&envelope).into())
    }
}

/// Who asks through `context`'s client: the popup names it after the client (see
/// `mcp::agent_of`); `id_given`, whether the id is echoed (it is what a later answer is
/// fetched with).
fn caller_of(context: &RequestContext<RoleServer>, id_given: bool) -> Caller {
    // The client says who it is when the session starts (`initialize`), or, in the inline
    // lifecycle (`server/discover`, protocol 2026-07-28, as Claude Code speaks it), in each
    // request's `_meta`.
    let client = context
        .peer
        .peer_info()
        .map(|info| info.client_info.name.clone())
        .or_else(|| context.meta.client_info().map(|info| info.name));
    Caller {
        pane_id: std::env::var("ZELLIJ_PANE_ID").ok(),
        agent: Some(mcp::agent_of(client.as_deref())),
        id: fresh_id(),
        id_given,
        approval_by: None,
    }
}

impl Server {
    /// `ask_user_question` with `wait` false: the questions left in the popup with a process
    /// that waits for the answer (as `ask-popup ask --no-wait` leaves them), the request's id
    /// at once.
    fn ask_later(&self, arguments: &Value, context: &RequestContext<RoleServer>) -> CallToolResult {
        let caller = caller_of(context, true);
        let payload = Ok(arguments.to_string().into_bytes());
        match later::leave_question(payload, &caller, &self.plugin) {
            Ok(id) => CallToolResult::success(vec![ContentBlock::text(tool::later_text(&id))]),
            Err(envelope) => envelope_result(&envelope),
        }
    }
}

/// `get_user_answer`: what the request of `requestId` got, or that it still waits (after up to
/// `waitSeconds`).
async fn get_answer(arguments: &Value) -> CallToolResult {
    let id = arguments
        .get("requestId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let wait = arguments
        .get("waitSeconds")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .min(tool::MAX_ANSWER_WAIT_S);
    let until = Instant::now() + Duration::from_secs(wait);
    loop {
        let looked = id.clone();
        let standing = tokio::task::spawn_blocking(move || later::standing(&looked)).await;
        match standing {
            Ok(Standing::Ended(envelope)) => return envelope_result(&envelope),
            Ok(Standing::Waiting) if Instant::now() < until => {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Ok(Standing::Waiting) => {
                return CallToolResult::success(vec![ContentBlock::text(tool::waiting_text(&id))])
            }
            Ok(Standing::Unknown) | Err(_) => {
                return CallToolResult::error(vec![ContentBlock::text(tool::unknown_text(&id))])
            }
        }
    }
}

/// The tool result of an envelope, as `ask_user_question` gives it.
fn envelope_result(envelope: &str) -> CallToolResult {
    match mcp::tool_result(envelope) {
        Some(result) if result.is_error => {
            CallToolResult::error(vec![ContentBlock::text(result.text)])
        }
        Some(result) => CallToolResult::success(vec![ContentBlock::text(result.text)]),
        None => CallToolResult::error(vec![ContentBlock::text(
            "the popup's reply was not an envelope",
        )]),
    }
}

/// Tells the client every few seconds that the call still waits for the user, until aborted.
async fn report_progress(peer: Peer<RoleServer>, token: ProgressToken) {
    let started = Instant::now();
    let every = Duration::from_secs(mcp::PROGRESS_EVERY_S);
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        ticks.tick().await;
        let waited = started.elapsed().as_secs();
        let note = ProgressNotificationParam::new(token.clone(), waited as f64)
            .with_message(mcp::progress_message(waited));
        if peer.notify_progress(note).await.is_err() {
            return;
        }
    }
}

/// A call's question is withdrawn once the client cancels the call or goes away.
struct Cancelled {
    call: CancellationToken,
    gone: CancellationToken,
}

impl Stop for Cancelled {
    fn wait(&self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        loop {
            if self.call.is_cancelled() || self.gone.is_cancelled() {
                return true;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            thread::sleep(left.min(Duration::from_millis(20)));
        }
    }
}

/// Standard input that says when it ends (cancels `ended`): the client closing it has gone away,
/// and its questions leave the popup at once (not after the SDK's drain of in-flight responses).
struct UntilEnd<R> {
    inner: R,
    ended: Vec<CancellationToken>,
}

impl<R: AsyncRead + Unpin> AsyncRead for UntilEnd<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let ended = match &polled {
            Poll::Ready(Ok(())) => buf.filled().len() == before && buf.remaining() > 0,
            Poll::Ready(Err(_)) => true,
            Poll::Pending => false,
        };
        if ended {
            self.ended.iter().for_each(CancellationToken::cancel);
        }
        polled
    }
}
