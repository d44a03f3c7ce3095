//! Shared helpers for the dialog tests: sample questionnaires and key sequences.
#![allow(dead_code)]

use ask_popup_plugin::dialog::{Dialog, Input, Key, Response};
use ask_popup_plugin::view::{render, Chrome, ViewCache};
use ask_popup_protocol::request::{parse, Questionnaire};
use serde_json::{json, Value};

pub fn questionnaire(v: Value) -> Questionnaire {
    parse(&v.to_string()).expect("valid questionnaire")
}

pub fn one_question() -> Questionnaire {
    questionnaire(json!({"questions": [{
        "question": "Which database should the new service use?",
        "header": "Database",
        "options": [
            {"label": "Postgres (Recommended)", "description": "Concurrent writes and mature ops tooling, at the cost of a running server."},
            {"label": "SQLite", "description": "One file with no setup, limited write concurrency."}
        ]
    }]}))
}

pub fn four_questions() -> Questionnaire {
    questionnaire(json!({"questions": [
        {"question": "Which database should the new service use?", "header": "Database", "options": [
            {"label": "Postgres", "description": "Concurrent writes, mature tooling."},
            {"label": "SQLite", "description": "One file, no setup."}]},
        {"question": "Which features ship in the first release?", "header": "Features", "multiSelect": true, "options": [
            {"label": "Auth", "description": "Login with email and SSO."},
            {"label": "Search", "description": "Full-text search over documents."},
            {"label": "Export", "description": "CSV and JSON export."}]},
        {"question": "How should errors be reported?", "header": "Errors", "options": [
            {"label": "Sentry", "description": "Hosted error tracking."},
            {"label": "Logs only", "description": "Structured logs, no alerting."}]},
        {"question": "When do we ship?", "header": "Ship date", "options": ["Friday", "Next week", "Next month"]}
    ]}))
}

pub fn multi_select() -> Questionnaire {
    questionnaire(json!({"questions": [{
        "question": "Which checks should run on every push?",
        "header": "CI checks",
        "multiSelect": true,
        "options": [
            {"label": "Unit tests", "description": "Fast, run everywhere."},
            {"label": "Lint", "description": "clippy and fmt."},
            {"label": "E2E", "description": "Slow: a real Zellij in tmux."}
        ]
    }]}))
}

pub const PREVIEW_A: &str = "## Layout A\n\nA **sidebar** on the left, the *editor* on the right.\n\n- fast to scan\n- works at `80` columns\n\n```\n+------+--------------+\n| side | editor       |\n+------+--------------+\n```\n\n> Recommended by the design team.";

pub fn with_previews() -> Questionnaire {
    questionnaire(json!({"questions": [{
        "question": "Which layout should the settings page use?",
        "header": "Layout",
        "options": [
            {"label": "Sidebar", "description": "Navigation on the left.", "preview": PREVIEW_A},
            {"label": "Tabs", "description": "Navigation on top.", "preview": "## Layout B\n\nTabs across the top.\n\n1. one\n2. two"},
            {"label": "Single page", "description": "Everything on one long page."}
        ]
    }]}))
}

pub fn long_preview() -> Questionnaire {
    let body: String = (1..=80)
        .map(|i| format!("Line {i} of the long preview.\n\n"))
        .collect();
    questionnaire(json!({"questions": [{
        "question": "Read the whole plan?",
        "header": "Plan",
        "options": [
            {"label": "Approve", "description": "Go ahead.", "preview": body},
            {"label": "Reject", "description": "Stop."}
        ]
    }]}))
}

pub fn keys(d: &mut Dialog, keys: &[Key]) -> Response {
    let mut last = Response::Unchanged;
    for k in keys {
        last = d.handle(Input::Key(*k));
        if matches!(last, Response::Finished(_)) {
            break;
        }
    }
    last
}

pub fn type_text(d: &mut Dialog, s: &str) {
    for c in s.chars() {
        d.handle(Input::Key(Key::Char(c)));
    }
}

pub fn frame(d: &Dialog, width: usize, height: usize) -> String {
    let chrome = Chrome {
        banner: None,
        hide_key: Some("Ctrl+]".into()),
        settling: false,
    };
    render(d, &mut ViewCache::new(), &chrome, width, height).to_plain()
}

/// The form of the e2e's server: a name, a count of 1 to 5, a flag and a colour.
pub fn elicit_form() -> Dialog {
    Dialog::new(questionnaire(json!({"form": {
        "server": "elicit",
        "message": "Please fill in your preferences",
        "schema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name", "description": "Your name"},
                "count": {"type": "integer", "title": "Count", "minimum": 1, "maximum": 5},
                "confirm": {"type": "boolean", "title": "Confirm", "default": false},
                "color": {"type": "string", "title": "Color", "enum": ["red", "green", "blue"],
                          "enumNames": ["Red", "Green", "Blue"], "default": "red"},
            },
            "required": ["name", "count"],
        },
    }})))
}
