//! Snapshots of the frames a person looks at. Review each one as a user before accepting it.

mod support;

use ask_popup_plugin::dialog::{Dialog, Input, Key};
use ask_popup_plugin::view::{render, Chrome, ViewCache};
use insta::assert_snapshot;
use serde_json::json;
use support::*;

#[test]
fn frame_one_question() {
    assert_snapshot!(frame(&Dialog::new(one_question()), 80, 20));
}

#[test]
fn four_tabs_with_answers_and_notes() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Char('n')]);
    type_text(&mut d, "we already run it");
    keys(&mut d, &[Key::Enter, Key::Enter]); // note saved, Postgres picked
    keys(
        &mut d,
        &[Key::Char(' '), Key::Down, Key::Char(' '), Key::Tab],
    ); // Auth, Search
    keys(&mut d, &[Key::Char('n')]);
    type_text(&mut d, "ask ops first");
    keys(&mut d, &[Key::Enter]);
    assert_snapshot!(frame(&d, 100, 24));
}

#[test]
fn frame_multi_select_with_ticks() {
    let mut d = Dialog::new(multi_select());
    keys(&mut d, &[Key::Char(' '), Key::Down, Key::Down, Key::Enter]);
    assert_snapshot!(frame(&d, 80, 22));
}

#[test]
fn free_form_editor_with_a_draft() {
    let mut d = Dialog::new(one_question());
    keys(&mut d, &[Key::Char('3')]);
    type_text(
        &mut d,
        "MySQL, because the team knows it well and the hosting plan includes it",
    );
    keys(&mut d, &[Key::Left, Key::Left]);
    assert_snapshot!(frame(&d, 80, 20));
}

#[test]
fn previews_side_by_side_at_120_columns() {
    assert_snapshot!(frame(&Dialog::new(with_previews()), 120, 30));
}

#[test]
fn previews_stacked_at_80_columns() {
    assert_snapshot!(frame(&Dialog::new(with_previews()), 80, 34));
}

#[test]
fn long_preview_scrolled() {
    let mut d = Dialog::new(long_preview());
    keys(&mut d, &[Key::PageDown, Key::PageDown, Key::PageDown]);
    assert_snapshot!(frame(&d, 120, 24));
}

#[test]
fn submit_tab_with_a_warning() {
    let mut d = Dialog::new(four_questions());
    keys(
        &mut d,
        &[
            Key::Down,
            Key::Enter,
            Key::Tab,
            Key::Tab,
            Key::Tab,
            Key::Char('n'),
        ],
    );
    type_text(&mut d, "thanks, ship it");
    keys(&mut d, &[Key::Enter]);
    assert_snapshot!(frame(&d, 80, 26));
}

#[test]
fn countdown_in_the_footer() {
    let mut d = Dialog::new(questionnaire(json!({"questions": [{
        "question": "Deploy now?", "header": "Deploy",
        "options": [{"label": "Yes", "description": "Ship it."}, {"label": "No", "description": "Wait."}]
    }], "timeout": 45000})));
    d.tick(3000);
    assert_snapshot!(frame(&d, 80, 16));
}

#[test]
fn esc_guard_in_the_footer() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Enter, Key::Esc]);
    assert_snapshot!(frame(&d, 80, 22));
}

#[test]
fn small_pane_40_by_12() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Down, Key::Down]);
    assert_snapshot!(frame(&d, 40, 12));
}

#[test]
fn cjk_and_emoji_text() {
    let d = Dialog::new(questionnaire(json!({"questions": [
        {"question": "どのデータベースを使いますか？長い質問文は折り返して表示されるべきです。", "header": "データベース",
         "options": [
            {"label": "ポストグレス 🐘", "description": "同時書き込みに強く、運用ツールも成熟しています。"},
            {"label": "SQLite", "description": "設定不要のファイル一つ。"}]},
        {"question": "次は？", "header": "次", "options": ["はい", "いいえ"]}
    ]})));
    assert_snapshot!(frame(&d, 50, 20));
}

#[test]
fn below_the_minimum_size_a_notice() {
    assert_snapshot!(frame(&Dialog::new(one_question()), 19, 5));
}

#[test]
fn banner_names_the_asking_agent() {
    let d = Dialog::new(one_question());
    let chrome = Chrome {
        banner: Some("claude asks · 1 of 3 waiting · [ ] switch".into()),
        hide_key: Some("Ctrl+]".into()),
        settling: false,
    };
    assert_snapshot!(render(&d, &mut ViewCache::new(), &chrome, 80, 20).to_plain());
}

#[test]
fn escape_sequences_in_the_payload_never_reach_the_frame() {
    let mut d = Dialog::new(questionnaire(json!({"questions": [{
        "question": "Title\u{1b}]0;pwned\u{7} and \u{1b}[31mred\u{1b}[0m?",
        "header": "Evil\u{9b}2J",
        "options": [
            {"label": "A\u{1b}[2J", "description": "clear\u{1b}c screen\rline", "preview": "# x\u{1b}]52;c;aGk=\u{7}"},
            {"label": "B\u{202e}drow", "description": "bidi"}]
    }]})));
    d.handle(Input::Key(Key::Char('3')));
    d.handle(Input::Paste("typed\u{1b}[31m".into()));
    let chrome = Chrome::default();
    for (w, h) in [(120, 30), (80, 24), (30, 10)] {
        let f = render(&d, &mut ViewCache::new(), &chrome, w, h);
        for line in &f.lines {
            for span in &line.spans {
                assert!(
                    !span.text.chars().any(|c| c.is_control()),
                    "{:?}",
                    span.text
                );
                assert!(!span.text.contains('\u{202e}'));
            }
        }
    }
    assert_snapshot!(frame(&d, 80, 20));
}

// The option list scrolls under `↑ N more` / `↓ N more` markers, N counting the lines each
// marker stands for. These are the frames of the issue "The focused row can be hidden".

#[test]
fn focused_label_stays_visible_when_its_row_fills_the_space_between_the_markers() {
    // Postgres and its three description lines are as tall as the four rows the list gets;
    // the `❯` line used to give way to the `↑` marker. The description is cut instead. (At 40
    // columns the hints take two lines.)
    let expected = [
        " Database",
        "",
        "↑ 3 more",
        "❯ 1. Postgres (Recommended)",
        "     Concurrent writes and mature ops",
        "↓ 8 more",
        "",
        "Enter select · ↑/↓ move · n note",
        "Esc cancel · h history · Ctrl+] hide",
    ];
    assert_eq!(frame(&Dialog::new(one_question()), 40, 9), lines(&expected));
}

#[test]
fn down_marker_counts_every_hidden_line() {
    // The focused row fits whole between the markers, and `↓ 5 more` stands for SQLite, its
    // description, `Type something.`, the rule and `Chat about this`.
    let expected = [
        " Database",
        "",
        "↑ 2 more",
        "❯ 1. Postgres (Recommended)",
        "     Concurrent writes and mature ops tooling, at the cost of a running",
        "     server.",
        "↓ 5 more",
        "",
        "Enter select · ↑/↓ move · n note · Esc cancel · h history · Ctrl+] hide",
    ];
    assert_eq!(frame(&Dialog::new(one_question()), 80, 9), lines(&expected));
}

#[test]
fn up_marker_counts_every_hidden_line() {
    // On the last row, `↑ 6 more` stands for the question, the blank under it, Postgres with
    // its two description lines, and SQLite.
    let mut d = Dialog::new(one_question());
    keys(&mut d, &[Key::Down, Key::Down, Key::Down]);
    let expected = [
        " Database",
        "",
        "↑ 6 more",
        "     One file with no setup, limited write concurrency.",
        "  3. Type something.",
        "────────────────────────────────────────────────",
        "❯ 4. Chat about this",
        "",
        "Enter select · ↑/↓ move · n note · Esc cancel · h history · Ctrl+] hide",
    ];
    assert_eq!(frame(&d, 80, 9), lines(&expected));
}

/// A frame's plain text from its lines.
fn lines(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}
