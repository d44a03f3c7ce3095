//! End to end: many agents at once, the waiting indicator, status broadcasts.
//!
//! Several callers ask at the same time and each gets its own reply; the caller's pane title
//! carries `⏳ ` while it waits, whatever ends the wait; another plugin (the listener in
//! `tests/listener`) hears the broadcasts; scripts read the `status` pipe; and the example layout `examples/agents.kdl` loads and shows the mark in an agent's pane frame.

use crate::harness::{zellij_bin, Options, PipeCall, Zellij, LISTENER};
use crate::{assert_reply, details, ANSWER, AT_ONCE};
use ask_popup_protocol::envelope::ErrorCode;
use ask_popup_protocol::envelope::{self, Answer, Outcome, Responses};
use ask_popup_protocol::request;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;
use std::thread;
use std::time::{Duration, Instant};

/// A one-question questionnaire with plain-string options.
pub(crate) fn ask(question: &str, header: &str, options: &[&str]) -> String {
    json!({"questions": [{"question": question, "header": header, "options": options}]}).to_string()
}

/// The envelope for a submitted questionnaire: `answers[q]`, `notes[q]`.
pub(crate) fn submitted(
    payload: &str,
    answers: &[(usize, Answer)],
    notes: &[(usize, &str)],
    id: Option<&str>,
) -> String {
    let q = request::parse(payload).expect("test payload is valid");
    let mut responses = Responses::empty(q.questions.len());
    for (i, answer) in answers {
        responses.answers[*i] = Some(answer.clone());
    }
    for (i, note) in notes {
        responses.notes[*i] = (*note).to_owned();
    }
    envelope::outcome(&q, &Outcome::Submitted(responses), id)
}

/// The envelope for a request that ended without anything given.
pub(crate) fn ended(payload: &str, how: fn(Responses) -> Outcome, id: Option<&str>) -> String {
    let q = request::parse(payload).expect("test payload is valid");
    envelope::outcome(&q, &how(Responses::empty(q.questions.len())), id)
}

pub(crate) fn dismissed(responses: Responses) -> Outcome {
    Outcome::Host {
        code: ErrorCode::Dismissed,
        responses,
    }
}

/// The terminal panes (id, title), in the order Zellij lists them.
pub(crate) fn terminal_panes(zellij: &Zellij) -> Vec<(u32, String)> {
    zellij
        .panes()
        .iter()
        .filter(|p| p["is_plugin"] == false)
        .filter_map(|p| {
            let id = u32::try_from(p["id"].as_u64()?).ok()?;
            Some((id, p["title"].as_str()?.to_owned()))
        })
        .collect()
}

/// The first terminal pane, as a caller: its id and title.
pub(crate) fn caller_pane(zellij: &Zellij) -> (u32, String) {
    terminal_panes(zellij)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no terminal pane: {:#?}", zellij.panes()))
}

pub(crate) fn pane_title(zellij: &Zellij, pane: u32) -> Option<String> {
    terminal_panes(zellij)
        .into_iter()
        .find(|(id, _)| *id == pane)
        .map(|(_, title)| title)
}

/// Waits until terminal pane `pane`'s title (from `list-panes --json`) is `expected`.
pub(crate) fn wait_for_title(zellij: &Zellij, pane: u32, expected: &str) {
    let until = zellij.until(ANSWER);
    loop {
        let title = pane_title(zellij, pane);
        if title.as_deref() == Some(expected) {
            return;
        }
        if Instant::now() >= until {
            panic!(
                "pane {pane}'s title never became {expected:?}; it is {title:?}\npanes: {:#?}",
                zellij.panes()
            );
        }
        thread::sleep(Duration::from_millis(100));
    }
}

pub(crate) fn marked(title: &str) -> String {
    format!("⏳ {title}")
}

/// Asks the `status` pipe, which answers at once and changes nothing: asked again when Zellij
/// drops its CLI, as `ask-popup status` does.
pub(crate) fn status(zellij: &Zellij) -> Value {
    let out = zellij
        .pipe_to("ask-popup", "status", &[], "x")
        .answered_at_once()
        .wait(AT_ONCE);
    assert!(
        out.status.success(),
        "status pipe exited with {}: {:?}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "status is not JSON ({e}): {:?}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Waits until the `status` pipe reports `n` pending requests; restarts callers whose CLI
/// missed the session meanwhile.
pub(crate) fn wait_for_pending(zellij: &Zellij, n: usize, calls: &mut [PipeCall]) -> Value {
    let until = zellij.until(Duration::from_secs(90));
    loop {
        for call in calls.iter_mut() {
            call.retry_if_dropped();
        }
        let status = status(zellij);
        if status["pending"].as_array().map(Vec::len) == Some(n) {
            return status;
        }
        if Instant::now() >= until {
            panic!("never {n} pending requests; status: {status:#}");
        }
        thread::sleep(Duration::from_millis(200));
    }
}

/// Waits until the screen shows `what` (`pred`) for `call`'s question, then
/// `Zellij::confirm_asked`. A call that Zellij dropped before its question reached the plugin
/// (nothing shows, and the CLI ended printing nothing) is asked again meanwhile, as an agent
/// does. Returns the screen and whether the question was asked again.
pub(crate) fn wait_asked(
    zellij: &Zellij,
    call: &mut PipeCall,
    what: &str,
    pred: impl Fn(&str) -> bool,
) -> (String, bool) {
    let until = zellij.until(ANSWER);
    let mut dropped = false;
    while !pred(&zellij.screen()) && Instant::now() < until {
        if call.retry_if_dropped() {
            eprintln!(
                "Zellij dropped an asking CLI before it asked (harness::dropped): asked again"
            );
            dropped = true;
        }
        thread::sleep(Duration::from_millis(100));
    }
    let screen = zellij.wait_for_screen(what, ANSWER, &pred);
    let again = zellij.confirm_asked(call) || dropped;
    if again {
        return (zellij.wait_for_screen(what, ANSWER, &pred), again);
    }
    (screen, again)
}

/// What the listener plugin heard so far: `(name, payload as JSON)`. With several clients
/// attached, each runs an instance of the listener, each hears every broadcast and answers:
/// their lists must agree.
pub(crate) fn heard(zellij: &Zellij) -> Vec<(String, Value)> {
    let lists = heard_by_each(zellij);
    let list = lists.first().cloned().unwrap_or_default();
    assert!(
        lists.iter().all(|l| *l == list),
        "the listener's instances heard different things: {lists:#?}"
    );
    list
}

/// The balance of blocked events the listener counted (`{"heard":N,"balance":{…},"open":{…}}`,
/// see tests/listener) from the instance that heard most (the first client's, which heard
/// everything from the start), the pipe waited for at most `limit`; what the pipe gave when no
/// instance told one.
pub(crate) fn listener_balance(zellij: &Zellij, limit: Duration) -> Result<Value, String> {
    let most = |out: &Output| {
        serde_json::Deserializer::from_slice(&out.stdout)
            .into_iter::<Value>()
            .filter_map(Result::ok)
            .max_by_key(|b| b["heard"].as_u64().unwrap_or(0))
    };
    let out =
        zellij.pipe_asking_again(LISTENER, "balance", Duration::from_secs(10), limit, |out| {
            most(out).is_some()
        })?;
    most(&out).ok_or_else(|| format!("the listener told no balance: {out:?}"))
}

/// What each instance of the listener heard (one per client; a client that attached later
/// heard only what came after).
pub(crate) fn heard_by_each(zellij: &Zellij) -> Vec<Vec<(String, Value)>> {
    // Asked again when an instance holds the pipe: Zellij 0.45.1 at times gives a newly
    // attached client's instance's permission answer to the other one, and the instance asks
    // for it again when the next pipe comes.
    let out = zellij
        .pipe_asking_again(LISTENER, "heard", Duration::from_secs(5), AT_ONCE, |out| {
            // An empty answer is a pipe Zellij closed without the instance's reply: asked again.
            out.status.success() && !out.stdout.is_empty()
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let lists: Vec<Value> = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| {
            panic!(
                "the listener's answer is not JSON ({e}): {:?}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
    assert!(
        !lists.is_empty(),
        "the listener answered nothing: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    lists
        .iter()
        .map(|list| {
            list.as_array()
                .expect("the listener answers a list")
                .iter()
                .map(|m| {
                    let name = m["name"].as_str().expect("a name").to_owned();
                    let payload = m["payload"]
                        .as_str()
                        .map(|p| {
                            serde_json::from_str(p).unwrap_or_else(|e| {
                                panic!("{name} payload is not JSON ({e}): {p:?}")
                            })
                        })
                        .unwrap_or(Value::Null);
                    (name, payload)
                })
                .collect()
        })
        .collect()
}

/// Waits until the listener heard `n` messages, and returns them.
pub(crate) fn wait_for_heard(zellij: &Zellij, n: usize) -> Vec<(String, Value)> {
    let until = zellij.until(ANSWER);
    loop {
        let list = heard(zellij);
        if list.len() >= n || Instant::now() >= until {
            assert_eq!(list.len(), n, "the listener heard {list:#?}");
            return list;
        }
        thread::sleep(Duration::from_millis(100));
    }
}

/// What the listener heard of one question, once it ended with the broadcast `ended` (e.g.
/// `ask-popup:answered`): its six broadcasts (the prompt, the blocked pair opened on both
/// channels, closed on both, the ending). When Zellij dropped the asking call after its question
/// arrived and the question was asked again with its id, the replaced question's six come first;
/// each of those is checked to have opened and closed its wait and ended `superseded`.
pub(crate) fn heard_of_one_question(zellij: &Zellij, ended: &str) -> Vec<(String, Value)> {
    let until = zellij.until(ANSWER);
    let heard = loop {
        let heard = heard(zellij);
        let over = heard
            .last()
            .is_some_and(|(name, payload)| name == ended && payload["reason"] != "superseded");
        if over || Instant::now() >= until {
            break heard;
        }
        thread::sleep(Duration::from_millis(100));
    };
    let (replaced, asked) = heard.split_at(heard.len().saturating_sub(6));
    let names = |events: &[(String, Value)]| -> Vec<String> {
        events.iter().map(|(name, _)| name.clone()).collect()
    };
    for chunk in replaced.chunks(6) {
        assert_eq!(
            names(chunk),
            broadcasts_of_one_question("ask-popup:cancelled"),
            "the listener heard {heard:#?}"
        );
        assert_eq!(chunk[5].1["reason"], "superseded", "{heard:#?}");
    }
    assert_eq!(
        names(asked),
        broadcasts_of_one_question(ended),
        "the listener heard {heard:#?}"
    );
    asked.to_vec()
}

/// Ticks the first and third options (Invoices and Reports) of the multi-select on screen, as
/// the user does, each seen ticked before the next key.
pub(crate) fn tick_invoices_and_reports(zellij: &Zellij) {
    zellij.send_keys(&["Space"]);
    zellij.wait_for_screen("Invoices ticked", ANSWER, |s| s.contains("[✔] Invoices"));
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Space"]);
    zellij.wait_for_screen("Reports ticked", ANSWER, |s| s.contains("[✔] Reports"));
}

/// On the focused option: the note "reports can wait", typed and saved.
pub(crate) fn note_reports_can_wait(zellij: &Zellij) {
    note_on_the_question(zellij, "reports can wait");
}

/// `note` on the question on screen (its `n`), typed and saved.
pub(crate) fn note_on_the_question(zellij: &Zellij, note: &str) {
    zellij.send_keys(&["n"]);
    zellij.wait_for_screen("the note editor", ANSWER, |s| s.contains("Enter save note"));
    zellij.write_chars(note);
    zellij.wait_for_screen("the note", ANSWER, |s| s.contains(note));
    zellij.send_keys(&["Enter"]);
    let saved = format!("notes: {note}");
    zellij.wait_for_screen("the note saved", ANSWER, |s| s.contains(&saved));
}

/// The approval on screen's `Allow once` (its first row), focused with ↑ (an approval's rows
/// carry no numbers) and picked with Enter once the popup has settled on it (`send_keys`
/// waits for the footer's hints: Enter right after ↑ would not allow).
pub(crate) fn allow_once(zellij: &Zellij) {
    let until = zellij.until(ANSWER);
    while !zellij.screen().contains("❯ Allow once") {
        assert!(
            Instant::now() < until,
            "Allow once never focused; screen:\n{}",
            zellij.screen()
        );
        zellij.send_keys(&["Up"]);
        zellij.wait_until_keys_count();
    }
    zellij.send_keys(&["Enter"]);
}

/// The approval on screen denied with `note`: the note saved, then Enter on `deny` (`Deny`,
/// where the focus starts).
pub(crate) fn deny_with_a_note(zellij: &Zellij, note: &str, deny: &str) {
    note_on_the_question(zellij, note);
    let focused = format!("❯ {deny}");
    zellij.wait_for_screen("Deny focused", ANSWER, |s| s.contains(&focused));
    zellij.send_keys(&["Enter"]);
}

/// The names of one question's broadcasts, in order, ending with `ended`.
fn broadcasts_of_one_question(ended: &str) -> [&str; 6] {
    [
        "ask-popup:prompt",
        "ask-popup:blocked",
        "herdr:blocked",
        "ask-popup:blocked",
        "herdr:blocked",
        ended,
    ]
}

/// A blocked event, as the plugin broadcasts it for the request `id` of `agent` in `pane`.
pub(crate) fn blocked(active: bool, pane: u32, agent: &str, pending: usize, id: &str) -> Value {
    json!({
        "active": active,
        "label": "Waiting for user response",
        "paneId": pane,
        "agent": agent,
        "pending": pending,
        "requestId": id,
    })
}

/// The envelope text the plugin writes for `outcome` of `arguments`.
pub(crate) fn text_of(arguments: &Value, outcome: &Outcome) -> String {
    let questionnaire = request::parse(&arguments.to_string()).expect("a valid questionnaire");
    let line = envelope::outcome(&questionnaire, outcome, None);
    let envelope: Value = serde_json::from_str(&line).expect("the envelope is JSON");
    envelope["content"][0]["text"]
        .as_str()
        .expect("a text")
        .to_owned()
}

/// The user picks SQLite (the second option of `DB`) on the question of `asker` (`claude
/// asks`) until `done`: Down until it is focused, then Enter; a key the popup's key guard
/// swallowed, or a question asked again after the answer, is answered again.
pub(crate) fn pick_sqlite(zellij: &Zellij, asker: &str, done: impl Fn() -> bool) {
    let until = zellij.until(2 * ANSWER);
    while !done() {
        assert!(
            Instant::now() < until,
            "the question of {asker:?} was never answered; screen:\n{}",
            zellij.screen()
        );
        let screen = zellij.screen();
        if screen.contains(asker) && screen.contains("❯ 1. Postgres") {
            zellij.send_keys(&["Down"]);
        } else if screen.contains(asker) && screen.contains("❯ 2. SQLite") {
            zellij.send_keys(&["Enter"]);
            let until = zellij.until(ANSWER);
            while zellij.screen().contains("❯ 2. SQLite") && Instant::now() < until {
                thread::sleep(Duration::from_millis(100));
            }
        }
        thread::sleep(Duration::from_millis(100));
    }
}

/// The user answers each question of `seconds` (`(question, its second option)`), asked by
/// `asker` (`claude asks`), in whatever order they show, with its second option.
pub(crate) fn pick_the_second_option_of_each(
    zellij: &Zellij,
    asker: &str,
    seconds: &[(&str, &str)],
) {
    // Only the questions not yet answered: an answered one stays on screen in its agent's own
    // pane (Claude Code prints "· Which database? → SQLite"), outside the popup.
    let mut waiting: Vec<&(&str, &str)> = seconds.iter().collect();
    while !waiting.is_empty() {
        let screen = zellij.wait_for_screen("a question", ANSWER, |s| {
            s.contains(asker) && waiting.iter().any(|(q, _)| s.contains(q))
        });
        let i = waiting
            .iter()
            .position(|(q, _)| screen.contains(q))
            .expect("a question on screen");
        let (_, second) = waiting.remove(i);
        let target = format!("❯ 2. {second}");
        zellij.send_keys(&["Down"]);
        zellij.wait_for_screen("the second option", ANSWER, |s| s.contains(&target));
        zellij.send_keys(&["Enter"]);
        zellij.wait_for_screen("the answered question gone", ANSWER, |s| {
            !s.contains(&target)
        });
    }
}

/// Opens a terminal pane running `command` (`sh -c`); returns its id.
pub(crate) fn new_pane(zellij: &Zellij, name: &str, command: &str) -> u32 {
    let out = zellij.action(&["new-pane", "--name", name, "--", "sh", "-c", command]);
    let printed = String::from_utf8_lossy(&out.stdout);
    let id = printed
        .trim()
        .strip_prefix("terminal_")
        .and_then(|n| n.parse().ok());
    match id {
        Some(id) if out.status.success() => id,
        // Zellij may drop a CLI's connection after the action ran (`harness::dropped`): find the
        // pane by its name.
        _ if out.status.success() && out.stdout.is_empty() => {
            let until = zellij.until(ANSWER);
            loop {
                let found = terminal_panes(zellij).into_iter().find(|(_, t)| t == name);
                if let Some((id, _)) = found {
                    return id;
                }
                assert!(Instant::now() < until, "no pane named {name}");
                thread::sleep(Duration::from_millis(100));
            }
        }
        _ => panic!(
            "new-pane printed {printed:?} ({}), stderr {:?}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// One question for an agent's model to ask: options labelled `labels`, each described.
pub(crate) fn question(text: &str, header: &str, labels: &[&str], multi: bool) -> Value {
    let options: Vec<Value> = labels
        .iter()
        .map(|l| json!({"label": l, "description": format!("{l}, described")}))
        .collect();
    json!({"question": text, "header": header, "options": options, "multiSelect": multi})
}

/// The user presses Esc in a terminal pane (an agent's), focused or not.
pub(crate) fn press_esc_in(zellij: &Zellij, pane: u32) {
    let out = zellij.action(&["write", "--pane-id", &format!("terminal_{pane}"), "27"]);
    assert!(out.status.success(), "write Esc to pane {pane}: {out:?}");
}

/// Waits until the popup holds no request.
pub(crate) fn wait_until_nothing_pending(zellij: &Zellij) {
    let until = zellij.until(ANSWER);
    while status(zellij)["pending"] != json!([]) {
        assert!(
            Instant::now() < until,
            "the question stayed in the popup: {}\n{}",
            status(zellij),
            zellij.screen()
        );
        thread::sleep(Duration::from_millis(200));
    }
}

pub(crate) const DB: &str = r#"{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres","description":"Relational"},{"label":"SQLite","description":"Embedded"}]}]}"#;
pub(crate) const LANG: &str = r#"{"questions":[{"question":"Which language?","header":"Lang","options":[{"label":"Rust","description":"Fast"},{"label":"Go","description":"Simple"}]}]}"#;

#[test]
fn two_agents_asking_at_once_each_get_their_own_answer() {
    let zellij = Zellij::start();
    let (first_pane, _) = caller_pane(&zellij);
    let second_pane = new_pane(&zellij, "codex", "exec sleep 1000");
    let (p1, p2) = (first_pane.to_string(), second_pane.to_string());

    let mut claude = zellij.pipe(
        DB,
        &[("agent", "claude"), ("pane_id", p1.as_str()), ("id", "c-1")],
    );
    wait_asked(&zellij, &mut claude, "claude's question", |s| {
        s.contains("claude asks") && s.contains("Which database?")
    });
    let mut codex = zellij.pipe(
        LANG,
        &[("agent", "codex"), ("pane_id", p2.as_str()), ("id", "x-1")],
    );
    // The first request stays on screen; the dialog and its pane title count the queue.
    wait_asked(&zellij, &mut codex, "two waiting", |s| {
        s.contains("claude asks · 1 of 2 waiting")
            && s.contains("ask-popup · claude · 1 of 2")
            && s.contains("Which database?")
    });

    zellij.send_keys(&["Enter"]);
    assert_reply(
        &claude.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(0))], &[], Some("c-1")),
    );

    // The second caller is next, alone now.
    let screen = zellij.wait_for_screen("codex's question", ANSWER, |s| {
        s.contains("codex asks") && s.contains("Which language?")
    });
    assert!(!screen.contains("waiting ·"), "one request left:\n{screen}");
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("the focus on Go", ANSWER, |s| s.contains("❯ 2. Go"));
    zellij.send_keys(&["Enter"]);
    assert_reply(
        &codex.wait(ANSWER),
        &submitted(LANG, &[(0, Answer::Option(1))], &[], Some("x-1")),
    );
    zellij.wait_for_screen("the popup gone", ANSWER, |s| !s.contains("Which language?"));
}

#[test]
fn switching_requests_keeps_each_ones_state() {
    let zellij = Zellij::start();
    let mut first = zellij.pipe(DB, &[("agent", "claude"), ("id", "s-1")]);
    wait_asked(&zellij, &mut first, "claude's question", |s| {
        s.contains("claude asks") && s.contains("Which database?")
    });
    let mut second = zellij.pipe(LANG, &[("agent", "codex"), ("id", "s-2")]);
    wait_asked(&zellij, &mut second, "two waiting", |s| {
        s.contains("claude asks · 1 of 2 waiting")
    });

    // Request 1: the focus on SQLite and a note.
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("the focus on SQLite", ANSWER, |s| s.contains("❯ 2. SQLite"));
    zellij.write_chars("n");
    zellij.wait_for_screen("the note editor", ANSWER, |s| s.contains("Enter save note"));
    zellij.write_chars("keep it small");
    zellij.send_keys(&["Enter"]);
    zellij.wait_for_screen("the note saved", ANSWER, |s| {
        s.contains("keep it small") && s.contains("n edit note")
    });

    // Request 2: a typed draft, left with Esc.
    zellij.write_chars("]");
    zellij.wait_for_screen("codex's question", ANSWER, |s| {
        s.contains("codex asks · 2 of 2 waiting")
            && s.contains("ask-popup · codex · 2 of 2")
            && s.contains("Which language?")
            && !s.contains("keep it small")
    });
    zellij.write_chars("3");
    zellij.wait_for_screen("typing", ANSWER, |s| s.contains("Esc stop typing"));
    zellij.write_chars("Zig, really");
    zellij.send_keys(&["Esc"]);
    zellij.wait_for_screen("the draft kept", ANSWER, |s| {
        s.contains("Zig, really") && s.contains("Enter select")
    });

    // Back to request 1: its focus and note are as they were; then to 2 again: its draft too.
    zellij.write_chars("[");
    zellij.wait_for_screen("claude's state", ANSWER, |s| {
        s.contains("claude asks · 1 of 2 waiting")
            && s.contains("❯ 2. SQLite")
            && s.contains("keep it small")
            && !s.contains("Zig, really")
    });
    zellij.write_chars("]");
    zellij.wait_for_screen("codex's state", ANSWER, |s| {
        s.contains("codex asks · 2 of 2 waiting") && s.contains("Zig, really")
    });

    // Answer 2 with its draft, then 1 (now alone) as it stands.
    zellij.send_keys(&["Enter"]);
    assert_reply(
        &second.wait(ANSWER),
        &submitted(
            LANG,
            &[(0, Answer::Custom("Zig, really".to_owned()))],
            &[],
            Some("s-2"),
        ),
    );
    zellij.wait_for_screen("claude alone", ANSWER, |s| {
        s.contains("claude asks") && !s.contains("waiting ·") && s.contains("❯ 2. SQLite")
    });
    zellij.send_keys(&["Enter"]);
    assert_reply(
        &first.wait(ANSWER),
        &submitted(
            DB,
            &[(0, Answer::Option(1))],
            &[(0, "keep it small")],
            Some("s-1"),
        ),
    );
}

#[test]
fn asking_again_with_the_same_id_takes_over_the_orphaned_question() {
    // What an agent (or `wait_asked`) does when its CLI went away: the request left behind is
    // replaced in place, with what the user already did, and answered to the new caller.
    let zellij = Zellij::start_with(Options::default().with_listener());
    heard(&zellij);
    let args = [("agent", "claude"), ("id", "o-1")];
    let mut first = zellij.pipe(DB, &args);
    wait_asked(&zellij, &mut first, "the question", |s| {
        s.contains("claude asks") && s.contains("Which database?")
    });
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("the focus on SQLite", ANSWER, |s| s.contains("❯ 2. SQLite"));
    drop(first); // Kills the CLI: nobody listens to this request any more.

    let mut second = zellij.pipe(DB, &args);
    zellij.confirm_asked(&mut second);
    // The first request was retracted as superseded.
    let superseded = (
        "ask-popup:cancelled".to_owned(),
        json!({"paneId": null, "agent": "claude", "requestId": "o-1", "questions": 1, "reason": "superseded"}),
    );
    let until = zellij.until(ANSWER);
    while !heard(&zellij).contains(&superseded) {
        assert!(
            Instant::now() < until,
            "never superseded: {:#?}",
            heard(&zellij)
        );
        thread::sleep(Duration::from_millis(100));
    }
    zellij.wait_for_screen("one request, as the user left it", ANSWER, |s| {
        s.contains("claude asks") && !s.contains("waiting ·") && s.contains("❯ 2. SQLite")
    });
    zellij.send_keys(&["Enter"]);
    assert_reply(
        &second.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(1))], &[], Some("o-1")),
    );
}

#[test]
fn the_callers_pane_title_is_marked_while_waiting_and_restored_after_every_ending() {
    let zellij = Zellij::start_with(Options::default().with_deadline(Duration::from_secs(240)));
    let (pane, title) = caller_pane(&zellij);
    let id = pane.to_string();
    let args = |request: &'static str| {
        [
            ("agent", "claude"),
            ("pane_id", id.as_str()),
            ("id", request),
        ]
    };

    // Answered.
    let mut call = zellij.pipe(DB, &args("t-1"));
    wait_asked(&zellij, &mut call, "the question", |s| {
        s.contains("Which database?")
    });
    wait_for_title(&zellij, pane, &marked(&title));
    zellij.send_keys(&["Enter"]);
    assert_reply(
        &call.wait(ANSWER),
        &submitted(DB, &[(0, Answer::Option(0))], &[], Some("t-1")),
    );
    wait_for_title(&zellij, pane, &title);

    // Declined with Esc.
    let mut call = zellij.pipe(LANG, &args("t-2"));
    wait_asked(&zellij, &mut call, "the question", |s| {
        s.contains("Which language?")
    });
    wait_for_title(&zellij, pane, &marked(&title));
    zellij.send_keys(&["Esc"]);
    assert_reply(
        &call.wait(ANSWER),
        &ended(LANG, Outcome::Declined, Some("t-2")),
    );
    wait_for_title(&zellij, pane, &title);

    // Timed out: nobody touches it.
    let timed = r#"{"questions":[{"question":"Deploy now?","header":"Deploy","options":["Yes","No"]}],"timeout":8000}"#;
    let mut call = zellij.pipe(timed, &args("t-3"));
    wait_asked(&zellij, &mut call, "the question", |s| {
        s.contains("Deploy now?")
    });
    wait_for_title(&zellij, pane, &marked(&title));
    assert_reply(
        &call.wait(ANSWER),
        &ended(timed, Outcome::TimedOut, Some("t-3")),
    );
    wait_for_title(&zellij, pane, &title);

    // Rejected: answered at once, never marked.
    let out = zellij
        .pipe_to("ask-popup", "ask", &args("t-4"), r#"{"questions":[]}"#)
        .wait(AT_ONCE);
    assert_eq!(details(&out)["error"], "no_questions");
    status(&zellij); // Whatever the plugin did with the rejection, Zellij has it by now.
    assert_eq!(pane_title(&zellij, pane).as_deref(), Some(title.as_str()));

    // The popup pane closed while waiting.
    let mut call = zellij.pipe(DB, &args("t-5"));
    wait_asked(&zellij, &mut call, "the question", |s| {
        s.contains("Which database?")
    });
    wait_for_title(&zellij, pane, &marked(&title));
    let plugin = zellij.plugin_pane(ANSWER);
    let out = zellij.action(&["close-pane", "--pane-id", &plugin]);
    assert!(out.status.success(), "close-pane: {out:?}");
    assert_reply(&call.wait(ANSWER), &ended(DB, dismissed, Some("t-5")));
    wait_for_title(&zellij, pane, &title);
}

#[test]
fn another_plugin_hears_the_blocked_prompt_and_answered_broadcasts() {
    let zellij = Zellij::start_with(Options::default().with_listener());
    let (pane, title) = caller_pane(&zellij);
    let id = pane.to_string();
    // Loads the listener before anything is said.
    assert_eq!(heard(&zellij), Vec::new());

    // A rejected request is never announced.
    let out = zellij
        .pipe_to(
            "ask-popup",
            "ask",
            &[("agent", "claude"), ("pane_id", id.as_str())],
            "{",
        )
        .wait(AT_ONCE);
    assert_eq!(details(&out)["error"], "invalid_payload");
    assert_eq!(heard(&zellij), Vec::new());

    let payload = json!({"questions": [{
        "question": "Which layout?",
        "header": "Layout",
        "options": [
            {"label": "Sidebar", "description": "Nav on the left", "preview": "# Sidebar\n\nA long **preview** body"},
            {"label": "Tabs", "description": "Nav on top"}
        ]
    }]})
    .to_string();
    let args = [("agent", "claude"), ("pane_id", id.as_str()), ("id", "l-1")];
    let mut call = zellij.pipe(&payload, &args);
    let (_, again) = wait_asked(&zellij, &mut call, "the question", |s| {
        s.contains("Which layout?")
    });
    let prompt = json!({
        "questions": [{
            "question": "Which layout?",
            "header": "Layout",
            "multiSelect": false,
            "options": [
                {"label": "Sidebar", "description": "Nav on the left", "hasPreview": true},
                {"label": "Tabs", "description": "Nav on top", "hasPreview": false}
            ]
        }],
        "paneId": pane,
        "agent": "claude",
        "requestId": "l-1",
    });
    let asked = vec![
        ("ask-popup:prompt".to_owned(), prompt),
        (
            "ask-popup:blocked".to_owned(),
            blocked(true, pane, "claude", 1, "l-1"),
        ),
        (
            "herdr:blocked".to_owned(),
            blocked(true, pane, "claude", 1, "l-1"),
        ),
    ];
    // Asked again (Zellij dropped the first CLI), the first request was replaced: its
    // announcement and retraction come first.
    let replaced = if again { 6 } else { 0 };
    assert_eq!(wait_for_heard(&zellij, replaced + 3)[replaced..], asked);

    zellij.send_keys(&["Enter"]);
    assert_reply(
        &call.wait(ANSWER),
        &submitted(&payload, &[(0, Answer::Option(0))], &[], Some("l-1")),
    );
    let mut answered = asked.clone();
    answered.extend([
        (
            "ask-popup:blocked".to_owned(),
            blocked(false, pane, "claude", 0, "l-1"),
        ),
        ("herdr:blocked".to_owned(), blocked(false, pane, "claude", 0, "l-1")),
        (
            "ask-popup:answered".to_owned(),
            json!({"paneId": pane, "agent": "claude", "requestId": "l-1", "questions": 1, "answered": 1}),
        ),
    ]);
    assert_eq!(wait_for_heard(&zellij, replaced + 6)[replaced..], answered);
    wait_for_title(&zellij, pane, &title);

    // Declined: the same pair of blocked events, then `cancelled` with the reason.
    let before = replaced + 6;
    let mut call = zellij.pipe(
        DB,
        &[("agent", "pi"), ("pane_id", id.as_str()), ("id", "l-2")],
    );
    let (_, again) = wait_asked(&zellij, &mut call, "the question", |s| {
        s.contains("Which database?")
    });
    let replaced = before + if again { 6 } else { 0 };
    zellij.send_keys(&["Esc"]);
    assert_reply(
        &call.wait(ANSWER),
        &ended(DB, Outcome::Declined, Some("l-2")),
    );
    let list = wait_for_heard(&zellij, replaced + 6);
    let declined = &list[replaced..];
    let names: Vec<&str> = declined.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "ask-popup:prompt",
            "ask-popup:blocked",
            "herdr:blocked",
            "ask-popup:blocked",
            "herdr:blocked",
            "ask-popup:cancelled"
        ]
    );
    assert_eq!(declined[1].1, blocked(true, pane, "pi", 1, "l-2"));
    assert_eq!(declined[2].1, declined[1].1);
    assert_eq!(declined[3].1, blocked(false, pane, "pi", 0, "l-2"));
    assert_eq!(declined[4].1, declined[3].1);
    assert_eq!(
        declined[5].1,
        json!({"paneId": pane, "agent": "pi", "requestId": "l-2", "questions": 1, "reason": "declined"})
    );
    // Exactly one `false` for every `true`, on both names.
    for name in ["ask-popup:blocked", "herdr:blocked"] {
        let count = |active: bool| {
            list.iter()
                .filter(|(n, p)| n == name && p["active"] == active)
                .count()
        };
        assert_eq!(count(true), count(false), "{name}: {list:#?}");
    }
}

#[test]
fn the_status_pipe_lists_the_pending_requests_at_once() {
    let zellij = Zellij::start();
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
    let (pane, _) = caller_pane(&zellij);
    let id = pane.to_string();
    let two = r#"{"questions":[{"question":"Which CI?","header":"CI","options":["GitHub","GitLab"]},{"question":"Which runner?","header":"Runner","options":["Linux","macOS"]}]}"#;

    let mut first = zellij.pipe(
        DB,
        &[
            ("agent", "claude"),
            ("pane_id", id.as_str()),
            ("id", "st-1"),
        ],
    );
    wait_asked(&zellij, &mut first, "claude's question", |s| {
        s.contains("claude asks")
    });
    let mut second = zellij.pipe(two, &[("agent", "codex"), ("id", "st-2")]);
    wait_asked(&zellij, &mut second, "two waiting", |s| {
        s.contains("1 of 2 waiting")
    });

    let expected = |shown_first: bool, age_first: &Value, age_second: &Value| {
        json!({
            "pending": [
                {"agent": "claude", "paneId": pane, "requestId": "st-1", "headers": ["DB"], "ageSeconds": age_first, "shown": shown_first},
                {"agent": "codex", "paneId": null, "requestId": "st-2", "headers": ["CI", "Runner"], "ageSeconds": age_second, "shown": !shown_first},
            ],
            "visible": true,
        })
    };
    let ages = |now: &Value| {
        (
            now["pending"][0]["ageSeconds"].clone(),
            now["pending"][1]["ageSeconds"].clone(),
        )
    };
    let now = status(&zellij);
    let (a, b) = ages(&now);
    assert!(a.is_u64() && b.is_u64(), "ages: {now:#}");
    assert_eq!(now, expected(true, &a, &b));

    // The age counts up while a request waits.
    let until = zellij.until(ANSWER);
    loop {
        let now = status(&zellij);
        if now["pending"][0]["ageSeconds"].as_u64() >= Some(2) {
            break;
        }
        assert!(Instant::now() < until, "ageSeconds never grew: {now:#}");
        thread::sleep(Duration::from_millis(500));
    }

    zellij.write_chars("]");
    zellij.wait_for_screen("the second shown", ANSWER, |s| s.contains("2 of 2 waiting"));
    let now = status(&zellij);
    let (a, b) = ages(&now);
    assert_eq!(now, expected(false, &a, &b));

    zellij.send_keys(&["Esc"]);
    assert_reply(
        &second.wait(ANSWER),
        &ended(two, Outcome::Declined, Some("st-2")),
    );
    zellij.wait_for_screen("the first alone", ANSWER, |s| {
        s.contains("claude asks") && !s.contains("waiting ·")
    });
    zellij.send_keys(&["Esc"]);
    assert_reply(
        &first.wait(ANSWER),
        &ended(DB, Outcome::Declined, Some("st-1")),
    );
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
}

/// `PATH=<the tested zellij's dir>:"$PATH" ` for a pane's command line, so that the command
/// runs the Zellij under test (empty when it is found on PATH anyway).
pub(crate) fn zellij_on_path() -> String {
    zellij_bin()
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| format!("PATH={}:\"$PATH\" ", shell_quote(&d.to_string_lossy())))
        .unwrap_or_default()
}

#[test]
fn thirty_two_agents_asking_at_once_each_get_their_own_answer() {
    const N: usize = 32;
    let zellij = Zellij::start_with(Options::default().with_deadline(Duration::from_secs(480)));
    let (pane, title) = caller_pane(&zellij);
    let id = pane.to_string();
    let payloads: Vec<String> = (0..N)
        .map(|i| {
            ask(
                &format!("Question {i:02} for agent-{i:02}?"),
                &format!("Q{i:02}"),
                &[&format!("Yes-{i:02}"), &format!("No-{i:02}")],
            )
        })
        .collect();
    let agents: Vec<String> = (0..N).map(|i| format!("agent-{i:02}")).collect();
    let ids: Vec<String> = (0..N).map(|i| format!("req-{i:02}")).collect();
    let mut calls: Vec<PipeCall> = (0..N)
        .map(|i| {
            zellij.pipe(
                &payloads[i],
                &[
                    ("agent", agents[i].as_str()),
                    ("id", ids[i].as_str()),
                    ("pane_id", id.as_str()),
                ],
            )
        })
        .collect();
    // Watched on screen (no CLI of ours connects meanwhile), then counted by `status`, which
    // asks again for any call Zellij dropped: the screen then never shows all of them, and a
    // dropped call has ended.
    let asking = std::cell::RefCell::new(&mut calls);
    zellij.wait_for_screen(
        "32 waiting, or a call ended",
        Duration::from_secs(90),
        |s| {
            s.contains(&format!("1 of {N} waiting"))
                || asking.borrow_mut().iter_mut().any(|c| !c.is_running())
        },
    );
    let pending = wait_for_pending(&zellij, N, &mut calls);
    let mut listed: Vec<&str> = pending["pending"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["requestId"].as_str())
        .collect();
    listed.sort_unstable();
    assert_eq!(listed, ids, "status: {pending:#}");

    // Answer whichever is shown: request i picks option i % 2, until every caller has its
    // reply (a caller that asked again after Zellij dropped its CLI may show up once more).
    let mut answered = 0;
    while let Some(i) = next_shown(&zellij, &mut calls) {
        if i % 2 == 1 {
            zellij.send_keys(&["Down"]);
            zellij.wait_for_screen("the focus on No", ANSWER, |s| {
                s.contains(&format!("❯ 2. No-{i:02}"))
            });
        }
        if answered == N - 1 {
            // The last one still waits: its caller's pane is still marked.
            assert_eq!(pane_title(&zellij, pane), Some(marked(&title)));
        }
        zellij.send_keys(&["Enter"]);
        answered += 1;
        assert!(answered <= 2 * N, "{answered} answers for {N} callers");
        zellij.wait_for_screen("the answer taken", ANSWER, |s| {
            !s.contains(&format!("Question {i:02} for"))
        });
    }
    for (i, call) in calls.into_iter().enumerate() {
        let out = call.wait(ANSWER);
        assert_reply(
            &out,
            &submitted(
                &payloads[i],
                &[(0, Answer::Option(i % 2))],
                &[],
                Some(&ids[i]),
            ),
        );
        let details = details(&out);
        assert_eq!(details["requestId"], ids[i].as_str());
        assert_eq!(
            details["answers"][0]["question"],
            format!("Question {i:02} for agent-{i:02}?")
        );
    }
    wait_for_title(&zellij, pane, &title);
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
}

/// Waits until the dialog shows a whole request (its banner, question and focused first
/// option) and returns its agent's index, or None once every caller has exited. Callers whose
/// CLI Zellij dropped (`harness::dropped`) ask again meanwhile.
fn next_shown(zellij: &Zellij, calls: &mut [PipeCall]) -> Option<usize> {
    let until = zellij.until(ANSWER);
    loop {
        for call in calls.iter_mut() {
            call.retry_if_dropped();
        }
        let screen = zellij.screen();
        let shown = shown_agent(&screen).filter(|i| {
            screen.contains(&format!("Question {i:02} for agent-{i:02}?"))
                && screen.contains(&format!("❯ 1. Yes-{i:02}"))
        });
        if shown.is_some() {
            return shown;
        }
        if calls.iter_mut().all(|c| !c.is_running()) {
            return None;
        }
        if Instant::now() >= until {
            panic!("no request shown while callers wait; screen:\n{screen}");
        }
        thread::sleep(Duration::from_millis(100));
    }
}

/// The index of the agent the dialog's banner names (`agent-NN asks`).
fn shown_agent(screen: &str) -> Option<usize> {
    screen.match_indices("agent-").find_map(|(at, _)| {
        let rest = &screen[at + "agent-".len()..];
        let digits = rest.get(..2)?;
        if rest[2..].starts_with(" asks") {
            digits.parse().ok()
        } else {
            None
        }
    })
}

#[test]
fn the_agents_layout_loads_and_shows_the_mark_in_the_agents_pane_frame() {
    let layout = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agents.kdl");
    let zellij = Zellij::start_with(Options::default().with_layout(layout));
    let panes = terminal_panes(&zellij);
    let titles: Vec<&str> = panes.iter().map(|(_, t)| t.as_str()).collect();
    for agent in ["claude", "codex", "pi"] {
        assert!(titles.contains(&agent), "no {agent} pane: {titles:?}");
    }
    let codex = panes.iter().find(|(_, t)| t == "codex").unwrap().0;
    let id = codex.to_string();
    let mut call = zellij.pipe(
        DB,
        &[("agent", "codex"), ("pane_id", id.as_str()), ("id", "k-1")],
    );
    wait_asked(&zellij, &mut call, "the mark in codex's frame", |s| {
        s.contains("⏳ codex") && s.contains("codex asks") && s.contains("Which database?")
    });
    assert_eq!(pane_title(&zellij, codex), Some(marked("codex")));
    zellij.send_keys(&["Esc"]);
    assert_reply(
        &call.wait(ANSWER),
        &ended(DB, Outcome::Declined, Some("k-1")),
    );
    wait_for_title(&zellij, codex, "codex");
    zellij.wait_for_screen("the mark gone", ANSWER, |s| !s.contains("⏳"));
}

pub(crate) use crate::harness::shell_quote;
