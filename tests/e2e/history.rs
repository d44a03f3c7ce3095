//! End to end: the record of every questionnaire, and asking without waiting. Requests that
//! reach the popup through `ask-popup ask` and a bare `zellij pipe`, ending in different ways,
//! are each listed once by `ask-popup history --json` with their ending and answers, also after
//! the session is gone and with two clients attached; `ask --no-wait` then `answer --wait` gets
//! the envelope a waiting `ask` would, and `answer` finds it in the record after the session.
//! The record is never readable by other users, in a plugin cache folder Zellij made open,
//! nor after it is cut back.

use crate::agents::{submitted, DB};
use crate::command::command;
use crate::harness::{Options, Zellij, FIRST};
use crate::{ANSWER, AT_ONCE};
use ask_popup_protocol::envelope::Answer;
use serde_json::Value;
use std::process::{Child, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// `ask-popup ARGS` run in the session's world (its HOME and XDG folders).
fn run(zellij: &Zellij, args: &[&str]) -> Output {
    zellij
        .in_session(&command())
        .args(args)
        .output()
        .expect("run ask-popup")
}

/// `ask-popup history --json ARGS`: its entries.
pub(crate) fn history(zellij: &Zellij, args: &[&str]) -> Vec<Value> {
    let out = run(
        zellij,
        &[&["history", "--json", "--limit", "0"], args].concat(),
    );
    assert!(out.status.success(), "history: {out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object a line"))
        .collect()
}

/// The record's entries once it holds `n` (or what it holds after a while).
pub(crate) fn recorded(zellij: &Zellij, n: usize) -> Vec<Value> {
    let until = zellij.until(AT_ONCE);
    loop {
        let entries = history(zellij, &[]);
        if entries.len() >= n || Instant::now() > until {
            return entries;
        }
        thread::sleep(Duration::from_millis(200));
    }
}

/// The entry of request `id` among `entries`, which must hold exactly one.
fn entry_of<'a>(entries: &'a [Value], id: &str) -> &'a Value {
    let found: Vec<&Value> = entries.iter().filter(|e| e["requestId"] == id).collect();
    assert_eq!(found.len(), 1, "{id} recorded once: {entries:#?}");
    found[0]
}

/// `ask-popup ask --id ID --agent AGENT DB`, started.
fn ask(zellij: &Zellij, id: &str, agent: &str) -> Child {
    zellij
        .in_session(&command())
        .args(["ask", "--id", id, "--agent", agent, DB])
        .stdout(Stdio::piped())
        .spawn()
        .expect("run ask-popup ask")
}

/// Waits for `agent`'s question on screen, until keys count.
fn shown(zellij: &Zellij, agent: &str) {
    let asks = format!("{agent} asks");
    zellij.wait_for_screen(&asks, ANSWER, |s| {
        s.contains(&asks) && s.contains("Which database?")
    });
    zellij.wait_until_keys_count();
}

/// Waits for `child` to end: what it printed.
fn ended(zellij: &Zellij, mut child: Child, what: &str) -> String {
    let until = zellij.until(ANSWER);
    loop {
        if child.try_wait().expect("status").is_some() {
            break;
        }
        assert!(
            Instant::now() < until,
            "{what} never ended:\n{}",
            zellij.screen()
        );
        thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_request_is_recorded_once_with_its_ending_and_outlives_the_session() {
    let zellij = Zellij::start();
    // Answered, through the command.
    let answered = ask(&zellij, "h-answered", "asker");
    shown(&zellij, "asker");
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Enter"]);
    ended(&zellij, answered, "the answered ask");
    // Declined, through a bare `zellij pipe`.
    let declined = zellij.pipe(DB, &[("agent", "piper"), ("id", "h-declined")]);
    shown(&zellij, "piper");
    zellij.send_keys(&["Esc"]);
    let out = declined.wait(ANSWER);
    assert!(out.status.success(), "{out:?}");
    // Rejected by the plugin before it was asked.
    let rejected = zellij.pipe(
        "{\"questions\": []}",
        &[("agent", "piper"), ("id", "h-rejected")],
    );
    rejected.wait(AT_ONCE);
    // Withdrawn: the command is stopped while it waits.
    let stopped = ask(&zellij, "h-aborted", "stopper");
    shown(&zellij, "stopper");
    // SAFETY: a plain kill of the child we started.
    unsafe { libc::kill(stopped.id() as libc::pid_t, libc::SIGTERM) };
    ended(&zellij, stopped, "the stopped ask");

    let entries = recorded(&zellij, 4);
    assert_eq!(entries.len(), 4, "{entries:#?}");
    let answered = entry_of(&entries, "h-answered");
    assert_eq!(answered["ending"], "answered");
    assert_eq!(answered["agent"], "asker");
    assert_eq!(answered["details"]["answers"][0]["answer"], "SQLite");
    assert_eq!(answered["session"], zellij.session());
    assert_eq!(answered["questions"][0]["header"], "DB");
    assert_eq!(answered["questions"][0]["options"][1]["label"], "SQLite");
    assert_eq!(entry_of(&entries, "h-declined")["ending"], "declined");
    assert_eq!(entry_of(&entries, "h-rejected")["ending"], "no_questions");
    assert_eq!(entry_of(&entries, "h-aborted")["ending"], "aborted");
    // The latest first.
    let asked: Vec<u64> = entries
        .iter()
        .map(|e| e["askedMs"].as_u64().unwrap())
        .collect();
    assert!(asked.windows(2).all(|w| w[0] >= w[1]), "{asked:?}");
    // Filters.
    let piper = history(&zellij, &["--agent", "piper"]);
    assert_eq!(piper.len(), 2, "{piper:#?}");
    let sqlite = history(&zellij, &["--search", "sqlite"]);
    assert!(sqlite.iter().any(|e| e["requestId"] == "h-answered"));
    assert!(history(&zellij, &["--session", "no-such-session"]).is_empty());
    // Read as a person reads it.
    let text = run(&zellij, &["history", "--limit", "1", "--agent", "asker"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("asker · session"), "{text}");
    assert!(text.contains("DB: Which database?\n    → SQLite"), "{text}");

    // The record is the user's alone.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let files = record_files(&zellij);
        assert_eq!(files.len(), 1, "{files:?}");
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&files[0]) & 0o777, 0o600);
        assert_eq!(mode(files[0].parent().unwrap()) & 0o777, 0o700);
    }

    // The session ends: the record stays, and the command reads it outside Zellij.
    let out = zellij
        .zellij()
        .args(["kill-session", zellij.session()])
        .output();
    assert!(out.is_ok_and(|o| o.status.success()));
    let outside = zellij
        .in_session(&command())
        .env_remove("ZELLIJ_SESSION_NAME")
        .args(["history", "--json", "--limit", "0"])
        .output()
        .expect("history");
    assert_eq!(String::from_utf8_lossy(&outside.stdout).lines().count(), 4);
}

/// The record files under the world's Zellij cache folder.
fn record_files(zellij: &Zellij) -> Vec<std::path::PathBuf> {
    ask_popup::history::record_files(&zellij.cache_home().join("zellij"))
}

#[test]
fn with_two_clients_attached_a_request_is_recorded_once() {
    let zellij = Zellij::start_with(Options::default());
    zellij.attach_second_client();
    let asking = ask(&zellij, "h-two", "both");
    shown(&zellij, "both");
    // Typed in the first client (`send_keys` would reach both instances at once, as no
    // person's typing does).
    zellij.type_into(FIRST, &["Enter"]);
    ended(&zellij, asking, "the ask");
    let until = zellij.until(AT_ONCE);
    loop {
        let entries = history(&zellij, &[]);
        if !entries.is_empty() {
            assert_eq!(entry_of(&entries, "h-two")["ending"], "answered");
            assert_eq!(entries.len(), 1, "{entries:#?}");
            break;
        }
        assert!(Instant::now() < until, "never recorded");
        thread::sleep(Duration::from_millis(200));
    }
    // A moment later still one: the other instance wrote none.
    thread::sleep(Duration::from_millis(500));
    assert_eq!(history(&zellij, &[]).len(), 1);
}

#[test]
fn a_request_zellij_dropped_once_is_recorded_once() {
    // Zellij drops the command's first pipe after the question reached the plugin; the command
    // asks again with the same id. One request: one entry, answered.
    let zellij = Zellij::start();
    let bin = crate::command::dropping_zellij(&zellij.scratch(), 1);
    let asking = zellij
        .in_session(&command())
        .env("PATH", crate::harness::path_with(&bin))
        .args(["ask", "--id", "h-retried", "--agent", "retrier", DB])
        .stdout(Stdio::piped())
        .spawn()
        .expect("run ask-popup ask");
    shown(&zellij, "retrier");
    // Answered once the command has asked again (the popup's question is then the retry's).
    let until = zellij.until(ANSWER);
    while crate::command::counted(&bin) < 1 {
        assert!(Instant::now() < until, "the first pipe was never dropped");
        thread::sleep(Duration::from_millis(50));
    }
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Enter"]);
    let envelope = ended(&zellij, asking, "the retried ask");
    assert_eq!(
        envelope,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("h-retried"))
    );
    recorded(&zellij, 1);
    // A moment later still one: nothing else is written for it.
    thread::sleep(Duration::from_millis(500));
    let entries = history(&zellij, &[]);
    let entry = entry_of(&entries, "h-retried");
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entry["ending"], "answered");
    assert_eq!(entry["details"]["answers"][0]["answer"], "SQLite");
}

#[test]
fn an_id_that_starts_with_a_dash_is_asked_without_waiting_and_answered() {
    let zellij = Zellij::start();
    let args = [
        "ask",
        "--no-wait",
        "--id",
        "-dash-1",
        "--agent",
        "dasher",
        DB,
    ];
    let out = run(&zellij, &args);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"requestId\":\"-dash-1\"}\n"
    );
    // The process left to wait got the id as its value, not as an option of its own.
    shown(&zellij, "dasher");
    let fetching = zellij
        .in_session(&command())
        .args(["answer", "-dash-1", "--wait", "--timeout", "60"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("answer --wait");
    zellij.send_keys(&["Enter"]);
    let envelope = ended(&zellij, fetching, "answer --wait");
    assert_eq!(
        envelope,
        submitted(DB, &[(0, Answer::Option(0))], &[], Some("-dash-1"))
    );
}

#[test]
fn asked_without_waiting_the_answer_is_fetched_later_also_from_the_record() {
    let zellij = Zellij::start();
    let out = run(
        &zellij,
        &[
            "ask",
            "--no-wait",
            "--id",
            "later-1",
            "--agent",
            "later",
            DB,
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"requestId\":\"later-1\"}\n"
    );
    shown(&zellij, "later");
    // Still waiting: said so, with a status of its own.
    let waiting = run(&zellij, &["answer", "later-1"]);
    assert_eq!(waiting.status.code(), Some(6), "{waiting:?}");
    assert_eq!(
        String::from_utf8_lossy(&waiting.stdout),
        "{\"requestId\":\"later-1\",\"waiting\":true}\n"
    );
    // The user answers; `answer --wait` gets the envelope a waiting `ask` would have.
    let fetching = zellij
        .in_session(&command())
        .args(["answer", "later-1", "--wait", "--timeout", "60"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("answer --wait");
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Enter"]);
    let envelope = ended(&zellij, fetching, "answer --wait");
    let value: Value = serde_json::from_str(&envelope).expect("an envelope");
    assert_eq!(value["details"]["answers"][0]["answer"], "SQLite");
    assert_eq!(value["details"]["requestId"], "later-1");
    assert_eq!(
        envelope,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("later-1"))
    );
    // The session ends and the kept answer is gone: the record still has it.
    zellij
        .zellij()
        .args(["kill-session", zellij.session()])
        .output()
        .ok();
    let state = zellij.home().join(".local/state/ask-popup/answers");
    for entry in std::fs::read_dir(&state)
        .expect("the answers folder")
        .flatten()
    {
        std::fs::remove_file(entry.path()).unwrap();
    }
    let again = run(&zellij, &["answer", "later-1"]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    assert_eq!(String::from_utf8_lossy(&again.stdout), envelope);
    // An id nobody asked: no reply.
    assert_eq!(
        run(&zellij, &["answer", "never-asked"]).status.code(),
        Some(5)
    );
}

#[test]
fn with_no_question_waiting_the_bring_back_key_lists_the_answers_and_esc_closes_it() {
    let zellij = Zellij::start();
    let answered = ask(&zellij, "v-1", "viewer");
    shown(&zellij, "viewer");
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Enter"]);
    ended(&zellij, answered, "the ask");
    assert_eq!(recorded(&zellij, 1).len(), 1);
    zellij.wait_for_screen("the popup gone", ANSWER, |s| !s.contains("Which database?"));
    // `ask-popup show`, as the binding (Ctrl o, y) sends it.
    let out = run(&zellij, &["show"]);
    assert!(out.status.success(), "{out:?}");
    zellij.wait_for_screen("the list of questionnaires", ANSWER, |s| {
        s.contains("Asked before in this session")
            && s.contains("viewer")
            && s.contains("DB: Which database?")
            && s.contains("→ SQLite")
    });
    // Read-only: Enter answers nothing; Esc closes it.
    zellij.send_keys(&["Enter"]);
    zellij.send_keys(&["Esc"]);
    zellij.wait_for_screen("the list closed", ANSWER, |s| {
        !s.contains("Asked before in this session")
    });
    assert_eq!(recorded(&zellij, 1).len(), 1);
}

/// This process's umask, and so that of the Zellij server a world starts, at `mask` until
/// dropped.
struct Umask(libc::mode_t);

impl Umask {
    fn set(mask: libc::mode_t) -> Umask {
        // SAFETY: umask only swaps the process's mask.
        Umask(unsafe { libc::umask(mask) })
    }
}

impl Drop for Umask {
    fn drop(&mut self) {
        // SAFETY: as in `set`.
        unsafe { libc::umask(self.0) };
    }
}

/// The bits of `path`'s mode that let other users in (0 when it is its user's alone).
fn open_to_others(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    meta.permissions().mode() & 0o077
}

/// Answers the question of `agent` on screen with its second option.
fn answer_second(zellij: &Zellij, agent: &str) {
    shown(zellij, agent);
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Enter"]);
}

#[test]
fn the_record_is_never_readable_by_others_where_zellij_made_its_folder_nor_once_cut_back() {
    use ask_popup_protocol::history::{Entry, FILE_NAME, MAX_BYTES, NO_RECORD};
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    // As most machines have it: a umask of 022 (Zellij's server makes folders 0755 and files
    // 0644), home and cache folders 0755, and the plugin loaded by path, without `setup zellij
    // --write` making its folder first.
    let _umask = Umask::set(0o022);
    let zellij = Zellij::start();
    let cache = zellij.cache_home().join("zellij");
    for dir in [zellij.home(), zellij.cache_home(), cache.clone()] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    // A question through a bare `zellij pipe`: no ask-popup command runs.
    let asked = zellij.pipe(DB, &[("agent", "piper"), ("id", "p-open")]);
    answer_second(&zellij, "piper");
    let out = asked.wait(ANSWER);
    assert!(out.status.success(), "{out:?}");
    // Zellij made the plugin's folder open to others: nothing of the record went there, only
    // why (written before the reply went out).
    let folders = ask_popup::history::plugin_folders(&cache);
    assert_eq!(folders.len(), 1, "{folders:?}");
    let folder = folders[0].clone();
    let record = folder.join(FILE_NAME);
    assert_ne!(
        open_to_others(&folder),
        0,
        "Zellij made {folder:?} private itself"
    );
    assert!(!record.exists(), "written where others can read it");
    assert!(folder.join(NO_RECORD).exists());
    // The doctor says that no record is kept there, and why.
    let doctor = run(&zellij, &["doctor", "--json"]);
    let checks: Value = serde_json::from_slice(&doctor.stdout).expect("doctor's JSON");
    let check = checks
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["check"] == "record"))
        .unwrap_or_else(|| panic!("no record check: {checks:#}"));
    assert_eq!(check["ok"], false, "{check:#}");
    let detail = check["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with(&format!("no record is kept in {}: ", folder.display())),
        "{check:#}"
    );

    // The command makes the folder private; the entry the popup held is written then.
    let entries = recorded(&zellij, 1);
    assert_eq!(entry_of(&entries, "p-open")["ending"], "answered");
    assert_eq!(open_to_others(&folder), 0);
    assert_eq!(open_to_others(&record), 0);
    assert!(!folder.join(NO_RECORD).exists());
    // Asked through the command: recorded there at once.
    let answered = ask(&zellij, "p-asked", "asker");
    answer_second(&zellij, "asker");
    ended(&zellij, answered, "the ask");
    let entries = recorded(&zellij, 2);
    assert_eq!(entry_of(&entries, "p-asked")["ending"], "answered");

    // The record grows to just under 2 MiB (older entries, appended as the plugin does)...
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&record)
        .expect("the record");
    let mut n = 0u64;
    let size = |file: &std::fs::File| file.metadata().expect("the record's size").len();
    while size(&file) < MAX_BYTES - 200 {
        let big = size(&file) < MAX_BYTES - 4000;
        let filler = Entry {
            asked_ms: 1_600_000_000_000 + n,
            ended_ms: 1_600_000_000_000 + n,
            agent: "filler".to_owned(),
            request_id: Some(format!("f-{n}")),
            ending: "declined".to_owned(),
            reply: if big { "x".repeat(1500) } else { String::new() },
            ..Entry::default()
        };
        writeln!(file, "{}", filler.to_line()).expect("append a filler");
        n += 1;
    }
    let full = size(&file);
    assert!(full <= MAX_BYTES, "{full}");
    drop(file);
    // ...and the next question's entry takes it past: the plugin cuts it back, through a bare
    // pipe again, so that no command comes after it.
    let asked = zellij.pipe(DB, &[("agent", "cutter"), ("id", "p-cut")]);
    answer_second(&zellij, "cutter");
    let out = asked.wait(ANSWER);
    assert!(out.status.success(), "{out:?}");
    let until = zellij.until(AT_ONCE);
    while std::fs::metadata(&record).map_or(true, |m| m.len() >= full) {
        assert!(Instant::now() < until, "the record was never cut back");
        thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        open_to_others(&record),
        0,
        "the cut-back record is open to others"
    );
    assert_eq!(open_to_others(&folder), 0);
    let text = std::fs::read_to_string(&record).expect("the record");
    let kept = ask_popup_protocol::history::read(&text);
    assert!(kept.len() < n as usize, "{} of {n}", kept.len());
    assert_eq!(
        kept.last().map(|e| e.request_id.as_deref()),
        Some(Some("p-cut"))
    );
}
