//! What the model reads on every request, whether it asks or not: the tool definitions, each
//! measured as the agent sends it (`tool::model_chars`: name, description and input schema as
//! compact JSON) against its budget (`tool::Budget`). Run with `--nocapture` to see the figures.

use ask_popup_protocol::tool::{self, Budget};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

/// The tools the real `ask-popup mcp` lists, as a client gets them.
fn mcp_tools() -> Vec<Value> {
    let input = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test-client", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ]
    .iter()
    .map(|m| format!("{m}\n"))
    .collect::<String>();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ask-popup"))
        .arg("mcp")
        .env_remove("ZELLIJ")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ask-popup mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write stdin");
    drop(stdin);
    let out = child.wait_with_output().expect("its output");
    let listed = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m["id"] == 2)
        .unwrap_or_else(|| panic!("no tools/list reply: {out:?}"));
    listed["result"]["tools"]
        .as_array()
        .cloned()
        .expect("a list of tools")
}

fn chars_of(listed: &Value) -> usize {
    tool::model_chars(
        listed["name"].as_str().unwrap_or_default(),
        listed["description"].as_str().unwrap_or_default(),
        &listed["inputSchema"],
    )
}

#[test]
fn every_tool_definition_the_model_reads_is_within_its_budget() {
    let tools = mcp_tools();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, [tool::NAME, tool::ANSWER_NAME]);
    let mut over = Vec::new();
    let mut check = |what: &str, chars: usize, budget: usize| {
        println!("{what}: {chars} characters (budget {budget})");
        if chars > budget {
            over.push(format!("{what}: {chars} > {budget}"));
        }
    };
    let ask = chars_of(&tools[0]);
    check("MCP ask_user_question", ask, Budget::ASK);
    let answer = chars_of(&tools[1]);
    println!("MCP get_user_answer: {answer} characters");
    check("MCP, every tool", ask + answer, Budget::MCP);
    // Pi's tool: its description and parameters as the model gets them, and the line its
    // system prompt gives the tool.
    let shared = tool::pi_shared();
    let pi = tool::model_chars(
        shared["name"].as_str().unwrap_or_default(),
        shared["description"].as_str().unwrap_or_default(),
        &shared["parameters"],
    ) + shared["snippet"]
        .as_str()
        .unwrap_or_default()
        .chars()
        .count();
    check("Pi ask_user_question", pi, Budget::PI);
    assert!(over.is_empty(), "over budget: {over:?}");
    // docs/performance.md's table says these figures.
    let table =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/performance.md"))
            .expect("docs/performance.md");
    for (row, now) in [
        ("| MCP `ask_user_question` | 2,528 |", ask),
        ("| MCP, every tool listed | 4,982 (3 tools) |", ask + answer),
        (
            "| Pi's `ask_user_question` (with its prompt snippet) | 2,616 |",
            pi,
        ),
    ] {
        let line = table
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("no row {row} in docs/performance.md"));
        assert!(
            line.contains(&format!(" {} ", thousands(now))),
            "docs/performance.md's row says {line}, measured {now}"
        );
    }
}

/// `n` as docs/performance.md writes it: 1,486.
fn thousands(n: usize) -> String {
    if n < 1000 {
        n.to_string()
    } else {
        format!("{},{:03}", n / 1000, n % 1000)
    }
}

#[test]
fn the_mcp_server_lists_the_librarys_definitions() {
    let tools = mcp_tools();
    assert_eq!(tools[0]["description"], tool::DESCRIPTION);
    assert_eq!(tools[0]["inputSchema"], tool::mcp_parameters());
    assert_eq!(tools[1]["description"], tool::ANSWER_DESCRIPTION);
    assert_eq!(tools[1]["inputSchema"], tool::answer_parameters());
    // The schema the model reads is the validator's, with `wait` on top.
    let mut without_wait = tool::mcp_parameters();
    without_wait["properties"]
        .as_object_mut()
        .expect("properties")
        .remove(tool::WAIT);
    assert_eq!(without_wait, tool::parameters());
}

#[test]
fn every_fact_the_model_needs_is_in_what_it_reads() {
    // What the model must know to ask well and to read the result, and where it reads it.
    let text = format!("{} {}", tool::DESCRIPTION, tool::mcp_parameters());
    for fact in [
        "1-4",
        "multiple-choice",
        "wait for the answers",
        "trade-off",
        "(Recommended)",
        "\"Chat about this\"",
        "Other, Type something., Chat about this and Next are reserved labels",
        "Declined: don't ask again",
        "no decline",
        "single-select only",
        "Allow several picks",
        "omit to wait",
        // Also in words: Codex hands its model the schema without maxItems, maxLength and
        // minimum.
        "Tab label, ≤16 chars",
        "2-4 choices",
        "≤60 chars",
        "ms (≥1000)",
        "\"maxLength\":16",
        "\"maxLength\":60",
        "\"minItems\":2",
        "\"maxItems\":4",
        "\"minimum\":1000",
        "get_user_answer",
    ] {
        assert!(text.contains(fact), "the model no longer reads {fact:?}");
    }
    for label in ask_popup_protocol::request::RESERVED_LABELS {
        assert!(tool::DESCRIPTION.contains(label), "{label}");
    }
}
