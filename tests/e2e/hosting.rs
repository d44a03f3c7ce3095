//! End to end: what a host of many real agents must get right. Two attached clients both show
//! the question and the first answer wins once; a client that leaves leaves nothing undone;
//! keys typed as the popup appears are stray; a popup holding too much answers `busy`; a pipe
//! of an unknown name gets a clear error.

use crate::agents::{
    blocked, caller_pane, heard, heard_of_one_question, listener_balance, marked, status,
    submitted, wait_for_title, DB,
};
use crate::harness::{settling, Options, Zellij, FIRST, SECOND};
use crate::{assert_reply, details, ANSWER, AT_ONCE};
use ask_popup_plugin::broker::MAX_PENDING_BYTES;
use ask_popup_protocol::envelope::Answer;
use serde_json::json;
use std::thread;
use std::time::{Duration, Instant};

#[test]
fn with_two_clients_the_question_shows_on_both_and_is_answered_once() {
    // The plugin runs before the second client comes: Zellij then starts an instance of it
    // for that client too.
    two_clients_answer_once(true);
}

#[test]
fn with_two_clients_attached_before_the_first_question_it_is_answered_once() {
    // The first question loads the plugin: Zellij starts an instance per client at once.
    two_clients_answer_once(false);
}

fn two_clients_answer_once(plugin_first: bool) {
    let zellij = Zellij::start_with(Options::default().with_listener());
    // The listener is running before the second client comes, as in the other tests with
    // two clients: the new client gets an instance of it at once, as of ask-popup when
    // `plugin_first`. (Loaded by its first pipe with both clients attached, it once held that
    // pipe for good, four times asked.)
    assert!(heard(&zellij).is_empty());
    if plugin_first {
        assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
    }
    zellij.attach_second_client();
    assert!(heard(&zellij).is_empty());
    let (pane, title) = caller_pane(&zellij);
    let id = pane.to_string();
    // Asked as every waiting test asks: again with the same id if Zellij drops the call.
    let call = crate::dialog::ask(
        &zellij,
        DB,
        &[("agent", "claude"), ("pane_id", &id), ("id", "two-1")],
        |s| s.contains("claude asks") && s.contains("Which database?"),
    );
    for client in [FIRST, SECOND] {
        zellij.wait_for_screen_of(client, "the question", ANSWER, |s| {
            s.contains("claude asks") && s.contains("Which database?") && !settling(s)
        });
    }
    wait_for_title(&zellij, pane, &marked(&title));

    // The user answers on the second client.
    zellij.type_into(SECOND, &["Down"]);
    zellij.wait_for_screen_of(SECOND, "the focus on SQLite", ANSWER, |s| {
        s.contains("❯ 2. SQLite")
    });
    zellij.type_into(SECOND, &["Enter"]);
    // One reply, exactly: a second would follow the first on the CLI's stdout.
    assert_reply(
        &call.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(1))], &[], Some("two-1")),
    );
    // The first client's dialog closes at once, the title comes back once, and the blocked
    // pair opened and closed once.
    zellij.wait_for_screen_of(FIRST, "the question gone", ANSWER, |s| {
        !s.contains("Which database?")
    });
    wait_for_title(&zellij, pane, &title);
    let asked = heard_of_one_question(&zellij, "ask-popup:answered");
    assert_eq!(asked[1].1, blocked(true, pane, "claude", 1, "two-1"));
    assert_eq!(asked[3].1, blocked(false, pane, "claude", 0, "two-1"));
    // Both instances still serve.
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
}

#[test]
fn a_client_that_attaches_while_a_question_waits_shows_it_and_the_first_keeps_it() {
    // The new client's instance of the plugin never heard the question: the others tell it.
    let zellij = Zellij::start_with(Options::default().with_listener());
    let (pane, title) = caller_pane(&zellij);
    let id = pane.to_string();
    let call = crate::dialog::ask(
        &zellij,
        DB,
        &[("agent", "claude"), ("pane_id", &id), ("id", "late-1")],
        |s| s.contains("claude asks") && s.contains("Which database?"),
    );
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen_of(FIRST, "the focus on SQLite", ANSWER, |s| {
        s.contains("❯ 2. SQLite")
    });
    zellij.attach_second_client();
    zellij.wait_for_screen_of(SECOND, "the question on the new client", ANSWER, |s| {
        s.contains("claude asks") && s.contains("Which database?") && !settling(s)
    });
    // The first client's popup stayed, as the user left it.
    zellij.wait_for_screen_of(FIRST, "the question still there", ANSWER, |s| {
        s.contains("Which database?") && s.contains("❯ 2. SQLite")
    });
    let pending = status(&zellij)["pending"].clone();
    assert_eq!(pending.as_array().map(Vec::len), Some(1), "{pending}");
    assert_eq!(pending[0]["requestId"], "late-1", "{pending}");

    // The user answers on the new client: its own popup, from the first option.
    zellij.type_into(SECOND, &["Enter"]);
    assert_reply(
        &call.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(0))], &[], Some("late-1")),
    );
    zellij.wait_for_screen_of(FIRST, "the question gone", ANSWER, |s| {
        !s.contains("Which database?")
    });
    wait_for_title(&zellij, pane, &title);
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
}

#[test]
fn a_question_hidden_by_another_hand_as_a_client_attaches_shows_again_on_both() {
    // A client attaching sets off more than one hand on the popup's one pane (Zellij hides a
    // web client's tab's floating panes; the new client's instance hides the pane it showed
    // for its permission request): a question that shows comes back.
    let zellij = Zellij::start();
    let (pane, _) = caller_pane(&zellij);
    let id = pane.to_string();
    let call = crate::dialog::ask(
        &zellij,
        DB,
        &[("agent", "claude"), ("pane_id", &id), ("id", "hand-1")],
        |s| s.contains("claude asks") && s.contains("Which database?"),
    );
    zellij.attach_second_client();
    // Another hand hides the floating panes the moment the client is there.
    let hidden = zellij.action(&["toggle-floating-panes"]);
    assert!(hidden.status.success(), "{hidden:?}");
    for client in [FIRST, SECOND] {
        zellij.wait_for_screen_of(client, "the question shown again", ANSWER, |s| {
            s.contains("claude asks") && s.contains("Which database?") && !settling(s)
        });
    }
    zellij.type_into(SECOND, &["Enter"]);
    assert_reply(
        &call.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(0))], &[], Some("hand-1")),
    );
}

#[test]
fn keys_typed_as_the_popup_appears_do_not_answer_it() {
    let zellij = Zellij::start();
    // Loaded and idle, so the next question shows the moment it arrives.
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
    let pane = zellij.plugin_pane(AT_ONCE);
    // The user was typing `1` and Enter for another pane: the keys reach the popup while its
    // footer still says `…`. (Should the machine be too slow to send them within the guard,
    // the question is withdrawn and asked again.)
    let mut attempt = 0;
    let call = loop {
        attempt += 1;
        assert!(attempt <= 5, "never managed to type within the key guard");
        let id = format!("stray-{attempt}");
        let mut call = zellij.pipe(DB, &[("agent", "claude"), ("id", &id)]);
        let until = zellij.until(ANSWER);
        let mut screen = zellij.screen();
        while !screen.contains("Which database?") {
            assert!(Instant::now() < until, "the question never showed");
            // Dropped by Zellij before its question arrived: asked again with the same id.
            call.retry_if_dropped();
            thread::sleep(Duration::from_millis(10));
            screen = zellij.screen();
        }
        let seen = Instant::now();
        // A `send-keys` that Zellij leaves hanging was too slow as well, and one whose CLI
        // missed the session sent nothing.
        let typed = zellij.action_within(
            &["send-keys", "--pane-id", &pane, "Down", "Enter"],
            Duration::from_secs(5),
        );
        if let Some(typed) = &typed {
            assert!(typed.status.success(), "send-keys: {typed:?}");
        }
        if typed.is_some() && settling(&screen) && seen.elapsed() < Duration::from_millis(150) {
            break call;
        }
        let withdrawn = zellij
            .pipe_to(
                "ask-popup",
                "cancel",
                &[("agent", "claude"), ("id", &id)],
                "x",
            )
            .wait(AT_ONCE);
        assert!(withdrawn.status.success());
        let _ = call.wait(ANSWER);
    };
    // Once keys count, the footer shows its hints: the stray keys neither moved the focus nor
    // answered.
    zellij.wait_until_keys_count();
    let screen = zellij.screen();
    assert!(
        screen.contains("❯ 1. Postgres"),
        "the focus moved:\n{screen}"
    );
    let mut call = call;
    // A call Zellij dropped after its question arrived is asked again (it keeps its place and
    // state); one the stray Enter answered has printed the answer and stays ended.
    zellij.confirm_asked(&mut call);
    assert!(call.is_running(), "a stray Enter answered the question");
    // Keys after the guard work.
    zellij.send_keys(&["Enter"]);
    let out = call.wait(ANSWER);
    assert_eq!(details(&out)["answers"][0]["answer"], "Postgres");
}

#[test]
fn a_request_that_would_hold_more_than_8_mib_is_busy() {
    let zellij = Zellij::start_with(Options::default().with_deadline(Duration::from_secs(400)));
    // Questionnaires with a large preview each, on stdin (one line each).
    let preview = "p".repeat(900 * 1024);
    let payload = |n: usize| {
        let q = json!({"questions": [{"question": format!("Big {n}?"), "header": "Big", "options": [
            {"label": "A", "description": "", "preview": preview},
            {"label": "B", "description": ""}]}]});
        format!("{q}\n")
    };
    let fits = MAX_PENDING_BYTES / payload(0).len();
    let mut calls = Vec::new();
    for n in 0..fits {
        let id = format!("big-{n}");
        calls.push(zellij.pipe_stdin(&payload(n), &[("id", &id), ("agent", "bulk")]));
        let until = zellij.until(ANSWER);
        loop {
            let pending = status(&zellij)["pending"].as_array().map_or(0, Vec::len);
            if pending == n + 1 {
                break;
            }
            for call in calls.iter_mut() {
                call.retry_if_dropped();
            }
            assert!(Instant::now() < until, "request {n} never arrived");
            thread::sleep(Duration::from_millis(200));
        }
    }
    let out = zellij
        .pipe_stdin(&payload(fits), &[("id", "over"), ("agent", "bulk")])
        .answered_at_once()
        .wait(ANSWER);
    assert_eq!(details(&out)["error"], "busy", "{out:?}");
    assert_eq!(details(&out)["requestId"], "over");
    // Everyone already waiting is still served.
    assert_eq!(
        status(&zellij)["pending"].as_array().map(Vec::len),
        Some(fits)
    );
    for (n, mut call) in calls.into_iter().enumerate() {
        zellij.wait_for_screen("the next request", ANSWER, |s| {
            s.contains(&format!("Big {n}?"))
        });
        // A call Zellij dropped after its question arrived is asked again before the answer.
        zellij.confirm_asked(&mut call);
        zellij.send_keys(&["Esc"]);
        let out = call.wait(ANSWER);
        assert_eq!(details(&out)["cancelled"], true);
        assert!(details(&out).get("error").is_none(), "{out:?}");
    }
}

#[test]
fn a_pipe_of_an_unknown_name_gets_a_clear_error_and_shows_nothing() {
    let zellij = Zellij::start();
    let out = zellij
        .pipe_to("ask-popup", "question", &[("id", "u-1")], DB)
        .wait(AT_ONCE);
    let details = details(&out);
    assert_eq!(details["error"], "invalid_payload", "{out:?}");
    assert_eq!(details["requestId"], "u-1");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r#"no pipe named \"question\""#) && text.contains("--name ask"),
        "{text}"
    );
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
    assert!(!zellij.screen().contains("Which database?"));
}

#[test]
fn when_the_first_client_leaves_the_other_answers_and_every_wait_closes_once() {
    // The first client's instance of the plugin led: it answered what every instance decides
    // alike, marked titles and announced waits. Its client detaches while a question waits.
    let zellij = Zellij::start_with(Options::default().with_listener());
    assert!(heard(&zellij).is_empty());
    let (pane, title) = caller_pane(&zellij);
    let id = pane.to_string();
    zellij.attach_second_client();
    let call = crate::dialog::ask(
        &zellij,
        DB,
        &[("agent", "claude"), ("pane_id", &id), ("id", "left-1")],
        |s| s.contains("claude asks") && s.contains("Which database?"),
    );
    zellij.wait_for_screen_of(SECOND, "the question on the second client", ANSWER, |s| {
        s.contains("claude asks") && s.contains("Which database?") && !settling(s)
    });
    wait_for_title(&zellij, pane, &marked(&title));
    let _ = zellij.tmux_run(&["kill-session", "-t", FIRST]);

    // The user answers on the client that stayed: one reply, the title back.
    zellij.type_into(SECOND, &["Enter"]);
    assert_reply(
        &call.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(0))], &[], Some("left-1")),
    );
    wait_for_title(&zellij, pane, &title);
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));

    // The next question is served by what is left: marked, shown, declined, unmarked.
    let mut call = zellij.pipe(
        DB,
        &[("agent", "claude"), ("pane_id", &id), ("id", "left-2")],
    );
    let until = zellij.until(ANSWER);
    loop {
        let screen = zellij.screen_of(SECOND);
        if screen.contains("Which database?") && !settling(&screen) {
            break;
        }
        assert!(
            Instant::now() < until,
            "the next question never showed:\n{screen}"
        );
        // Dropped by Zellij before its question arrived: asked again with the same id.
        call.retry_if_dropped();
        thread::sleep(Duration::from_millis(100));
    }
    wait_for_title(&zellij, pane, &marked(&title));
    zellij.type_into(SECOND, &["Escape"]);
    let out = call.wait(ANSWER);
    assert_eq!(details(&out)["cancelled"], true, "{out:?}");
    assert_eq!(details(&out)["requestId"], "left-2");
    wait_for_title(&zellij, pane, &title);
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));

    // Every wait announced was closed: the listener that heard most counts each pair.
    let most = listener_balance(&zellij, AT_ONCE).unwrap_or_else(|none| panic!("{none}"));
    assert!(most["heard"].as_u64().unwrap_or(0) >= 12, "{most}");
    for (key, count) in most["balance"].as_object().into_iter().flatten() {
        assert_eq!(count, 0, "{key}: {most}");
    }
}
