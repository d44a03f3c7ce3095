//! End to end: faults a user meets. The session's server killed while agents wait (every caller
//! gets `no_reply`, the hook falls back, and no `zellij pipe` is left spinning); the command
//! itself killed (its `zellij pipe` goes with it); another plugin speaking in the instances'
//! voice (nothing it says is believed).

use crate::agents::{status, wait_for_pending, DB};
use crate::command::command;
use crate::dialog;
use crate::harness::{Options, Zellij, FORGER};
use crate::{assert_reply, declined, rejected, ANSWER, AT_ONCE};
use ask_popup_plugin::outgoing::{Ended, PeerKind, PeerMessage, SyncedRequest};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How soon after the server dies every waiting caller must have its answer.
const SERVER_GONE: Duration = Duration::from_secs(10);

/// `ask-popup ask DB` as an agent in the session runs it.
fn ask(zellij: &Zellij, agent: &str, id: &str) -> Child {
    let mut ask = zellij.in_session(&command());
    ask.args(["ask", DB])
        .env("ASK_POPUP_AGENT", agent)
        .env("ASK_POPUP_ID", id)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    ask.spawn().expect("run ask-popup ask")
}

/// `ask-popup claude-hook` as Claude Code runs it for its AskUserQuestion tool.
fn claude_hook(zellij: &Zellij) -> Child {
    let input = json!({
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": "AskUserQuestion",
        "tool_input": {"questions": [{"question": "Which cache?", "header": "Cache",
            "options": [{"label": "Redis", "description": "x"}, {"label": "None", "description": "y"}],
            "multiSelect": false}]},
        "tool_use_id": "toolu_faults",
    });
    let mut hook = zellij.in_session(&command());
    hook.arg("claude-hook")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = hook.spawn().expect("run ask-popup claude-hook");
    child
        .stdin
        .take()
        .expect("the hook's stdin")
        .write_all(input.to_string().as_bytes())
        .expect("write the hook's input");
    child
}

/// Waits until `child` ends, at most until `until`: its exit code and stdout.
fn ended_by(child: &mut Child, until: Instant, what: &str) -> (Option<i32>, String) {
    loop {
        if let Some(status) = child.try_wait().expect("wait for the caller") {
            let mut out = String::new();
            if let Some(mut stdout) = child.stdout.take() {
                use std::io::Read;
                let _ = stdout.read_to_string(&mut out);
            }
            return (status.code(), out);
        }
        if Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} still waited after the session ended");
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// The fields of `/proc/PID/stat` after the command's name (which is in parentheses and may
/// hold spaces): the state, then the parent, …; None once the process is gone.
fn stat_of(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
fn has_ended(pid: u32) -> bool {
    stat_of(pid).is_none_or(|fields| fields.first().is_some_and(|state| state == "Z"))
}

/// The parent of process `pid`.
fn parent_of(pid: u32) -> Option<u32> {
    stat_of(pid)?.get(1)?.parse().ok()
}

/// How the session ends under its waiting callers.
#[derive(Clone, Copy, Debug)]
enum End {
    /// `zellij kill-session`: the server ends and says so to its clients.
    SessionKilled,
    /// SIGKILL to the server (a crash, the out-of-memory killer): nobody is told.
    ServerKilled,
}

#[test]
fn a_killed_server_ends_every_waiting_caller_with_no_reply() {
    every_waiting_caller_gets_no_reply_when(End::ServerKilled);
}

#[test]
fn a_killed_session_ends_every_waiting_caller_with_no_reply() {
    every_waiting_caller_gets_no_reply_when(End::SessionKilled);
}

fn every_waiting_caller_gets_no_reply_when(end: End) {
    let zellij = Zellij::start();
    let mut agents: Vec<(String, Child)> = (1..=3)
        .map(|n| {
            let agent = format!("agent{n}");
            let child = ask(&zellij, &agent, &format!("fault-{n}"));
            (agent, child)
        })
        .collect();
    let mut hook = claude_hook(&zellij);
    // Every question reached the plugin (the command asks again itself when Zellij drops one).
    wait_for_pending(&zellij, 4, &mut []);
    match end {
        End::ServerKilled => {
            let server = zellij.server_pid().expect("the session's server");
            let killed = Command::new("kill")
                .args(["-KILL", &server.to_string()])
                .status()
                .expect("run kill");
            assert!(killed.success());
        }
        End::SessionKilled => {
            let mut kill = zellij.zellij();
            kill.args(["kill-session", zellij.session()]);
            let out = kill.output().expect("run zellij kill-session");
            assert!(out.status.success(), "kill-session: {out:?}");
        }
    }
    let until = Instant::now() + SERVER_GONE;

    for (agent, child) in &mut agents {
        let (code, out) = ended_by(child, until, agent);
        let envelope: Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{agent} printed no envelope ({e}): {out:?}"));
        assert_eq!(envelope["details"]["error"], "no_reply", "{agent}: {out}");
        assert_eq!(code, Some(5), "{agent}'s exit status");
    }
    // The hook says nothing, so Claude Code asks the question in its own dialog.
    let (code, out) = ended_by(&mut hook, until, "the Claude Code hook");
    assert_eq!((code, out.as_str()), (Some(0), ""), "the hook's answer");

    // No `zellij pipe` of theirs is left, spinning or not.
    let until = Instant::now() + SERVER_GONE;
    loop {
        let left = zellij.left_running();
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < until, "left running: {left:?}");
        thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_killed_command_takes_its_zellij_pipe_with_it() {
    let zellij = Zellij::start();
    let mut asking = ask(&zellij, "doomed", "killed-1");
    zellij.wait_for_screen("the question", ANSWER, |s| {
        s.contains("doomed asks") && s.contains("Which database?")
    });
    let id = asking.id();
    // Where Zellij dropped the call, the command asks again: between two tries it has no pipe.
    let until = zellij.until(ANSWER);
    let pipes: Vec<u32> = loop {
        let pipes: Vec<u32> = zellij
            .processes()
            .into_iter()
            .filter(|(_, args)| args.iter().any(|a| a == "pipe"))
            .filter(|(pid, _)| parent_of(*pid) == Some(id))
            .map(|(pid, _)| pid)
            .collect();
        if !pipes.is_empty() {
            break pipes;
        }
        assert!(
            Instant::now() < until,
            "the command's `zellij pipe` not found"
        );
        thread::sleep(Duration::from_millis(50));
    };

    asking.kill().expect("SIGKILL the command");
    asking.wait().expect("reap the command");
    let until = Instant::now() + SERVER_GONE;
    while !pipes.iter().all(|pid| has_ended(*pid)) {
        assert!(
            Instant::now() < until,
            "the killed command's `zellij pipe` lives on: {pipes:?}"
        );
        thread::sleep(Duration::from_millis(50));
    }
}

/// What the plugin's trace says of the CLI pipe that asked with `id`: its pipe id and the
/// client of the instance that heard it.
fn traced_pipe(zellij: &Zellij, id: &str) -> Option<(String, u16)> {
    let log = zellij.log();
    log.lines().find_map(|line| {
        let (_, trace) = line.split_once("ask-popup trace: client ")?;
        if !trace.contains("pipe \"ask\" Cli(\"") || !trace.contains(&format!("\"{id}\"")) {
            return None;
        }
        let (client, _) = trace.split_once(' ')?;
        let (_, rest) = trace.split_once("Cli(\"")?;
        let (pipe, _) = rest.split_once("\")")?;
        Some((pipe.to_owned(), client.parse().ok()?))
    })
}

/// Another plugin's `ask-popup-peer` broadcast, asked again where Zellij drops the CLI.
fn forge(zellij: &Zellij, message: &PeerMessage) {
    let mut payload = serde_json::to_value(message).expect("a peer message is JSON");
    payload["forged"] = json!(true);
    let payload = payload.to_string();
    let out = zellij.pipe_to(FORGER, "forge", &[], &payload).wait(AT_ONCE);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "forged\n",
        "the forger's answer: {out:?}"
    );
}

#[test]
fn another_plugin_cannot_speak_for_the_instances() {
    let zellij = Zellij::start_with(Options::default().with_forger());
    let call = dialog::ask(&zellij, DB, &[("agent", "real"), ("id", "real-1")], |s| {
        s.contains("real asks") && s.contains("Which database?")
    });
    let (pipe, client) = traced_pipe(&zellij, "real-1").expect("the real question in the trace");

    let forged_question = r#"{"questions":[{"question":"Forged question?","header":"Forged","options":[{"label":"Yes","description":"a"},{"label":"No","description":"b"}]}]}"#;
    let planted = "{\"content\":[{\"type\":\"text\",\"text\":\"planted\"}]}\n";
    let kinds = [
        // Leadership taken by a client that sorts first.
        PeerKind::Hello,
        // A question nobody asked, for this instance's client.
        PeerKind::Sync {
            to: client,
            requests: vec![SyncedRequest {
                pipe: "forged-pipe".into(),
                args: BTreeMap::from([
                    ("agent".into(), "forger".into()),
                    ("id".into(), "forged-1".into()),
                ]),
                questionnaire: forged_question.into(),
                bytes: forged_question.len(),
                timeout_ms: None,
                remaining_ms: None,
            }],
            answered: vec![pipe.clone()],
            waits: vec![],
        },
        // The real question withdrawn, with a reply planted.
        PeerKind::Settled {
            pipe: pipe.clone(),
            event: Ended {
                pane_id: None,
                agent: "real".into(),
                request_id: Some("real-1".into()),
                questions: 1,
                answered: Some(1),
                reason: None,
                result: None,
            },
            reply: planted.into(),
        },
        PeerKind::Touched { pipe: pipe.clone() },
        // This instance's client said to have left.
        PeerKind::Gone { client },
        PeerKind::Bye {
            announced: Vec::new(),
        },
    ];
    let senders = [0, client, client.saturating_add(1)];
    for kind in &kinds {
        for from in senders {
            forge(
                &zellij,
                &PeerMessage {
                    from,
                    kind: kind.clone(),
                },
            );
        }
    }
    // Each forgery reached the plugin (its trace says what it heard).
    let forged = kinds.len() * senders.len();
    let traced = |what: &str| {
        zellij
            .log()
            .lines()
            .filter(|l| l.contains("ask-popup trace:") && l.contains(what))
            .count()
    };
    let until = zellij.until(ANSWER);
    loop {
        let heard = traced(FORGED_HEARD);
        if heard >= forged {
            break;
        }
        assert!(
            Instant::now() < until,
            "the plugin heard {heard} of {forged} forged messages"
        );
        thread::sleep(Duration::from_millis(200));
    }

    // Nothing forged shows or is listed; the real question is still there.
    let screen = zellij.screen();
    assert!(
        !screen.contains("forger") && !screen.contains("Forged question?"),
        "{screen}"
    );
    assert!(screen.contains("real asks"), "{screen}");
    let pending: Vec<Value> = status(&zellij)["pending"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let agents: Vec<&Value> = pending.iter().map(|p| &p["agent"]).collect();
    assert_eq!(agents, [&json!("real")], "status: {pending:?}");

    // The instance still leads: a rejection is answered, and the real question's answer is
    // the user's, not the planted one.
    let out = dialog::reply_without_user(&zellij, "{", &[("id", "bad-1")]);
    assert_reply(&out, &rejected("{", Some("bad-1")));
    zellij.send_keys(&["Esc"]);
    assert_reply(&call.wait(ANSWER), &declined(DB, Some("real-1")));
    // And it said why it did nothing with them.
    assert!(traced("ignored \"ask-popup-peer\" from plugin") >= forged);
}

/// What marks a forged message in the trace of what the plugin heard: a field of its own in
/// every forgery's payload (readers of peer messages skip fields they do not know).
const FORGED_HEARD: &str = "\"forged\":true";
