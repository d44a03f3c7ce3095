//! The Anthropic Messages API as Claude Code calls it (`POST /v1/messages`, streamed): a turn
//! that offers the tool and has no tool result yet is answered with one call to it; the turn that
//! brings the result back ends with a short text; anything else (a request without tools) gets a
//! plain text.

use super::{Recorded, Response};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A script that makes the model call `tool` with `input` once per conversation.
pub fn calling(tool: &'static str, input: Value) -> impl Fn(&Recorded) -> Response {
    let calls = AtomicUsize::new(0);
    move |request| {
        if request.method != "POST" || !request.path.starts_with("/v1/messages") {
            return Response::Status(200);
        }
        let offers_tool = request.body["tools"]
            .as_array()
            .is_some_and(|tools| tools.iter().any(|t| t["name"] == tool));
        if offers_tool && last_tool_result(&request.body).is_none() {
            let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
            tool_use(&format!("toolu_scripted_{n}"), tool, &input)
        } else {
            text("Done.")
        }
    }
}

/// The `tool_result` block in the last user message of a request, if it has one.
pub fn last_tool_result(body: &Value) -> Option<Value> {
    let last = body["messages"].as_array()?.last()?;
    last["content"]
        .as_array()?
        .iter()
        .find(|block| block["type"] == "tool_result")
        .cloned()
}

/// The first tool result the agent sent back: `(content text, is_error)`.
pub fn tool_result(requests: &[Recorded]) -> Option<(String, bool)> {
    requests.iter().find_map(|r| {
        let result = last_tool_result(&r.body)?;
        let content = match &result["content"] {
            Value::String(text) => text.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        Some((content, result["is_error"] == true))
    })
}

fn message_start() -> (Option<String>, String) {
    event(
        "message_start",
        json!({"type":"message_start","message":{"id":"msg_scripted","type":"message","role":"assistant","model":"claude-scripted","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}),
    )
}

fn message_end(stop_reason: &str) -> [(Option<String>, String); 3] {
    [
        event(
            "content_block_stop",
            json!({"type":"content_block_stop","index":0}),
        ),
        event(
            "message_delta",
            json!({"type":"message_delta","delta":{"stop_reason":stop_reason,"stop_sequence":null},"usage":{"output_tokens":5}}),
        ),
        event("message_stop", json!({"type":"message_stop"})),
    ]
}

/// A streamed call to `tool`, its input sent in two pieces as a model does.
fn tool_use(id: &str, tool: &str, input: &Value) -> Response {
    let input = input.to_string();
    let (first, second) = input.split_at(input.len() / 2);
    let mut events = vec![
        message_start(),
        event(
            "content_block_start",
            json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":id,"name":tool,"input":{}}}),
        ),
    ];
    for piece in [first, second] {
        events.push(event(
            "content_block_delta",
            json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":piece}}),
        ));
    }
    events.extend(message_end("tool_use"));
    Response::Events(events)
}

/// A streamed text that ends the turn.
fn text(text: &str) -> Response {
    let mut events = vec![
        message_start(),
        event(
            "content_block_start",
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
        ),
        event(
            "content_block_delta",
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":text}}),
        ),
    ];
    events.extend(message_end("end_turn"));
    Response::Events(events)
}

fn event(name: &str, data: Value) -> (Option<String>, String) {
    (Some(name.to_owned()), data.to_string())
}
