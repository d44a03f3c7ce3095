//! The soak: a real Zellij with several agents asking through `ask-popup ask` for minutes on end,
//! each request ending at random in one of the ways a real one ends — the user answers,
//! declines, asks to chat, lets it time out or closes the popup; the agent is stopped
//! (SIGTERM), killed (SIGKILL), withdraws it (`cancel`) or asks again with its id; the payload
//! is malformed or too large; and now and then a second client attaches or leaves. After every
//! request and at the end it checks what must always hold, and prints a table.
//!
//! `bash benches/soak.sh [--minutes T] [--agents N] [--seed S]` runs it (`SOAK_MINUTES`,
//! `SOAK_AGENTS` and `SOAK_SEED`); the e2e suite runs it for one minute with four agents.
//!
//! The user's keys go to the popup's pane (`zellij action send-keys`), which reaches every
//! client's instance of the plugin at once, as no person's typing does: so the soak answers only
//! while one client is attached. The agents' endings, timeouts and withdrawals go on meanwhile.

use crate::agents::{heard, listener_balance, new_pane, terminal_panes, DB};
use crate::command::command;
use crate::harness::{Options, Zellij, SECOND};
use crate::ANSWER;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How a request is meant to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Ending {
    Answer,
    Decline,
    Chat,
    Timeout,
    ClosePopup,
    Term,
    Kill,
    Cancel,
    AskAgain,
    Malformed,
    Oversized,
}

const ENDINGS: [Ending; 11] = [
    Ending::Answer,
    Ending::Decline,
    Ending::Chat,
    Ending::Timeout,
    Ending::ClosePopup,
    Ending::Term,
    Ending::Kill,
    Ending::Cancel,
    Ending::AskAgain,
    Ending::Malformed,
    Ending::Oversized,
];

/// A small, seeded generator (xorshift): a failing run can be repeated with its seed.
struct Dice(u64);

impl Dice {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// One `ask-popup ask` the soak started.
struct Asked {
    id: String,
    agent: usize,
    ending: Ending,
    /// The kinds of envelope it may end with (more than one where a closed popup overtook it).
    allowed: Vec<&'static str>,
    child: Child,
    out: PathBuf,
    /// Whatever was done to end it (a key, a signal, a cancel) has been done.
    acted: bool,
    acted_at: Option<Instant>,
    /// Replaced by a second call with its id (`AskAgain`): the second one is its own `Asked`.
    again: bool,
}

fn kind(envelope: &Value) -> &'static str {
    let details = &envelope["details"];
    match details["error"].as_str() {
        Some("timed_out") => "timed_out",
        Some("dismissed") => "dismissed",
        Some("aborted") => "aborted",
        Some("superseded") => "superseded",
        Some("payload_too_large") => "payload_too_large",
        Some("invalid_payload") => "invalid_payload",
        Some(_) => "other error",
        None if details.get("chatRequested").is_some() => "chat",
        None if details["cancelled"] == true => "declined",
        None => "answered",
    }
}

fn expected(ending: Ending) -> Vec<&'static str> {
    match ending {
        Ending::Answer | Ending::AskAgain | Ending::Kill => vec!["answered"],
        Ending::Decline => vec!["declined"],
        Ending::Chat => vec!["chat"],
        Ending::Timeout => vec!["timed_out"],
        Ending::ClosePopup => vec!["dismissed"],
        Ending::Term | Ending::Cancel => vec!["aborted"],
        Ending::Malformed => vec!["invalid_payload"],
        Ending::Oversized => vec!["payload_too_large"],
    }
}

fn setting(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A `zellij pipe` to the plugin that is answered at once (`status`, `cancel`), bounded in time
/// and asked again when Zellij drops or stalls the call (as `ask-popup` does): its stdout, and
/// how many calls it took.
fn pipe_at_once(
    zellij: &Zellij,
    name: &str,
    args: &str,
    answered: impl Fn(&str) -> bool,
) -> (Option<String>, usize) {
    for attempt in 1..=5 {
        let mut command = zellij.zellij();
        command.args(["pipe", "--plugin", "ask-popup", "--name", name]);
        if !args.is_empty() {
            command.args(["--args", args]);
        }
        let mut child = command
            .args(["--", "now"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run zellij pipe");
        let until = Instant::now() + Duration::from_secs(10);
        while matches!(child.try_wait(), Ok(None)) && Instant::now() < until {
            thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let mut out = String::new();
        if let Some(mut stdout) = child.stdout.take() {
            let _ = std::io::Read::read_to_string(&mut stdout, &mut out);
        }
        let _ = child.wait();
        if answered(&out) {
            return (Some(out), attempt);
        }
        thread::sleep(Duration::from_millis(200));
    }
    (None, 5)
}

/// The plugin's status with what it holds (`held=1`), if it answered: `None` when five calls in
/// a row went unanswered, and how many calls it took.
fn status_held(zellij: &Zellij) -> (Option<Value>, usize) {
    let (out, calls) = pipe_at_once(zellij, "status", "held=1", |out| {
        serde_json::from_str::<Value>(out).is_ok_and(|v| v.get("pending").is_some())
    });
    (out.and_then(|out| serde_json::from_str(&out).ok()), calls)
}

#[test]
fn a_soak_of_agents_asking_and_every_ending_keeps_every_invariant() {
    let minutes = setting("SOAK_MINUTES", 1.0);
    let agents = setting("SOAK_AGENTS", 4.0).max(1.0) as usize;
    // Read whole: a seed is a 64-bit number, which a float would round.
    let seed = std::env::var("SOAK_SEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    let seed = if seed == 0 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
            | 1
    } else {
        seed
    };
    eprintln!("soak: {minutes} minute(s), {agents} agents, SOAK_SEED={seed}");
    let mut dice = Dice(seed);
    let budget = Duration::from_secs_f64(minutes * 60.0);
    let zellij = Zellij::start_with(
        Options::default()
            .with_listener()
            .with_deadline(budget + Duration::from_secs(300)),
    );
    assert!(heard(&zellij).is_empty());
    let dir = zellij.scratch();
    let panes: Vec<u32> = (0..agents)
        .map(|i| new_pane(&zellij, &format!("agent{i}"), "exec sleep 100000"))
        .collect();
    let oversized = format!(
        "{{\"questions\":[{{\"question\":\"Big?\",\"header\":\"H\",\"options\":[\"A\",\"B\"]}}],\"pad\":\"{}\"}}",
        "x".repeat(1024 * 1024)
    );
    std::fs::write(dir.join("oversized.json"), &oversized).expect("write the oversized payload");
    let timed = json!({"questions": serde_json::from_str::<Value>(DB).unwrap()["questions"], "timeout": 1500})
        .to_string();

    let spawn = |id: &str, agent: usize, payload: &str, out: &PathBuf| -> Child {
        let mut cmd = zellij.in_session(&command());
        cmd.args(["ask", "--agent", &format!("agent{agent}"), "--id", id])
            .env("ZELLIJ_PANE_ID", panes[agent].to_string())
            .stdout(std::fs::File::create(out).expect("the output file"))
            .stderr(Stdio::null());
        if payload == "@oversized" {
            cmd.arg(dir.join("oversized.json"));
        } else {
            cmd.arg(payload);
        }
        cmd.spawn().expect("run ask-popup ask")
    };

    let started = Instant::now();
    let mut next = 0usize;
    let mut live: Vec<Asked> = Vec::new();
    let mut counts: BTreeMap<Ending, usize> = BTreeMap::new();
    // How each request was meant to end, by id: said beside a blocked pair left open.
    let mut endings: HashMap<String, Ending> = HashMap::new();
    let mut violations: Vec<String> = Vec::new();
    let mut requests = 0usize;
    let mut second_client = false;
    let mut clients_changed = 0usize;
    let mut last_client_change = Instant::now();
    let mut held_start = None;
    let mut held_peak = 0u64;
    let mut drops_absorbed = 0usize;
    let mut last_close: Option<Instant> = None;
    let mut unanswered_status = 0usize;
    let mut brought_back = 0usize;
    let mut hidden_since: Option<Instant> = None;
    // The question the status last said was shown, and since when (at least).
    let mut shown_since: Option<(String, Instant)> = None;

    loop {
        let running = started.elapsed() < budget;
        if !running && second_client {
            let _ = zellij.tmux_run(&["kill-session", "-t", SECOND]);
            second_client = false;
            clients_changed += 1;
        }
        // Every idle agent asks its next question.
        for agent in 0..agents {
            if !running || live.iter().any(|a| a.agent == agent && !a.again) {
                continue;
            }
            let ending = ENDINGS[dice.below(ENDINGS.len())];
            next += 1;
            let id = format!("soak-{next}");
            let out = dir.join(format!("{id}.out"));
            let payload = match ending {
                Ending::Malformed => "[1]".to_owned(),
                Ending::Oversized => "@oversized".to_owned(),
                Ending::Timeout => timed.clone(),
                _ => DB.to_owned(),
            };
            let child = spawn(&id, agent, &payload, &out);
            *counts.entry(ending).or_default() += 1;
            endings.insert(id.clone(), ending);
            requests += 1;
            let mut allowed = expected(ending);
            // A question sent as the popup closes may still reach the closing instance.
            if last_close.is_some_and(|at| at.elapsed() < Duration::from_secs(3)) {
                allowed.push("dismissed");
            }
            live.push(Asked {
                id,
                agent,
                ending,
                allowed,
                child,
                out,
                acted: false,
                acted_at: None,
                again: false,
            });
        }
        // Now and then a second client attaches, or leaves.
        let stay = if second_client { 10 } else { 20 };
        if running && last_client_change.elapsed() > Duration::from_secs(stay) {
            if second_client {
                let _ = zellij.tmux_run(&["kill-session", "-t", SECOND]);
            } else {
                zellij.attach_second_client();
            }
            second_client = !second_client;
            clients_changed += 1;
            last_client_change = Instant::now();
        }

        let (status, calls) = status_held(&zellij);
        drops_absorbed += calls - 1;
        let Some(status) = status else {
            // Zellij's CLI stalled five times in a row: look again (the deadline still holds).
            unanswered_status += 1;
            assert!(
                started.elapsed() < budget + Duration::from_secs(180),
                "the status pipe stopped answering\n{}",
                zellij.log_tail(40)
            );
            continue;
        };
        let held = status["held"]["payloadBytes"].as_u64().unwrap_or(0)
            + status["held"]["replyBytes"].as_u64().unwrap_or(0);
        held_start.get_or_insert(held);
        held_peak = held_peak.max(held);
        let pending: Vec<&Value> = status["pending"].as_array().into_iter().flatten().collect();
        let shown = pending
            .iter()
            .find(|p| p["shown"] == true)
            .and_then(|p| p["requestId"].as_str())
            .map(str::to_owned);
        if shown_since.as_ref().map(|(id, _)| Some(id)) != Some(shown.as_ref()) {
            shown_since = shown.clone().map(|id| (id, Instant::now()));
        }
        // The key guard (400 ms from when a question first shows) is over for it, and it showed
        // after the popup was last closed: until the popup comes back, what the screen and the
        // closing instance still say is the question that was closed, and keys would reach the
        // next question (seen once in a 30-minute run: a Chat's keys answered the question
        // shown after a close).
        let past_guard = shown_since.as_ref().is_some_and(|(_, at)| {
            at.elapsed() > Duration::from_millis(600)
                && last_close.is_none_or(|closed| *at > closed)
        });

        // A popup the plugin shows but the first client's screen does not (seen after a second
        // client came and went) is brought back as a person does: the `show` pipe, which the
        // "bring the popup back" key sends.
        let on_screen = zellij.screen().contains(" asks");
        if shown.is_some() && !second_client && !on_screen {
            let since = *hidden_since.get_or_insert_with(Instant::now);
            if since.elapsed() > Duration::from_secs(3) {
                let (_, calls) = pipe_at_once(&zellij, "show", "", |_| true);
                drops_absorbed += calls - 1;
                brought_back += 1;
                hidden_since = None;
            }
        } else {
            hidden_since = None;
        }

        // The agents, then the user, end what is theirs to end.
        let mut again = Vec::new();
        let mut close = false;
        // A call asked again whose second call has ended (the first reached the plugin last,
        // after Zellij dropped it and `ask-popup ask` asked again, and replaced the second) is
        // the user's to answer like any other.
        let asked_again: Vec<String> = live
            .iter()
            .filter(|a| !a.again)
            .map(|a| a.id.clone())
            .collect();
        for asked in live
            .iter_mut()
            .filter(|a| !a.again || !asked_again.contains(&a.id))
        {
            let is_pending = pending.iter().any(|p| p["requestId"] == asked.id.as_str());
            let is_shown = shown.as_deref() == Some(asked.id.as_str());
            let agents_turn = matches!(
                asked.ending,
                Ending::Term | Ending::Cancel | Ending::AskAgain | Ending::Kill
            );
            if agents_turn && is_pending && !asked.acted {
                asked.acted = true;
                match asked.ending {
                    Ending::Term => {
                        let _ = Command::new("kill")
                            .args(["-TERM", &asked.child.id().to_string()])
                            .status();
                    }
                    Ending::Kill => {
                        let _ = asked.child.kill();
                    }
                    Ending::Cancel => {
                        let args = format!("pane_id={},id={}", panes[asked.agent], asked.id);
                        let (out, calls) =
                            pipe_at_once(&zellij, "cancel", &args, |o| o.contains("withdrawn"));
                        drops_absorbed += calls - 1;
                        if out.is_none() {
                            violations
                                .push(format!("{}: the cancel pipe never answered", asked.id));
                            // The user answers it instead, so the soak goes on.
                            asked.ending = Ending::Answer;
                            asked.allowed.extend(["answered", "aborted"]);
                        }
                    }
                    _ => {
                        // Whichever of the two calls with this id reaches the plugin last
                        // replaces the other: one ends superseded, the other is answered (or
                        // both answered, when the first was answered before the second came).
                        asked.again = true;
                        asked.allowed = vec!["superseded", "answered"];
                        again.push((asked.id.clone(), asked.agent));
                    }
                }
                continue;
            }
            // The user's turn: a killed agent's question is answered like any other, once it
            // has shown long enough that its key guard is over (a key is never dropped as stray
            // here). A key that did nothing in five seconds (Zellij dropped the action) is
            // pressed again, as a person would: not sooner, since a slow key that then arrives
            // would answer the next question.
            let users_turn = matches!(
                asked.ending,
                Ending::Answer | Ending::Decline | Ending::Chat | Ending::ClosePopup
            ) || (asked.ending == Ending::Kill && asked.acted)
                || asked.again;
            let stale = asked
                .acted_at
                .is_none_or(|at| at.elapsed() > Duration::from_secs(5));
            // Keys are sent to the popup's pane, and each client's instance of the plugin
            // takes them for the question it shows: while a second client is attached, what it
            // shows can differ, so the user answers only with one client (the agents' endings,
            // timeouts and withdrawals go on meanwhile).
            if !(users_turn && is_shown && stale && past_guard) || close || second_client {
                continue;
            }
            if !zellij
                .screen()
                .contains(&format!("agent{} asks", asked.agent))
            {
                continue;
            }
            asked.acted_at = Some(Instant::now());
            match asked.ending {
                Ending::Answer | Ending::Kill | Ending::AskAgain => zellij.send_keys(&["Enter"]),
                Ending::Decline => zellij.send_keys(&["Esc"]),
                Ending::Chat => {
                    // Enter only once the row is focused: were "4" dropped as stray, Enter
                    // would pick the first option.
                    zellij.send_keys(&["4"]);
                    if shows_soon(&zellij, "❯ 4. Chat about this") {
                        zellij.send_keys_at_once(&["Enter"]);
                    }
                }
                _ => close = true,
            }
        }
        for (id, agent) in again {
            let out = dir.join(format!("{id}.again.out"));
            let child = spawn(&id, agent, DB, &out);
            live.push(Asked {
                id,
                agent,
                ending: Ending::Answer,
                allowed: vec!["answered", "superseded"],
                child,
                out,
                acted: false,
                acted_at: None,
                again: false,
            });
        }
        if close {
            if let Some(plugin) = zellij.plugin_pane_id() {
                for asked in live.iter_mut() {
                    if !asked.allowed.contains(&"dismissed") {
                        asked.allowed.push("dismissed");
                    }
                }
                let _ = zellij.action(&["close-pane", "--pane-id", &format!("plugin_{plugin}")]);
                last_close = Some(Instant::now());
                // Whatever shows next is seen anew, even a question asked again with an id
                // that showed before.
                shown_since = None;
            }
        }

        // Every caller that ended: exactly one envelope, its own, of a kind it may end with.
        let mut i = 0;
        while i < live.len() {
            let ended = matches!(live[i].child.try_wait(), Ok(Some(_)));
            let killed = live[i].ending == Ending::Kill && live[i].acted;
            let still_asked = pending
                .iter()
                .any(|p| p["requestId"] == live[i].id.as_str());
            if !ended || (killed && still_asked) {
                i += 1;
                continue;
            }
            let asked = live.remove(i);
            if killed {
                // No envelope to read: its caller is gone, and its question has left.
                continue;
            }
            let out = std::fs::read_to_string(&asked.out).unwrap_or_default();
            let lines: Vec<&str> = out.lines().collect();
            let envelope: Option<Value> = match lines.as_slice() {
                [line] => serde_json::from_str(line).ok(),
                _ => None,
            };
            match envelope {
                None => violations.push(format!("{}: not one envelope: {out:?}", asked.id)),
                Some(envelope) => {
                    let got = kind(&envelope);
                    let id = envelope["details"]["requestId"].as_str().unwrap_or("");
                    if id != asked.id {
                        violations.push(format!("{}: the envelope of {id:?}", asked.id));
                    }
                    if !asked.allowed.contains(&got) {
                        violations.push(format!(
                            "{} ({:?}): ended {got}, not {:?}",
                            asked.id, asked.ending, asked.allowed
                        ));
                    }
                }
            }
        }
        if !running && live.is_empty() && pending.is_empty() {
            break;
        }
        assert!(
            started.elapsed() < budget + Duration::from_secs(180),
            "the soak never wound down: {} callers left ({:?}); status {status}\n{}",
            live.len(),
            live.iter().map(|a| (&a.id, a.ending)).collect::<Vec<_>>(),
            zellij.screen()
        );
        thread::sleep(Duration::from_millis(150));
    }

    // At the end: nothing pending, no popup, every title back, one `false` for every `true`,
    // no panic, memory back to where it was, no caller or pipe left running.
    let status = (0..5)
        .find_map(|_| status_held(&zellij).0)
        .unwrap_or_else(|| panic!("the status pipe never answered at the end"));
    if status["pending"] != json!([]) || status["visible"] != false {
        violations.push(format!("left at the end: {status}"));
    }
    let held_end = status["held"]["payloadBytes"].as_u64().unwrap_or(0)
        + status["held"]["replyBytes"].as_u64().unwrap_or(0);
    if status["held"]["payloadBytes"] != 0 {
        violations.push(format!("payloads still held: {status}"));
    }
    if held_peak > (8 + 1) * 1024 * 1024 {
        violations.push(format!("held {held_peak} bytes at its peak"));
    }
    let until = zellij.until(ANSWER);
    loop {
        let titles: HashMap<u32, String> = terminal_panes(&zellij).into_iter().collect();
        let wrong: Vec<(u32, Option<&String>)> = panes
            .iter()
            .enumerate()
            .map(|(i, pane)| (*pane, titles.get(pane), format!("agent{i}")))
            .filter(|(_, title, name)| title.map(String::as_str) != Some(name.as_str()))
            .map(|(pane, title, _)| (pane, title))
            .collect();
        if wrong.is_empty() {
            break;
        }
        if Instant::now() >= until {
            violations.push(format!("titles not restored: {wrong:?}"));
            break;
        }
        thread::sleep(Duration::from_millis(200));
    }
    // The first client's listener heard everything from the start: the instance that heard
    // most. (Its whole list is too large to send after a long run: it sends the balance.)
    match listener_balance(&zellij, Duration::from_secs(30)) {
        // A client whose attach lost its connection while its plugin instances loaded can
        // leave the listener's instance for it waiting for its permission answer, and Zellij
        // then holds every message to the listener (not to ask-popup): the balance cannot be
        // read, which says nothing of ask-popup.
        Err(none) if zellij.attaches_lost() > 0 => eprintln!(
            "soak: the listener's balance was not read ({none}), after {} lost attach(es)",
            zellij.attaches_lost()
        ),
        Err(none) => violations.push(none),
        Ok(balance) => {
            for (key, count) in balance["balance"].as_object().into_iter().flatten() {
                if count != 0 {
                    violations.push(format!("{key}: {count:+} true without false"));
                }
            }
            for (key, count) in balance["open"].as_object().into_iter().flatten() {
                let id = key.rsplit(' ').next().unwrap_or("").trim_matches('"');
                eprintln!(
                    "soak: blocked pair left open: {key} {count:+} (meant to end as {:?})",
                    endings.get(id)
                );
            }
        }
    }
    // Zellij logs a plugin's panic as "PANIC IN PLUGIN!"; the plugin's own trace lines
    // (which quote what agents sent) are not evidence.
    let panicked = zellij.log().lines().any(|line| {
        !line.contains("ask-popup trace:")
            && (line.contains("panicked") || line.contains("PANIC IN PLUGIN"))
    });
    if panicked {
        violations.push("the plugin panicked (Zellij's log)".to_owned());
    }
    let left = zellij.left_running();
    if !left.is_empty() {
        violations.push(format!("left running: {left:?}"));
    }

    println!(
        "\nsoak: {requests} requests from {agents} agents in {:.1} min (SOAK_SEED={seed})",
        started.elapsed().as_secs_f64() / 60.0
    );
    println!("| ending | requests |\n| --- | --- |");
    for (ending, n) in &counts {
        println!("| {ending:?} | {n} |");
    }
    println!("| second client attached or detached | {clients_changed} |");
    println!("| Zellij CLI calls asked again (dropped or stalled) | {drops_absorbed} |");
    println!(
        "| bytes held (payloads + kept replies): start / peak / end | {} / {held_peak} / {held_end} |",
        held_start.unwrap_or(0)
    );
    println!("| status calls unanswered five times in a row | {unanswered_status} |");
    println!("| popup hidden on the first client, brought back with `show` | {brought_back} |");
    println!("| invariant violations | {} |", violations.len());
    assert!(
        violations.is_empty(),
        "violations:\n{}",
        violations.join("\n")
    );
}

/// Whether the popup shows `text` within a few seconds.
fn shows_soon(zellij: &Zellij, text: &str) -> bool {
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        if zellij.screen().contains(text) {
            return true;
        }
        thread::sleep(Duration::from_millis(100));
    }
    false
}
