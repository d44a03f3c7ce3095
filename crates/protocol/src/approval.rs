//! An approval: an agent's permission prompt asked in the popup (`"approval": true`). Its
//! choices' labels, and the decision an answer makes, shared by the command (which answers the
//! agent) and the plugin (which records the decision).

use crate::request::Questionnaire;
use serde_json::Value;

/// The choices' labels.
pub const ALLOW_ONCE: &str = "Allow once";
pub const ALLOW_ALWAYS: &str = "Allow always";
pub const DENY: &str = "Deny";
/// The approval's tab header.
pub const HEADER: &str = "Approval";

/// The most of an approval's preview (what would run) that the popup is sure to show whole, in
/// bytes and in lines, at any width it draws a preview at: it lays out 64 KiB and 2,000 wrapped
/// lines of one text (`crates/plugin/src/view/limit.rs`), and 16 KiB of short lines wrap into
/// nearly that at 12 columns (`crates/plugin/tests/approval_whole.rs`). Past either, the popup
/// offers no Allow.
pub const WHOLE_PREVIEW_BYTES: usize = 16 * 1024;
pub const WHOLE_PREVIEW_LINES: usize = 500;

/// What the user decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    AllowOnce,
    /// Allow, and add the rules the agent offered.
    AllowAlways,
    /// Deny, with the message the model reads.
    Deny(String),
}

impl Decision {
    /// The decision as the record names it.
    pub fn recorded(&self) -> &'static str {
        match self {
            Decision::AllowOnce => "allow_once",
            Decision::AllowAlways => "allow_always",
            Decision::Deny(_) => "deny",
        }
    }
}

/// What the record says an approval of `questionnaire` that was answered with `reply` decided:
/// `allow_once`, `allow_always`, `deny`, or `agent` (left to the agent's own prompt).
pub fn recorded(questionnaire: &Questionnaire, reply: &str) -> &'static str {
    let always = questionnaire
        .questions
        .iter()
        .flat_map(|q| &q.options)
        .any(|o| o.label == ALLOW_ALWAYS);
    decision(reply, always).map_or("agent", |d| d.recorded())
}

/// The decision in the popup's `envelope`, or `None` when the agent's own prompt decides: the
/// envelope cannot be read, carries an error (the popup closed or out of reach, a timeout, a
/// refused request) or a decline, or answers with anything but one of the approval's choices.
/// `always_offered`: whether `Allow always` was one.
///
/// Read as plain JSON: the plugin records the decision too, and a typed reader of envelopes
/// would add to its size.
pub fn decision(envelope: &str, always_offered: bool) -> Option<Decision> {
    let envelope: Value = serde_json::from_str(envelope.trim()).ok()?;
    let text = envelope.pointer("/content/0/text")?.as_str()?;
    let details = envelope.get("details")?.as_object()?;
    let flag = |key: &str| details.get(key).is_some_and(|v| !v.is_null() && v != false);
    if flag("error") || flag("cancelled") {
        return None;
    }
    if flag("chatRequested") {
        return Some(Decision::Deny(text.to_owned()));
    }
    let [answer] = details.get("answers")?.as_array()?.as_slice() else {
        return None;
    };
    fn field(v: Option<&Value>) -> &str {
        v.and_then(Value::as_str).map_or("", str::trim)
    }
    let notes = [field(answer.get("notes")), field(details.get("globalNote"))]
        .into_iter()
        .filter(|n| !n.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let denied = |said: &str| {
        Decision::Deny(match (said.is_empty(), notes.is_empty()) {
            (true, true) => "The user denied this.".to_owned(),
            (true, false) => format!("The user denied this: {notes}"),
            (false, true) => format!("The user denied this: {said}"),
            (false, false) => format!("The user denied this: {said} {notes}"),
        })
    };
    let picked = answer.get("answer").and_then(Value::as_str);
    match (field(answer.get("kind")), picked) {
        ("option", Some(ALLOW_ONCE)) => Some(Decision::AllowOnce),
        ("option", Some(ALLOW_ALWAYS)) if always_offered => Some(Decision::AllowAlways),
        ("option", Some(DENY)) => Some(denied("")),
        ("custom", Some(typed)) if !typed.trim().is_empty() => Some(denied(typed.trim())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{self, Answer, Outcome, Responses};
    use crate::history::Entry;
    use crate::request;

    fn approval(always: bool) -> Questionnaire {
        let mut options = vec![serde_json::json!({"label": ALLOW_ONCE, "description": ""})];
        if always {
            options.push(serde_json::json!({"label": ALLOW_ALWAYS, "description": ""}));
        }
        options.push(serde_json::json!({"label": DENY, "description": ""}));
        let q = serde_json::json!({"approval": true, "questions": [{"question": "Allow x to use Bash: ls?",
            "header": HEADER, "options": options}]});
        request::parse(&q.to_string()).expect("an approval")
    }

    fn picked(q: &Questionnaire, option: usize) -> String {
        let mut responses = Responses::empty(1);
        responses.answers[0] = Some(Answer::Option(option));
        envelope::outcome(q, &Outcome::Submitted(responses), None)
    }

    #[test]
    fn the_record_names_what_an_approval_decided() {
        let q = approval(true);
        assert_eq!(recorded(&q, &picked(&q, 0)), "allow_once");
        assert_eq!(recorded(&q, &picked(&q, 1)), "allow_always");
        assert_eq!(recorded(&q, &picked(&q, 2)), "deny");
        let declined = envelope::outcome(&q, &Outcome::Declined(Responses::empty(1)), None);
        assert_eq!(recorded(&q, &declined), "agent");
        assert_eq!(recorded(&q, "not an envelope"), "agent");
        // Without `Allow always` offered, the second option is Deny.
        let q = approval(false);
        assert_eq!(recorded(&q, &picked(&q, 1)), "deny");
        let entry = Entry {
            asked_ms: 0,
            ended_ms: 0,
            session: None,
            agent: "claude".to_owned(),
            pane_id: None,
            request_id: None,
            questions: Vec::new(),
            ending: "answered".to_owned(),
            reply: picked(&q, 0),
            approval: Some(recorded(&q, &picked(&q, 0)).to_owned()),
            ..Entry::default()
        };
        assert_eq!(
            entry.block("today")[0],
            "today · claude · answered · approval: allow once (not asked by an approval hook)"
        );
        let entry = Entry {
            approval_by: Some("claude-approval".to_owned()),
            ..entry
        };
        assert_eq!(
            entry.block("today")[0],
            "today · claude · answered · approval: allow once (by claude-approval)"
        );
        let read = Entry::from_line(&entry.to_line()).expect("a line of the record");
        assert_eq!(read.approval.as_deref(), Some("allow_once"));
        assert_eq!(read.approval_by.as_deref(), Some("claude-approval"));
    }

    #[test]
    fn an_approval_has_one_single_select_question_and_nothing_recommended() {
        let bad = [
            r#"{"approval":true,"questions":[{"question":"a?","header":"A","options":["Allow once (Recommended)","Deny"]}]}"#,
            r#"{"approval":true,"questions":[{"question":"a?","header":"A","multiSelect":true,"options":["Allow once","Deny"]}]}"#,
            r#"{"approval":true,"questions":[{"question":"a?","header":"A","options":["Allow once","Deny"]},{"question":"b?","header":"B","options":["x","y"]}]}"#,
        ];
        for payload in bad {
            assert_eq!(
                request::parse(payload),
                Err(request::RequestError::ApprovalShape),
                "{payload}"
            );
        }
        assert!(request::parse(r#"{"approval":"yes","questions":[]}"#).is_err());
    }
}
