//! The broker: host events in, effects out. For any sequence of events every request gets
//! exactly one reply, its own, and the blocked broadcasts pair up.

mod broker_io;

use ask_popup_plugin::broker::{Broker, Config, Effect, PipeIn, Source};
use ask_popup_plugin::dialog::{Input, Key};
use broker_io::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};

#[test]
fn a_valid_request_blocks_shows_marks_and_broadcasts() {
    let mut b = Broker::new(Config::default());
    b.pane_titles([(3, "claude".to_owned())]);
    let fx = b.pipe(cli(
        "p1",
        Some(&question("Pick?")),
        &[("pane_id", "3"), ("agent", "claude")],
    ));
    assert_eq!(fx.first(), Some(&Effect::Block("p1".into())));
    assert!(fx.contains(&Effect::Show));
    assert!(fx.contains(&Effect::RenamePane {
        pane: 3,
        title: "⏳ claude".into()
    }));
    assert!(fx.contains(&Effect::SetOwnTitle("ask-popup · claude · 1 of 1".into())));
    let blocked = broadcasts(&fx, "ask-popup:blocked");
    assert_eq!(
        blocked,
        vec![
            json!({"active": true, "label": "Waiting for user response", "paneId": 3, "agent": "claude", "pending": 1})
        ]
    );
    assert_eq!(broadcasts(&fx, "herdr:blocked"), blocked);
    let prompt = broadcasts(&fx, "ask-popup:prompt");
    assert_eq!(
        prompt[0]["questions"][0]["options"][0],
        json!({"label": "A", "description": "", "hasPreview": false})
    );
    assert!(replies(&fx).is_empty());

    // Enter answers; the pane title comes back, the popup hides, the blocked pair closes.
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Enter));
    let r = replies(&fx);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].0, "p1");
    assert_eq!(r[0].1["details"]["answers"][0]["answer"], "A");
    // The name the plugin gave is cleared, so the program's own titles show again.
    assert!(fx.contains(&Effect::RenamePane {
        pane: 3,
        title: String::new()
    }));
    assert!(fx.contains(&Effect::Hide));
    assert_eq!(broadcasts(&fx, "ask-popup:blocked")[0]["active"], false);
    let answered = broadcasts(&fx, "ask-popup:answered");
    assert_eq!(
        answered,
        vec![
            json!({"paneId": 3, "agent": "claude", "requestId": null, "questions": 1, "answered": 1})
        ]
    );
    // The end-of-input message that follows is ignored.
    assert!(b.pipe(cli("p1", None, &[])).is_empty());
}

#[test]
fn full_events_carry_the_result() {
    let mut b = Broker::new(Config {
        full_events: true,
        ..Config::default()
    });
    b.pipe(cli("p1", Some(&question("Pick?")), &[]));
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Esc));
    let cancelled = broadcasts(&fx, "ask-popup:cancelled");
    assert_eq!(cancelled[0]["reason"], "declined");
    assert_eq!(cancelled[0]["result"]["cancelled"], true);
}

#[test]
fn a_rejected_request_asked_again_with_its_id_is_answered_again_and_recorded_once() {
    // Zellij dropped the reply: the caller asks again, with the same id and payload.
    let mut b = Broker::new(Config::default());
    let empty = "{\"questions\": []}";
    let first = b.pipe(cli("p1", Some(empty), &[("id", "x")]));
    let again = b.pipe(cli("p2", Some(empty), &[("id", "x")]));
    assert_eq!(records(&first).len(), 1);
    assert!(records(&again).is_empty(), "{again:?}");
    assert_eq!(replies(&again)[0].1, replies(&first)[0].1);
    // Another payload with that id is another rejection; one without an id is always recorded.
    let other = b.pipe(cli("p3", Some("[1]"), &[("id", "x")]));
    assert_eq!(records(&other).len(), 1, "{other:?}");
    for pipe in ["p4", "p5"] {
        assert_eq!(records(&b.pipe(cli(pipe, Some(empty), &[]))).len(), 1);
    }
    // Long after, the same rejection is recorded again.
    b.set_clock(b.now_ms() + 24 * 60 * 60 * 1000);
    b.timer();
    let later = b.pipe(cli("p6", Some(empty), &[("id", "x")]));
    assert_eq!(records(&later).len(), 1, "{later:?}");
}

#[test]
fn a_rejected_request_is_answered_at_once_and_never_shown() {
    let mut b = Broker::new(Config::default());
    let fx = b.pipe(cli("p1", Some("{\"questions\": []}"), &[("id", "x")]));
    // Its reply, and its entry in the record: nothing shows.
    assert_eq!(fx.len(), 2, "{fx:?}");
    let recorded = records(&fx);
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].ending, "no_questions");
    assert_eq!(recorded[0].request_id.as_deref(), Some("x"));
    assert!(recorded[0].questions.is_empty());
    let r = replies(&fx);
    assert_eq!(r[0].1["details"]["error"], "no_questions");
    assert_eq!(r[0].1["details"]["requestId"], "x");
    assert!(b.pipe(cli("p1", None, &[])).is_empty());
}

#[test]
fn a_pretty_printed_payload_arrives_line_by_line() {
    let mut b = Broker::new(Config::default());
    let pretty =
        serde_json::to_string_pretty(&serde_json::from_str::<Value>(&question("Pick?")).unwrap())
            .unwrap();
    // `zellij pipe` sends each stdin line with its line break.
    let lines: Vec<String> = pretty.lines().map(|l| format!("{l}\n")).collect();
    for line in &lines[..lines.len() - 1] {
        assert!(b.pipe(cli("p1", Some(line), &[])).is_empty());
    }
    let fx = b.pipe(cli("p1", lines.last().map(String::as_str), &[]));
    assert_eq!(fx.first(), Some(&Effect::Block("p1".into())));
    assert_eq!(b.pending_count(), 1);
}

#[test]
fn an_incomplete_argument_is_rejected_at_once() {
    // No line break: the pipe's argument, nothing more will come, and the CLI still waits.
    let mut b = Broker::new(Config::default());
    let r = replies(&b.pipe(cli("p1", Some("{\"questions\": ["), &[("id", "x")])));
    assert_eq!(r[0].1["details"]["error"], "invalid_payload");
    assert_eq!(r[0].1["details"]["requestId"], "x");
}

#[test]
fn input_that_ends_early_is_rejected_when_it_ends() {
    let mut b = Broker::new(Config::default());
    assert!(b
        .pipe(cli("p1", Some("{\"questions\": [\n"), &[]))
        .is_empty());
    let r = replies(&b.pipe(cli("p1", None, &[])));
    assert_eq!(r[0].1["details"]["error"], "invalid_payload");
    assert!(r[0].1["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("it ends too early"));
}

#[test]
fn an_empty_payload_is_rejected_at_once() {
    let mut b = Broker::new(Config::default());
    let r = replies(&b.pipe(cli("p1", Some(""), &[])));
    assert_eq!(r[0].1["details"]["error"], "invalid_payload");
}

#[test]
fn requests_queue_and_brackets_switch_between_them() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&question("One?")), &[("agent", "claude")]));
    b.pipe(cli("p2", Some(&question("Two?")), &[("agent", "codex")]));
    assert_eq!(b.pending_count(), 2);
    assert_eq!(
        b.current_dialog().unwrap().questionnaire().questions[0].question,
        "One?"
    );
    let frame = b.render(20, 80).to_plain();
    assert!(
        frame.starts_with("claude asks · 1 of 2 waiting · [ ] switch"),
        "{frame}"
    );
    // Work on the first, switch away and back: its state is kept.
    settle(&mut b);
    b.input(Input::Key(Key::Down));
    let fx = b.input(Input::Key(Key::Char(']')));
    assert!(fx.contains(&Effect::SetOwnTitle("ask-popup · codex · 2 of 2".into())));
    assert!(
        fx.contains(&Effect::FitAnew),
        "another request shown: fit afresh"
    );
    assert_eq!(
        b.current_dialog().unwrap().questionnaire().questions[0].question,
        "Two?"
    );
    // The second one showed a moment ago: a key now is stray.
    assert!(b.input(Input::Key(Key::Enter)).is_empty());
    settle(&mut b);
    b.input(Input::Key(Key::Char('[')));
    // Back on screen: guarded anew.
    assert!(b.input(Input::Key(Key::Enter)).is_empty());
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Enter));
    assert!(
        fx.contains(&Effect::FitAnew),
        "the next request shown: fit afresh"
    );
    let r = replies(&fx);
    assert_eq!(r[0].0, "p1");
    assert_eq!(r[0].1["details"]["answers"][0]["answer"], "B");
    // The second one is shown next, guarded anew though it has been on screen before.
    assert!(b.input(Input::Key(Key::Enter)).is_empty());
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Enter));
    assert!(!fx.contains(&Effect::FitAnew), "nothing left to fit");
    let r = replies(&fx);
    assert_eq!(r[0].0, "p2");
    assert_eq!(r[0].1["details"]["answers"][0]["answer"], "A");
}

#[test]
fn brackets_type_inside_an_editor() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&question("One?")), &[]));
    b.pipe(cli("p2", Some(&question("Two?")), &[]));
    settle(&mut b);
    b.input(Input::Key(Key::Char('3')));
    b.input(Input::Key(Key::Char(']')));
    let d = b.current_dialog().unwrap();
    assert_eq!(d.questionnaire().questions[0].question, "One?");
    assert_eq!(d.tab_state(0).unwrap().draft.text(), "]");
}

#[test]
fn the_same_id_supersedes_the_earlier_request_and_keeps_its_state() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&question("One?")), &[("id", "r1")]));
    settle(&mut b);
    b.input(Input::Key(Key::Char('n')));
    b.input(Input::Key(Key::Char('x')));
    b.input(Input::Key(Key::Enter));
    let fx = b.pipe(cli("p2", Some(&question("One?")), &[("id", "r1")]));
    let r = replies(&fx);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].0, "p1");
    assert_eq!(r[0].1["details"]["error"], "superseded");
    assert_eq!(b.pending_count(), 1);
    settle(&mut b);
    let r = replies(&b.input(Input::Key(Key::Enter)));
    assert_eq!(r[0].0, "p2");
    assert_eq!(r[0].1["details"]["answers"][0]["notes"], "x");
}

#[test]
fn a_request_asked_again_after_it_ended_gets_the_same_reply_at_once() {
    // Zellij dropped the first CLI after the question arrived; the user answered that one, and
    // the caller's second CLI (same id) came only then.
    let mut b = Broker::new(Config::default());
    let args = [("id", "r1"), ("pane_id", "3")];
    b.pipe(cli("p1", Some(&question("One?")), &args));
    settle(&mut b);
    let first = replies(&b.input(Input::Key(Key::Enter)));
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].0, "p1");
    let fx = b.pipe(cli("p2", Some(&question("One?")), &args));
    let again = replies(&fx);
    assert_eq!(again.len(), 1, "{fx:?}");
    assert_eq!(again[0].0, "p2");
    assert_eq!(again[0].1, first[0].1);
    assert_eq!(b.pending_count(), 0, "the question is not shown again");
    assert!(!fx.iter().any(|e| matches!(e, Effect::Show)), "{fx:?}");
    // Another caller's request with that id, and a new id, are questions of their own.
    b.pipe(cli(
        "p3",
        Some(&question("One?")),
        &[("id", "r1"), ("pane_id", "4")],
    ));
    b.pipe(cli(
        "p4",
        Some(&question("One?")),
        &[("id", "r2"), ("pane_id", "3")],
    ));
    assert_eq!(b.pending_count(), 2);
}

#[test]
fn a_used_id_with_another_questionnaire_is_asked_not_answered_with_the_old_reply() {
    // An agent reuses its id (one ASK_POPUP_ID for every call): the reply kept for the first
    // questionnaire must never answer a different one.
    let mut b = Broker::new(Config::default());
    let args = [("id", "same-x"), ("pane_id", "3")];
    b.pipe(cli(
        "p1",
        Some(&question("First question with id X?")),
        &args,
    ));
    settle(&mut b);
    let first = replies(&b.input(Input::Key(Key::Enter)));
    assert_eq!(first[0].1["details"]["answers"][0]["answer"], "A");
    tick(&mut b, 1000);
    let fx = b.pipe(cli(
        "p2",
        Some(&question("Second, different question?")),
        &args,
    ));
    assert!(
        replies(&fx).is_empty(),
        "answered from the kept reply: {fx:?}"
    );
    assert_eq!(fx.first(), Some(&Effect::Block("p2".into())));
    assert_eq!(b.pending_count(), 1, "the second questionnaire is asked");
    let d = b.current_dialog().unwrap();
    assert_eq!(
        d.questionnaire().questions[0].question,
        "Second, different question?"
    );
    settle(&mut b);
    b.input(Input::Key(Key::Down));
    let second = replies(&b.input(Input::Key(Key::Enter)));
    assert_eq!(second[0].0, "p2");
    assert_eq!(second[0].1["details"]["answers"][0]["answer"], "B");
    assert_eq!(
        second[0].1["details"]["answers"][0]["question"],
        "Second, different question?"
    );
    // Its own retry now gets its own reply, and the first questionnaire asked again is asked.
    let again = replies(&b.pipe(cli(
        "p3",
        Some(&question("Second, different question?")),
        &args,
    )));
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].1, second[0].1);
    let fx = b.pipe(cli(
        "p4",
        Some(&question("First question with id X?")),
        &args,
    ));
    assert!(replies(&fx).is_empty(), "{fx:?}");
    assert_eq!(b.pending_count(), 1);
}

#[test]
fn a_kept_reply_read_back_after_a_reload_answers_only_its_own_questionnaire() {
    let mut closing = Broker::new(Config::default());
    let args = [("id", "r1"), ("pane_id", "3")];
    closing.pipe(cli("p1", Some(&question("Kept?")), &args));
    let kept = kept_across_reload(&closing.before_close());
    let mut fresh = Broker::new(Config::default());
    fresh.recall(&kept);
    let fx = fresh.pipe(cli("p2", Some(&question("Something else?")), &args));
    assert!(replies(&fx).is_empty(), "{fx:?}");
    assert_eq!(fresh.pending_count(), 1);
    // What an older instance kept without the questionnaire's digest is not trusted.
    let mut fresh = Broker::new(Config::default());
    let mut entries: Value = serde_json::from_str(&kept).unwrap();
    entries[0].as_object_mut().unwrap().remove("digest");
    fresh.recall(&entries.to_string());
    let fx = fresh.pipe(cli("p3", Some(&question("Kept?")), &args));
    assert!(replies(&fx).is_empty(), "{fx:?}");
    assert_eq!(fresh.pending_count(), 1);
}

#[test]
fn the_reply_repeated_is_the_answer_not_the_superseded_one() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&question("One?")), &[("id", "r1")]));
    b.pipe(cli("p2", Some(&question("One?")), &[("id", "r1")]));
    assert_eq!(b.pending_count(), 1, "p2 replaced p1, and is shown");
    settle(&mut b);
    let answered = replies(&b.input(Input::Key(Key::Enter)));
    assert_eq!(answered[0].0, "p2");
    let again = replies(&b.pipe(cli("p3", Some(&question("One?")), &[("id", "r1")])));
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].1, answered[0].1);
    assert!(
        again[0].1["details"].get("error").is_none(),
        "{:?}",
        again[0].1
    );
}

#[test]
fn a_popup_closed_stays_closed_for_callers_that_ask_again_after_the_reload() {
    // The user closes the popup with three agents waiting; the plugin unloads, and Zellij loses
    // the replies on the way out. Each caller asks again with its id, which loads a fresh
    // instance: that one answers each `dismissed` at once and shows nothing.
    let mut closing = Broker::new(Config::default());
    let callers: [&[(&str, &str)]; 3] = [
        &[("id", "r1"), ("pane_id", "3")],
        &[("id", "r1"), ("pane_id", "4")],
        &[("id", "job=7,q1"), ("agent", "script")],
    ];
    for (i, args) in callers.iter().enumerate() {
        closing.pipe(cli(
            &format!("p{i}"),
            Some(&question(&format!("Q{i}?"))),
            args,
        ));
    }
    let fx = closing.before_close();
    let lost = replies(&fx);
    assert_eq!(lost.len(), 3);
    let kept = kept_across_reload(&fx);

    let mut fresh = Broker::new(Config::default());
    fresh.recall(&kept);
    for (i, args) in callers.iter().enumerate() {
        let fx = fresh.pipe(cli(
            &format!("again{i}"),
            Some(&question(&format!("Q{i}?"))),
            args,
        ));
        let again = replies(&fx);
        assert_eq!(again.len(), 1, "{fx:?}");
        assert_eq!(again[0].0, format!("again{i}"));
        assert_eq!(again[0].1["details"]["error"], "dismissed");
        assert_eq!(again[0].1, lost[i].1);
        assert!(!fx.iter().any(|e| matches!(e, Effect::Show)), "{fx:?}");
    }
    assert_eq!(fresh.pending_count(), 0, "nothing is shown again");
    // A new question from the same caller is asked as usual.
    fresh.pipe(cli(
        "p9",
        Some(&question("New?")),
        &[("id", "r2"), ("pane_id", "3")],
    ));
    assert_eq!(fresh.pending_count(), 1);
    // What is not kept text is ignored.
    for junk in ["", "nonsense", "{}", "[1,{\"id\":\"x\"}]"] {
        Broker::new(Config::default()).recall(junk);
    }
}

#[test]
fn status_says_what_the_plugin_holds_when_asked() {
    let mut b = Broker::new(Config::default());
    let held = |b: &mut Broker, pipe: &str| {
        let fx = b.pipe(named(pipe, "status", Some("now"), &[("held", "1")]));
        replies(&fx)[0].1["held"].clone()
    };
    assert_eq!(
        held(&mut b, "s1"),
        json!({"payloadBytes": 0, "replyBytes": 0, "answeredPipes": 0})
    );
    let payload = question("One?");
    b.pipe(cli("p1", Some(&payload), &[("id", "r1")]));
    assert_eq!(held(&mut b, "s2")["payloadBytes"], payload.len());
    settle(&mut b);
    let answered = replies(&b.input(Input::Key(Key::Enter)));
    let after = held(&mut b, "s3");
    assert_eq!(after["payloadBytes"], 0);
    assert_eq!(
        after["replyBytes"],
        serde_json::to_string(&answered[0].1).unwrap().len() + 1
    );
    // Without the argument, the status is as before.
    let fx = b.pipe(named("s4", "status", Some("now"), &[]));
    assert_eq!(replies(&fx)[0].1.get("held"), None);
}

#[test]
fn the_version_pipe_answers_the_plugins_version_once_and_asks_nothing() {
    let mut b = Broker::new(Config::default());
    let fx = b.pipe(named("v", "version", Some("doctor"), &[]));
    assert_eq!(
        fx.iter()
            .filter_map(|e| match e {
                Effect::Reply { pipe, output } => Some((pipe.as_str(), output.as_str())),
                _ => None,
            })
            .collect::<Vec<_>>(),
        [(
            "v",
            format!("{}\n", ask_popup_plugin::broker::VERSION).as_str()
        )]
    );
    assert_eq!(b.pending_count(), 0);
    // Its end of input is let go without a second reply.
    let fx = b.pipe(named("v", "version", None, &[]));
    assert!(!fx.iter().any(|e| matches!(e, Effect::Reply { .. })));
}

#[test]
fn closing_the_popup_dismisses_everyone() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&question("One?")), &[("id", "a")]));
    b.pipe(cli("p2", Some(&question("Two?")), &[]));
    b.pipe(cli("p3", Some("{\"questions\": [\n"), &[]));
    let r = replies(&b.before_close());
    let pipes: Vec<&str> = r.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(pipes, ["p1", "p2", "p3"]);
    assert!(r.iter().all(|(_, v)| v["details"]["error"] == "dismissed"));
    assert_eq!(r[0].1["details"]["requestId"], "a");
}

#[test]
fn the_callers_pane_closing_resolves_its_requests() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&question("One?")), &[("pane_id", "7")]));
    b.pipe(cli("p2", Some(&question("Two?")), &[("pane_id", "8")]));
    let r = replies(&b.pane_closed(7));
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].0, "p1");
    assert_eq!(b.pending_count(), 1);
}

#[test]
fn a_title_learned_later_is_marked_then() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli(
        "p1",
        Some(&question("One?")),
        &[("pane_id", "terminal_4")],
    ));
    let fx = b.pane_titles([(4, "bash".to_owned())]);
    assert_eq!(
        fx,
        vec![Effect::RenamePane {
            pane: 4,
            title: "⏳ bash".into()
        }]
    );
    // Our own mark echoed back is not taken as the pane's new title.
    assert!(b.pane_titles([(4, "⏳ bash".to_owned())]).is_empty());
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Esc));
    assert!(fx.contains(&Effect::RenamePane {
        pane: 4,
        title: String::new()
    }));
    // The program's own title came back: nothing more to do, and it is not pinned.
    assert!(b.pane_titles([(4, "bash".to_owned())]).is_empty());
    assert!(b.pane_titles([(4, "vim".to_owned())]).is_empty());
}

#[test]
fn the_status_pipe_lists_the_pending_requests() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli(
        "p1",
        Some(&question("One?")),
        &[("agent", "claude"), ("pane_id", "3"), ("id", "q1")],
    ));
    tick(&mut b, 1000);
    let fx = b.pipe(PipeIn {
        source: Source::Cli("s".into()),
        name: "status".into(),
        payload: Some(String::new()),
        args: BTreeMap::new(),
    });
    let r = replies(&fx);
    assert_eq!(
        r[0].1,
        json!({"pending": [{"agent": "claude", "paneId": 3, "requestId": "q1", "headers": ["H"], "ageSeconds": 1, "shown": true}], "visible": true})
    );
    assert!(b
        .pipe(PipeIn {
            source: Source::Cli("s".into()),
            name: "status".into(),
            payload: None,
            args: BTreeMap::new()
        })
        .is_empty());
}

#[test]
fn hide_and_show_again() {
    let mut b = Broker::new(Config::default());
    b.pipe(cli("p1", Some(&question("One?")), &[]));
    assert_eq!(b.input(Input::Key(Key::Hide)), vec![Effect::Hide]);
    assert!(!b.is_visible());
    let fx = b.pipe(PipeIn {
        source: Source::Keybind,
        name: "show".into(),
        payload: None,
        args: BTreeMap::new(),
    });
    assert!(fx.contains(&Effect::Show));
    assert!(b.is_visible());
}

#[test]
fn the_countdown_runs_on_a_timer_and_expires() {
    let mut b = Broker::new(Config {
        default_timeout_ms: Some(2000),
        ..Config::default()
    });
    let fx = b.pipe(cli("p1", Some(&question("One?")), &[]));
    assert!(fx.contains(&Effect::SetTimer(1.0)));
    let fx = tick(&mut b, 1000);
    assert!(fx.contains(&Effect::Render) && fx.contains(&Effect::SetTimer(1.0)));
    let r = replies(&tick(&mut b, 1000));
    assert_eq!(r[0].1["details"]["error"], "timed_out");
}

#[test]
fn status_ages_count_up_without_a_countdown() {
    let mut b = Broker::new(Config::default());
    let fx = b.pipe(cli("p1", Some(&question("One?")), &[]));
    // No timeout, but the clock behind `ageSeconds` needs the timer.
    assert!(fx.contains(&Effect::SetTimer(1.0)));
    assert_eq!(b.status_json()["pending"][0]["ageSeconds"], 0);
    // The key guard's timer: keys count now, and the footer says so.
    assert!(fx.contains(&Effect::SetTimer(0.4)));
    assert!(tick(&mut b, 400).contains(&Effect::Render));
    let fx = tick(&mut b, 600);
    assert!(fx.contains(&Effect::SetTimer(1.0)));
    assert!(!fx.contains(&Effect::Render), "nothing on screen changes");
    tick(&mut b, 1500);
    assert_eq!(b.status_json()["pending"][0]["ageSeconds"], 2);
    // Once nothing is pending the timer stops.
    b.input(Input::Key(Key::Esc));
    assert_eq!(b.pending_count(), 0);
    assert!(!tick(&mut b, 1000).contains(&Effect::SetTimer(1.0)));
}

#[test]
fn zjstatus_line_when_configured() {
    let mut b = Broker::new(Config {
        zjstatus: true,
        ..Config::default()
    });
    let fx = b.pipe(cli("p1", Some(&question("One?")), &[]));
    assert!(fx.contains(&Effect::Broadcast {
        name: "zjstatus".into(),
        payload: "zjstatus::pipe::pipe_ask::⏳ 1 waiting".into()
    }));
    settle(&mut b);
    let fx = b.input(Input::Key(Key::Esc));
    assert!(fx.contains(&Effect::Broadcast {
        name: "zjstatus".into(),
        payload: "zjstatus::pipe::pipe_ask::".into()
    }));
}

#[derive(Clone, Debug)]
enum Event {
    Ask {
        valid: bool,
        pane: Option<u32>,
        reuse_id: bool,
    },
    AskLines,
    End(usize),
    Key(Key),
    Timer,
    /// The clock moves on past the key guard, with no timer.
    Wait,
    PaneClosed(u32),
    Titles,
    Status,
    Show,
}

fn event() -> impl Strategy<Value = Event> {
    let key = prop_oneof![
        Just(Key::Enter),
        Just(Key::Esc),
        Just(Key::Down),
        Just(Key::Up),
        Just(Key::Tab),
        Just(Key::Char(' ')),
        Just(Key::Char('[')),
        Just(Key::Char(']')),
        Just(Key::Char('n')),
        Just(Key::Char('x')),
        Just(Key::Char('3')),
        Just(Key::Hide),
        Just(Key::Char('4')),
    ];
    prop_oneof![
        3 => (any::<bool>(), proptest::option::of(1u32..4), any::<bool>()).prop_map(|(valid, pane, reuse_id)| Event::Ask { valid, pane, reuse_id }),
        1 => Just(Event::AskLines),
        1 => (0usize..20).prop_map(Event::End),
        8 => key.prop_map(Event::Key),
        2 => Just(Event::Timer),
        2 => Just(Event::Wait),
        1 => (1u32..4).prop_map(Event::PaneClosed),
        1 => Just(Event::Titles),
        1 => Just(Event::Status),
        1 => Just(Event::Show),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_request_gets_exactly_one_reply_of_its_own(events in prop::collection::vec(event(), 1..60), close in any::<bool>()) {
        let mut b = Broker::new(Config { default_timeout_ms: Some(3000), zjstatus: true, ..Config::default() });
        let mut sent: Vec<(String, String)> = Vec::new(); // pipe, request id
        let mut got: HashMap<String, usize> = HashMap::new();
        let mut blocked_balance: i64 = 0;
        let mut observe = |fx: &[Effect], sent: &[(String, String)], balance: &mut i64| -> Result<(), TestCaseError> {
            for (pipe, v) in replies(fx) {
                if pipe.starts_with('s') {
                    continue; // status replies
                }
                *got.entry(pipe.clone()).or_default() += 1;
                prop_assert_eq!(got[&pipe], 1, "pipe {} answered twice", pipe);
                let id = &sent.iter().find(|(p, _)| *p == pipe).expect("reply to a pipe that asked").1;
                prop_assert_eq!(&v["details"]["requestId"], &json!(id), "reply crossed to {}", pipe);
            }
            for v in broadcasts(fx, "ask-popup:blocked") {
                *balance += if v["active"] == true { 1 } else { -1 };
            }
            Ok(())
        };
        for (n, ev) in events.into_iter().enumerate() {
            let fx = match ev {
                Event::Ask { valid, pane, reuse_id } => {
                    let pipe = format!("p{n}");
                    let id = if reuse_id && !sent.is_empty() { sent[0].1.clone() } else { format!("id{n}") };
                    let payload = if valid { question(&format!("Q{}?", n % 3)) } else { "{\"questions\": 5}".to_owned() };
                    let pane_s = pane.map(|p| p.to_string()).unwrap_or_default();
                    let mut a = vec![("id", id.as_str())];
                    if pane.is_some() { a.push(("pane_id", pane_s.as_str())); }
                    sent.push((pipe.clone(), id.clone()));
                    b.pipe(cli(&pipe, Some(&payload), &a))
                }
                Event::AskLines => {
                    let pipe = format!("p{n}");
                    let id = format!("id{n}");
                    sent.push((pipe.clone(), id.clone()));
                    let mut fx = b.pipe(cli(&pipe, Some("{\"questions\": [{\"question\": \"L?\",\n"), &[("id", &id)]));
                    fx.extend(b.pipe(cli(&pipe, Some("\"options\": [\"a\", \"b\"]}]}"), &[("id", &id)])));
                    fx
                }
                Event::End(i) => match sent.get(i) {
                    Some((pipe, _)) => {
                        let pipe = pipe.clone();
                        b.pipe(cli(&pipe, None, &[]))
                    }
                    None => Vec::new(),
                },
                Event::Key(k) => b.input(Input::Key(k)),
                Event::Timer => tick(&mut b, 1000),
                Event::Wait => {
                    settle(&mut b);
                    Vec::new()
                }
                Event::PaneClosed(p) => b.pane_closed(p),
                Event::Titles => b.pane_titles([(1, "one".to_owned()), (2, "⏳ two".to_owned())]),
                Event::Status => b.pipe(PipeIn { source: Source::Cli(format!("s{n}")), name: "status".into(), payload: Some(String::new()), args: BTreeMap::new() }),
                Event::Show => b.pipe(PipeIn { source: Source::Keybind, name: "show".into(), payload: None, args: BTreeMap::new() }),
            };
            let _ = b.render(24, 80);
            observe(&fx, &sent, &mut blocked_balance)?;
            prop_assert_eq!(blocked_balance, b.pending_count() as i64);
        }
        let mut fx = Vec::new();
        if close {
            fx.extend(b.before_close());
        } else {
            // Every pending request is answered by the user one way or the other (keys reach
            // only a request on screen: a hidden popup is brought back first).
            for _ in 0..200 {
                if b.pending_count() == 0 { break; }
                if !b.is_visible() {
                    fx.extend(b.pipe(PipeIn { source: Source::Keybind, name: "show".into(), payload: None, args: BTreeMap::new() }));
                }
                settle(&mut b);
                fx.extend(b.input(Input::Key(Key::Esc)));
            }
        }
        observe(&fx, &sent, &mut blocked_balance)?;
        prop_assert_eq!(blocked_balance, 0);
        prop_assert_eq!(b.pending_count(), 0);
        for (pipe, _) in &sent {
            prop_assert_eq!(got.get(pipe).copied(), Some(1), "pipe {} got no reply", pipe);
        }
    }
}

/// The first message of a pipe can arrive before the permission answer: the plugin holds it
/// with its CLI blocked. When that message is the first line of a payload still coming on
/// stdin, the replay must let the CLI go, or it never sends the rest (it hung for good).
#[test]
fn a_held_first_line_of_a_stdin_payload_lets_the_cli_send_the_rest() {
    let mut b = Broker::new(Config::default());
    let fx = b.replay_held(cli("p1", Some("{\n"), &[("id", "r1")]));
    assert_eq!(
        fx,
        vec![Effect::Reply {
            pipe: "p1".into(),
            output: String::new()
        }]
    );
    let middle = "  \"questions\": [{\"question\": \"One?\", \"header\": \"H\", \"options\": [\"A\", \"B\"]}]\n";
    assert_eq!(b.pipe(cli("p1", Some(middle), &[("id", "r1")])), vec![]);
    let fx = b.pipe(cli("p1", Some("}\n"), &[("id", "r1")]));
    assert!(fx.contains(&Effect::Block("p1".into())), "{fx:?}");
    assert_eq!(b.pending_count(), 1);

    // A held whole question waits as usual; a held bad payload is answered as usual.
    let fx = b.replay_held(cli("p2", Some(&question("Two?")), &[]));
    assert!(fx.contains(&Effect::Block("p2".into())));
    assert!(!fx
        .iter()
        .any(|e| matches!(e, Effect::Reply { pipe, .. } if pipe == "p2")));
    let fx = b.replay_held(cli("p3", Some("nope"), &[]));
    let r = replies(&fx);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].0, "p3");
    assert_eq!(r[0].1["details"]["error"], "invalid_payload");
}

#[test]
fn the_popup_is_fitted_to_the_tallest_tab_and_refitted_when_the_dialog_may_grow() {
    let mut b = Broker::new(Config::default());
    assert_eq!(
        b.natural_height(80, 500),
        0,
        "nothing pending, nothing to show"
    );
    let two = json!({"questions": [
        {"question": "One?", "header": "A", "options": ["a", "b"]},
        {"question": "Two?", "header": "B", "options": [
            {"label": "x", "description": "a description"},
            {"label": "y", "description": "another"},
            "z"]},
    ]})
    .to_string();
    b.pipe(cli("p1", Some(&two), &[]));
    settle(&mut b);
    let first_tab = b.render(500, 80).lines.len();
    let tallest = b.natural_height(80, 500);
    assert!(
        tallest > first_tab,
        "the second tab is taller: {tallest} vs {first_tab}"
    );
    // Moving within a tab cannot change the dialog's height; switching tabs or opening an
    // editor can.
    assert!(!b.input(Input::Key(Key::Down)).contains(&Effect::Fit));
    assert!(b.input(Input::Key(Key::Tab)).contains(&Effect::Fit));
    assert!(b.input(Input::Key(Key::Char('n'))).contains(&Effect::Fit));
    // With an editor open there is room for it to grow.
    assert!(b.natural_height(80, 500) >= tallest + 5);
}

#[test]
fn the_natural_height_counts_what_a_drawn_frame_shows_up_to_the_limit() {
    let preview = (1..=60)
        .map(|n| format!("- point {n} of the design"))
        .collect::<Vec<_>>()
        .join("\n");
    let payload = json!({"questions": [
        {"question": "Which?", "header": "A", "options": [
            {"label": "a", "preview": preview},
            {"label": "b", "preview": "short"}]},
        {"question": "Two?", "header": "B", "options": ["x", "y"]},
    ]})
    .to_string();
    for cols in [80, 130] {
        let mut b = Broker::new(Config::default());
        b.pipe(cli("p1", Some(&payload), &[]));
        settle(&mut b);
        // The first tab is the tallest: all of its preview, as a frame of 500 rows draws it.
        let drawn = b.render(500, cols).lines.len();
        assert!(drawn > 60, "{drawn}");
        assert_eq!(b.natural_height(cols, 500), drawn);
        // The popup has fewer rows to give: that many are needed.
        assert_eq!(b.natural_height(cols, 20), 20);
        // On the option with the short preview, at least the tab as it is drawn now.
        b.input(Input::Key(Key::Down));
        let drawn = b.render(500, cols).lines.len();
        assert!(drawn < 60, "{drawn}");
        assert!(b.natural_height(cols, 500) >= drawn);
        assert_eq!(b.natural_height(cols, 10), 10);
    }
}

#[test]
fn a_pipe_of_an_unknown_name_is_answered_with_a_clear_error_and_asks_nothing() {
    let mut b = Broker::new(Config::default());
    let fx = b.pipe(named(
        "p1",
        "question",
        Some(&question("Pick?")),
        &[("id", "u1")],
    ));
    let r = replies(&fx);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].1["details"]["error"], "invalid_payload");
    assert_eq!(r[0].1["details"]["requestId"], "u1");
    let text = r[0].1["content"][0]["text"].as_str().unwrap_or("");
    assert!(text.contains("no pipe named \"question\""), "{text}");
    assert!(text.contains("--name ask"), "{text}");
    assert_eq!(b.pending_count(), 0);
    assert!(!fx.contains(&Effect::Show));
    // Its further lines and its end of input are let go, unanswered.
    assert!(replies(&b.pipe(named("p1", "question", Some("{"), &[]))).is_empty());
    assert!(replies(&b.pipe(named("p1", "question", None, &[]))).is_empty());
    // `ask`, no name (a UUID in Zellij 0.45), and the plugin's URL carry questions.
    for (pipe, name) in [
        ("p2", "ask"),
        ("p3", "0f8fad5b-d9cb-469f-a165-70867728950e"),
        ("p4", "file:/home/u/.config/zellij/plugins/ask-popup.wasm"),
    ] {
        let fx = b.pipe(named(pipe, name, Some(&question(pipe)), &[]));
        assert!(
            fx.contains(&Effect::Block(pipe.to_owned())),
            "{name}: {fx:?}"
        );
    }
    assert_eq!(b.pending_count(), 3);
}
