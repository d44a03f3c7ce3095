//! The JSON document the notify command reads on its stdin: who asks, what, where it waits, and
//! the session's URL in Zellij's web client when its server runs.

use crate::ask::{agent_value, Caller};
use crate::setup::web;
use ask_popup_protocol::request::{self, Questionnaire};
use serde::Serialize;
use std::time::Duration;

/// The longest question text the document carries, in characters: a notification shows a line
/// or two, and a small document fits in a pipe's buffer, so writing it never waits on the
/// command reading it.
pub const MAX_QUESTION_CHARS: usize = 500;

/// The JSON document the notify command reads on its stdin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Waiting {
    /// The name the popup shows for the asking agent.
    pub agent: Option<String>,
    /// Each question's header, in order.
    pub headers: Vec<String>,
    pub questions: Vec<WaitingQuestion>,
    /// The asking pane (`$ZELLIJ_PANE_ID`).
    pub pane_id: Option<u64>,
    /// The Zellij session (`$ZELLIJ_SESSION_NAME`).
    pub session: Option<String>,
    pub request_id: String,
    /// How long the question has waited, in whole seconds.
    pub waited_seconds: u64,
    /// The session in Zellij's web client, when its web server runs.
    pub url: Option<String>,
}

/// One question as the document gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitingQuestion {
    pub header: String,
    /// The question's text, cut to `MAX_QUESTION_CHARS` characters.
    pub question: String,
    /// The options' labels.
    pub options: Vec<String>,
}

impl Waiting {
    /// The document for the questionnaire sent as `line` by `caller`, in `session`, after
    /// `waited`, with the session's web `url` when there is one.
    pub fn new(
        line: &str,
        caller: &Caller,
        session: Option<&str>,
        waited: Duration,
        url: Option<String>,
    ) -> Waiting {
        // The line was checked before it was sent; should it not read, the document still goes
        // out, without questions.
        let questions = request::parse(line)
            .map(|q| questions_of(&q))
            .unwrap_or_default();
        Waiting {
            agent: caller
                .agent
                .as_deref()
                .map(agent_value)
                .filter(|a| !a.is_empty()),
            headers: questions.iter().map(|q| q.header.clone()).collect(),
            questions,
            pane_id: caller
                .pane_id
                .as_deref()
                .and_then(|p| p.trim().parse().ok()),
            session: session.filter(|s| !s.is_empty()).map(str::to_owned),
            request_id: caller.id.clone(),
            waited_seconds: waited.as_secs(),
            url,
        }
    }

    /// The document as one line of JSON, with its newline.
    pub fn to_json(&self) -> String {
        let mut json = serde_json::to_string(self).unwrap_or_default();
        json.push('\n');
        json
    }
}

fn questions_of(questionnaire: &Questionnaire) -> Vec<WaitingQuestion> {
    questionnaire
        .questions
        .iter()
        .map(|q| WaitingQuestion {
            header: q.header.clone(),
            question: cut(&q.question, MAX_QUESTION_CHARS),
            options: q.options.iter().map(|o| o.label.clone()).collect(),
        })
        .collect()
}

/// `text` cut to at most `max` characters, an ellipsis marking the cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The arguments of the command that tells whether Zellij's web server runs.
pub const WEB_STATUS_ARGS: [&str; 4] = ["web", "--status", "--timeout", "2"];

/// The session's URL in Zellij's web client, from what `zellij web --status` printed: None
/// when the server is offline, or the output is anything else (a Zellij built without the web
/// server says so and exits 2).
pub fn web_url(status: &[u8], session: &str) -> Option<String> {
    if session.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(status);
    web::online_base(&text).map(|base| web::session_url(base, session))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::json;

    /// A one-question questionnaire (for the terminal notification's tests too).
    pub(in crate::notify) const DB: &str = r#"{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres","description":"Relational"},{"label":"SQLite","description":"Embedded"}]}]}"#;

    #[test]
    fn the_document_names_the_agent_the_questions_and_where_they_wait() {
        let caller = Caller {
            pane_id: Some("3".to_owned()),
            agent: Some("claude".to_owned()),
            id: "r1".to_owned(),
            id_given: true,
            approval_by: None,
        };
        let waiting = Waiting::new(
            DB,
            &caller,
            Some("main"),
            Duration::from_millis(30_900),
            Some("http://127.0.0.1:8082/main".to_owned()),
        );
        let document: serde_json::Value =
            serde_json::from_str(&waiting.to_json()).expect("one JSON document");
        assert_eq!(
            document,
            json!({
                "agent": "claude",
                "headers": ["DB"],
                "questions": [{"header": "DB", "question": "Which database?", "options": ["Postgres", "SQLite"]}],
                "paneId": 3,
                "session": "main",
                "requestId": "r1",
                "waitedSeconds": 30,
                "url": "http://127.0.0.1:8082/main",
            })
        );
        assert!(waiting.to_json().ends_with("}\n"));
    }

    #[test]
    fn what_is_unknown_is_null_in_the_document() {
        let caller = Caller {
            pane_id: Some("not a pane".to_owned()),
            agent: Some("a,b".to_owned()),
            id: "r2".to_owned(),
            id_given: false,
            approval_by: None,
        };
        let document =
            serde_json::to_value(Waiting::new(DB, &caller, Some(""), Duration::ZERO, None))
                .expect("JSON");
        assert_eq!(document["agent"], "ab", "as the popup shows it");
        assert_eq!(document["paneId"], json!(null));
        assert_eq!(document["session"], json!(null));
        assert_eq!(document["url"], json!(null));
        let nobody = Caller {
            pane_id: None,
            agent: None,
            ..caller
        };
        let document = serde_json::to_value(Waiting::new(
            "not json",
            &nobody,
            None,
            Duration::ZERO,
            None,
        ))
        .expect("JSON");
        assert_eq!(document["agent"], json!(null));
        assert_eq!(document["headers"], json!([]));
        assert_eq!(document["questions"], json!([]));
        assert_eq!(document["requestId"], "r2");
    }

    #[test]
    fn a_long_question_is_cut_and_options_are_their_labels() {
        let long = "x".repeat(MAX_QUESTION_CHARS + 10);
        // Options as plain strings, an alias the request reads.
        let payload =
            json!({"questions": [{"question": long, "header": "Long", "options": ["A", "B"]}]});
        let caller = Caller {
            pane_id: None,
            agent: None,
            id: "r3".to_owned(),
            id_given: false,
            approval_by: None,
        };
        let waiting = Waiting::new(&payload.to_string(), &caller, None, Duration::ZERO, None);
        let question = &waiting.questions[0];
        assert_eq!(question.question.chars().count(), MAX_QUESTION_CHARS);
        assert!(question.question.ends_with('…'));
        assert_eq!(question.options, ["A", "B"]);
        assert_eq!(waiting.headers, ["Long"]);
    }

    #[test]
    fn the_web_url_is_the_online_servers_base_and_the_session() {
        let online = b"Web server online with version: 0.45.1. Checked: http://127.0.0.1:8082\n";
        let cases: [(&[u8], &str, Option<&str>); 7] = [
            (online, "main", Some("http://127.0.0.1:8082/main")),
            (online, "my session/1", Some("http://127.0.0.1:8082/my%20session%2F1")),
            (
                b"Web server online with version: 0.44.0. Checked: https://host:9000/\n\nNote: this version differs from the current Zellij version: 0.45.1.\n",
                "s",
                Some("https://host:9000/s"),
            ),
            (online, "", None),
            (b"Web server is offline, checked: http://127.0.0.1:8082\n", "main", None),
            (
                b"This version of Zellij was compiled without web server support, cannot get web server status!",
                "main",
                None,
            ),
            (b"", "main", None),
        ];
        for (status, session, expected) in cases {
            assert_eq!(
                web_url(status, session).as_deref(),
                expected,
                "{:?} {session:?}",
                String::from_utf8_lossy(status)
            );
        }
    }
}
