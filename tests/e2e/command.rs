//! End to end: the `ask-popup` command, as agents run it. It asks from a Zellij pane and prints
//! the envelope with its exit status; outside Zellij or without `zellij` it answers at once; a
//! command that is stopped, or whose agent dies, takes its question back; `status` and `show`
//! print what the pipes answer; a question left waiting runs the user's notify command once,
//! one answered first none, and a notify command that hangs or fails changes nothing.

use crate::agents::{
    blocked, heard, heard_of_one_question, marked, new_pane, pick_sqlite, shell_quote, status,
    submitted, wait_for_title, zellij_on_path, DB,
};
use crate::harness::{outside_zellij, Options, Zellij};
use crate::ANSWER;
use ask_popup_protocol::envelope::Answer;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The `ask-popup` command of this crate (its host build).
pub(crate) fn command() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_ask-popup")).to_path_buf()
}

/// Wires `agent` as a user does, `ask-popup setup AGENT --write`, with these variables (its
/// HOME, its config dir) set.
pub(crate) fn setup_write(agent: &str, vars: &[(&str, &Path)]) {
    let mut setup = Command::new(command());
    // `agent` may carry options of its own (`claude --approvals`).
    setup.arg("setup").args(agent.split(' ')).arg("--write");
    for (name, value) in vars {
        setup.env(name, value);
    }
    let out = setup.output().expect("run ask-popup setup");
    assert!(out.status.success(), "setup {agent} --write: {out:?}");
}

#[test]
fn the_command_asks_from_a_zellij_pane_and_prints_the_envelope() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    // Pretty-printed, on the command's stdin.
    let payload = serde_json::to_string_pretty(&serde_json::from_str::<Value>(DB).unwrap())
        .expect("pretty JSON");
    std::fs::write(dir.join("q.json"), &payload).expect("write the questionnaire");
    let path = zellij_on_path();
    // As an agent does on `no_reply` (exit 5), it asks again with the same id: Zellij 0.45.1
    // sometimes drops a CLI as it connects (`harness::dropped`), and the command itself asks
    // again a few times first. The rest waits in the pane.
    let command = format!(
        "cd {dir} && for attempt in 1 2 3 4 5; do \
           {path}ASK_POPUP_AGENT=asker ASK_POPUP_ID=w-1 {command} ask < q.json > out.json; \
           rc=$?; echo $attempt > attempts; [ $rc -ne 5 ] && break; \
         done; echo $rc > rc.tmp && mv rc.tmp rc; exec sleep 1000",
        dir = shell_quote(&dir.to_string_lossy()),
        command = shell_quote(&command().to_string_lossy()),
    );
    let pane = new_pane(&zellij, "agent", &command);

    zellij.wait_for_screen("the command's question", ANSWER, |s| {
        s.contains("asker asks") && s.contains("Which database?")
    });
    // It passed its pane's id: the pane is marked.
    wait_for_title(&zellij, pane, &marked("agent"));

    // The user picks SQLite; should the command have asked again meanwhile and its new question
    // come in after the answer, that one too.
    let rc = dir.join("rc");
    pick_sqlite(&zellij, "asker asks", || rc.exists());
    let out = std::fs::read_to_string(dir.join("out.json")).expect("out.json");
    let attempts = std::fs::read_to_string(dir.join("attempts")).unwrap_or_default();
    assert_eq!(
        out,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("w-1")),
        "after {} attempt(s)",
        attempts.trim()
    );
    assert_eq!(std::fs::read_to_string(rc).expect("rc").trim(), "0");
    wait_for_title(&zellij, pane, "agent");
}

#[test]
fn the_command_outside_zellij_answers_no_ui_with_status_3() {
    let no_ui = "{\"content\":[{\"type\":\"text\",\"text\":\"Error: UI not available (not running inside Zellij, so nobody can see the questions). Ask the questions as plain chat text instead.\"}],\"details\":{\"answers\":[],\"cancelled\":true,\"error\":\"no_ui\"}}\n";
    for on_stdin in [false, true] {
        let runtime = tempfile::tempdir().expect("a runtime dir");
        let mut cmd = Command::new(command());
        cmd.arg("ask");
        if !on_stdin {
            cmd.arg(DB);
        }
        outside_zellij(&mut cmd, runtime.path());
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run the command");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            if on_stdin {
                stdin.write_all(DB.as_bytes()).expect("write stdin");
            }
        }
        let out = child.wait_with_output().expect("the command's output");
        assert_eq!(String::from_utf8_lossy(&out.stdout), no_ui);
        assert_eq!(out.status.code(), Some(3), "stderr {:?}", out.stderr);
    }
}

/// How an asking command is stopped in `a_stopped_command_withdraws_its_question`.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// SIGTERM to the command (an agent interrupted, a hook killed on its timeout).
    Terminated,
    /// SIGKILL to the shell that started it: its parent dies and cannot tell it.
    ParentKilled,
}

#[test]
fn a_terminated_command_withdraws_its_question() {
    a_stopped_command_withdraws_its_question(Stop::Terminated, "doomed");
}

#[test]
fn a_command_whose_parent_dies_withdraws_its_question() {
    a_stopped_command_withdraws_its_question(Stop::ParentKilled, "orphan");
}

fn a_stopped_command_withdraws_its_question(stop: Stop, agent: &str) {
    let zellij = Zellij::start_with(Options::default().with_listener());
    // The listener runs before anything is broadcast.
    assert!(heard(&zellij).is_empty());
    let dir = zellij.scratch();
    std::fs::write(dir.join("q.json"), DB).expect("write the questionnaire");
    let bin_dir = zellij_on_path();
    // A shell of its own (the agent) starts the command, recording both pids and, when the
    // command ends while the agent lives, its exit status; the pane stays open.
    let agent_script = format!(
        "echo $$ > agent.pid; {bin_dir}ASK_POPUP_AGENT={agent} ASK_POPUP_ID=k-1 {command} ask < q.json > out.json & \
         echo $! > pid; wait $!; echo $? > rc.tmp; mv rc.tmp rc",
        command = shell_quote(&command().to_string_lossy()),
    );
    let line = format!(
        "cd {dir} || exit 1; bash -c {script}; exec sleep 1000",
        dir = shell_quote(&dir.to_string_lossy()),
        script = shell_quote(&agent_script),
    );
    let pane = new_pane(&zellij, agent, &line);
    zellij.wait_for_screen("the command's question", ANSWER, |s| {
        s.contains(&format!("{agent} asks")) && s.contains("Which database?")
    });
    wait_for_title(&zellij, pane, &marked(agent));

    let (signal, pid_file) = match stop {
        Stop::Terminated => ("-TERM", "pid"),
        Stop::ParentKilled => ("-KILL", "agent.pid"),
    };
    let pid = std::fs::read_to_string(dir.join(pid_file)).expect("the pid");
    let killed = Command::new("kill")
        .args([signal, pid.trim()])
        .status()
        .expect("run kill");
    assert!(killed.success());

    // The command printed `aborted` (exit 1 where its agent lived to see it), and nothing is
    // left in the popup.
    let until = zellij.until(ANSWER);
    let out = loop {
        let out = std::fs::read_to_string(dir.join("out.json")).unwrap_or_default();
        if out.ends_with('\n') {
            break out;
        }
        assert!(
            Instant::now() < until,
            "the stopped command never ended ({stop:?})"
        );
        thread::sleep(Duration::from_millis(100));
    };
    let out: Value = serde_json::from_str(&out).expect("the command printed JSON");
    assert_eq!(out["details"]["error"], "aborted", "{stop:?}");
    if let Stop::Terminated = stop {
        let rc = dir.join("rc");
        while !rc.exists() {
            assert!(Instant::now() < until, "no exit status");
            thread::sleep(Duration::from_millis(100));
        }
        assert_eq!(std::fs::read_to_string(&rc).expect("rc").trim(), "1");
    }
    zellij.wait_for_screen("the question gone", ANSWER, |s| {
        !s.contains("Which database?")
    });
    assert_eq!(status(&zellij), json!({"pending": [], "visible": false}));
    // The pane's own name comes back, and the blocked pair is closed.
    wait_for_title(&zellij, pane, agent);
    let heard = heard_of_one_question(&zellij, "ask-popup:cancelled");
    let blocked_events: Vec<&Value> = heard
        .iter()
        .filter(|(name, _)| name == "ask-popup:blocked")
        .map(|(_, payload)| payload)
        .collect();
    assert_eq!(
        blocked_events,
        [
            &blocked(true, pane, agent, 1, "k-1"),
            &blocked(false, pane, agent, 0, "k-1")
        ]
    );
    let cancelled = heard
        .iter()
        .find(|(name, _)| name == "ask-popup:cancelled")
        .map(|(_, payload)| payload["reason"].clone());
    assert_eq!(cancelled, Some(json!("aborted")));
}

#[test]
fn status_and_show_print_what_the_pipes_answer() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let line = format!(
        "cd {dir} || exit 1; {bin_dir}{command} status > status.json; echo $? > status.rc; \
         {bin_dir}{command} show > show.out; echo $? > show.rc.tmp && mv show.rc.tmp show.rc; \
         exec sleep 1000",
        dir = shell_quote(&dir.to_string_lossy()),
        bin_dir = zellij_on_path(),
        command = shell_quote(&command().to_string_lossy()),
    );
    new_pane(&zellij, "scripts", &line);
    let until = zellij.until(ANSWER);
    while !dir.join("show.rc").exists() {
        assert!(Instant::now() < until, "status and show never ended");
        thread::sleep(Duration::from_millis(100));
    }
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert_eq!(read("status.rc").trim(), "0");
    assert_eq!(
        serde_json::from_str::<Value>(&read("status.json")).expect("status printed JSON"),
        json!({"pending": [], "visible": false})
    );
    assert_eq!(read("show.rc").trim(), "0");
    assert_eq!(read("show.out"), "");
}

#[test]
fn the_command_without_zellij_on_path_answers_zellij_not_found_with_status_4() {
    let out = Command::new(command())
        .args(["ask", DB])
        .env("ZELLIJ", "0")
        .env("PATH", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .expect("run the command");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        ask_popup_protocol::envelope::host_error(
            ask_popup_protocol::envelope::ErrorCode::ZellijNotFound,
            None
        )
    );
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn the_command_rejects_an_invalid_questionnaire_at_once_with_status_1() {
    let five = format!(
        "{{\"questions\":[{}]}}",
        (0..5)
            .map(|i| format!(
                "{{\"question\":\"Q{i}?\",\"header\":\"H\",\"options\":[\"A\",\"B\"]}}"
            ))
            .collect::<Vec<_>>()
            .join(",")
    );
    let runtime = tempfile::tempdir().expect("a runtime dir");
    let out = outside_zellij(&mut Command::new(command()), runtime.path())
        .args(["ask", "--id", "v-1", &five])
        .stdin(Stdio::null())
        .output()
        .expect("run the command");
    let error = ask_popup_protocol::request::parse(&five).expect_err("five questions");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        ask_popup_protocol::envelope::rejection(&error, Some("v-1"))
    );
    assert_eq!(out.status.code(), Some(1));
}

/// Waits until a command ends (`what` says which, should it not): its exit status.
fn exit_of(
    zellij: &Zellij,
    child: &mut std::process::Child,
    what: &str,
) -> std::process::ExitStatus {
    let until = zellij.until(ANSWER);
    loop {
        if let Some(status) = child.try_wait().expect("the command's status") {
            return status;
        }
        assert!(
            Instant::now() < until,
            "{what}; screen:\n{}",
            zellij.screen()
        );
        thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until a command started with its stdout piped ends (`what` says which, should it not):
/// its exit status and what it printed.
fn output_of(
    zellij: &Zellij,
    child: &mut std::process::Child,
    what: &str,
) -> (std::process::ExitStatus, String) {
    let status = exit_of(zellij, child, what);
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().expect("stdout"), &mut out)
        .expect("read the envelope");
    (status, out)
}

/// `ask-popup status` as a script runs it (it asks again when Zellij drops its call).
fn command_status(zellij: &Zellij) -> Value {
    let out = zellij
        .in_session(&command())
        .arg("status")
        .output()
        .expect("run ask-popup status");
    assert!(out.status.success(), "ask-popup status: {out:?}");
    serde_json::from_slice(&out.stdout).expect("status is JSON")
}

#[test]
fn a_closed_popup_stays_closed_for_every_waiting_command() {
    // Several agents wait; the user closes the popup, three times over. Closing unloads the
    // plugin, and a reply Zellij loses on the way out makes its command ask again, which loads a
    // fresh plugin: each command must still end with one `dismissed`, its own, and the question
    // must not come back.
    const AGENTS: usize = 3;
    let zellij = Zellij::start();
    for round in 0..3 {
        let mut commands: Vec<std::process::Child> = (0..AGENTS)
            .map(|i| {
                zellij
                    .in_session(&command())
                    .args(["ask", "--agent", &format!("agent{i}")])
                    .args(["--id", &format!("close-{round}-{i}"), DB])
                    .stdout(Stdio::piped())
                    .spawn()
                    .expect("run ask-popup ask")
            })
            .collect();
        let until = zellij.until(ANSWER);
        while command_status(&zellij)["pending"].as_array().map(Vec::len) != Some(AGENTS) {
            assert!(
                Instant::now() < until,
                "round {round}: the questions never all arrived"
            );
            thread::sleep(Duration::from_millis(200));
        }
        let plugin = zellij.plugin_pane(ANSWER);
        let out = zellij.action(&["close-pane", "--pane-id", &plugin]);
        assert!(out.status.success(), "close-pane: {out:?}");
        for (i, command) in commands.iter_mut().enumerate() {
            let (status, out) = output_of(
                &zellij,
                command,
                &format!("round {round}: agent{i} never ended"),
            );
            assert_eq!(out.lines().count(), 1, "round {round}, agent{i}: {out:?}");
            let envelope: Value = serde_json::from_str(&out).expect("an envelope");
            assert_eq!(
                envelope["details"]["error"], "dismissed",
                "round {round}, agent{i}"
            );
            assert_eq!(
                envelope["details"]["requestId"],
                format!("close-{round}-{i}"),
                "round {round}, agent{i}"
            );
            assert_eq!(status.code(), Some(1), "round {round}, agent{i}");
        }
        // Nothing came back: no question waits, and the popup shows none.
        assert_eq!(
            command_status(&zellij)["pending"],
            json!([]),
            "round {round}"
        );
        assert!(
            !zellij.screen().contains("Which database?"),
            "round {round}: {}",
            zellij.screen()
        );
    }
}

#[test]
fn a_caller_asking_again_after_the_popup_closed_gets_dismissed_not_the_question() {
    // The case closing the popup must survive, made certain: the caller's CLI is gone when the
    // popup closes (Zellij dropped it, or lost the reply as the plugin unloaded), so the
    // `dismissed` reaches nobody; the caller asks again with its id, which loads a fresh plugin.
    let zellij = Zellij::start();
    let mut first = zellij
        .zellij()
        .args(["pipe", "--plugin", "ask-popup", "--name", "ask"])
        .args(["--args", "agent=again,id=closed-1", "--", DB])
        .stdout(Stdio::null())
        .spawn()
        .expect("run zellij pipe");
    let until = zellij.until(ANSWER);
    while command_status(&zellij)["pending"].as_array().map(Vec::len) != Some(1) {
        assert!(Instant::now() < until, "the question never arrived");
        thread::sleep(Duration::from_millis(200));
    }
    first.kill().expect("stop the first call");
    first.wait().expect("the first call ends");
    let plugin = zellij.plugin_pane(ANSWER);
    let out = zellij.action(&["close-pane", "--pane-id", &plugin]);
    assert!(out.status.success(), "close-pane: {out:?}");
    let until = zellij.until(ANSWER);
    while zellij.plugin_pane_id().is_some() {
        assert!(Instant::now() < until, "the popup never closed");
        thread::sleep(Duration::from_millis(100));
    }

    let mut again = zellij
        .in_session(&command())
        .args(["ask", "--agent", "again", "--id", "closed-1", DB])
        .stdout(Stdio::piped())
        .spawn()
        .expect("run ask-popup ask");
    let (status, out) = output_of(
        &zellij,
        &mut again,
        "the question came back instead of its reply",
    );
    let envelope: Value = serde_json::from_str(&out).expect("an envelope");
    assert_eq!(envelope["details"]["error"], "dismissed", "{out}");
    assert_eq!(envelope["details"]["requestId"], "closed-1");
    assert_eq!(status.code(), Some(1));
    assert_eq!(command_status(&zellij)["pending"], json!([]));
}

#[test]
fn an_id_holding_commas_comes_back_intact() {
    let zellij = Zellij::start();
    let id = "job=7,q1,%2C";
    let mut asking = zellij
        .in_session(&command())
        .args(["ask", "--agent", "ids", "--id", id, DB])
        .stdout(Stdio::piped())
        .spawn()
        .expect("run ask-popup ask");
    zellij.wait_for_screen("the question", ANSWER, |s| {
        s.contains("ids asks") && s.contains("Which database?")
    });
    zellij.send_keys(&["Enter"]);
    let (_, out) = output_of(&zellij, &mut asking, "the command never ended");
    assert_eq!(out, submitted(DB, &[(0, Answer::Option(0))], &[], Some(id)));
}

/// A notify command for the tests, run from `dir`: it counts its runs in `runs` (a line each),
/// keeps what it read on stdin as `doc.json`, then does `then`.
pub(crate) fn notify_command(dir: &Path, then: &str) -> String {
    format!(
        "cd {dir} && echo run >> runs && cat > doc.tmp && mv doc.tmp doc.json{then}",
        dir = shell_quote(&dir.to_string_lossy()),
    )
}

/// `ask-popup ask` of DB as `agent` with id `id`, from `pane` (as if run there), the notify
/// command and its delay set in its environment.
pub(crate) fn ask_notifying(
    zellij: &Zellij,
    agent: &str,
    id: &str,
    pane: Option<u32>,
    notify: &str,
    delay: &str,
) -> std::process::Child {
    let mut asking = zellij.in_session(&command());
    asking
        .args(["ask", "--agent", agent, "--id", id, DB])
        .env(ask_popup::notify::COMMAND_VAR, notify)
        .env(ask_popup::notify::DELAY_VAR, delay)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(pane) = pane {
        asking.env("ZELLIJ_PANE_ID", pane.to_string());
    }
    asking.spawn().expect("run ask-popup ask")
}

/// Waits until a command started by `ask_notifying` ends and its stdout and stderr are closed:
/// its exit status, stdout and stderr. Their ends must come with the command's: nothing it
/// started (the notify command) may hold them open.
pub(crate) fn ended(
    zellij: &Zellij,
    child: &mut std::process::Child,
    what: &str,
) -> (std::process::ExitStatus, String, String) {
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        let (tx, rx) = std::sync::mpsc::channel();
        thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            let _ = tx.send(text);
        });
        rx
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as _));
    let status = exit_of(zellij, child, what);
    let closed = |rx: std::sync::mpsc::Receiver<String>, which: &str| {
        rx.recv_timeout(Duration::from_secs(5)).unwrap_or_else(|_| {
            panic!("the command ended but its {which} stayed open (held by the notify command?)")
        })
    };
    (status, closed(stdout, "stdout"), closed(stderr, "stderr"))
}

/// Waits until the file at `path` exists (its text), or panics saying `what`.
pub(crate) fn wait_for_file(zellij: &Zellij, path: &Path, what: &str) -> String {
    let until = zellij.until(ANSWER);
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            return text;
        }
        assert!(
            Instant::now() < until,
            "{what}; screen:\n{}",
            zellij.screen()
        );
        thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_question_left_waiting_runs_the_notify_command_once() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let (pane, _) = crate::agents::caller_pane(&zellij);
    let asked = Instant::now();
    let mut asking = ask_notifying(
        &zellij,
        "notified",
        "n-1",
        Some(pane),
        &notify_command(&dir, ""),
        "1",
    );
    zellij.wait_for_screen("the question", ANSWER, |s| {
        s.contains("notified asks") && s.contains("Which database?")
    });
    let document = wait_for_file(
        &zellij,
        &dir.join("doc.json"),
        "the notify command never ran",
    );
    assert!(
        asked.elapsed() >= Duration::from_secs(1),
        "it ran before the delay"
    );
    let document: Value = serde_json::from_str(&document).expect("the document is JSON");
    let url = document["url"].clone();
    assert!(
        url.is_null()
            || url
                .as_str()
                .is_some_and(|u| u.ends_with(&format!("/{}", zellij.session()))),
        "url: {url}"
    );
    assert!(
        document["waitedSeconds"].as_u64().is_some_and(|s| s >= 1),
        "{document}"
    );
    assert_eq!(
        document,
        json!({
            "agent": "notified",
            "headers": ["DB"],
            "questions": [{"header": "DB", "question": "Which database?", "options": ["Postgres", "SQLite"]}],
            "paneId": pane,
            "session": zellij.session(),
            "requestId": "n-1",
            "waitedSeconds": document["waitedSeconds"],
            "url": url,
        })
    );

    // The question still waits, and is answered as ever.
    assert!(asking.try_wait().expect("status").is_none(), "it ended");
    zellij.send_keys(&["Enter"]);
    let (status, out, _) = ended(&zellij, &mut asking, "the command never ended");
    assert_eq!(
        out,
        submitted(DB, &[(0, Answer::Option(0))], &[], Some("n-1"))
    );
    assert_eq!(status.code(), Some(0));
    let runs = std::fs::read_to_string(dir.join("runs")).expect("runs");
    assert_eq!(runs, "run\n", "one notification for one question");
}

#[test]
fn a_question_answered_before_the_delay_runs_no_notify_command() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let mut asking = ask_notifying(
        &zellij,
        "quick",
        "q-1",
        None,
        &notify_command(&dir, ""),
        "20",
    );
    zellij.wait_for_screen("the question", ANSWER, |s| {
        s.contains("quick asks") && s.contains("Which database?")
    });
    zellij.send_keys(&["Enter"]);
    let (status, out, _) = ended(&zellij, &mut asking, "the command never ended");
    assert_eq!(
        out,
        submitted(DB, &[(0, Answer::Option(0))], &[], Some("q-1"))
    );
    assert_eq!(status.code(), Some(0));
    // The timer lived in the command, which has ended: it can run nothing any more.
    assert!(!dir.join("runs").exists(), "the notify command ran");
}

/// Kills the process whose pid is in a file (a hanging notify command) when the test ends,
/// however it ends.
struct KillOnDrop(PathBuf);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(&self.0) {
            let _ = Command::new("kill")
                .args(["-KILL", pid.trim()])
                .stderr(Stdio::null())
                .status();
        }
    }
}

#[test]
fn a_notify_command_that_hangs_or_fails_changes_nothing() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    // Declared after the world, so dropped before it (and its files) goes.
    let _hanging = KillOnDrop(dir.join("hang.pid"));
    let cases = [
        (
            "hangs",
            "; echo $$ > hang.tmp && mv hang.tmp hang.pid && exec sleep 600",
        ),
        ("fails", "; exit 3"),
    ];
    for (round, (what, then)) in cases.into_iter().enumerate() {
        let _ = std::fs::remove_file(dir.join("doc.json"));
        let id = format!("h-{round}");
        let mut asking = ask_notifying(&zellij, what, &id, None, &notify_command(&dir, then), "1");
        zellij.wait_for_screen("the question", ANSWER, |s| {
            s.contains(&format!("{what} asks")) && s.contains("Which database?")
        });
        wait_for_file(
            &zellij,
            &dir.join("doc.json"),
            &format!("the notify command that {what} never ran"),
        );
        if what == "hangs" {
            wait_for_file(&zellij, &dir.join("hang.pid"), "the hanging command's pid");
        }
        zellij.send_keys(&["Down"]);
        zellij.wait_for_screen("the focus on SQLite", ANSWER, |s| s.contains("❯ 2. SQLite"));
        zellij.send_keys(&["Enter"]);
        let answered = Instant::now();
        let (status, out, _) = ended(
            &zellij,
            &mut asking,
            &format!("the command whose notify command {what} never ended"),
        );
        assert_eq!(
            out,
            submitted(DB, &[(0, Answer::Option(1))], &[], Some(&id)),
            "{what}"
        );
        assert_eq!(status.code(), Some(0), "{what}");
        assert!(
            answered.elapsed() < Duration::from_secs(20),
            "{what}: it took {:?} to end",
            answered.elapsed()
        );
    }
    let runs = std::fs::read_to_string(dir.join("runs")).expect("runs");
    assert_eq!(runs, "run\nrun\n");
}

/// A `zellij` (in a dir of its own under `dir`, to put first on PATH) that drops the first
/// `drops` `ask` pipes as Zellij 0.45.1 drops a CLI after its message reached the plugin: the
/// real `zellij pipe` runs until the plugin lists the request (its `status` pipe), then it is
/// killed and the call exits 0 with nothing on stdout. Every other call is the real `zellij`'s.
/// `drops` counts the drops.
pub(crate) fn dropping_zellij(dir: &Path, drops: u32) -> PathBuf {
    wrapped_zellij(
        &dir.join("dropping-zellij"),
        "--name ask",
        &format!(
            r#"    n=$(cat "$count" 2>/dev/null || echo 0)
    if [ "$n" -lt {drops} ]; then
        echo $((n + 1)) > "$count"
        prev="" plugin="" args=""
        for a in "$@"; do
            [ "$prev" = --plugin ] && plugin=$a
            [ "$prev" = --args ] && args=$a
            prev=$a
        done
        id=$(printf '%s' "$args" | tr ',' '\n' | sed -n 's/^id=//p')
        "$real" "$@" <&0 >/dev/null 2>&1 &
        pipe=$!
        for _ in $(seq 300); do
            "$real" pipe --plugin "$plugin" --name status -- now 2>/dev/null |
                grep -q "\"requestId\":\"$id\"" && break
            sleep 0.1
        done
        kill "$pipe" 2>/dev/null
        wait "$pipe" 2>/dev/null
        exit 0
    fi
"#
        ),
    )
}

/// A `zellij` (in a dir of its own under `dir`, to put first on PATH) whose every other call
/// with the argument `call` (`rename-pane`, `version`…) misses its session as Zellij 0.45.1's CLI
/// does now and then when several sessions are live: "Session '…' not found" on stderr, the
/// live sessions listed on stdout, exit 0, and nothing sent. Every other call is the real
/// `zellij`'s. `calls` counts the calls with `call`.
pub(crate) fn session_missing_zellij(dir: &Path, call: &str) -> PathBuf {
    wrapped_zellij(
        &dir.join(format!("missing-{call}")),
        call,
        r#"    n=$(cat "$count" 2>/dev/null || echo 0)
    echo $((n + 1)) > "$count"
    if [ $((n % 2)) -eq 0 ]; then
        prev="" session=""
        for a in "$@"; do
            case "$prev" in -s|--session) session=$a ;; esac
            prev=$a
        done
        echo "Session '$session' not found. The following sessions are active:" >&2
        "$real" list-sessions
        exit 0
    fi
"#,
    )
}

/// Writes `bin/zellij`: for a call with the arguments `matching` it runs `body` (bash, with the
/// real `zellij` as `$real` and a file to count in as `$count`), and then, as for every other
/// call, the real `zellij`. `bin`.
fn wrapped_zellij(bin: &Path, matching: &str, body: &str) -> PathBuf {
    std::fs::create_dir_all(bin).expect("the wrapper's dir");
    let script = format!(
        "#!/usr/bin/env bash\nreal={real}\ncount={count}\ncase \" $* \" in\n*\" {matching} \"*)\n\
         {body}    ;;\nesac\nexec \"$real\" \"$@\"\n",
        real = shell_quote(&crate::harness::zellij_bin().to_string_lossy()),
        count = shell_quote(&bin.join("count").to_string_lossy()),
    );
    let path = bin.join("zellij");
    std::fs::write(&path, script).expect("write the wrapper");
    let made = Command::new("chmod")
        .arg("+x")
        .arg(&path)
        .status()
        .expect("chmod");
    assert!(made.success(), "chmod +x {}", path.display());
    bin.to_path_buf()
}

/// What the wrapper in `bin` counted: the `ask` pipes `dropping_zellij`'s dropped, the calls
/// `session_missing_zellij`'s got.
pub(crate) fn counted(bin: &Path) -> u32 {
    std::fs::read_to_string(bin.join("count"))
        .ok()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_command_that_gets_no_reply_takes_its_question_back() {
    // Zellij drops every attempt after its question reached the plugin: the command gives up
    // with `no_reply` (the agent then asks in its own dialog), and the question must not stay
    // in the popup for the person to answer for nothing.
    let zellij = Zellij::start();
    let bin = dropping_zellij(&zellij.scratch(), ask_popup::ask::ATTEMPTS);
    let out = zellij
        .in_session(&command())
        .env("PATH", crate::harness::path_with(&bin))
        .args(["ask", "--id", "n-1", "--agent", "unheard", DB])
        .output()
        .expect("run ask-popup ask");
    assert_eq!(counted(&bin), ask_popup::ask::ATTEMPTS, "{out:?}");
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    let envelope: Value = serde_json::from_slice(&out.stdout).expect("an envelope");
    assert_eq!(envelope["details"]["error"], "no_reply");
    // Withdrawn: nothing waits in the popup, and the record says so.
    let until = zellij.until(ANSWER);
    loop {
        let pending = status(&zellij)["pending"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if pending.is_empty() {
            break;
        }
        assert!(
            Instant::now() < until,
            "the question stayed in the popup: {pending:?}\n{}",
            zellij.screen()
        );
        thread::sleep(Duration::from_millis(100));
    }
    let entries = crate::history::recorded(&zellij, 1);
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["requestId"], "n-1");
    assert_eq!(entries[0]["ending"], "aborted");
}

/// Records what Zellij writes to its outer terminal (tmux's `pipe-pane` on the client's pane)
/// into `file`.
pub(crate) fn record_outer_terminal(zellij: &Zellij, file: &Path) {
    let out = zellij.tmux_run(&[
        "pipe-pane",
        "-t",
        "apz",
        "-o",
        &format!("cat >> {}", shell_quote(&file.to_string_lossy())),
    ]);
    assert!(out.status.success(), "tmux pipe-pane: {out:?}");
}

/// Waits until the outer terminal was sent `sequence`.
pub(crate) fn wait_for_outer(zellij: &Zellij, file: &Path, sequence: &str) {
    let until = zellij.until(ANSWER);
    loop {
        let sent = std::fs::read(file).unwrap_or_default();
        if String::from_utf8_lossy(&sent).contains(sequence) {
            return;
        }
        assert!(
            Instant::now() < until,
            "Zellij never sent its terminal {sequence:?}; it sent {} bytes, with these OSC 9: {:?}",
            sent.len(),
            String::from_utf8_lossy(&sent)
                .match_indices("\u{1b}]9;")
                .map(
                    |(i, _)| String::from_utf8_lossy(&sent[i..(i + 80).min(sent.len())])
                        .into_owned()
                )
                .collect::<Vec<_>>()
        );
        thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_waiting_question_is_a_desktop_notification_of_the_outer_terminal() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let outer = dir.join("outer.log");
    record_outer_terminal(&zellij, &outer);
    let line = format!(
        "cd {dir} && {path}ASK_POPUP_AGENT=builder {command} ask --id n-1 {payload} > out.json; \
         ASK_POPUP_TERMINAL_NOTIFY=off ASK_POPUP_AGENT=quiet {command} ask --id n-2 {payload} \
         > out2.json; exec sleep 1000",
        dir = shell_quote(&dir.to_string_lossy()),
        path = zellij_on_path(),
        command = shell_quote(&command().to_string_lossy()),
        payload = shell_quote(DB),
    );
    new_pane(&zellij, "agent", &line);
    // Zellij passes the pane's OSC 777 on as OSC 9 (its default for a terminal that is not
    // kitty): who asks, and the first question.
    wait_for_outer(
        &zellij,
        &outer,
        "\u{1b}]9;builder asks: DB: Which database?\u{7}",
    );
    zellij.wait_for_screen("the question", ANSWER, |s| s.contains("builder asks"));
    zellij.send_keys(&["Esc"]);
    // Turned off, the next question tells the terminal nothing.
    zellij.wait_for_screen("the second question", ANSWER, |s| s.contains("quiet asks"));
    let told = |who: &str| {
        String::from_utf8_lossy(&std::fs::read(&outer).unwrap_or_default())
            .contains(&format!("\u{1b}]9;{who} asks"))
    };
    assert!(!told("quiet"));
    zellij.send_keys(&["Esc"]);
    let until = zellij.until(ANSWER);
    while !dir.join("out2.json").metadata().is_ok_and(|m| m.len() > 0) {
        assert!(Instant::now() < until, "the second question never ended");
        thread::sleep(Duration::from_millis(100));
    }
    assert!(!told("quiet"));
    assert!(told("builder"));
}
