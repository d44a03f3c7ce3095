//! An option the agent recommends (its label ends with `(Recommended)`, as Claude Code's and
//! Codex's tools tell their models): marked in the dialog, focused when its question first
//! shows, and accepted for every unanswered question with one key on the Submit tab. The label
//! the envelope returns is the agent's, unchanged.

mod support;

use ask_popup_plugin::dialog::{Dialog, Input, Key, Response, Row};
use ask_popup_plugin::view::style::Role;
use ask_popup_plugin::view::{render, Chrome, ViewCache};
use ask_popup_protocol::envelope::{self, Answer, Outcome, Responses};
use serde_json::json;
use support::*;

fn recommending() -> ask_popup_protocol::request::Questionnaire {
    questionnaire(json!({"questions": [
        {"question": "Which database?", "header": "DB", "options": [
            {"label": "Postgres", "description": "A server"},
            {"label": "SQLite (Recommended)", "description": "One file"}
        ]},
        {"question": "Which checks?", "header": "Checks", "multiSelect": true, "options": [
            {"label": "Lint (Recommended)", "description": ""},
            {"label": "Fuzz", "description": ""},
            {"label": "Types (Recommended)", "description": ""}
        ]},
        {"question": "Which licence?", "header": "Licence", "options": [
            {"label": "MIT", "description": ""},
            {"label": "Apache-2.0", "description": ""}
        ]}
    ]}))
}

#[test]
fn the_recommended_option_holds_the_focus_when_its_question_first_shows() {
    let d = Dialog::new(recommending());
    assert_eq!(d.focused_row(), Some(Row::Option(1)));
    // A question with none starts on its first option, as always.
    let d = Dialog::new(one_question());
    assert_eq!(d.focused_row(), Some(Row::Option(0)));
    // Enter takes it, and the envelope says the label as the agent wrote it.
    let mut d = Dialog::new(questionnaire(json!({"questions": [
        {"question": "Which database?", "header": "DB", "options": [
            {"label": "Postgres", "description": ""},
            {"label": "SQLite (Recommended)", "description": ""}
        ]}
    ]})));
    let Response::Finished(outcome) = keys(&mut d, &[Key::Enter]) else {
        panic!("Enter answers a lone question");
    };
    let line = envelope::outcome(d.questionnaire(), &outcome, None);
    assert!(
        line.contains("\\\"Which database?\\\"=\\\"SQLite (Recommended)\\\""),
        "{line}"
    );
}

#[test]
fn the_recommended_mark_stands_out_and_the_label_is_whole() {
    let d = Dialog::new(recommending());
    let frame = render(&d, &mut ViewCache::new(), &Chrome::default(), 100, 30);
    let text = frame.to_plain();
    assert!(text.contains("2. SQLite (Recommended)"), "{text}");
    let marked = frame
        .lines
        .iter()
        .flat_map(|line| &line.spans)
        .find(|span| span.text == "(Recommended)")
        .expect("the mark is a span of its own");
    assert_eq!(marked.style.role, Role::Success);
    assert!(marked.style.bold);
    // An option that merely mentions the word is not marked.
    let d = Dialog::new(questionnaire(json!({"questions": [
        {"question": "Q?", "header": "H", "options": [
            {"label": "(Recommended) by nobody", "description": ""}, "B"
        ]}
    ]})));
    assert_eq!(d.focused_row(), Some(Row::Option(0)));
    let frame = render(&d, &mut ViewCache::new(), &Chrome::default(), 100, 30);
    assert!(!frame
        .lines
        .iter()
        .flat_map(|line| &line.spans)
        .any(|span| span.text == "(Recommended)"));
}

#[test]
fn one_key_on_the_submit_tab_accepts_every_unanswered_questions_recommendation() {
    let mut d = Dialog::new(recommending());
    // The user answers the first question themselves: Postgres.
    keys(&mut d, &[Key::Up, Key::Enter]);
    // On to the next question, then the Submit tab.
    assert_eq!(d.tab(), 1);
    keys(&mut d, &[Key::Tab, Key::Tab]);
    assert!(d.on_submit_tab(), "{:?}", d.tab());
    let hints = |d: &Dialog| -> Vec<String> {
        d.hints()
            .iter()
            .map(|h| format!("{} {}", h.keys, h.action))
            .collect()
    };
    assert!(
        hints(&d).contains(&"a accept recommended".to_owned()),
        "{:?}",
        hints(&d)
    );
    assert_eq!(d.handle(Input::Key(Key::Char('a'))), Response::Render);
    // Nothing left to accept: the hint goes, the key does nothing.
    assert!(!hints(&d).contains(&"a accept recommended".to_owned()));
    assert_eq!(d.handle(Input::Key(Key::Char('a'))), Response::Unchanged);
    let Response::Finished(Outcome::Submitted(responses)) = keys(&mut d, &[Key::Enter]) else {
        panic!("Enter on Submit answers submits");
    };
    let mut expected = Responses::empty(3);
    // The user's own answer stands; the multi-select gets both marked options; the licence,
    // with no recommendation, stays unanswered.
    expected.answers[0] = Some(Answer::Option(0));
    expected.answers[1] = Some(Answer::Multi {
        ticked: vec![0, 2],
        text: None,
    });
    assert_eq!(responses, expected);
}

#[test]
fn an_approval_starts_on_its_last_option_the_agents_deny() {
    let approval = questionnaire(json!({"approval": true, "questions": [
        {"question": "Allow claude to use Bash: ls?", "header": "Approval", "options": [
            {"label": "Allow once", "description": ""},
            {"label": "Allow always", "description": ""},
            {"label": "Deny", "description": ""}
        ]}
    ]}));
    let mut d = Dialog::new(approval.clone());
    assert_eq!(d.focused_row(), Some(Row::Option(2)));
    // Enter at once denies; nothing allows but a pick of an Allow option.
    d.handle(Input::Key(Key::Enter));
    let env = envelope::outcome(&approval, &Outcome::Submitted(d.responses()), None);
    assert_eq!(
        ask_popup_protocol::approval::recorded(&approval, &env),
        "deny"
    );
}
