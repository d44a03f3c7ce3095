//! From keys to the final envelope, for every way through the dialog.

mod support;

use ask_popup_plugin::dialog::{ctrl_symbol, Dialog, Input, Key, Mode, Response, Row, Target};
use ask_popup_plugin::view::{render, Chrome, ViewCache};
use ask_popup_protocol::envelope::{self, Answer, Outcome, Responses};
use serde_json::json;
use support::*;

fn finished(r: Response) -> Outcome {
    match r {
        Response::Finished(o) => o,
        other => panic!("expected the dialog to finish, got {other:?}"),
    }
}

fn text_of(d: &Dialog, outcome: &Outcome) -> String {
    let line = envelope::outcome(d.questionnaire(), outcome, None);
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    v["content"][0]["text"].as_str().unwrap().to_owned()
}

#[test]
fn enter_on_an_option_answers_a_single_question() {
    let mut d = Dialog::new(one_question());
    let outcome = finished(keys(&mut d, &[Key::Down, Key::Enter]));
    let mut expected = Responses::empty(1);
    expected.answers[0] = Some(Answer::Option(1));
    assert_eq!(outcome, Outcome::Submitted(expected));
    assert_eq!(
        text_of(&d, &outcome),
        "User has answered your questions: \"Which database should the new service use?\"=\"SQLite\". You can now continue with the user's answers in mind."
    );
}

#[test]
fn arrows_wrap_and_digits_focus_rows() {
    let mut d = Dialog::new(one_question());
    keys(&mut d, &[Key::Up]);
    assert_eq!(d.focused_row(), Some(Row::Chat));
    keys(&mut d, &[Key::Down]);
    assert_eq!(d.focused_row(), Some(Row::Option(0)));
    keys(&mut d, &[Key::Char('2')]);
    assert_eq!(d.focused_row(), Some(Row::Option(1)));
    keys(&mut d, &[Key::Char('4')]);
    assert_eq!(d.focused_row(), Some(Row::Chat));
    // There is no row 9: nothing happens.
    assert_eq!(d.handle(Input::Key(Key::Char('9'))), Response::Unchanged);
}

#[test]
fn multi_select_ticks_with_space_and_enter_then_next_and_submit() {
    let mut d = Dialog::new(multi_select());
    keys(&mut d, &[Key::Char(' '), Key::Down, Key::Down, Key::Enter]);
    // Rows: three options, Type something., Next, Chat about this.
    keys(&mut d, &[Key::Char('4')]);
    assert_eq!(d.mode(), Mode::Typing);
    type_text(&mut d, "Fuzzing");
    // Enter on the free-form row of a multi-select question moves on to Next.
    keys(&mut d, &[Key::Enter]);
    assert_eq!(d.focused_row(), Some(Row::Next));
    keys(&mut d, &[Key::Enter]);
    assert!(d.on_submit_tab());
    let outcome = finished(keys(&mut d, &[Key::Enter]));
    let mut expected = Responses::empty(1);
    expected.answers[0] = Some(Answer::Multi {
        ticked: vec![0, 2],
        text: Some("Fuzzing".into()),
    });
    assert_eq!(outcome, Outcome::Submitted(expected));
    assert_eq!(
        text_of(&d, &outcome),
        "User has answered your questions: \"Which checks should run on every push?\"=\"Unit tests, E2E, Fuzzing\". You can now continue with the user's answers in mind."
    );
}

#[test]
fn space_toggles_twice_back_to_unticked() {
    let mut d = Dialog::new(multi_select());
    keys(&mut d, &[Key::Char(' '), Key::Char(' ')]);
    assert!(!d.is_answered(0));
}

#[test]
fn free_text_is_typed_on_the_free_form_row_and_committed_with_enter() {
    let mut d = Dialog::new(one_question());
    keys(&mut d, &[Key::Down, Key::Down]);
    assert_eq!(d.mode(), Mode::Typing);
    type_text(&mut d, "MySQL 8");
    // Editing keys work: Backspace, Left, Home, Delete.
    keys(
        &mut d,
        &[
            Key::Backspace,
            Key::Char('9'),
            Key::Home,
            Key::Delete,
            Key::Char('m'),
        ],
    );
    let outcome = finished(keys(&mut d, &[Key::Enter]));
    let mut expected = Responses::empty(1);
    expected.answers[0] = Some(Answer::Custom("mySQL 9".into()));
    assert_eq!(outcome, Outcome::Submitted(expected));
}

#[test]
fn digits_and_n_type_into_the_editor_not_commands() {
    let mut d = Dialog::new(one_question());
    keys(&mut d, &[Key::Char('3')]);
    type_text(&mut d, "n1 ");
    assert_eq!(d.tab_state(0).unwrap().draft.text(), "n1 ");
    assert_eq!(d.mode(), Mode::Typing);
}

#[test]
fn alt_enter_inserts_a_newline_and_ctrl_u_clears() {
    let mut d = Dialog::new(one_question());
    keys(&mut d, &[Key::Char('3')]);
    type_text(&mut d, "a");
    keys(&mut d, &[Key::AltEnter]);
    type_text(&mut d, "b");
    assert_eq!(d.tab_state(0).unwrap().draft.text(), "a\nb");
    keys(&mut d, &[Key::ClearLine]);
    assert_eq!(d.tab_state(0).unwrap().draft.text(), "");
}

#[test]
fn pasted_text_is_inserted_whole() {
    let mut d = Dialog::new(one_question());
    keys(&mut d, &[Key::Char('3')]);
    d.handle(Input::Paste("line one\r\nline two\x1b[31m".into()));
    assert_eq!(
        d.tab_state(0).unwrap().draft.text(),
        "line one\nline two[31m"
    );
}

#[test]
fn notes_on_questions_and_the_global_note() {
    let mut d = Dialog::new(four_questions());
    // A note on question 1, then answer it.
    keys(&mut d, &[Key::Char('n')]);
    assert_eq!(d.mode(), Mode::Note);
    type_text(&mut d, "we run Postgres elsewhere");
    keys(&mut d, &[Key::Enter, Key::Enter]);
    assert_eq!(d.tab(), 1);
    // A note on question 3 without answering it.
    keys(&mut d, &[Key::Tab, Key::Char('n')]);
    type_text(&mut d, "ask ops");
    keys(&mut d, &[Key::Esc]);
    assert_eq!(d.mode(), Mode::Browse);
    // The global note on the Submit tab.
    keys(&mut d, &[Key::Tab, Key::Tab, Key::Char('n')]);
    assert!(d.on_submit_tab());
    type_text(&mut d, "ship it\nFriday");
    keys(&mut d, &[Key::Enter]);
    let outcome = finished(keys(&mut d, &[Key::Enter]));
    assert_eq!(
        text_of(&d, &outcome),
        "User has answered your questions: \"Which database should the new service use?\"=\"Postgres\". user notes: we run Postgres elsewhere. note on \"How should errors be reported?\": ask ops. global note: ship it\nFriday. You can now continue with the user's answers in mind."
    );
}

#[test]
fn partial_submit_sends_only_what_was_answered() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Down, Key::Enter]);
    keys(&mut d, &[Key::BackTab, Key::BackTab]);
    assert!(d.on_submit_tab());
    let outcome = finished(keys(&mut d, &[Key::Enter]));
    let mut expected = Responses::empty(4);
    expected.answers[0] = Some(Answer::Option(1));
    assert_eq!(outcome, Outcome::Submitted(expected));
}

#[test]
fn cancel_on_the_submit_tab_declines_and_keeps_details() {
    let mut d = Dialog::new(four_questions());
    keys(
        &mut d,
        &[Key::Enter, Key::Tab, Key::Tab, Key::Tab, Key::Down],
    );
    let outcome = finished(keys(&mut d, &[Key::Enter]));
    assert!(matches!(outcome, Outcome::Declined(ref r) if r.answers[0] == Some(Answer::Option(0))));
    assert_eq!(text_of(&d, &outcome), "User declined to answer questions");
}

#[test]
fn chat_on_the_first_tab() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Char('4')]);
    assert_eq!(d.focused_row(), Some(Row::Chat));
    let outcome = finished(keys(&mut d, &[Key::Enter]));
    assert_eq!(
        outcome,
        Outcome::ChatRequested {
            question: 0,
            responses: Responses::empty(4)
        }
    );
}

#[test]
fn chat_on_a_later_tab_carries_earlier_answers() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Enter]); // Postgres, on to Features
    keys(&mut d, &[Key::Char(' ')]); // tick Auth
    keys(&mut d, &[Key::Char('5')]); // multi: 3 options, Type something., Chat = 5
    let outcome = finished(keys(&mut d, &[Key::Enter]));
    assert_eq!(
        text_of(&d, &outcome),
        "User picked \"Chat about this\" on question 2: \"Which features ship in the first release?\". \"Which database should the new service use?\"=\"Postgres\"."
    );
    match outcome {
        Outcome::ChatRequested { responses, .. } => {
            assert_eq!(responses.answers[0], Some(Answer::Option(0)));
            assert_eq!(
                responses.answers[1], None,
                "the chat question gains no answer"
            );
        }
        other => panic!("expected a chat request, got {other:?}"),
    }
}

#[test]
fn chat_drops_the_earlier_pick_and_the_draft_of_its_own_question() {
    // A pick on the question, then back to it and Chat about this.
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Enter, Key::BackTab]); // Postgres, then back to Database
    assert_eq!(d.tab(), 0);
    keys(&mut d, &[Key::Char('4')]); // Chat about this
    let outcome = finished(keys(&mut d, &[Key::Enter]));
    assert_eq!(
        text_of(&d, &outcome),
        "User picked \"Chat about this\" on question 1: \"Which database should the new service use?\"."
    );
    let Outcome::ChatRequested { responses, .. } = &outcome else {
        panic!("expected a chat request, got {outcome:?}");
    };
    assert_eq!(responses.answers[0], None);

    // An uncommitted draft on the question counts no more than a pick.
    let mut d = Dialog::new(one_question());
    keys(&mut d, &[Key::Char('3')]);
    type_text(&mut d, "DuckDB");
    keys(&mut d, &[Key::Down]); // Chat about this
    let outcome = finished(keys(&mut d, &[Key::Enter]));
    assert_eq!(
        text_of(&d, &outcome),
        "User picked \"Chat about this\" on question 1: \"Which database should the new service use?\"."
    );
}

#[test]
fn tab_and_shift_tab_keep_switching_past_a_tab_left_on_the_free_form_row() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Char('3')]); // Type something. on Database
    keys(&mut d, &[Key::Esc, Key::Tab]);
    assert_eq!(d.tab(), 1);
    // Back to Database, whose focus is on the free-form row: still browsing.
    keys(&mut d, &[Key::BackTab]);
    assert_eq!((d.tab(), d.mode()), (0, Mode::Browse));
    keys(&mut d, &[Key::Tab]);
    assert_eq!(
        d.tab(),
        1,
        "Tab switches on, it is not typed into the editor"
    );
    keys(&mut d, &[Key::BackTab, Key::BackTab]);
    assert_eq!(d.tab(), 4, "Shift+Tab wraps round to Submit");
    assert_eq!(d.tab_state(0).unwrap().draft.text(), "");
}

#[test]
fn esc_with_nothing_given_declines_at_once() {
    let mut d = Dialog::new(four_questions());
    let outcome = finished(keys(&mut d, &[Key::Esc]));
    assert_eq!(outcome, Outcome::Declined(Responses::empty(4)));
}

#[test]
fn esc_guard_asks_again_when_something_would_be_lost() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Enter]);
    assert_eq!(d.handle(Input::Key(Key::Esc)), Response::Render);
    assert!(d.esc_armed());
    assert!(frame(&d, 100, 30).contains("Press Esc again to discard your answers"));
    // Any other key disarms it.
    keys(&mut d, &[Key::Down]);
    assert!(!d.esc_armed());
    assert_eq!(d.handle(Input::Key(Key::Esc)), Response::Render);
    let outcome = finished(keys(&mut d, &[Key::Esc]));
    assert!(matches!(outcome, Outcome::Declined(ref r) if r.answers[0] == Some(Answer::Option(0))));
}

#[test]
fn esc_guard_counts_an_uncommitted_draft() {
    let mut d = Dialog::new(one_question());
    keys(&mut d, &[Key::Char('3')]);
    type_text(&mut d, "half a thought");
    // The first Esc leaves the editor, keeping the text.
    keys(&mut d, &[Key::Esc]);
    assert_eq!(d.mode(), Mode::Browse);
    assert_eq!(d.tab_state(0).unwrap().draft.text(), "half a thought");
    assert_eq!(d.handle(Input::Key(Key::Esc)), Response::Render);
    assert!(d.esc_armed());
    assert!(matches!(
        d.handle(Input::Key(Key::Esc)),
        Response::Finished(Outcome::Declined(_))
    ));
}

#[test]
fn a_key_stops_the_countdown_for_good() {
    let mut d = Dialog::new(questionnaire(
        json!({"questions": [{"question": "Q?", "options": ["A", "B"]}], "timeout": 5000}),
    ));
    assert_eq!(d.tick(400), Response::Unchanged);
    assert_eq!(d.tick(700), Response::Render); // 5 s → 4 s shown
    assert!(frame(&d, 60, 20).contains("⏱ 0:04"));
    keys(&mut d, &[Key::Down]);
    assert_eq!(d.countdown(), None);
    assert_eq!(d.tick(60_000), Response::Unchanged);
    assert!(!frame(&d, 60, 20).contains('⏱'));
}

#[test]
fn even_a_key_that_does_nothing_stops_the_countdown() {
    let mut d = Dialog::new(questionnaire(
        json!({"questions": [{"question": "Q?", "options": ["A", "B"]}], "timeout": 5000}),
    ));
    assert_eq!(d.handle(Input::Key(Key::Other)), Response::Render);
    assert_eq!(d.countdown(), None);
}

#[test]
fn countdown_expiry_times_out_with_what_was_left() {
    let mut d = Dialog::new(questionnaire(json!({"questions": [
        {"question": "A?", "options": ["x", "y"]},
        {"question": "B?", "options": ["x", "y"]}], "timeout": 2000})));
    assert_eq!(d.tick(1000), Response::Render);
    let outcome = finished(d.tick(1000));
    assert_eq!(outcome, Outcome::TimedOut(Responses::empty(2)));
    assert_eq!(
        text_of(&d, &outcome),
        "Questionnaire timed out, the user did not respond within the configured timeout. The user never saw a decline; do NOT treat this as a rejection. Ask the questions as plain chat text instead or retry."
    );
}

#[test]
fn a_draft_is_kept_across_tab_switches_and_submitted() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Char('3')]);
    type_text(&mut d, "CockroachDB");
    // Tab does not switch while typing; Esc leaves the editor, then Tab does.
    assert_eq!(d.handle(Input::Key(Key::Tab)), Response::Unchanged);
    keys(&mut d, &[Key::Esc, Key::Tab]);
    assert_eq!(d.tab(), 1);
    keys(&mut d, &[Key::BackTab]);
    assert_eq!(d.tab(), 0);
    assert_eq!(d.tab_state(0).unwrap().draft.text(), "CockroachDB");
    // Back on the free-form row, arriving does not start typing; a printable key does, and
    // typing goes on where it was.
    assert_eq!(d.mode(), Mode::Browse);
    type_text(&mut d, "!");
    assert_eq!(d.mode(), Mode::Typing);
    // Leaving the row with ↓ keeps the draft, and the draft counts as the answer.
    keys(&mut d, &[Key::Down]);
    assert_eq!(d.answer(0), Some(Answer::Custom("CockroachDB!".into())));
    assert!(frame(&d, 100, 30).contains("3. CockroachDB!"));
}

#[test]
fn picking_an_option_keeps_the_draft_but_answers_the_option() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Char('3')]);
    type_text(&mut d, "maybe");
    keys(&mut d, &[Key::Up, Key::Up, Key::Enter]);
    assert_eq!(d.answer(0), Some(Answer::Option(0)));
    assert_eq!(d.tab_state(0).unwrap().draft.text(), "maybe");
}

#[test]
fn hide_key_hides_without_changing_anything() {
    let mut d = Dialog::new(one_question());
    keys(&mut d, &[Key::Down]);
    assert_eq!(d.handle(Input::Key(Key::Hide)), Response::Hide);
    assert_eq!(d.focused_row(), Some(Row::Option(1)));
}

#[test]
fn page_keys_and_wheel_scroll_the_preview() {
    let mut d = Dialog::new(long_preview());
    keys(&mut d, &[Key::PageDown, Key::PageDown]);
    assert_eq!(d.tab_state(0).unwrap().preview_scroll, 16);
    d.handle(Input::Wheel { lines: -3 });
    assert_eq!(d.tab_state(0).unwrap().preview_scroll, 13);
    let text = frame(&d, 120, 30);
    assert!(text.contains("▲ 13 more"), "{text}");
    assert!(text.contains("▼"), "{text}");
}

#[test]
fn clicks_pick_rows_and_switch_tabs() {
    let mut d = Dialog::new(four_questions());
    let chrome = Chrome::default();
    let frame = render(&d, &mut ViewCache::new(), &chrome, 100, 30);
    // Find where option 2 and the Errors tab are drawn.
    let row = frame
        .hits
        .iter()
        .find(|h| h.target == Target::Row(1))
        .unwrap();
    assert_eq!(frame.target_at(row.line, 3), Some(Target::Row(1)));
    assert_eq!(d.handle(Input::Click(Target::Row(1))), Response::Render);
    assert_eq!(d.answer(0), Some(Answer::Option(1)));
    assert_eq!(d.tab(), 1);
    let tab = frame
        .hits
        .iter()
        .find(|h| h.target == Target::Tab(2))
        .unwrap();
    assert_eq!(
        frame.target_at(tab.line, tab.cols.start),
        Some(Target::Tab(2))
    );
    d.handle(Input::Click(Target::Tab(2)));
    assert_eq!(d.tab(), 2);
}

#[test]
fn context_is_collapsed_when_it_would_push_the_options_away() {
    let long: String = (1..=40).map(|i| format!("Context line {i}.\n\n")).collect();
    let mut d = Dialog::new(questionnaire(
        json!({"question": "Go?", "context": long, "options": ["Yes", "No"]}),
    ));
    let small = frame(&d, 80, 24);
    assert!(
        small.contains("▸ Context (79 lines) · Ctrl+E to expand"),
        "{small}"
    );
    assert!(small.contains("1. Yes"));
    keys(&mut d, &[Key::ToggleContext]);
    assert!(frame(&d, 80, 24).contains("Context line 1."));
    // A short context is shown as it is.
    let d = Dialog::new(questionnaire(
        json!({"question": "Go?", "context": "We **must** decide today.", "options": ["Yes", "No"]}),
    ));
    assert!(frame(&d, 80, 24).contains("We must decide today."));
}

/// Legacy terminals send Ctrl+] as the byte 0x1d, which reaches the plugin as a bare
/// character; the plugin names it `Ctrl ]` so the default hide key works there too.
#[test]
fn bare_control_characters_name_the_symbol_typed_with_ctrl() {
    assert_eq!(ctrl_symbol('\u{1c}'), Some('\\'));
    assert_eq!(ctrl_symbol('\u{1d}'), Some(']'));
    assert_eq!(ctrl_symbol('\u{1e}'), Some('^'));
    assert_eq!(ctrl_symbol('\u{1f}'), Some('_'));
    for c in ['\u{1b}', '\u{1}', ']', 'a', ' ', '\u{7f}'] {
        assert_eq!(ctrl_symbol(c), None, "{c:?}");
    }
}

#[test]
fn measuring_every_tab_leaves_the_dialog_as_it_was() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Tab, Key::Char('4')]); // Features: Type something., typing
    type_text(&mut d, "SSO");
    let before = (d.tab(), d.mode(), d.focused_row(), d.submit_focus());
    let mut seen = Vec::new();
    let tallest = d.measure_tabs(|shown| {
        seen.push((shown.tab(), shown.mode()));
        shown.tab() + 10
    });
    assert_eq!(tallest, 14, "the largest measure, of the Submit tab");
    assert_eq!(
        seen,
        (0..5).map(|tab| (tab, Mode::Browse)).collect::<Vec<_>>(),
        "each tab as arriving there shows it"
    );
    assert_eq!(
        (d.tab(), d.mode(), d.focused_row(), d.submit_focus()),
        before
    );
    assert_eq!(d.tab_state(1).unwrap().draft.text(), "SSO");
}

fn approval() -> ask_popup_protocol::request::Questionnaire {
    questionnaire(json!({"approval": true, "questions": [{
        "question": "Allow claude to use Bash: rm -rf build?", "header": "Approval",
        "options": ["Allow once", "Allow always", "Deny"]}]}))
}

#[test]
fn on_an_approval_digits_reach_no_row_and_no_row_is_numbered() {
    let mut d = Dialog::new(approval());
    for digit in ['1', '2', '3', '4', '5'] {
        assert_eq!(d.handle(Input::Key(Key::Char(digit))), Response::Unchanged);
        assert_eq!(d.focused_row(), Some(Row::Option(2)), "{digit}");
    }
    let shown = frame(&d, 60, 14);
    assert!(shown.contains("  Allow once\n"), "{shown}");
    assert!(shown.contains("❯ Deny\n"), "{shown}");
    assert!(!shown.contains("1."), "{shown}");
    // Where typing goes, a digit is typed like any other character.
    keys(&mut d, &[Key::Down, Key::Char('1')]);
    assert_eq!(d.mode(), Mode::Typing);
    assert_eq!(d.tab_state(0).unwrap().draft.text(), "1");
    // Any other questionnaire keeps its numbers.
    let other = Dialog::new(one_question());
    assert!(frame(&other, 60, 14).contains("❯ 1. Postgres"));
}

#[test]
fn an_input_would_allow_only_when_it_picks_an_approvals_allow() {
    let mut d = Dialog::new(approval());
    let enter = Input::Key(Key::Enter);
    assert!(!d.would_allow(&enter), "Enter on Deny");
    assert!(!d.focus_allows());
    keys(&mut d, &[Key::Up]);
    assert!(d.focus_allows());
    assert!(d.would_allow(&enter));
    assert!(!d.would_allow(&Input::Key(Key::Down)));
    assert!(d.would_allow(&Input::Click(Target::Row(0))));
    assert!(!d.would_allow(&Input::Click(Target::Row(2))));
    // Trying leaves the dialog as it was.
    assert_eq!(d.focused_row(), Some(Row::Option(1)));
    // A questionnaire that is no approval allows nothing.
    let plain = Dialog::new(one_question());
    assert!(!plain.would_allow(&enter) && !plain.focus_allows());
}
