//! The OpenAI Responses API as Codex calls it (`POST …/responses`, streamed): a turn that brings
//! no tool output is answered with one call to the MCP tool, in the namespace Codex declared it
//! in; the turn that brings the tool's output back ends with a short text.

use super::{Recorded, Response};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A script that makes the model call the MCP tool `tool` with `arguments` once per turn.
pub fn calling(tool: &'static str, arguments: Value) -> impl Fn(&Recorded) -> Response {
    calling_where(tool, arguments, |request| {
        namespace_of(request, tool).map(Some)
    })
}

/// A script that makes the model call Codex's own function tool `tool` (not an MCP tool: no
/// namespace) with `arguments` once per turn, when Codex offers it.
pub fn calling_function(tool: &'static str, arguments: Value) -> impl Fn(&Recorded) -> Response {
    calling_where(tool, arguments, move |request| {
        let offered = request.body["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|t| t["name"] == tool));
        offered.then_some(None)
    })
}

/// The script of `calling` and `calling_function`: `offered` says whether the request offers
/// the tool, and in which namespace (`Some(None)`: offered, in none).
fn calling_where(
    tool: &'static str,
    arguments: Value,
    offered: impl Fn(&Recorded) -> Option<Option<String>>,
) -> impl Fn(&Recorded) -> Response {
    let calls = AtomicUsize::new(0);
    move |request| {
        if request.method != "POST" || !request.path.ends_with("/responses") {
            return Response::Status(404);
        }
        if function_call_output(std::slice::from_ref(request)).is_some() {
            return text("Done.");
        }
        let Some(namespace) = offered(request) else {
            return text("The tool was not offered.");
        };
        let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
        let mut item = json!({
            "type": "function_call",
            "id": format!("fc_scripted_{n}"),
            "call_id": format!("call_scripted_{n}"),
            "name": tool,
            "arguments": arguments.to_string(),
        });
        if let Some(namespace) = namespace {
            item["namespace"] = json!(namespace);
        }
        stream(&format!("resp_scripted_{n}"), item)
    }
}

/// The namespace entry in which Codex declared the MCP tool `tool` (`mcp__<server>`).
pub fn namespace_of(request: &Recorded, tool: &str) -> Option<String> {
    request.body["tools"].as_array()?.iter().find_map(|entry| {
        let declares = entry["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|t| t["name"] == tool));
        (entry["type"] == "namespace" && declares)
            .then(|| entry["name"].as_str().map(str::to_owned))
            .flatten()
    })
}

/// The tool `tool` as Codex declared it to the model, inside its namespace.
pub fn declared_tool(requests: &[Recorded], tool: &str) -> Option<Value> {
    requests.iter().find_map(|r| {
        r.body["tools"].as_array()?.iter().find_map(|entry| {
            entry["tools"]
                .as_array()?
                .iter()
                .find(|t| t["name"] == tool)
                .cloned()
        })
    })
}

/// The `output` of the first `function_call_output` Codex sent back: its text parts (Codex
/// puts its own `Wall time: … Output:` part before the tool's).
pub fn function_call_output(requests: &[Recorded]) -> Option<Vec<String>> {
    requests.iter().find_map(|r| {
        r.body["input"]
            .as_array()?
            .iter()
            .find(|item| item["type"] == "function_call_output")
            .map(|item| match &item["output"] {
                Value::String(text) => vec![text.clone()],
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str().map(str::to_owned))
                    .collect(),
                other => vec![other.to_string()],
            })
    })
}

fn event(name: &str, mut data: Value) -> (Option<String>, String) {
    data["type"] = json!(name);
    (Some(name.to_owned()), data.to_string())
}

fn stream(id: &str, item: Value) -> Response {
    let usage = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15});
    Response::Events(vec![
        event(
            "response.created",
            json!({"response": {"id": id, "status": "in_progress"}}),
        ),
        event(
            "response.output_item.added",
            json!({"output_index": 0, "item": item}),
        ),
        event(
            "response.output_item.done",
            json!({"output_index": 0, "item": item}),
        ),
        event(
            "response.completed",
            json!({"response": {"id": id, "status": "completed", "usage": usage}}),
        ),
    ])
}

fn text(text: &str) -> Response {
    let item = json!({
        "type": "message",
        "id": "msg_scripted",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    });
    stream("resp_scripted_text", item)
}
