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

/// Claude Code's tool through which the model loads a deferred tool (an MCP server's tools are
/// not in the model's first tool list).
pub const TOOL_SEARCH: &str = "ToolSearch";

/// A script that makes the model call the deferred `tool` with `input` once per conversation:
/// it first selects the tool through `ToolSearch` unless the tool is offered already, then calls
/// it, then ends the turn. The call's id starts with `toolu_scripted_` (see `result_of_call`).
pub fn calling_deferred(tool: &'static str, input: Value) -> impl Fn(&Recorded) -> Response {
    let calls = AtomicUsize::new(0);
    move |request| {
        if request.method != "POST" || !request.path.starts_with("/v1/messages") {
            return Response::Status(200);
        }
        let offered = |name: &str| {
            request.body["tools"]
                .as_array()
                .is_some_and(|tools| tools.iter().any(|t| t["name"] == name))
        };
        let called = |name: &str| {
            request.body["messages"].as_array().is_some_and(|messages| {
                messages.iter().any(|m| {
                    m["content"].as_array().is_some_and(|blocks| {
                        blocks
                            .iter()
                            .any(|b| b["type"] == "tool_use" && b["name"] == name)
                    })
                })
            })
        };
        if called(tool) {
            text("Done.")
        } else if offered(tool) {
            let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
            tool_use(&format!("toolu_scripted_{n}"), tool, &input)
        } else if offered(TOOL_SEARCH) && !called(TOOL_SEARCH) {
            tool_use(
                "toolu_search_1",
                TOOL_SEARCH,
                &json!({"query": format!("select:{tool}"), "max_results": 1}),
            )
        } else {
            text("Done.")
        }
    }
}

/// The result of the scripted call (id `toolu_scripted_…`) the agent sent back, wherever it
/// stands in the conversation (Claude Code may add a message after it, such as its MCP servers'
/// instructions): `(content text, is_error)`.
pub fn result_of_call(requests: &[Recorded]) -> Option<(String, bool)> {
    requests.iter().find_map(|r| {
        r.body["messages"]
            .as_array()?
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .find(|block| {
                block["type"] == "tool_result"
                    && block["tool_use_id"]
                        .as_str()
                        .is_some_and(|id| id.starts_with("toolu_scripted_"))
            })
            .map(content_of)
    })
}

/// A `tool_result` block's text (its blocks' texts joined by lines) and whether it is an error.
fn content_of(result: &Value) -> (String, bool) {
    let content = match &result["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    (content, result["is_error"] == true)
}

/// The `tool_result` block the user messages since the model's last turn carry, if they carry
/// one. Claude Code may add a message of its own after the one with the result (at midnight:
/// "The date has changed…"), so the result is not always in the last message.
pub fn last_tool_result(body: &Value) -> Option<Value> {
    body["messages"]
        .as_array()?
        .iter()
        .rev()
        .take_while(|message| message["role"] != "assistant")
        .filter_map(|message| message["content"].as_array())
        .flatten()
        .find(|block| block["type"] == "tool_result")
        .cloned()
}

#[test]
fn a_tool_result_is_found_though_claude_code_adds_a_message_after_it() {
    let result = json!({"type": "tool_result", "tool_use_id": "toolu_scripted_1", "content": "ok"});
    let body = json!({"messages": [
        {"role": "user", "content": [{"type": "text", "text": "Ask me."}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_scripted_1"}]},
        {"role": "user", "content": [result.clone()]},
        {"role": "user", "content": [{"type": "text", "text": "The date has changed."}]},
    ]});
    assert_eq!(last_tool_result(&body), Some(result));
    // A result of an earlier turn is not this turn's.
    let mut later = body.clone();
    later["messages"].as_array_mut().unwrap().extend([
        json!({"role": "assistant", "content": [{"type": "text", "text": "Done."}]}),
        json!({"role": "user", "content": [{"type": "text", "text": "Again."}]}),
    ]);
    assert_eq!(last_tool_result(&later), None);
}

/// The first tool result the agent sent back: `(content text, is_error)`.
pub fn tool_result(requests: &[Recorded]) -> Option<(String, bool)> {
    requests
        .iter()
        .find_map(|r| last_tool_result(&r.body).map(|result| content_of(&result)))
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
