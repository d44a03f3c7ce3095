//! End to end: Zellij's web client, in a real headless Chromium logged in with a token, is a
//! client like any other. A question shows and is answered there; a web client that attaches
//! while a question shows leaves it shown for everyone; any client may leave and every caller
//! still gets its one reply, every mark comes off once.

use crate::agents::{
    blocked, caller_pane, heard, heard_of_one_question, listener_balance, marked, status,
    submitted, wait_for_title, DB,
};
use crate::browser::Browser;
use crate::claude::{database, Claude, DATABASE};
use crate::command;
use crate::harness::{settling, Options, PipeCall, Zellij, FIRST};
use crate::{assert_reply, details, ANSWER, AT_ONCE};
use ask_popup_protocol::envelope::Answer;
use serde_json::json;
use std::thread;
use std::time::{Duration, Instant};

/// How long the browser may take to start, log in and show the session.
const BROWSER_START: Duration = Duration::from_secs(60);

/// A headless Chromium on the session's page, logged in with a fresh token, once its terminal
/// shows the session.
fn open_browser(zellij: &Zellij) -> Browser {
    open_browser_at(zellij, &zellij.web_url(), &zellij.web_token())
}

/// A headless Chromium on `url`, logged in with `token`, once its terminal shows the session.
pub(crate) fn open_browser_at(zellij: &Zellij, url: &str, token: &str) -> Browser {
    let browser = Browser::open(url, &zellij.scratch().join("browser-profile"));
    logged_in(zellij, browser, token)
}

/// `browser`, opened on the session's page, logged in with `token`, once its terminal shows
/// the session.
pub(crate) fn logged_in(zellij: &Zellij, mut browser: Browser, token: &str) -> Browser {
    let until = zellij.until(BROWSER_START);
    browser.log_in(token, until);
    // Anything of the session on screen: Zellij 0.45.1 may leave the new client's bars blank
    // until the tabs change (it sends them the tabs before they listen), and one pane has no
    // frame title.
    browser.wait_for_screen("the session", until, |s| !s.trim().is_empty());
    browser
}

/// Asks `payload` as Claude Code in pane `pane_id` with request id `request_id`, and waits for
/// `question` on the browser's screen, keys counting, asking again whenever Zellij dropped the
/// CLI before the question arrived.
fn ask_in_browser(
    zellij: &Zellij,
    browser: &mut Browser,
    payload: &str,
    (pane_id, request_id): (&str, &str),
    question: &str,
) -> PipeCall {
    let mut call = zellij.pipe(
        payload,
        &[
            ("agent", "claude"),
            ("pane_id", pane_id),
            ("id", request_id),
        ],
    );
    let until = zellij.until(ANSWER);
    loop {
        let screen = browser.screen();
        if screen.contains(question) && !settling(&screen) {
            return call;
        }
        assert!(
            Instant::now() < until,
            "the question never showed in the browser:\n{screen}\npage:\n{}",
            browser.page_text()
        );
        call.retry_if_dropped();
        thread::sleep(Duration::from_millis(100));
    }
}

/// The PNG signature: a screenshot of the page is a real picture.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";

#[test]
fn a_question_asked_in_a_pane_is_answered_with_a_click_in_the_browser() {
    let zellij = Zellij::start_with(Options::default().with_listener().with_web());
    assert!(heard(&zellij).is_empty());
    let (pane, title) = caller_pane(&zellij);
    let id = pane.to_string();
    let mut browser = open_browser(&zellij);

    let call = ask_in_browser(&zellij, &mut browser, DB, (&id, "web-1"), "Which database?");
    zellij.wait_for_screen_of(FIRST, "the question in the terminal too", ANSWER, |s| {
        s.contains("claude asks") && s.contains("Which database?")
    });
    wait_for_title(&zellij, pane, &marked(&title));

    // The person clicks SQLite in the browser: picked and sent at once.
    browser.click_text("SQLite");
    assert_reply(
        &call.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(1))], &[], Some("web-1")),
    );
    browser.wait_for_screen("the question gone", zellij.until(ANSWER), |s| {
        !s.contains("Which database?")
    });
    zellij.wait_for_screen_of(FIRST, "the terminal's popup closed", ANSWER, |s| {
        !s.contains("Which database?")
    });
    wait_for_title(&zellij, pane, &title);
    let asked = heard_of_one_question(&zellij, "ask-popup:answered");
    assert_eq!(asked[1].1, blocked(true, pane, "claude", 1, "web-1"));
    assert_eq!(asked[3].1, blocked(false, pane, "claude", 0, "web-1"));
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
}

#[test]
fn a_browser_attaching_while_a_question_shows_leaves_it_shown_and_answerable_in_both() {
    // Zellij hides the floating panes of the tab a web client attaches to, for every client.
    let zellij = Zellij::start_with(Options::default().with_listener().with_web());
    let (pane, title) = caller_pane(&zellij);
    let id = pane.to_string();
    let call = crate::dialog::ask(
        &zellij,
        DB,
        &[("agent", "claude"), ("pane_id", &id), ("id", "web-2")],
        |s| s.contains("claude asks") && s.contains("Which database?"),
    );
    let mut browser = open_browser(&zellij);
    browser.wait_for_screen("the question in the browser", zellij.until(ANSWER), |s| {
        s.contains("claude asks") && s.contains("Which database?") && !settling(s)
    });
    // Still shown in the terminal, its keys reaching it: the person there moves to SQLite.
    zellij.wait_for_screen_of(FIRST, "the question still in the terminal", ANSWER, |s| {
        s.contains("Which database?") && !settling(s)
    });
    zellij.type_into(FIRST, &["Down"]);
    zellij.wait_for_screen_of(FIRST, "the focus on SQLite", ANSWER, |s| {
        s.contains("❯ 2. SQLite")
    });
    // And the person at the browser answers with the keyboard, from its own first option.
    browser.press("Enter");
    assert_reply(
        &call.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(0))], &[], Some("web-2")),
    );
    zellij.wait_for_screen_of(FIRST, "the terminal's popup closed", ANSWER, |s| {
        !s.contains("Which database?")
    });
    wait_for_title(&zellij, pane, &title);
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
}

#[test]
fn claude_codes_question_is_answered_in_the_browser() {
    // The real Claude Code asks through its hook; the person answers from the browser.
    let zellij = Zellij::start_with(Options::default().with_web());
    let mut browser = open_browser(&zellij);
    let claude = Claude::start(&zellij, "claude-web", json!([database()]));
    claude.asked(&zellij, DATABASE);
    browser.wait_for_screen("Claude Code's question", zellij.until(ANSWER), |s| {
        s.contains("claude asks") && s.contains(DATABASE) && !settling(s)
    });
    browser.press("ArrowDown");
    browser.wait_for_screen("SQLite focused", zellij.until(ANSWER), |s| {
        s.contains("❯ 2. SQLite")
    });
    browser.press("Enter");
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(!is_error, "{text}");
    assert!(
        text.contains(&format!("\"{DATABASE}\"=\"SQLite\"")),
        "{text}"
    );
    // The terminal's popup closed (Claude Code's pane shows the answer).
    zellij.wait_for_screen_of(FIRST, "the terminal's popup closed", ANSWER, |s| {
        !s.contains("claude asks")
    });
}

#[test]
fn the_readme_picture_is_the_real_popup_in_the_browser() {
    // `scripts/screenshot.sh` runs this with ASK_POPUP_SCREENSHOT set to the README's picture.
    let payload = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo-questionnaire.json"),
    )
    .expect("the demo's questionnaire");
    let zellij = Zellij::start_with(Options::default().with_web());
    let (pane, _) = caller_pane(&zellij);
    let id = pane.to_string();
    let mut browser = open_browser(&zellij);
    let call = ask_in_browser(
        &zellij,
        &mut browser,
        &payload,
        (&id, "picture"),
        "Which database should",
    );
    let shot = browser.screenshot();
    assert!(shot.starts_with(PNG), "the screenshot is no PNG");
    if let Some(path) = std::env::var_os("ASK_POPUP_SCREENSHOT") {
        std::fs::write(&path, &shot).expect("write the screenshot");
    }
    browser.press("Escape");
    let out = call.wait(ANSWER);
    assert_eq!(details(&out)["cancelled"], true, "{out:?}");
}

#[test]
fn a_waiting_questions_notification_links_to_the_browser_where_it_is_answered() {
    // The person is away: the notify command gets the session's web URL, which opens the
    // question in a browser, where it is answered.
    let zellij = Zellij::start_with(Options::default().with_web());
    let dir = zellij.scratch();
    let (pane, _) = caller_pane(&zellij);
    let mut asking = command::ask_notifying(
        &zellij,
        "away",
        "n-web",
        Some(pane),
        &command::notify_command(&dir, ""),
        "1",
    );
    let document = command::wait_for_file(
        &zellij,
        &dir.join("doc.json"),
        "the notify command never ran",
    );
    let document: serde_json::Value = serde_json::from_str(&document).expect("JSON");
    let url = zellij.web_url();
    assert_eq!(document["url"], url.as_str(), "{document}");
    let mut browser = open_browser_at(&zellij, &url, &zellij.web_token());
    browser.wait_for_screen("the question", zellij.until(ANSWER), |s| {
        s.contains("away asks") && s.contains("Which database?") && !settling(s)
    });
    browser.press("Enter");
    let (status, out, _) = command::ended(&zellij, &mut asking, "the command never ended");
    assert_eq!(
        out,
        submitted(DB, &[(0, Answer::Option(0))], &[], Some("n-web"))
    );
    assert_eq!(status.code(), Some(0));
}

/// `status`, `cancel`, a rejection and an answer all reach their callers through the clients
/// that are left, and every mark and wait closes once.
fn the_rest_is_served(zellij: &Zellij, answer: impl FnOnce(&str), pane: u32, title: &str) {
    let id = pane.to_string();
    assert_eq!(status(zellij), json!({"pending": [], "visible": false}));
    // A rejection, answered at once.
    let out = zellij
        .pipe_to("ask-popup", "ask", &[("id", "bad")], "{")
        .wait(AT_ONCE);
    assert_eq!(details(&out)["error"], "invalid_payload", "{out:?}");
    // A question withdrawn by its caller (`cancel`): the caller hears `aborted`.
    let withdrawn = zellij.pipe(
        DB,
        &[("agent", "claude"), ("pane_id", &id), ("id", "gone-cancel")],
    );
    let until = zellij.until(ANSWER);
    let mut withdrawn = withdrawn;
    while status(zellij)["pending"]
        .as_array()
        .is_none_or(Vec::is_empty)
    {
        assert!(
            Instant::now() < until,
            "the question to withdraw never arrived"
        );
        withdrawn.retry_if_dropped();
        thread::sleep(Duration::from_millis(100));
    }
    let (out, dropped) = zellij
        .pipe_to(
            "ask-popup",
            "cancel",
            &[("agent", "claude"), ("pane_id", &id), ("id", "gone-cancel")],
            "x",
        )
        .wait_noting_drops(AT_ONCE);
    // Asked again after Zellij dropped a `cancel` whose message may have withdrawn it
    // already, the answer may be that nothing was left; the caller's `aborted` below tells.
    let withdrew_it = out.stdout == b"{\"withdrawn\":1}\n";
    let found_it_gone = dropped && out.stdout == b"{\"withdrawn\":0}\n";
    assert!(
        withdrew_it || found_it_gone,
        "{out:?} (dropped before: {dropped})"
    );
    let out = withdrawn.wait(ANSWER);
    assert_eq!(details(&out)["error"], "aborted", "{out:?}");
    wait_for_title(zellij, pane, title);
    // A question answered where the person is.
    answer(&id);
    wait_for_title(zellij, pane, title);
    assert_eq!(status(zellij), json!({"pending": [], "visible": false}));
    let most = listener_balance(zellij, AT_ONCE).unwrap_or_else(|none| panic!("{none}"));
    for (key, count) in most["balance"].as_object().into_iter().flatten() {
        assert_eq!(count, 0, "{key}: {most}");
    }
}

#[test]
fn when_the_terminal_leaves_the_browser_serves_every_caller() {
    // The terminal's instance of the plugin led (its client came first). It detaches while a
    // question waits; the browser stays.
    let zellij = Zellij::start_with(Options::default().with_listener().with_web());
    let (pane, title) = caller_pane(&zellij);
    let id = pane.to_string();
    let mut browser = open_browser(&zellij);
    let call = ask_in_browser(
        &zellij,
        &mut browser,
        DB,
        (&id, "left-web-1"),
        "Which database?",
    );
    wait_for_title(&zellij, pane, &marked(&title));
    let _ = zellij.tmux_run(&["kill-session", "-t", FIRST]);
    browser.press("Enter");
    assert_reply(
        &call.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(0))], &[], Some("left-web-1")),
    );
    wait_for_title(&zellij, pane, &title);
    the_rest_is_served(
        &zellij,
        |id| {
            // The withdrawn question's popup gone first: until the browser has drawn that,
            // its screen still shows the question, and keys would go to the pane beneath.
            let until = zellij.until(ANSWER);
            browser.wait_for_screen("the withdrawn question gone", until, |s| {
                !s.contains("Which database?")
            });
            let call = ask_in_browser(
                &zellij,
                &mut browser,
                DB,
                (id, "left-web-2"),
                "Which database?",
            );
            browser.press("ArrowDown");
            browser.press("Enter");
            assert_reply(
                &call.wait(ANSWER),
                &submitted(DB, &[(0, Answer::Option(1))], &[], Some("left-web-2")),
            );
        },
        pane,
        &title,
    );
}

#[test]
fn when_the_browser_leaves_the_terminal_serves_every_caller() {
    // The browser's instance leads: the terminal client came back after it (a higher id). The
    // browser's tab is closed while a question waits.
    let zellij = Zellij::start_with(Options::default().with_listener().with_web());
    let (pane, title) = caller_pane(&zellij);
    let id = pane.to_string();
    let browser = open_browser(&zellij);
    zellij.reattach_first_client();
    let call = crate::dialog::ask(
        &zellij,
        DB,
        &[
            ("agent", "claude"),
            ("pane_id", &id),
            ("id", "left-browser-1"),
        ],
        |s| s.contains("claude asks") && s.contains("Which database?"),
    );
    wait_for_title(&zellij, pane, &marked(&title));
    browser.close();
    zellij.wait_for_screen_of(FIRST, "the question, keys counting", ANSWER, |s| {
        s.contains("Which database?") && !settling(s)
    });
    zellij.type_into(FIRST, &["Enter"]);
    assert_reply(
        &call.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(0))], &[], Some("left-browser-1")),
    );
    wait_for_title(&zellij, pane, &title);
    the_rest_is_served(
        &zellij,
        |id| {
            zellij.wait_for_screen_of(FIRST, "the withdrawn question gone", ANSWER, |s| {
                !s.contains("Which database?")
            });
            let call = crate::dialog::ask(
                &zellij,
                DB,
                &[
                    ("agent", "claude"),
                    ("pane_id", id),
                    ("id", "left-browser-2"),
                ],
                |s| s.contains("claude asks") && s.contains("Which database?") && !settling(s),
            );
            zellij.type_into(FIRST, &["Escape"]);
            let out = call.wait(ANSWER);
            assert_eq!(details(&out)["cancelled"], true, "{out:?}");
        },
        pane,
        &title,
    );
}
