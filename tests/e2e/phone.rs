//! End to end: a phone on Zellij's web client, the session's only client. Headless Chromium
//! with a phone's metrics and touch (390 × 844 CSS pixels, mobile, scale 1) opens the session's
//! web URL, the one a waiting question's notification links to, and Zellij's mobile UI shows
//! the focused pane alone, fullscreen over the floating panes. An agent asks from that pane:
//! the popup shows on the phone at once, fitted to its 27 columns, and is answered by taps.

use crate::agents::caller_pane;
use crate::browser::Browser;
use crate::command::{command, wait_for_file};
use crate::harness::{settling, shell_quote, Options, Zellij, FIRST};
use crate::web::logged_in;
use crate::ANSWER;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

/// The phone on the session's web URL (the one a waiting question's notification carries),
/// logged in, once its terminal shows the session.
fn open_phone(zellij: &Zellij) -> Browser {
    let phone = Browser::open_phone(&zellij.web_url(), &zellij.scratch().join("phone-profile"));
    logged_in(zellij, phone, &zellij.web_token())
}

/// A world with the web server, its one pane the caller; the phone logged in on the
/// session's web URL, then the terminal client gone: the phone is the only client.
fn phone_only() -> (Zellij, Browser, u32) {
    let zellij = Zellij::start_with(Options::default().with_web());
    let (pane, _) = caller_pane(&zellij);
    let mut phone = open_phone(&zellij);
    let _ = zellij.tmux_run(&["kill-session", "-t", FIRST]);
    // Zellij's mobile UI on: the focused pane alone, fullscreen.
    let until = zellij.until(ANSWER);
    loop {
        let state = phone.mobile_state();
        if state["active"] == true && state["renderMode"] == "single-pane" {
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "the phone never showed Zellij's mobile UI: {state}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    (zellij, phone, pane)
}

/// Runs `ask-popup <args>` from pane `pane` as a hook or an agent runs it, `stdin` on its
/// stdin: its stdout lands in `out.json`, its exit status in `rc` (written whole, by a
/// rename), in the world's scratch dir.
fn run_from_pane(zellij: &Zellij, pane: u32, args: &str, stdin: &str) -> Child {
    let dir = zellij.scratch();
    std::fs::write(dir.join("in.json"), stdin).expect("write the input");
    let _ = std::fs::remove_file(dir.join("rc"));
    let line = format!(
        "{} {args} < in.json > out.json; echo $? > rc.tmp && mv rc.tmp rc",
        shell_quote(&command().to_string_lossy())
    );
    let mut sh = zellij.in_session(Path::new("/bin/sh"));
    sh.args(["-c", &line])
        .current_dir(&dir)
        .env("ZELLIJ_PANE_ID", pane.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    sh.spawn().expect("run ask-popup")
}

/// What the command run by `run_from_pane` printed, once it ended.
fn printed(zellij: &Zellij, mut run: Child) -> Value {
    let dir = zellij.scratch();
    let rc = wait_for_file(zellij, &dir.join("rc"), "the command never ended");
    let _ = run.wait();
    let out = std::fs::read_to_string(dir.join("out.json")).unwrap_or_default();
    assert_eq!(rc.trim(), "0", "{out}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out:?}"))
}

/// Taps `Submit answers` once the phone shows it: what the command printed.
fn submitted(zellij: &Zellij, phone: &mut Browser, run: Child) -> Value {
    on_phone(zellij, phone, "the submit tab", |s| {
        s.contains("Submit answers")
    });
    phone.tap_text("Submit answers");
    printed(zellij, run)
}

/// Waits until the phone shows `what` (`pred`), keys counting (the footer past its `…`), and
/// checks that no line of it runs past the phone's columns.
fn on_phone(zellij: &Zellij, phone: &mut Browser, what: &str, pred: impl Fn(&str) -> bool) {
    let screen = phone.wait_for_screen(what, zellij.until(ANSWER), |s| pred(s) && !settling(s));
    whole(phone, &screen);
}

/// Nothing of the popup is cut at the right: the terminal is as wide as the phone shows, and
/// no line's last cell holds text that goes on (a word cut off, or an ellipsis).
fn whole(phone: &mut Browser, screen: &str) {
    let fits = phone.eval(
        "(() => { const t = window.term; const r = t.element.querySelector('.xterm-screen').getBoundingClientRect(); \
         return r.right <= window.innerWidth + 1; })()",
    );
    assert_eq!(
        fits, true,
        "the terminal is wider than the phone:\n{screen}"
    );
    for line in screen.lines() {
        assert!(
            !line.trim_end().ends_with('…'),
            "a line cut at the right:\n{screen}"
        );
    }
}

#[test]
fn a_questionnaire_shows_on_a_phone_that_is_the_only_client_and_is_answered_by_taps() {
    let (zellij, mut phone, pane) = phone_only();
    let payload = json!({"questions": [
        {"question": "Which database?", "header": "DB", "options": [
            {"label": "Postgres", "description": "Relational, for the shared service"},
            {"label": "SQLite", "description": "Embedded, one file beside the app"}]},
        {"question": "Which language?", "header": "Lang", "options": [
            {"label": "Rust", "description": "Fast"},
            {"label": "Go", "description": "Simple"}]}]});
    let run = run_from_pane(
        &zellij,
        pane,
        "ask --agent asker --id phone-q",
        &payload.to_string(),
    );
    on_phone(&zellij, &mut phone, "the first question", |s| {
        s.contains("asker asks") && s.contains("Which database?") && s.contains("SQLite")
    });
    if let Some(path) = std::env::var_os("ASK_POPUP_PHONE_SCREENSHOT") {
        std::fs::write(&path, phone.screenshot()).expect("write the screenshot");
    }
    phone.tap_text("SQLite");
    on_phone(&zellij, &mut phone, "the second question", |s| {
        s.contains("Which language?") && s.contains("Go")
    });
    phone.tap_text("Go");
    let out = submitted(&zellij, &mut phone, run);
    assert_eq!(out["details"]["answers"][0]["answer"], "SQLite", "{out}");
    assert_eq!(out["details"]["answers"][1]["answer"], "Go", "{out}");
    // Answered, the phone's view is back on the pane that asked, alone.
    phone.wait_for_screen("the popup gone", zellij.until(ANSWER), |s| {
        !s.contains("asker asks")
    });
    let until = zellij.until(ANSWER);
    loop {
        let state = phone.mobile_state();
        let data = &state["data"];
        if data["active_pane"]["pane_id"] == pane
            && data["active_pane"]["is_plugin"] == false
            && data["render_prefs"]["single_pane"] == true
            && data["render_prefs"]["active_pane_is_fullscreen"] == true
        {
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "the phone's view never went back to the asking pane: {data}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Claude Code's `PermissionRequest` hook input for running `command` in Bash.
fn bash_permission(command: &str) -> String {
    json!({
        "session_id": "s", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Make a file"},
    })
    .to_string()
}

/// The decision Claude Code's approval hook printed.
fn decision(out: &Value) -> &Value {
    &out["hookSpecificOutput"]["decision"]["behavior"]
}

#[test]
fn an_approval_on_a_phone_that_is_the_only_client_is_denied_and_allowed_by_taps() {
    let (zellij, mut phone, pane) = phone_only();
    // Denied with a tap.
    let run = run_from_pane(
        &zellij,
        pane,
        "claude-approval",
        &bash_permission("touch denied-on-the-phone"),
    );
    on_phone(&zellij, &mut phone, "the approval", |s| {
        s.contains("touch denied-on-the-phone") && s.contains("❯ Deny") && s.contains("Allow once")
    });
    phone.tap_text("Deny");
    assert_eq!(decision(&printed(&zellij, run)), "deny");
    phone.wait_for_screen("the approval gone", zellij.until(ANSWER), |s| {
        !s.contains("denied-on-the-phone")
    });
    // Allowed with a tap, once the guard has let taps count (the footer past its `…`).
    let run = run_from_pane(
        &zellij,
        pane,
        "claude-approval",
        &bash_permission("touch allowed-on-the-phone"),
    );
    on_phone(&zellij, &mut phone, "the second approval", |s| {
        s.contains("touch allowed-on-the-phone") && s.contains("Allow once")
    });
    phone.tap_text("Allow once");
    assert_eq!(decision(&printed(&zellij, run)), "allow");
}

#[test]
fn a_form_on_a_phone_that_is_the_only_client_is_filled_in_by_taps() {
    let (zellij, mut phone, pane) = phone_only();
    let input = json!({
        "hook_event_name": "Elicitation", "mcp_server_name": "deploys", "mode": "form",
        "message": "Where should it go?",
        "requested_schema": {"type": "object", "properties": {
            "region": {"type": "string", "title": "Region", "enum": ["eu-west", "us-east"]},
            "canary": {"type": "boolean", "title": "Canary", "description": "Ship to 5% first?"},
        }, "required": ["region"]},
    });
    let run = run_from_pane(&zellij, pane, "claude-elicitation", &input.to_string());
    on_phone(&zellij, &mut phone, "the form's first field", |s| {
        s.contains("Where should") && s.contains("us-east")
    });
    // The key bar's arrows move as the arrow keys do.
    phone.show_key_bar();
    phone.tap_key("↓");
    on_phone(&zellij, &mut phone, "us-east focused", |s| {
        s.contains("❯ 2. us-east")
    });
    phone.tap_key("↑");
    on_phone(&zellij, &mut phone, "eu-west focused", |s| {
        s.contains("❯ 1. eu-west")
    });
    phone.tap_text("us-east");
    on_phone(&zellij, &mut phone, "the form's second field", |s| {
        s.contains("Ship to 5% first?") && s.contains("Yes")
    });
    phone.tap_text("Yes");
    let out = submitted(&zellij, &mut phone, run);
    assert_eq!(out["hookSpecificOutput"]["action"], "accept", "{out}");
    assert_eq!(
        out["hookSpecificOutput"]["content"],
        json!({"region": "us-east", "canary": true}),
        "{out}"
    );
}

#[test]
fn with_a_wide_terminal_also_attached_the_phone_shows_the_question_whole() {
    // The terminal client (160 columns) came first and its instance leads; the phone attaches
    // in Zellij's mobile view. A question shows whole on both and is answered on the phone.
    let zellij = Zellij::start_with(Options::default().with_web());
    let (pane, _) = caller_pane(&zellij);
    let mut phone = open_phone(&zellij);
    let run = run_from_pane(
        &zellij,
        pane,
        "ask --agent asker --id shared",
        crate::agents::DB,
    );
    on_phone(&zellij, &mut phone, "the question", |s| {
        s.contains("asker asks") && s.contains("Which database?") && s.contains("Embedded")
    });
    zellij.wait_for_screen_of(FIRST, "the question in the terminal too", ANSWER, |s| {
        s.contains("asker asks") && s.contains("Which database?")
    });
    phone.tap_text("SQLite");
    let out = printed(&zellij, run);
    assert_eq!(out["details"]["answers"][0]["answer"], "SQLite", "{out}");
    zellij.wait_for_screen_of(FIRST, "the terminal's popup closed", ANSWER, |s| {
        !s.contains("Which database?")
    });
}
