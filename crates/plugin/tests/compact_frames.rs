//! The compact layout: a pane narrower than the usual width (a phone's 27 columns on Zellij's
//! web client) shows every kind of dialog with nothing cut at the right: no line ends in `…`,
//! and what the person must read is there whole. From 80 columns on the layout is the usual one.

mod support;

use ask_popup_plugin::dialog::{Dialog, Key};
use ask_popup_plugin::view::render::COMPACT_WIDTH;
use ask_popup_plugin::view::{natural_height, render, Chrome, ViewCache};
use ask_popup_protocol::approval::{ALLOW_ALWAYS, ALLOW_ONCE, DENY, HEADER};
use serde_json::json;
use support::*;

/// The widths the sweeps draw at: from the smallest pane the dialog is drawn in to well past a
/// phone's.
const NARROW: std::ops::RangeInclusive<usize> = 20..=60;

/// The questionnaire of the phone's end-to-end test.
fn two_questions() -> Dialog {
    Dialog::new(questionnaire(json!({"questions": [
        {"question": "Which database?", "header": "DB", "options": [
            {"label": "Postgres", "description": "Relational, for the shared service"},
            {"label": "SQLite", "description": "Embedded, one file beside the app"}]},
        {"question": "Which language?", "header": "Lang", "options": [
            {"label": "Rust", "description": "Fast"},
            {"label": "Go", "description": "Simple"}]}]})))
}

/// An approval as the approval hook asks it: the command as the preview of each choice.
fn approval() -> Dialog {
    let preview =
        "```sh\ntouch made-on-the-phone && ls -la ~/projects/ask-popup\n```\n\nMake a file";
    Dialog::new(questionnaire(json!({"approval": true, "questions": [{
    "question": "Allow claude to use Bash: touch made-on-the-phone && ls -la ~/projects/ask-popup?",
    "header": HEADER,
    "options": [
        {"label": ALLOW_ONCE, "description": "Let it run this time.", "preview": preview},
        {"label": ALLOW_ALWAYS, "description": "Allow it from now on: Bash(touch:*).",
         "preview": format!("**Allow always** lets it run, and makes this change to claude's settings:\n\n- Bash(touch:*)\n\n---\n\n{preview}")},
        {"label": DENY, "description": "Tell claude no (n first: a note it reads).", "preview": preview}
    ]}]})))
}

/// An approval whose command is too long to show whole: the preview says so first.
fn approval_too_long() -> Dialog {
    let preview = format!(
        "**Too long to show whole:** 20 KiB of 36 KiB are not shown, so the popup does not offer Allow. Deny it here, or read it whole in claude's own prompt.\n\n---\n\n```sh\n{}\n```\n\n… 20 KiB not shown",
        "echo step; ".repeat(40)
    );
    Dialog::new(questionnaire(json!({"approval": true, "questions": [{
    "question": "Allow claude to use Bash: echo step; echo step; echo step?",
    "header": HEADER,
    "options": [
        {"label": DENY, "description": "Tell claude no (n first: a note it reads).", "preview": preview},
        {"label": "Decide in claude's own prompt", "description": "Read it whole there, and decide there.", "preview": preview}
    ]}]})))
}

/// A question whose context is taller than any pane: folded to one line.
fn with_context() -> Dialog {
    let context: String = (1..=250).map(|i| format!("- point {i}\n")).collect();
    Dialog::new(questionnaire(json!({"questions": [{
        "question": "Ship the plan?", "header": "Plan", "context": context,
        "options": [{"label": "Yes", "description": "Go."}, {"label": "No", "description": "Wait."}]
    }]})))
}

/// A question with a countdown, 42 seconds left.
fn countdown() -> Dialog {
    let mut d = Dialog::new(questionnaire(json!({"questions": [{
        "question": "Deploy now?", "header": "Deploy",
        "options": [{"label": "Yes", "description": "Ship it."}, {"label": "No", "description": "Wait."}]
    }], "timeout": 45000})));
    d.tick(3000);
    d
}

/// Every kind of dialog, each with the texts that must show whole at any width.
fn dialogs() -> Vec<(&'static str, Dialog, Vec<&'static str>)> {
    let mut multi = Dialog::new(multi_select());
    keys(&mut multi, &[Key::Char(' ')]);

    let mut esc_armed = Dialog::new(four_questions());
    keys(&mut esc_armed, &[Key::Enter, Key::Esc]);

    let mut review = Dialog::new(four_questions());
    keys(
        &mut review,
        &[
            Key::Char('n'),
            Key::Char('o'),
            Key::Char('k'),
            Key::Enter,
            Key::Down,
            Key::Enter,
            Key::Tab,
            Key::Tab,
            Key::Tab,
            Key::Char('n'),
        ],
    );
    type_text(&mut review, "thanks, ship it");
    keys(&mut review, &[Key::Enter]);

    let mut form_misfit = elicit_form();
    type_text(&mut form_misfit, "Bob");
    keys(&mut form_misfit, &[Key::Enter]);
    type_text(&mut form_misfit, "9");

    let mut form_review = elicit_form();
    type_text(&mut form_review, "Bob");
    keys(&mut form_review, &[Key::Enter]);
    type_text(&mut form_review, "3");
    keys(&mut form_review, &[Key::Enter, Key::Tab, Key::Tab]);

    let mut typing = Dialog::new(one_question());
    keys(&mut typing, &[Key::Char('3')]);
    type_text(&mut typing, "MySQL");

    let mut draft = Dialog::new(one_question());
    keys(&mut draft, &[Key::Char('3')]);
    type_text(&mut draft, "MySQL, because the team knows it well");
    keys(&mut draft, &[Key::Up]);

    let countdown = countdown();

    let mut context_expanded = with_context();
    keys(&mut context_expanded, &[Key::ToggleContext]);

    vec![
        (
            "two questions",
            two_questions(),
            vec![
                "Which database?",
                "❯ 1. Postgres",
                "2. SQLite",
                "DB",
                "Lang",
            ],
        ),
        (
            "one question",
            Dialog::new(one_question()),
            vec![
                "Database",
                "Which database should the new service use?",
                "Postgres (Recommended)",
                "SQLite",
                "Type something.",
                "Chat about this",
            ],
        ),
        (
            "four questions",
            Dialog::new(four_questions()),
            vec![
                "□ Database",
                "□ Features",
                "□ Errors",
                "□ Ship date",
                "✓ Submit",
                "Which database should the new service use?",
            ],
        ),
        (
            "multi-select",
            multi,
            vec![
                "Which checks should run on every push?",
                "[✔] Unit tests",
                "[ ] Lint",
                "[ ] E2E",
                "[ ] Type something.",
                "Submit",
            ],
        ),
        (
            "approval",
            approval(),
            vec![
                "Allow claude to use Bash: touch made-on-the-phone",
                "Allow once",
                "Allow always",
                "❯ Deny",
                "touch made-on-the-phone",
                "Make a file",
            ],
        ),
        (
            "approval too long to show whole",
            approval_too_long(),
            vec![
                "Deny",
                "❯ Decide in claude's own prompt",
                "Too long to show whole: 20 KiB of 36 KiB are not shown",
            ],
        ),
        (
            "form",
            elicit_form(),
            vec![
                "Name *",
                "Count *",
                "Confirm",
                "Color",
                "elicit asks: Please fill in your preferences",
                "Decline",
            ],
        ),
        (
            "form with a value that does not fit",
            form_misfit,
            vec!["⚠ At most 5"],
        ),
        (
            "form's submit tab",
            form_review,
            vec!["Ready to send the form?", "Submit answers", "Cancel"],
        ),
        (
            "review",
            review,
            vec![
                "Review your answers",
                "● Database",
                "→ SQLite",
                "notes: ok",
                "○ Features",
                "Not answered",
                "→ thanks, ship it",
                "❯ 1. Submit answers",
                "2. Cancel",
            ],
        ),
        (
            "Esc armed",
            esc_armed,
            vec![
                "Press Esc again to discard your answers",
                "any other key keeps them",
            ],
        ),
        ("typing", typing, vec!["❯ 3. MySQL", "Enter submit"]),
        (
            "a draft",
            draft,
            vec!["MySQL, because the team knows it well"],
        ),
        ("countdown", countdown, vec!["⏱ 0:42", "Enter select"]),
        (
            "previews",
            Dialog::new(with_previews()),
            vec!["Sidebar", "Single page", "Layout A", "fast to scan"],
        ),
        (
            "context",
            with_context(),
            vec!["▸ Context (250 lines)", "Ctrl+E to expand"],
        ),
        (
            "context expanded",
            context_expanded,
            vec!["point 1", "PgUp/PgDn scroll", "Ctrl+E collapse", "❯ 1. Yes"],
        ),
    ]
}

fn chrome(banner: &str) -> Chrome {
    Chrome {
        banner: Some(banner.into()),
        hide_key: Some("Ctrl+]".into()),
        settling: false,
    }
}

/// A banner with every part it can have.
const LONG_BANNER: &str = "claude asks · 1 of 3 waiting · [ ] switch · Alt+g go to work";

/// The frame's text as words, the preview box's sides left out: text wrapped anywhere reads
/// the same.
fn words(frame: &str) -> String {
    frame
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every line of `frame` fits in `width` cells and none is cut at the right; every text of
/// `whole` is there.
fn check(what: &str, frame: &ask_popup_plugin::view::Frame, width: usize, whole: &[&str]) {
    let text = frame.to_plain();
    for line in &frame.lines {
        assert!(line.width() <= width, "{what} at {width}: too wide\n{text}");
        assert!(
            !line.plain().trim_end().ends_with('…'),
            "{what} at {width}: a line cut at the right\n{text}"
        );
    }
    let words = words(&text);
    for shown in whole {
        assert!(
            words.contains(&self::words(shown)),
            "{what} at {width}: {shown:?} is not whole\n{text}"
        );
    }
}

#[test]
fn nothing_is_cut_at_the_right_at_narrow_widths() {
    for (what, dialog, whole) in dialogs() {
        let mut whole = whole;
        whole.extend(LONG_BANNER.split(" · "));
        for width in NARROW {
            let chrome = chrome(LONG_BANNER);
            // Tall enough to show all of it, and a phone's height.
            let tall = render(&dialog, &mut ViewCache::new(), &chrome, width, 200);
            check(what, &tall, width, &whole);
            let phone = render(&dialog, &mut ViewCache::new(), &chrome, width, 28);
            check(what, &phone, width, &[]);
        }
    }
}

#[test]
fn a_phone_shows_the_questionnaire_whole() {
    let frame = render(
        &two_questions(),
        &mut ViewCache::new(),
        &chrome("asker asks"),
        27,
        28,
    );
    let expected = [
        "asker asks",
        "← □ DB  □ Lang  ✓ Submit →",
        "",
        "Which database?",
        "",
        "❯ 1. Postgres",
        "     Relational, for the",
        "     shared service",
        "  2. SQLite",
        "     Embedded, one file",
        "     beside the app",
        "  3. Type something.",
        "───────────────────────────",
        "  4. Chat about this",
        "",
        "Enter select · ↑/↓ move",
        "n note · Tab switch",
    ];
    assert_eq!(frame.to_plain(), lines(&expected));
}

#[test]
fn tabs_that_do_not_fit_go_on_rows_each_whole() {
    let mut d = Dialog::new(four_questions());
    keys(&mut d, &[Key::Tab, Key::Tab]);
    let frame = render(&d, &mut ViewCache::new(), &chrome(LONG_BANNER), 27, 40);
    let shown = frame.to_plain();
    let expected = [
        "claude asks",
        "1 of 3 waiting · [ ] switch",
        "Alt+g go to work",
        " □ Database  □ Features",
        " □ Errors  □ Ship date",
        " ✓ Submit",
        "",
        "How should errors be",
    ];
    assert!(shown.starts_with(&lines(&expected)), "{shown}");
    // A tap on a tab's row goes to that tab.
    let at = |line: usize, col: usize| frame.target_at(line, col);
    use ask_popup_plugin::dialog::Target;
    assert_eq!(at(3, 3), Some(Target::Tab(0)));
    assert_eq!(at(4, 14), Some(Target::Tab(3)));
    assert_eq!(at(5, 2), Some(Target::Tab(4)));
    // A short pane keeps the current tab's row.
    let short = render(&d, &mut ViewCache::new(), &chrome(LONG_BANNER), 27, 6).to_plain();
    assert!(short.starts_with(" □ Errors  □ Ship date\n"), "{short}");
    assert!(short.contains("❯ 1. Sentry"), "{short}");
}

#[test]
fn the_footer_drops_whole_hints_from_the_end() {
    let footer = |width: usize| {
        let frame = render(
            &Dialog::new(with_previews()),
            &mut ViewCache::new(),
            &chrome("asker asks"),
            width,
            60,
        );
        let text = frame.to_plain();
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines[lines.len() - 2..].join("\n")
    };
    assert_eq!(footer(20), "Enter select\n↑/↓ move · n note");
    assert_eq!(
        footer(27),
        "Enter select · ↑/↓ move\nn note · PgUp/PgDn scroll"
    );
    assert_eq!(
        footer(60),
        "Enter select · ↑/↓ move · n note · PgUp/PgDn scroll\nEsc cancel · h history · Ctrl+] hide"
    );
}

#[test]
fn a_popup_that_just_appeared_says_so_with_its_footer_alone_at_its_height() {
    let countdown = countdown();
    for (dialog, signal) in [(two_questions(), "…"), (countdown, "⏱ 0:42 · …")] {
        for width in NARROW {
            let mut settling = chrome("asker asks");
            settling.settling = true;
            let settled = render(
                &dialog,
                &mut ViewCache::new(),
                &chrome("asker asks"),
                width,
                40,
            );
            let frame = render(&dialog, &mut ViewCache::new(), &settling, width, 40);
            let text = frame.to_plain();
            assert!(text.lines().any(|line| line == signal), "{width}\n{text}");
            assert_eq!(frame.lines.len(), settled.lines.len(), "{width}\n{text}");
            let mut cache = ViewCache::new();
            assert_eq!(
                natural_height(&mut dialog.clone(), &mut cache, &settling, width, 500),
                natural_height(
                    &mut dialog.clone(),
                    &mut cache,
                    &chrome("asker asks"),
                    width,
                    500
                ),
            );
        }
    }
}

#[test]
fn the_natural_height_counts_the_rows_of_tabs_and_hints() {
    // A context unfolded with Ctrl+E is measured folded, where a tall popup shows it whole:
    // not a matter of the width.
    let measured = dialogs()
        .into_iter()
        .filter(|(what, _, _)| *what != "context expanded");
    for (what, dialog, _) in measured {
        for width in NARROW {
            let chrome = chrome(LONG_BANNER);
            let mut shown = dialog.clone();
            let height = natural_height(&mut shown, &mut ViewCache::new(), &chrome, width, 500);
            let frame = render(&dialog, &mut ViewCache::new(), &chrome, width, height);
            let tall = render(&dialog, &mut ViewCache::new(), &chrome, width, 500);
            // The current tab fits whole in the height it asks for (another tab may be taller).
            assert!(
                height >= tall.lines.len(),
                "{what} at {width}: {height} rows for\n{}",
                tall.to_plain()
            );
            let text = frame.to_plain();
            let marker = |line: &str| {
                (line.starts_with("↑ ") || line.starts_with("↓ ")) && line.ends_with(" more")
            };
            assert!(
                !text.lines().any(marker),
                "{what} at {width}: cut at {height} rows\n{text}"
            );
        }
    }
}

#[test]
fn from_the_usual_width_on_the_layout_is_the_usual_one() {
    assert_eq!(COMPACT_WIDTH, 80);
    // Tabs that do not fit scroll, and a footer too long for its line is cut.
    let long_headers = Dialog::new(questionnaire(json!({"questions": [
        {"question": "One?", "header": "First question", "options": ["A", "B"]},
        {"question": "Two?", "header": "Second question", "options": ["A", "B"]},
        {"question": "Three?", "header": "Third question", "options": ["A", "B"]},
        {"question": "Four?", "header": "Fourth question", "options": ["A", "B"]}
    ]})));
    let text = frame(&long_headers, 80, 30);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "← □ First question  □ Second question  □ Third question  □ Fourth question …"
    );
    assert_eq!(
        lines.last().copied(),
        Some("Enter select · ↑/↓ move · n note · Tab switch · Esc cancel · h history · Ctrl+]…")
    );
    // One column narrower, every tab shows, on rows, and the hints on two lines, each whole.
    let text = frame(&long_headers, 79, 30);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..2],
        [
            " □ First question  □ Second question  □ Third question  □ Fourth question",
            " ✓ Submit"
        ]
    );
    assert_eq!(
        lines[lines.len() - 2..],
        [
            "Enter select · ↑/↓ move · n note · Tab switch · Esc cancel · h history",
            "Ctrl+] hide"
        ]
    );
}

/// A frame's plain text from its lines.
fn lines(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}
