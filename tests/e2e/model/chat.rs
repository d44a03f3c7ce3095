//! The OpenAI Chat Completions API as Pi calls it (`POST …/chat/completions`, always streamed):
//! a turn whose last message is the user's is answered with one call to the tool; the turn that
//! brings the tool's message back ends with a short text.

use super::{Recorded, Response};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A script that makes the model call `tool` with `arguments` for every user message.
pub fn calling(tool: &'static str, arguments: Value) -> impl Fn(&Recorded) -> Response {
    let calls = AtomicUsize::new(0);
    move |request| {
        if request.method != "POST" || !request.path.ends_with("/chat/completions") {
            return Response::Status(404);
        }
        let last_role = request.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["role"].as_str())
            .unwrap_or("");
        if last_role == "user" {
            let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
            tool_call(&format!("call_scripted_{n}"), tool, &arguments)
        } else {
            text("Done.")
        }
    }
}

/// A script that makes the model call `tool` with `arguments` for every user message of a turn
/// that offers `tool`, and answers any other request (opencode's title for the session) with a
/// short text.
pub fn calling_when_offered(
    tool: &'static str,
    arguments: Value,
) -> impl Fn(&Recorded) -> Response {
    let calls = AtomicUsize::new(0);
    move |request| {
        if request.method != "POST" || !request.path.ends_with("/chat/completions") {
            return Response::Status(404);
        }
        let offered = request.body["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|t| t["function"]["name"] == tool));
        let last_role = request.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["role"].as_str())
            .unwrap_or("");
        if offered && last_role == "user" {
            let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
            tool_call(&format!("call_scripted_{n}"), tool, &arguments)
        } else {
            text("Done.")
        }
    }
}

/// The first `role: "tool"` message the agent sent back: its content as one string.
pub fn tool_message(requests: &[Recorded]) -> Option<String> {
    requests.iter().find_map(|r| {
        r.body["messages"]
            .as_array()?
            .iter()
            .find(|m| m["role"] == "tool")
            .map(|m| match &m["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            })
    })
}

/// The tool named `tool` as the agent declared it to the model.
pub fn declared_tool(requests: &[Recorded], tool: &str) -> Option<Value> {
    requests.iter().find_map(|r| {
        r.body["tools"]
            .as_array()?
            .iter()
            .find(|t| t["function"]["name"] == tool)
            .cloned()
    })
}

fn chunk(delta: Value, finish: Option<&str>) -> (Option<String>, String) {
    let chunk = json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    (None, chunk.to_string())
}

fn usage() -> (Option<String>, String) {
    let chunk = json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted",
        "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    });
    (None, chunk.to_string())
}

/// A streamed call to `tool`, its arguments sent in two pieces as a model does.
fn tool_call(id: &str, tool: &str, arguments: &Value) -> Response {
    let arguments = arguments.to_string();
    let (first, second) = arguments.split_at(arguments.len() / 2);
    Response::Events(vec![
        chunk(json!({"role": "assistant", "content": null}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
                "function": {"name": tool, "arguments": ""}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": first}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": second}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        usage(),
        (None, "[DONE]".to_owned()),
    ])
}

fn text(text: &str) -> Response {
    Response::Events(vec![
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"content": text}), None),
        chunk(json!({}), Some("stop")),
        usage(),
        (None, "[DONE]".to_owned()),
    ])
}
