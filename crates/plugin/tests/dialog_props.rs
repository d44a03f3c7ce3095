//! Invariants of the dialog for random questionnaires, pane sizes and key sequences: nothing
//! panics, every line fits the pane, no control character reaches the frame, the focused row's
//! `❯` line is always shown, and every `↑ N more` / `↓ N more` stands for exactly N lines.

use ask_popup_plugin::dialog::{Dialog, Input, Key, Response, Target};
use ask_popup_plugin::view::render::{render_uncut, MIN_HEIGHT, MIN_WIDTH};
use ask_popup_plugin::view::style::Line;
use ask_popup_plugin::view::{render, Chrome, Frame, ViewCache};
use ask_popup_protocol::request::parse;
use proptest::prelude::*;
use serde_json::{json, Value};

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z ?]{1,30}",
        "\\PC{1,40}",
        Just("数据库 🐘 データ".to_owned()),
        Just("a\u{1b}[31mred\u{7}\u{9b}x\r\ny\tz\u{202e}".to_owned()),
        Just("# Head\n\n- **bold** `code`\n\n> quote\n\n```\nfn x() {}\n```\n\n---\n| a | b |\n|---|---|\n| 1 | 2 |".to_owned()),
        "[a-z ]{200,600}",
    ]
}

fn questionnaire() -> impl Strategy<Value = Value> {
    let option = (text(), text(), proptest::option::of(text()))
        .prop_map(|(l, d, p)| json!({"label": l, "description": d, "preview": p}));
    let question = (
        text(),
        "[A-Za-z数]{1,8}",
        prop::collection::vec(option, 2..=4),
        any::<bool>(),
        proptest::option::of(text()),
    )
        .prop_map(|(q, h, o, m, c)| json!({"question": q, "header": h, "options": o, "multiSelect": m, "context": c}));
    (
        prop::collection::vec(question, 1..=4),
        proptest::option::of(1000u64..100_000),
    )
        .prop_map(|(qs, t)| json!({"questions": qs, "timeout": t}))
}

fn input() -> impl Strategy<Value = Input> {
    let key = prop_oneof![
        Just(Key::Enter),
        Just(Key::AltEnter),
        Just(Key::Esc),
        Just(Key::Tab),
        Just(Key::BackTab),
        Just(Key::Up),
        Just(Key::Down),
        Just(Key::Left),
        Just(Key::Right),
        Just(Key::Home),
        Just(Key::End),
        Just(Key::PageUp),
        Just(Key::PageDown),
        Just(Key::Backspace),
        Just(Key::Delete),
        Just(Key::ClearLine),
        Just(Key::ToggleContext),
        Just(Key::Hide),
        Just(Key::Other),
        any::<char>().prop_map(Key::Char),
        prop_oneof![
            Just('n'),
            Just(' '),
            Just('1'),
            Just('3'),
            Just('5'),
            Just('c'),
            Just('数')
        ]
        .prop_map(Key::Char),
    ];
    prop_oneof![
        8 => key.prop_map(Input::Key),
        1 => "\\PC{0,20}".prop_map(Input::Paste),
        1 => (0usize..8).prop_map(|i| Input::Click(Target::Row(i))),
        1 => (0usize..6).prop_map(|i| Input::Click(Target::Tab(i))),
        1 => (0usize..3).prop_map(|i| Input::Click(Target::SubmitChoice(i))),
        1 => (-5i32..5).prop_map(|lines| Input::Wheel { lines }),
    ]
}

fn check_frame(
    d: &Dialog,
    cache: &mut ViewCache,
    width: usize,
    height: usize,
) -> Result<(), TestCaseError> {
    let chrome = Chrome {
        banner: Some("agent · 1 of 2 waiting".into()),
        hide_key: Some("Ctrl+]".into()),
        settling: false,
    };
    let frame = render(d, cache, &chrome, width, height);
    prop_assert!(
        frame.lines.len() <= height,
        "{} lines in a pane of {}",
        frame.lines.len(),
        height
    );
    for line in &frame.lines {
        prop_assert!(
            line.width() <= width,
            "line {:?} is {} wide in {}",
            line.plain(),
            line.width(),
            width
        );
        for span in &line.spans {
            prop_assert!(
                !span.text.chars().any(|c| c.is_control()),
                "control char in {:?}",
                span.text
            );
        }
    }
    for hit in &frame.hits {
        prop_assert!(hit.line < frame.lines.len().max(1) + 1);
    }
    let ansi = frame.to_ansi(&Default::default());
    // Only our own SGR sequences: every ESC starts `ESC [ … m`.
    for (i, _) in ansi.match_indices('\u{1b}') {
        prop_assert!(ansi[i..].starts_with("\x1b["), "stray escape");
    }
    if width >= MIN_WIDTH && height >= MIN_HEIGHT {
        let uncut = render_uncut(d, cache, &chrome, width, height);
        check_scrolling(&frame, &uncut)?;
    }
    Ok(())
}

/// The N of a `↑ N more` or `↓ N more` line.
fn hidden_count(line: &Line) -> Option<usize> {
    let text = line.plain();
    let rest = text
        .strip_prefix("↑ ")
        .or_else(|| text.strip_prefix("↓ "))?;
    rest.strip_suffix(" more")?.parse().ok()
}

/// `frame` is `uncut` (the same layout, nothing scrolled away) with runs of lines replaced by
/// one marker each, which names the length of its run; and the `❯` line is not among them.
fn check_scrolling(frame: &Frame, uncut: &Frame) -> Result<(), TestCaseError> {
    let shown = |f: &Frame| f.to_plain();
    let mut next = 0; // the line of `uncut` that the next line of `frame` shows
    for line in &frame.lines {
        match hidden_count(line) {
            Some(n) => {
                prop_assert!(n > 0, "a marker for nothing in\n{}", shown(frame));
                next += n;
            }
            None => {
                prop_assert!(
                    uncut.lines.get(next) == Some(line),
                    "line {:?} is not line {} of the uncut frame; a marker miscounts?\n{}\nuncut:\n{}",
                    line.plain(),
                    next,
                    shown(frame),
                    shown(uncut)
                );
                next += 1;
            }
        }
    }
    prop_assert_eq!(
        next,
        uncut.lines.len(),
        "lines hidden without a marker, or markers counting too many:\n{}\nuncut:\n{}",
        shown(frame),
        shown(uncut)
    );
    let pointer = uncut.lines.iter().find(|l| l.plain().starts_with('❯'));
    prop_assert!(pointer.is_some(), "no focused row in\n{}", shown(uncut));
    prop_assert!(
        frame.lines.iter().any(|l| Some(l) == pointer),
        "the focused row's ❯ line is hidden:\n{}\nuncut:\n{}",
        shown(frame),
        shown(uncut)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_dialog_at_any_size_fits_and_never_panics(
        payload in questionnaire(),
        // Any size, and often one where the options scroll.
        sizes in prop::collection::vec(
            prop_oneof![(1usize..200, 1usize..60), (20usize..100, 6usize..16)],
            1..4,
        ),
        inputs in prop::collection::vec(input(), 0..40),
        ticks in prop::collection::vec(0u64..5000, 0..3),
    ) {
        let q = match parse(&payload.to_string()) {
            Ok(q) => q,
            Err(_) => return Ok(()), // long labels and headers are rejected; fine
        };
        let mut d = Dialog::new(q);
        let mut cache = ViewCache::new();
        for (w, h) in &sizes {
            check_frame(&d, &mut cache, *w, *h)?;
        }
        for t in ticks {
            if let Response::Finished(_) = d.tick(t) {
                return Ok(());
            }
        }
        for (i, input) in inputs.into_iter().enumerate() {
            let response = d.handle(input);
            let (w, h) = sizes[i % sizes.len()];
            if let Response::Finished(outcome) = response {
                // The envelope of whatever happened is one line of JSON.
                let line = ask_popup_protocol::envelope::outcome(d.questionnaire(), &outcome, None);
                prop_assert!(serde_json::from_str::<Value>(&line).is_ok());
                return Ok(());
            }
            check_frame(&d, &mut cache, w, h)?;
        }
    }
}
