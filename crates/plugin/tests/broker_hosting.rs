//! The broker as a host for many callers: blank stdin lines, withdrawing, scoped ids,
//! countdowns that run only on screen, stray keys, and memory that stays bounded.

mod broker_io;

use ask_popup_plugin::broker::{
    Broker, Config, Effect, PipeIn, Source, FORGET_AFTER_MS, KEY_GUARD_MS, MAX_PENDING_BYTES,
};
use ask_popup_plugin::dialog::{Input, Key};
use broker_io::*;
use serde_json::json;

fn with_timeout(text: &str, ms: u64) -> String {
    json!({"questions": [{"question": text, "header": "H", "options": ["A", "B"]}], "timeout": ms})
        .to_string()
}

#[test]
fn blank_lines_before_between_and_after_a_stdin_payload_are_harmless() {
    let mut b = Broker::new(Config::default());
    let pretty = serde_json::to_string_pretty(
        &serde_json::from_str::<serde_json::Value>(&question("Pick?")).unwrap(),
    )
    .unwrap();
    let mut lines = vec!["\n".to_owned(), "   \n".to_owned()];
    for (i, line) in pretty.lines().enumerate() {
        lines.push(format!("{line}\n"));
        if i == 1 {
            lines.push("\n".to_owned());
        }
    }
    let (last, first) = lines.split_last().unwrap();
    for line in first {
        let fx = b.pipe(cli("p1", Some(line), &[]));
        assert!(replies(&fx).is_empty(), "{line:?} answered: {fx:?}");
    }
    let fx = b.pipe(cli("p1", Some(last), &[]));
    assert_eq!(fx.first(), Some(&Effect::Block("p1".into())));
    // A blank line after it, and the end of input: nothing more to say.
    assert!(replies(&b.pipe(cli("p1", Some("\n"), &[]))).is_empty());
    assert!(replies(&b.pipe(cli("p1", None, &[]))).is_empty());
    assert_eq!(b.pending_count(), 1);
}

#[test]
fn only_the_end_of_stdin_with_nothing_at_all_is_empty() {
    let mut b = Broker::new(Config::default());
    assert!(replies(&b.pipe(cli("p1", Some("\n"), &[("id", "e")]))).is_empty());
    let r = replies(&b.pipe(cli("p1", None, &[("id", "e")])));
    assert_eq!(r[0].1["details"]["error"], "invalid_payload");
    assert!(r[0].1["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("the payload was empty"));
    assert_eq!(r[0].1["details"]["requestId"], "e");
}

#[test]
fn cancel_withdraws_the_callers_request_with_aborted() {
    let mut b = Broker::new(Config::default());
    b.pane_titles([(5, "claude".to_owned())]);
    b.pipe(cli(
        "p1",
        Some(&question("One?")),
        &[("pane_id", "5"), ("id", "r1")],
    ));
    let fx = b.pipe(named(
        "c1",
        "cancel",
        Some(""),
        &[("pane_id", "5"), ("id", "r1")],
    ));
    let r = replies(&fx);
    assert_eq!(r.len(), 2, "{fx:?}");
    assert_eq!(r[0].0, "p1");
    assert_eq!(r[0].1["details"]["error"], "aborted");
    assert_eq!(
        r[0].1["content"][0]["text"],
        "The question was withdrawn by the agent before the user answered."
    );
    assert_eq!(r[0].1["details"]["requestId"], "r1");
    assert_eq!((r[1].0.as_str(), &r[1].1), ("c1", &json!({"withdrawn": 1})));
    // The indicator ends as for any other outcome, and the popup is empty.
    assert_eq!(broadcasts(&fx, "ask-popup:blocked")[0]["active"], false);
    assert_eq!(
        broadcasts(&fx, "ask-popup:cancelled")[0]["reason"],
        "aborted"
    );
    assert_eq!(renames(&fx), [(5, String::new())]);
    assert!(fx.contains(&Effect::Hide));
    assert_eq!(b.pending_count(), 0);
    // Its end-of-input message, and the request's own, are let go quietly.
    assert!(replies(&b.pipe(named("c1", "cancel", None, &[]))).is_empty());
    assert!(replies(&b.pipe(cli("p1", None, &[]))).is_empty());
}

#[test]
fn cancel_touches_only_its_own_callers_request() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli(
        "p1",
        Some(&question("One?")),
        &[("pane_id", "5"), ("id", "r1")],
    ));
    b.pipe(cli(
        "p2",
        Some(&question("Two?")),
        &[("pane_id", "6"), ("id", "r1")],
    ));
    let r = replies(&b.pipe(named(
        "c1",
        "cancel",
        Some(""),
        &[("pane_id", "6"), ("id", "r1")],
    )));
    let pipes: Vec<&str> = r.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(pipes, ["p2", "c1"]);
    assert_eq!(b.pending_count(), 1);
    // Without an id nothing is withdrawn.
    let r = replies(&b.pipe(named("c2", "cancel", Some(""), &[("pane_id", "5")])));
    assert_eq!(r, [("c2".to_owned(), json!({"withdrawn": 0}))]);
    assert_eq!(b.pending_count(), 1);
}

#[test]
fn a_question_overtaken_by_its_withdrawal_is_answered_aborted_at_once() {
    let mut b = Broker::new(Config::default());
    let r = replies(&b.pipe(named(
        "c1",
        "cancel",
        Some(""),
        &[("agent", "pi"), ("id", "r9")],
    )));
    assert_eq!(r[0].1, json!({"withdrawn": 0}));
    let fx = b.pipe(cli(
        "p1",
        Some(&question("One?")),
        &[("agent", "pi"), ("id", "r9")],
    ));
    let r = replies(&fx);
    assert_eq!(r[0].1["details"]["error"], "aborted");
    assert!(!fx.contains(&Effect::Show));
    assert_eq!(b.pending_count(), 0);
}

#[test]
fn ids_are_scoped_to_their_caller() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli(
        "a",
        Some(&question("A's?")),
        &[("pane_id", "1"), ("id", "1")],
    ));
    let fx = b.pipe(cli(
        "b",
        Some(&question("B's?")),
        &[("pane_id", "2"), ("id", "1")],
    ));
    assert!(
        replies(&fx).is_empty(),
        "B's id=1 superseded A's question: {fx:?}"
    );
    assert_eq!(b.pending_count(), 2);
    // Without a pane the agent name is the caller.
    b.pipe(cli(
        "c",
        Some(&question("C's?")),
        &[("agent", "codex"), ("id", "1")],
    ));
    let fx = b.pipe(cli(
        "d",
        Some(&question("D's?")),
        &[("agent", "pi"), ("id", "1")],
    ));
    assert!(replies(&fx).is_empty());
    assert_eq!(b.pending_count(), 4);
    // The same caller asking again with its id supersedes its own request only.
    let r = replies(&b.pipe(cli(
        "e",
        Some(&question("A's?")),
        &[("pane_id", "1"), ("id", "1")],
    )));
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].0, "a");
    assert_eq!(r[0].1["details"]["error"], "superseded");
    assert_eq!(b.pending_count(), 4);
}

#[test]
fn a_queued_request_does_not_count_down_until_it_is_shown() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("first", Some(&question("First?")), &[("id", "1")]));
    b.pipe(cli(
        "queued",
        Some(&with_timeout("Queued?", 2000)),
        &[("id", "2")],
    ));
    // The user takes ten seconds over the first one.
    for _ in 0..10 {
        let r = replies(&tick(&mut b, 1000));
        assert!(
            r.is_empty(),
            "answered while the user was busy with another: {r:?}"
        );
    }
    settle(&mut b);
    b.input(Input::Key(Key::Enter));
    assert_eq!(b.pending_count(), 1);
    assert_eq!(
        b.current_dialog()
            .unwrap()
            .countdown()
            .unwrap()
            .remaining_ms,
        2000,
        "its countdown starts now"
    );
    // Then it counts down on screen, and expires.
    assert!(replies(&tick(&mut b, 1000)).is_empty());
    let r = replies(&tick(&mut b, 1000));
    assert_eq!(r[0].0, "queued");
    assert_eq!(r[0].1["details"]["error"], "timed_out");
}

#[test]
fn a_new_request_is_not_charged_time_it_did_not_wait() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("first", Some(&question("First?")), &[]));
    // A request with the shortest timeout comes, and 900 ms into the first one's tick (the
    // key guard its coming set over) the first one is answered: the new one shows.
    b.set_clock(b.now_ms() + 500);
    b.pipe(cli("second", Some(&with_timeout("Second?", 1000)), &[]));
    b.set_clock(b.now_ms() + 400);
    b.input(Input::Key(Key::Enter));
    assert_eq!(b.pending_count(), 1);
    // The tick in flight fires 100 ms after: the new request has 900 ms left, not 0.
    let r = replies(&tick(&mut b, 100));
    assert!(
        r.iter().all(|(p, _)| p != "second"),
        "expired at once: {r:?}"
    );
    assert_eq!(
        b.current_dialog()
            .unwrap()
            .countdown()
            .unwrap()
            .remaining_ms,
        900
    );
    let r = replies(&tick(&mut b, 1000));
    assert_eq!(r[0].1["details"]["error"], "timed_out");
}

#[test]
fn keys_right_after_a_request_appears_do_nothing() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p", Some(&question("Q?")), &[]));
    let frame = b.render(12, 60).to_plain();
    assert!(frame.trim_end().ends_with('…'), "{frame}");
    // The user was typing `1`, Enter in another pane as the popup took the focus.
    b.set_clock(b.now_ms() + KEY_GUARD_MS - 1);
    for key in [
        Key::Char('1'),
        Key::Enter,
        Key::Char(' '),
        Key::Char('n'),
        Key::Esc,
    ] {
        assert!(b.input(Input::Key(key)).is_empty(), "{key:?} did something");
    }
    assert_eq!(b.current_dialog().unwrap().tab_state(0).unwrap().focus, 0);
    // Each of them held the guard on: 400 ms after the first showing, the footer still says
    // `…`.
    let fx = tick(&mut b, 1);
    assert!(!fx.contains(&Effect::Render), "{fx:?}");
    assert!(b.input(Input::Key(Key::Enter)).is_empty());
    // 400 ms without a key (the guard's timer): the footer shows its hints, and keys count.
    let fx = tick(&mut b, KEY_GUARD_MS - 1);
    assert!(!fx.contains(&Effect::Render), "{fx:?}");
    let fx = tick(&mut b, 1);
    assert!(fx.contains(&Effect::Render));
    let frame = b.render(12, 60).to_plain();
    assert!(frame.contains("Enter select"), "{frame}");
    let r = replies(&b.input(Input::Key(Key::Enter)));
    assert_eq!(r[0].1["details"]["answers"][0]["answer"], "A");
}

#[test]
fn the_next_request_in_the_queue_is_guarded_when_it_appears() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&question("One?")), &[]));
    b.pipe(cli("p2", Some(&question("Two?")), &[]));
    settle(&mut b);
    // A double Enter answers the first, and not the second that just appeared.
    assert_eq!(replies(&b.input(Input::Key(Key::Enter))).len(), 1);
    assert!(b.input(Input::Key(Key::Enter)).is_empty());
    assert_eq!(b.pending_count(), 1);
}

#[test]
fn answered_pipes_are_forgotten_after_a_while() {
    let mut b = Broker::new(Config::default());
    // Callers that never send an end-of-input message (a TTY, a killed CLI).
    for i in 0..1000 {
        b.pipe(named(&format!("s{i}"), "status", Some(""), &[]));
        b.pipe(cli(&format!("bad{i}"), Some("nope"), &[]));
    }
    assert!(b.remembered().0 <= 4096);
    b.set_clock(b.now_ms() + FORGET_AFTER_MS);
    b.pipe(named("last", "status", Some(""), &[]));
    assert_eq!(b.remembered().0, 1);
}

#[test]
fn a_partial_payload_whose_caller_went_away_is_dropped() {
    let mut b = Broker::new(Config::default());
    let big = format!(
        "{{\"questions\": [{{\"question\": \"{}\n",
        "x".repeat(900_000)
    );
    for i in 0..3 {
        b.pipe(cli(&format!("dead{i}"), Some(&big), &[("id", "d")]));
    }
    assert_eq!(b.remembered().1, 3);
    assert!(b.held_bytes() > 2_700_000);
    // A minute later, the next message of anyone drops them.
    b.set_clock(b.now_ms() + FORGET_AFTER_MS);
    let fx = b.pipe(named("s", "status", Some(""), &[]));
    assert_eq!(b.remembered().1, 0);
    assert_eq!(b.held_bytes(), 0);
    let dropped: Vec<_> = replies(&fx)
        .into_iter()
        .filter(|(p, _)| p.starts_with("dead"))
        .collect();
    assert_eq!(
        dropped.len(),
        3,
        "each still gets its one reply, should it listen"
    );
    assert!(dropped
        .iter()
        .all(|(_, v)| v["details"]["error"] == "invalid_payload"));
}

#[test]
fn a_request_that_would_pass_the_pending_limit_is_busy() {
    let mut b = Broker::new(Config::default());
    let preview = "p".repeat(900_000);
    let big = |q: &str| {
        json!({"questions": [{"question": q, "header": "H", "options": [
            {"label": "A", "description": "", "preview": preview},
            {"label": "B", "description": ""}]}]})
        .to_string()
    };
    let mut n = 0;
    while b.held_bytes() + 900_000 <= MAX_PENDING_BYTES {
        let id = format!("i{n}");
        let fx = b.pipe(cli(
            &format!("p{n}"),
            Some(&big(&format!("Q{n}?"))),
            &[("id", &id)],
        ));
        assert!(replies(&fx).is_empty());
        n += 1;
    }
    let fx = b.pipe(cli("over", Some(&big("Over?")), &[("id", "o")]));
    let r = replies(&fx);
    assert_eq!(r[0].0, "over");
    assert_eq!(r[0].1["details"]["error"], "busy");
    assert_eq!(r[0].1["details"]["requestId"], "o");
    assert!(r[0].1["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Too many questions are waiting in the popup right now"));
    assert_eq!(b.pending_count(), n);
    assert!(b.held_bytes() <= MAX_PENDING_BYTES);
    // The same caller asking again with the id of a waiting request replaces it, so it is not
    // busy (an agent whose call Zellij dropped asks again so).
    let fx = b.pipe(cli("p0-again", Some(&big("Q0?")), &[("id", "i0")]));
    let r = replies(&fx);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(
        (r[0].0.as_str(), &r[0].1["details"]["error"]),
        ("p0", &json!("superseded"))
    );
    assert_eq!(b.pending_count(), n);
    // Once some are answered there is room again.
    settle(&mut b);
    b.input(Input::Key(Key::Esc));
    let fx = b.pipe(cli("again", Some(&big("Again?")), &[]));
    assert!(replies(&fx).is_empty());
}

/// A questionnaire of about 900 KB (one long preview).
fn big(q: &str) -> String {
    let preview = "p".repeat(900_000);
    json!({"questions": [{"question": q, "header": "H", "options": [
        {"label": "A", "description": "", "preview": preview},
        {"label": "B", "description": ""}]}]})
    .to_string()
}

#[test]
fn messages_held_until_the_permission_answer_count_toward_the_limit_and_past_it_are_busy() {
    let mut b = Broker::new(Config::default());
    b.await_permission();
    // What a held message keeps: its payload, name and arguments.
    let size = |payload: &str, name: &str, args: &[(&str, &str)]| {
        payload.len() + name.len() + args.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>()
    };
    let status_args = [("held", "1")];
    b.pipe(named("s", "status", Some(""), &status_args));
    let status = size("", "status", &status_args);
    assert_eq!(b.held_bytes(), status);
    let mut held = status;
    let mut n = 0;
    loop {
        let (pipe, id, payload) = (format!("p{n}"), format!("i{n}"), big(&format!("Q{n}?")));
        let args = [("id", id.as_str())];
        if held + size(&payload, "ask", &args) > MAX_PENDING_BYTES {
            break;
        }
        let fx = b.pipe(cli(&pipe, Some(&payload), &args));
        assert_eq!(fx, [Effect::Block(pipe)]);
        held += size(&payload, "ask", &args);
        assert_eq!(b.held_bytes(), held);
        n += 1;
    }
    // One more would pass the limit: its CLI waits for its answer, and what it sent is dropped.
    let over = big("Over?");
    let fx = b.pipe(cli("over", Some(&over), &[("id", "o")]));
    assert_eq!(fx, [Effect::Block("over".into())]);
    // Only its pipe and arguments are kept, to answer it.
    held += "over".len() + "id".len() + "o".len();
    assert_eq!(b.held_bytes(), held);
    // So is whatever more it sends meanwhile.
    b.pipe(cli("over", Some("{\n"), &[("id", "o")]));
    assert_eq!(b.held_bytes(), held);

    // Granted, and the hellos' moment over: the status says what was held then, the held
    // questions are asked, and the one past the limit is answered busy.
    b.permission(true, 1);
    let fx = tick(&mut b, 300);
    let r = replies(&fx);
    let status_reply = &r.iter().find(|(p, _)| p == "s").expect("the status").1;
    assert_eq!(status_reply["held"]["payloadBytes"], held - status);
    let busy: Vec<_> = r.iter().filter(|(p, _)| p == "over").collect();
    assert_eq!(busy.len(), 1, "{r:?}");
    assert_eq!(busy[0].1["details"]["error"], "busy");
    assert_eq!(busy[0].1["details"]["requestId"], "o");
    assert_eq!(r.len(), 2, "nobody else is answered yet: {r:?}");
    assert_eq!(b.pending_count(), n);
    assert!(b.held_bytes() <= MAX_PENDING_BYTES);
}

#[test]
fn withdrawals_before_their_questions_are_remembered_at_most_4096_the_oldest_forgotten_first() {
    let mut b = Broker::new(Config::default());
    let cancel = |b: &mut Broker, i: usize, id: &str| {
        b.set_clock(b.now_ms() + 1);
        let fx = b.pipe(named(
            &format!("c{i}"),
            "cancel",
            Some(""),
            &[("pane_id", "3"), ("id", id)],
        ));
        assert_eq!(replies(&fx)[0].1, json!({"withdrawn": 0}));
    };
    for i in 0..=4096 {
        cancel(&mut b, i, &format!("w{i}"));
    }
    let ask = |b: &mut Broker, id: &str| {
        let fx = b.pipe(cli(
            &format!("ask-{id}"),
            Some(&question("Q?")),
            &[("pane_id", "3"), ("id", id)],
        ));
        replies(&fx)
            .first()
            .map(|(_, r)| r["details"]["error"].clone())
    };
    // The first withdrawal was forgotten: its question is asked. The next one was not.
    assert_eq!(ask(&mut b, "w0"), None);
    assert_eq!(b.pending_count(), 1);
    assert_eq!(ask(&mut b, "w1"), Some(json!("aborted")));
    assert_eq!(ask(&mut b, "w4096"), Some(json!("aborted")));
    assert_eq!(b.pending_count(), 1);

    // Long ids count by their size: 20 of 60,000 bytes pass the megabyte kept for them.
    let mut b = Broker::new(Config::default());
    let long = |i: usize| format!("{i:02}{}", "x".repeat(60_000));
    for i in 0..20 {
        cancel(&mut b, i, &long(i));
    }
    assert_eq!(ask(&mut b, &long(0)), None);
    assert_eq!(ask(&mut b, &long(19)), Some(json!("aborted")));
}

#[test]
fn of_what_plugins_and_keybindings_send_before_the_permission_answer_one_show_is_kept() {
    let mut b = Broker::new(Config::default());
    b.await_permission();
    let from = |source: Source, name: &str| PipeIn {
        source,
        name: name.into(),
        payload: Some("x".repeat(1000)),
        args: Default::default(),
    };
    // Another plugin's broadcasts would do nothing once the gate opens: none is kept.
    for _ in 0..100 {
        assert!(b.pipe(from(Source::Plugin(3), "zjstatus")).is_empty());
    }
    assert_eq!(b.held_bytes(), 0);
    // A show would: one is kept, however many come.
    for _ in 0..100 {
        assert!(b.pipe(from(Source::Keybind, "show")).is_empty());
        assert!(b.pipe(from(Source::Plugin(3), "show")).is_empty());
    }
    assert_eq!(b.held_bytes(), 1000 + "show".len());
}
