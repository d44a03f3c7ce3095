//! End to end: one inbox across the sessions of this machine. The world's session is attached
//! (tmux); a second one, `api`, runs in the background with nobody attached. An agent in a pane
//! of `api` asks through `ask-popup ask`: the attached session's popup shows it as `<agent> in
//! api`, answered there the caller gets the envelope, the record has one entry, and the asking
//! pane in `api` is marked while it waits; stopped at home, its copy goes at once.

use crate::agents::{
    marked, pick_sqlite, shell_quote, status, submitted, wait_until_nothing_pending,
    zellij_on_path, DB,
};
use crate::command::{command, counted, session_missing_zellij};
use crate::harness::Zellij;
use crate::history::{history, recorded};
use crate::{ANSWER, AT_ONCE};
use ask_popup_protocol::envelope::Answer;
use serde_json::Value;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

/// The background session's name.
const API: &str = "api";

/// Starts the background session `api`, and waits until Zellij's metadata says who is attached
/// where (it writes it within a second of a change): nobody to `api`, one client to the world's
/// session.
fn start_background_session(zellij: &Zellij) {
    zellij.start_background_session(API);
    wait_for_clients(zellij, &[(API, 0), (zellij.session(), 1)]);
}

/// Session `session`'s metadata as Zellij last wrote it.
fn metadata(zellij: &Zellij, session: &str) -> std::path::PathBuf {
    zellij
        .cache_home()
        .join("zellij/contract_version_1/session_info")
        .join(session)
        .join("session-metadata.kdl")
}

/// How many clients Zellij's metadata says are attached to `session`.
fn clients(zellij: &Zellij, session: &str) -> Option<usize> {
    std::fs::read_to_string(metadata(zellij, session))
        .ok()
        .and_then(|text| ask_popup::zellij::session::connected_clients(&text))
}

/// Waits until Zellij's metadata says each session has as many clients as `expected` says.
fn wait_for_clients(zellij: &Zellij, expected: &[(&str, usize)]) {
    let until = zellij.until(AT_ONCE);
    while expected
        .iter()
        .any(|(session, n)| clients(zellij, session) != Some(*n))
    {
        let now: Vec<_> = expected
            .iter()
            .map(|(session, _)| (session, clients(zellij, session)))
            .collect();
        assert!(
            Instant::now() < until,
            "Zellij never wrote who is attached: {now:?}, not {expected:?}"
        );
        thread::sleep(Duration::from_millis(100));
    }
}

/// Opens a pane in session `session` running `line`; its id.
fn pane_in(zellij: &Zellij, session: &str, name: &str, line: &str) -> u32 {
    let until = zellij.until(AT_ONCE);
    loop {
        let out = zellij.action_in(
            session,
            &["new-pane", "--name", name, "--", "sh", "-c", line],
        );
        let id = String::from_utf8_lossy(&out.stdout)
            .trim()
            .strip_prefix("terminal_")
            .and_then(|n| n.parse().ok());
        if let Some(id) = id {
            return id;
        }
        // Zellij may drop a CLI's connection after the action ran: find the pane by its name.
        if let Some(id) = titles_in(zellij, session)
            .into_iter()
            .find(|(_, title)| title == name)
            .map(|(id, _)| id)
        {
            return id;
        }
        assert!(Instant::now() < until, "new-pane in {session}: {out:?}");
        thread::sleep(Duration::from_millis(200));
    }
}

/// Every terminal pane of session `session`: id and title.
fn titles_in(zellij: &Zellij, session: &str) -> Vec<(u32, String)> {
    for _ in 0..5 {
        let out = zellij.action_in(session, &["list-panes", "--json", "--all"]);
        if let Ok(Value::Array(panes)) = serde_json::from_slice(&out.stdout) {
            return panes
                .iter()
                .filter(|p| p["is_plugin"] == false)
                .filter_map(|p| {
                    let id = u32::try_from(p["id"].as_u64()?).ok()?;
                    Some((id, p["title"].as_str()?.to_owned()))
                })
                .collect();
        }
        thread::sleep(Duration::from_millis(100));
    }
    Vec::new()
}

/// Waits until pane `pane` of session `session` is titled `expected`.
fn wait_for_title_in(zellij: &Zellij, session: &str, pane: u32, expected: &str) {
    let until = zellij.until(ANSWER);
    loop {
        let titles = titles_in(zellij, session);
        if titles.iter().any(|(id, t)| *id == pane && t == expected) {
            return;
        }
        assert!(
            Instant::now() < until,
            "pane {pane} of {session} never became {expected:?}: {titles:?}"
        );
        thread::sleep(Duration::from_millis(100));
    }
}

/// The line of an agent's pane: asks `DB` as `agent` with id `id`, its envelope into
/// `<id>.json` and its exit status into `<id>.rc`, in `dir`.
fn asking_line(dir: &Path, agent: &str, id: &str) -> String {
    asking_line_with(dir, agent, id, &zellij_on_path())
}

/// `asking_line`, its PATH set by `path` (`PATH=… `).
fn asking_line_with(dir: &Path, agent: &str, id: &str, path: &str) -> String {
    format!(
        "cd {dir} && {path}ASK_POPUP_AGENT={agent} {command} ask --id {id} {payload} > {id}.json; \
         echo $? > {id}.rc.tmp && mv {id}.rc.tmp {id}.rc; exec sleep 1000",
        dir = shell_quote(&dir.to_string_lossy()),
        command = shell_quote(&command().to_string_lossy()),
        payload = shell_quote(DB),
    )
}

/// Waits for `<id>.rc` in `dir`; the envelope and the exit status.
fn ended(zellij: &Zellij, dir: &Path, id: &str) -> (String, String) {
    let rc = dir.join(format!("{id}.rc"));
    let until = zellij.until(ANSWER);
    while !rc.exists() {
        assert!(
            Instant::now() < until,
            "{id} never ended; screen:\n{}",
            zellij.screen()
        );
        thread::sleep(Duration::from_millis(100));
    }
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    (
        read(&dir.join(format!("{id}.json"))),
        read(&rc).trim().to_owned(),
    )
}

#[test]
fn a_question_in_a_session_nobody_sees_is_answered_in_the_attached_one() {
    let zellij = Zellij::start();
    start_background_session(&zellij);
    let dir = zellij.scratch();
    let pane = pane_in(
        &zellij,
        API,
        "builder",
        &asking_line(&dir, "builder", "x-1"),
    );

    // The attached session's popup shows it, naming the asking session.
    zellij.wait_for_screen("api's question", ANSWER, |s| {
        s.contains("builder in api asks") && s.contains("Which database?")
    });
    let here = status(&zellij);
    assert_eq!(here["pending"][0]["session"], API, "{here}");
    // `status --all-sessions` lists every session: this one holds api's question, api has
    // nobody attached.
    let out = zellij
        .in_session(&command())
        .args(["status", "--all-sessions"])
        .output()
        .expect("run ask-popup status --all-sessions");
    assert!(out.status.success(), "{out:?}");
    let all: Value = serde_json::from_slice(&out.stdout).expect("status --all-sessions is JSON");
    let of = |name: &str| {
        all["sessions"]
            .as_array()
            .and_then(|list| list.iter().find(|s| s["session"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("{name} is not listed: {all}"))
    };
    assert_eq!(
        of(zellij.session())["pending"][0]["requestId"],
        "x-1",
        "{all}"
    );
    assert_eq!(of(zellij.session())["clients"], 1, "{all}");
    assert_eq!(of(API)["clients"], 0, "{all}");
    // The asking pane is marked in its own session while it waits.
    wait_for_title_in(&zellij, API, pane, &marked("builder"));

    pick_sqlite(&zellij, "builder in api asks", || {
        dir.join("x-1.rc").exists()
    });
    let (envelope, rc) = ended(&zellij, &dir, "x-1");
    assert_eq!(
        envelope,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("x-1"))
    );
    assert_eq!(rc, "0");
    wait_for_title_in(&zellij, API, pane, "builder");
    wait_until_nothing_pending(&zellij);
    // One entry, of the asking session, answered.
    recorded(&zellij, 1);
    // (A second entry, were one written, would come with the first's.)
    thread::sleep(Duration::from_millis(500));
    let entries = history(&zellij, &[]);
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["session"], API);
    assert_eq!(entries[0]["ending"], "answered");
    assert_eq!(entries[0]["paneId"], pane);
}

#[test]
fn a_pane_is_marked_and_unmarked_though_zellij_says_its_session_is_not_found() {
    let zellij = Zellij::start();
    start_background_session(&zellij);
    let dir = zellij.scratch();
    let bin = session_missing_zellij(&dir, "rename-pane");
    let path = format!("PATH={}:\"$PATH\" ", shell_quote(&bin.to_string_lossy()));
    let pane = pane_in(
        &zellij,
        API,
        "builder",
        &asking_line_with(&dir, "builder", "x-9", &path),
    );
    zellij.wait_for_screen("api's question", ANSWER, |s| {
        s.contains("builder in api asks")
    });
    // The first rename missed api and said so: it is made again, not taken for made.
    wait_for_title_in(&zellij, API, pane, &marked("builder"));
    pick_sqlite(&zellij, "builder in api asks", || {
        dir.join("x-9.rc").exists()
    });
    let (envelope, rc) = ended(&zellij, &dir, "x-9");
    assert_eq!(
        envelope,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("x-9"))
    );
    assert_eq!(rc, "0");
    // And so is the one that puts the title back.
    wait_for_title_in(&zellij, API, pane, "builder");
    assert_eq!(counted(&bin), 4, "rename-pane calls");
}

#[test]
fn a_question_ended_at_home_leaves_the_other_session_at_once() {
    let zellij = Zellij::start();
    start_background_session(&zellij);
    let dir = zellij.scratch();
    let pane = pane_in(
        &zellij,
        API,
        "builder",
        &asking_line(&dir, "builder", "x-2"),
    );
    zellij.wait_for_screen("api's question", ANSWER, |s| {
        s.contains("builder in api asks")
    });
    // The agent is stopped at home: its pane closes, the command withdraws its question.
    let out = zellij.action_in(
        API,
        &["close-pane", "--pane-id", &format!("terminal_{pane}")],
    );
    assert!(out.status.success(), "close-pane: {out:?}");
    wait_until_nothing_pending(&zellij);
    assert!(
        !zellij.screen().contains("builder in api asks"),
        "{}",
        zellij.screen()
    );
}

#[test]
fn two_callers_in_two_sessions_each_get_their_own_answer() {
    let zellij = Zellij::start();
    start_background_session(&zellij);
    let dir = zellij.scratch();
    pane_in(&zellij, API, "far", &asking_line(&dir, "far", "x-3"));
    zellij.wait_for_screen("api's question", ANSWER, |s| s.contains("far in api asks"));
    pane_in(
        &zellij,
        zellij.session(),
        "near",
        &asking_line(&dir, "near", "x-4"),
    );
    let until = zellij.until(ANSWER);
    while status(&zellij)["pending"].as_array().map_or(0, Vec::len) < 2 {
        assert!(Instant::now() < until, "{}", status(&zellij));
        thread::sleep(Duration::from_millis(100));
    }
    // Each answered in turn, on the screen's question (the first to come is shown first).
    for _ in 0..2 {
        let screen = zellij.screen();
        let asker = if screen.contains("far in api asks") {
            "far in api asks"
        } else {
            "near asks"
        };
        let id = if asker.starts_with("far") {
            "x-3"
        } else {
            "x-4"
        };
        pick_sqlite(&zellij, asker, || dir.join(format!("{id}.rc")).exists());
    }
    for id in ["x-3", "x-4"] {
        let (envelope, rc) = ended(&zellij, &dir, id);
        assert_eq!(
            envelope,
            submitted(DB, &[(0, Answer::Option(1))], &[], Some(id)),
            "{id}"
        );
        assert_eq!(rc, "0", "{id}");
    }
}

#[test]
fn the_go_key_takes_the_person_to_the_asking_session_where_it_is_answered() {
    let zellij = Zellij::start();
    start_background_session(&zellij);
    let dir = zellij.scratch();
    pane_in(
        &zellij,
        API,
        "builder",
        &asking_line(&dir, "builder", "x-5"),
    );
    zellij.wait_for_screen("api's question and its go key", ANSWER, |s| {
        s.contains("builder in api asks") && s.contains("Alt+g go to api")
    });
    zellij.send_keys(&["Alt g"]);
    // The client is in api now (its tab bar names it), where the question is asked too.
    zellij.wait_for_screen("api, with its question", ANSWER, |s| {
        s.contains("Zellij (api)") && s.contains("builder asks") && s.contains("❯ 1. Postgres")
    });
    // Answered there as a person does, with the keys of the client's terminal.
    sqlite_typed_in(&zellij, "apz", &dir, "x-5");
}

/// Picks SQLite with the keys of tmux session `terminal` (a client's terminal) until question
/// `id` ends, and checks that its caller got that answer.
fn sqlite_typed_in(zellij: &Zellij, terminal: &str, dir: &Path, id: &str) {
    let until = zellij.until(2 * ANSWER);
    while !dir.join(format!("{id}.rc")).exists() {
        assert!(
            Instant::now() < until,
            "never answered in {terminal}; its screen:\n{}",
            zellij.screen_of(terminal)
        );
        let screen = zellij.screen_of(terminal);
        if screen.contains("❯ 1. Postgres") && !screen.contains('…') {
            zellij.tmux_run(&["send-keys", "-t", terminal, "Down"]);
        } else if screen.contains("❯ 2. SQLite") {
            zellij.tmux_run(&["send-keys", "-t", terminal, "Enter"]);
        }
        thread::sleep(Duration::from_millis(300));
    }
    let (envelope, rc) = ended(zellij, dir, id);
    assert_eq!(
        envelope,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some(id))
    );
    assert_eq!(rc, "0");
}

#[test]
fn shown_elsewhere_always_and_answered_at_home_the_copy_goes_at_once() {
    let zellij = Zellij::start();
    // Both sessions attached, each in a terminal of its own.
    let home = zellij.start_attached_session(API);
    let dir = zellij.scratch();
    let line = asking_line(&dir, "builder", "x-6").replacen(
        "ASK_POPUP_AGENT=",
        "ASK_POPUP_FORWARD=always ASK_POPUP_AGENT=",
        1,
    );
    pane_in(&zellij, API, "builder", &line);
    // The question at home, and its copy in the world's session.
    zellij.wait_for_screen_of(&home, "the question at home", ANSWER, |s| {
        s.contains("builder asks") && s.contains("Which database?")
    });
    zellij.wait_for_screen("the copy", ANSWER, |s| s.contains("builder in api asks"));
    // Answered at home, with the keys of its terminal.
    sqlite_typed_in(&zellij, &home, &dir, "x-6");
    // The copy leaves the other session at once; the record has the one entry, home's.
    wait_until_nothing_pending(&zellij);
    recorded(&zellij, 1);
    thread::sleep(Duration::from_millis(500));
    let entries = history(&zellij, &[]);
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["session"], API);
    assert_eq!(entries[0]["ending"], "answered");
}

/// `ask-popup status --all-sessions`, run beside the world (not in a pane of it, which would
/// change what its sessions show).
fn status_of_every_session(zellij: &Zellij) -> Value {
    let out = zellij
        .in_session(&command())
        .args(["status", "--all-sessions"])
        .output()
        .expect("run ask-popup status --all-sessions");
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).expect("status --all-sessions is JSON")
}

/// Session `name`'s entry in what `status_of_every_session` printed.
fn entry_of(all: &Value, name: &str) -> Option<Value> {
    all["sessions"]
        .as_array()
        .and_then(|list| list.iter().find(|s| s["session"] == name))
        .cloned()
}

/// `asking_line`, asking only once the file `<id>.go` is in `dir`, and writing when it asked
/// (ns since the epoch) into `<id>.asked`.
fn asking_line_on_cue(dir: &Path, agent: &str, id: &str) -> String {
    asking_line(dir, agent, id).replacen(
        " && ",
        &format!(" && while [ ! -e {id}.go ]; do sleep 0.05; done; date +%s%N > {id}.asked; "),
        1,
    )
}

/// The ns since the epoch now.
fn epoch_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after the epoch")
        .as_nanos()
}

/// How long ago the question `id` of `asking_line_on_cue` was asked.
fn since_asked(dir: &Path, id: &str) -> Duration {
    let asked: u128 = std::fs::read_to_string(dir.join(format!("{id}.asked")))
        .expect("the time it was asked")
        .trim()
        .parse()
        .expect("ns since the epoch");
    Duration::from_nanos(u64::try_from(epoch_ns().saturating_sub(asked)).unwrap_or(u64::MAX))
}

/// Waits until nothing changed in the world's session for `idle`: Zellij has not rewritten
/// its metadata for that long (it does only when what it says changed).
fn wait_until_idle(zellij: &Zellij, idle: Duration) {
    let path = metadata(zellij, zellij.session());
    let until = zellij.until(idle + AT_ONCE);
    loop {
        let age = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .unwrap_or_default();
        if age >= idle {
            return;
        }
        assert!(
            Instant::now() < until,
            "the world's session never stayed unchanged for {idle:?} (its metadata was \
             rewritten {age:?} ago); screen:\n{}",
            zellij.screen()
        );
        thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_person_idle_for_a_while_is_listed_and_shown_the_question_of_a_session_they_left() {
    let zellij = Zellij::start();
    // The person works in `api`, then leaves it (Ctrl o d) for the world's session.
    let client = zellij.start_attached_session(API);
    zellij.type_into(&client, &["C-o"]);
    zellij.type_into(&client, &["d"]);
    wait_for_clients(&zellij, &[(API, 0), (zellij.session(), 1)]);
    let dir = zellij.scratch();
    pane_in(
        &zellij,
        API,
        "builder",
        &asking_line_on_cue(&dir, "builder", "x-7"),
    );
    // Nothing changes on the person's screen for 12 s.
    let idle = Duration::from_secs(12);
    wait_until_idle(&zellij, idle);
    let all = status_of_every_session(&zellij);
    let world = entry_of(&all, zellij.session()).unwrap_or_else(|| panic!("not listed: {all}"));
    assert_eq!(world["clients"], 1, "{all}");
    assert_eq!(world["pending"], serde_json::json!([]), "{all}");
    assert_eq!(
        entry_of(&all, API).map(|e| e["clients"].clone()),
        Some(0.into())
    );
    // (Still idle: the look at every session changed nothing there.)
    wait_until_idle(&zellij, idle);

    std::fs::write(dir.join("x-7.go"), "").expect("cue the agent");
    zellij.wait_for_screen("api's question", ANSWER, |s| {
        s.contains("builder in api asks") && s.contains("Which database?")
    });
    eprintln!(
        "idle case: the popup showed {:?} after the question was asked",
        since_asked(&dir, "x-7")
    );
    pick_sqlite(&zellij, "builder in api asks", || {
        dir.join("x-7.rc").exists()
    });
    let (envelope, rc) = ended(&zellij, &dir, "x-7");
    assert_eq!(
        envelope,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("x-7"))
    );
    assert_eq!(rc, "0");
}

#[test]
fn a_question_from_a_session_started_in_the_background_is_answered_in_the_attached_one() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    // A script starts the agent's session in the background, the agent in its layout.
    let script = dir.join("agent.sh");
    std::fs::write(&script, asking_line(&dir, "builder", "x-8")).expect("write the agent");
    let layout = dir.join("agent.kdl");
    std::fs::write(
        &layout,
        format!(
            "layout {{\n    pane name=\"builder\" command=\"sh\" {{\n        args {:?}\n    }}\n}}\n",
            script.to_str().expect("UTF-8 path")
        ),
    )
    .expect("write the layout");
    zellij.start_session_in_background_with_layout(API, &layout);

    zellij.wait_for_screen("api's question", ANSWER, |s| {
        s.contains("builder in api asks") && s.contains("Which database?")
    });
    // Marked in its own session while it waits.
    let pane = titles_in(&zellij, API)
        .into_iter()
        .find(|(_, title)| title.ends_with("builder"))
        .map(|(id, _)| id)
        .unwrap_or_else(|| panic!("no builder pane in api: {:?}", titles_in(&zellij, API)));
    wait_for_title_in(&zellij, API, pane, &marked("builder"));
    pick_sqlite(&zellij, "builder in api asks", || {
        dir.join("x-8.rc").exists()
    });
    let (envelope, rc) = ended(&zellij, &dir, "x-8");
    assert_eq!(
        envelope,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("x-8"))
    );
    assert_eq!(rc, "0");
    wait_for_title_in(&zellij, API, pane, "builder");
}

#[test]
fn a_question_through_serve_for_a_session_nobody_is_attached_to_is_shown_in_the_attached_one() {
    let zellij = Zellij::start();
    start_background_session(&zellij);
    let dir = zellij.scratch();
    let pane = pane_in(&zellij, API, "builder", "exec sleep 1000");
    let socket = dir.join("serve.sock");
    let _serve = crate::remote::Serve::start(&zellij, &socket);
    // A caller in a container of `api`'s pane, which passed the pane and the session on.
    let questionnaire = serde_json::from_str::<serde_json::Value>(DB)
        .expect("a questionnaire")
        .to_string();
    let frame = serde_json::json!({
        "agent": "builder",
        "id": "x-9",
        "idGiven": true,
        "paneId": pane.to_string(),
        "session": API,
        "host": "devbox",
        "questionnaire": questionnaire,
    });
    let mut stream = std::os::unix::net::UnixStream::connect(&socket).expect("connect");
    std::io::Write::write_all(&mut stream, format!("{frame}\n").as_bytes()).expect("send");
    let reply = thread::spawn(move || {
        let mut reply = String::new();
        let _ = std::io::Read::read_to_string(&mut stream, &mut reply);
        reply
    });
    zellij.wait_for_screen("api's question", ANSWER, |s| {
        s.contains("builder in api asks") && s.contains("Which database?")
    });
    wait_for_title_in(&zellij, API, pane, &marked("builder"));
    pick_sqlite(&zellij, "builder in api asks", || reply.is_finished());
    assert_eq!(
        reply.join().expect("the reply"),
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("x-9"))
    );
}

#[test]
fn a_question_asked_while_nobody_is_attached_anywhere_shows_once_somebody_attaches() {
    let zellij = Zellij::start();
    start_background_session(&zellij);
    // The person leaves the world's session too: nobody is attached anywhere.
    let out = zellij.tmux_run(&["kill-session", "-t", crate::harness::FIRST]);
    assert!(out.status.success(), "{out:?}");
    wait_for_clients(&zellij, &[(API, 0), (zellij.session(), 0)]);
    let dir = zellij.scratch();
    pane_in(
        &zellij,
        API,
        "builder",
        &asking_line(&dir, "builder", "x-10"),
    );
    // A second agent's own limit runs out meanwhile (its hook's timeout): it gets `aborted`.
    let limited = asking_line(&dir, "hasty", "x-11").replacen(
        "ASK_POPUP_AGENT=hasty ",
        "ASK_POPUP_AGENT=hasty timeout --preserve-status 4 ",
        1,
    );
    pane_in(&zellij, API, "hasty", &limited);
    let (envelope, rc) = ended(&zellij, &dir, "x-11");
    assert_eq!(
        envelope,
        ask_popup_protocol::envelope::host_error(
            ask_popup_protocol::envelope::ErrorCode::Aborted,
            Some("x-11")
        )
    );
    assert_eq!(rc, "1");
    // The first waits where it was asked, and `status --all-sessions` says so.
    let until = zellij.until(ANSWER);
    loop {
        let all = status_of_every_session(&zellij);
        let waiting = entry_of(&all, API).map(|e| e["waiting"].clone());
        let ids: Vec<&str> = waiting
            .as_ref()
            .and_then(Value::as_array)
            .map(|w| w.iter().filter_map(|q| q["requestId"].as_str()).collect())
            .unwrap_or_default();
        if ids == ["x-10"] {
            let waiting = waiting.unwrap_or_default();
            assert_eq!(waiting[0]["shownIn"], serde_json::json!([]), "{all}");
            assert_eq!(waiting[0]["agent"], "builder", "{all}");
            break;
        }
        assert!(Instant::now() < until, "never said to wait: {all}");
        thread::sleep(Duration::from_millis(200));
    }
    assert!(!dir.join("x-10.rc").exists());

    // The person comes back, to the world's session: the question shows there, alone.
    zellij.reattach_first_client();
    zellij.wait_for_screen("api's question", ANSWER, |s| {
        s.contains("builder in api asks") && s.contains("Which database?")
    });
    let pending = status(&zellij)["pending"].clone();
    assert_eq!(pending.as_array().map(Vec::len), Some(1), "{pending}");
    pick_sqlite(&zellij, "builder in api asks", || {
        dir.join("x-10.rc").exists()
    });
    let (envelope, rc) = ended(&zellij, &dir, "x-10");
    assert_eq!(
        envelope,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("x-10"))
    );
    assert_eq!(rc, "0");
}

#[test]
fn a_question_asked_as_the_person_leaves_is_shown_in_each_session_they_are_attached_to() {
    let zellij = Zellij::start();
    // The person has two sessions open, each in a terminal of its own: the world's and `ops`.
    let ops = zellij.start_attached_session("ops");
    // They worked in `api` and leave it (Ctrl o d); its agent asks at that very moment.
    let client = zellij.start_attached_session(API);
    wait_for_clients(&zellij, &[(API, 1), ("ops", 1), (zellij.session(), 1)]);
    let dir = zellij.scratch();
    zellij.type_into(&client, &["C-o"]);
    zellij.type_into(&client, &["d"]);
    let pane = pane_in(
        &zellij,
        API,
        "builder",
        &asking_line(&dir, "builder", "x-12"),
    );
    // Both sessions the person sees show it.
    let asks = |s: &str| s.contains("builder in api asks") && s.contains("Which database?");
    zellij.wait_for_screen("api's question in the world's session", ANSWER, asks);
    zellij.wait_for_screen_of(&ops, "api's question in ops", ANSWER, asks);
    wait_for_title_in(&zellij, API, pane, &marked("builder"));
    // Answered in one, the caller has that answer and the other's copy goes.
    pick_sqlite(&zellij, "builder in api asks", || {
        dir.join("x-12.rc").exists()
    });
    let (envelope, rc) = ended(&zellij, &dir, "x-12");
    assert_eq!(
        envelope,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("x-12"))
    );
    assert_eq!(rc, "0");
    zellij.wait_for_screen_of(&ops, "ops without api's question", ANSWER, |s| {
        !s.contains("Which database?")
    });
    wait_for_title_in(&zellij, API, pane, "builder");
}

/// How long a command the plugin answers at once may take here: it answers within two seconds
/// (`ANSWER_WITHIN`, all its pipes), with room for a busy machine.
const ANSWERED_AT_ONCE: Duration = Duration::from_secs(5);

/// `ask-popup ARGS`, run beside the world as if from a pane of session `session`, killed if it
/// has not ended within `ANSWERED_AT_ONCE`: its output, and whether it ended in time.
fn answered_at_once(zellij: &Zellij, session: &str, args: &[&str]) -> (std::process::Output, bool) {
    let mut child = zellij
        .in_session(&command())
        .env("ZELLIJ_SESSION_NAME", session)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run ask-popup");
    let until = Instant::now() + ANSWERED_AT_ONCE;
    let mut ended = false;
    while Instant::now() < until {
        if child.try_wait().expect("look at ask-popup").is_some() {
            ended = true;
            break;
        }
        thread::sleep(Duration::from_millis(50));
    }
    if !ended {
        let _ = child.kill();
    }
    (child.wait_with_output().expect("ask-popup's output"), ended)
}

#[test]
fn commands_answered_at_once_say_so_in_seconds_where_nobody_ever_attached() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    // A session a script started with `zellij attach --create-background`: no client ever
    // attached to it, so no plugin runs there, and Zellij's CLI waits for good on a pipe.
    let layout = dir.join("idle.kdl");
    std::fs::write(&layout, "layout {\n    pane\n}\n").expect("write the layout");
    zellij.start_session_in_background_with_layout(API, &layout);
    const NOBODY: &str = "nobody is attached to session `api`";
    const NOT_LOADED: &str = "(is it loaded in this session?)";

    // At once: Zellij may still count the client that created it, so either reason.
    let (out, ended) = answered_at_once(&zellij, API, &["status"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        ended,
        "`ask-popup status` still waited after {ANSWERED_AT_ONCE:?}"
    );
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    assert!(said.contains(NOBODY) || said.contains(NOT_LOADED), "{said}");

    // Once Zellij's metadata says nobody is attached, each command says so.
    wait_for_clients(&zellij, &[(API, 0)]);
    for args in [&["status"][..], &["show"], &["blocked", "--agent", "pi"]] {
        let (out, ended) = answered_at_once(&zellij, API, args);
        assert!(
            ended,
            "`ask-popup {args:?}` still waited after {ANSWERED_AT_ONCE:?}"
        );
        assert_eq!(out.status.code(), Some(5), "{args:?}: {out:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains(NOBODY), "{args:?}: {said}");
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
    }
    let (out, ended) = answered_at_once(&zellij, API, &["doctor", "--json"]);
    assert!(
        ended,
        "`ask-popup doctor` still waited after {ANSWERED_AT_ONCE:?}"
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains(NOBODY), "{report}");
    // And `status --all-sessions` of the world's session, where the plugin answers.
    let (out, ended) = answered_at_once(&zellij, zellij.session(), &["status", "--all-sessions"]);
    assert!(
        ended,
        "`status --all-sessions` still waited after {ANSWERED_AT_ONCE:?}"
    );
    assert!(out.status.success(), "{out:?}");
    let all: Value = serde_json::from_slice(&out.stdout).expect("status --all-sessions is JSON");
    let api = entry_of(&all, API).unwrap_or_else(|| panic!("api is not listed: {all}"));
    assert!(
        api["error"].as_str().is_some_and(|e| e.contains(NOBODY)),
        "{all}"
    );
    assert!(
        entry_of(&all, zellij.session()).is_some_and(|s| s["pending"].is_array()),
        "{all}"
    );
}
