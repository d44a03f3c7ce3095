//! Asking without waiting (`ask-popup ask --no-wait`), the process that waits in its place
//! (`--keep-answer`), fetching the answer (`ask-popup answer`), and reading the record of
//! questionnaires (`ask-popup history`). What is decided (where things are kept, where a
//! request stands, which entries a person asks for, how they read) is `mark.rs`
//! and `crate::history`.

use super::mark::{self as later, Standing};
use crate::ask::stop::Interrupts;
use crate::ask::waiting::answer;
use crate::ask::{self, Caller};
use crate::history::command::recorded_entries;
use crate::terminal;
use crate::terminal::print;
use crate::zellij::pipe::Zellij;
use crate::zellij::programs::exe;
use ask_popup_protocol::atomic_file;
use ask_popup_protocol::envelope::ErrorCode;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// How often `ask-popup answer --wait` looks again.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// The folder of kept answers, made private; None without a home to put it in.
fn answers_dir() -> Option<PathBuf> {
    let dir = later::answers_dir(
        std::env::var_os("XDG_STATE_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )?;
    std::fs::create_dir_all(&dir).ok()?;
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
    Some(dir)
}

/// `ask-popup ask --no-wait`: the questionnaire checked, left with a process of its own that
/// waits for the answer and keeps it, and its id printed at once.
pub fn ask_without_waiting(
    payload: Result<Vec<u8>, ask_popup_protocol::request::RequestError>,
    caller: &Caller,
    plugin: &str,
) -> i32 {
    match leave_question(payload, caller, plugin) {
        Ok(id) => {
            print(&later::asked_line(&id));
            ask::EXIT_RESPONDED
        }
        Err(envelope) => printed(&envelope),
    }
}

/// Checks the questionnaire and leaves it with a process of its own that waits for the answer
/// and keeps it: the request's id, or the envelope of why it was not asked.
pub fn leave_question(
    payload: Result<Vec<u8>, ask_popup_protocol::request::RequestError>,
    caller: &Caller,
    plugin: &str,
) -> Result<String, String> {
    let line = match payload.and_then(|payload| ask::prepare(&payload, caller)) {
        Ok(line) => line,
        Err(error) => return Err(caller.rejection(&error)),
    };
    let questionnaire = match ask_popup_protocol::request::parse(&line) {
        Ok(questionnaire) => questionnaire,
        Err(error) => return Err(caller.rejection(&error)),
    };
    if let Err(code) = Zellij::find(plugin) {
        return Err(caller.failure(code));
    }
    let Some(dir) = answers_dir() else {
        say_err!("ask-popup: no folder to keep the answer in (set HOME)");
        return Err(caller.failure(ErrorCode::NoReply));
    };
    forget_old_answers(&dir);
    let token = fresh_token();
    let mut command = Command::new(exe());
    command
        // `--name=value`: a value may start with `-` (an id such as `-1`).
        .args([
            "ask".to_owned(),
            format!("--keep-answer={token}"),
            format!("--id={}", caller.id),
            format!("--plugin={plugin}"),
        ])
        .args(caller.agent.iter().map(|a| format!("--agent={a}")))
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: setsid is async-signal-safe. A session of its own: the terminal closing or the
    // agent's process group being stopped does not take the question with it.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            say_err!("ask-popup: cannot start the process that waits for the answer: {e}");
            return Err(caller.failure(ErrorCode::NoReply));
        }
    };
    // The mark before the question: from now on the id is this request's, and an earlier
    // one's answer is not taken for its own. (The process asks once it has read its stdin.)
    let asked = later::Asked::new(
        child.id(),
        token,
        std::env::var("ZELLIJ_SESSION_NAME").ok().as_deref(),
        caller.pane_id.as_deref(),
        &questionnaire,
    );
    let mark = later::mark_file(&dir, &caller.id);
    if let Err(e) = atomic_file::write(&mark, asked.to_text().as_bytes(), atomic_file::OWNER_ONLY) {
        say_err!(
            "ask-popup: cannot keep the mark of the question ({}): {e}",
            mark.display()
        );
        let _ = child.kill();
        let _ = child.wait();
        return Err(caller.failure(ErrorCode::NoReply));
    }
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(format!("{line}\n").as_bytes());
    }
    // Reaped when it ends: a long-lived parent (`ask-popup mcp`) would keep a zombie of every
    // question asked for later. (`ask --no-wait` ends at once, and the process is re-parented.)
    std::thread::spawn(move || child.wait());
    Ok(caller.id.clone())
}

/// A token no other request of the same id has: this process's id, the time and a count.
fn fresh_token() -> String {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let count = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{:x}-{nanos:x}-{count:x}", std::process::id())
}

/// `ask-popup ask --keep-answer=TOKEN`, the process `--no-wait` leaves: asks as `ask` does (the
/// signals withdraw the question, the parent's end does not: it ends at once), and keeps the
/// envelope under its token for `ask-popup answer`. Its mark stays: it says which request the id
/// is now, and that its process has ended.
pub fn ask_and_keep(
    payload: Result<Vec<u8>, ask_popup_protocol::request::RequestError>,
    caller: &Caller,
    plugin: &str,
    token: &str,
) -> i32 {
    let envelope = answer(payload, caller, plugin, &Interrupts::signals_only());
    if let Some(dir) = answers_dir() {
        let kept = later::answer_file(&dir, &caller.id, token);
        if let Err(e) = atomic_file::write(&kept, envelope.as_bytes(), atomic_file::OWNER_ONLY) {
            say_err!(
                "ask-popup: cannot keep the answer ({}): {e}",
                kept.display()
            );
        }
    }
    ask::exit_status(&envelope)
}

/// Deletes the kept answers and marks older than `later::KEEP_MS`, but the mark of a request
/// whose process still waits.
fn forget_old_answers(dir: &Path) {
    let now = SystemTime::now();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|at| now.duration_since(at).ok())
            .is_some_and(|age| age.as_millis() > u128::from(later::KEEP_MS));
        let waits = || {
            std::fs::read_to_string(&path)
                .ok()
                .and_then(|text| later::Asked::read(&text))
                .is_some_and(|asked| waits_for(&asked))
        };
        if old && !waits() {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Whether the process left to wait for the request `asked` marks still runs: its pid runs,
/// and (where /proc tells) is that process, not another that got its pid once it ended.
fn waits_for(asked: &later::Asked) -> bool {
    if !process_runs(asked.pid) {
        return false;
    }
    let Ok(cmdline) = std::fs::read(format!("/proc/{}/cmdline", asked.pid)) else {
        return !Path::new("/proc/self").exists();
    };
    let own = format!("--keep-answer={}", asked.token);
    cmdline.split(|b| *b == 0).any(|arg| arg == own.as_bytes())
}

/// Whether process `pid` still runs.
fn process_runs(pid: u32) -> bool {
    crate::zellij::process::runs_as_ours(pid) && !is_zombie(pid)
}

/// Whether process `pid` has ended and waits to be reaped (a zombie answers signal 0 as if it
/// ran). Where there is no /proc (macOS), nothing is a zombie: the parent reaps its child.
fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            // `pid (comm) state …`: the name may hold spaces and parentheses.
            let after_name = stat.rsplit_once(')')?.1;
            after_name
                .split_whitespace()
                .next()
                .map(|state| state == "Z")
        })
        .unwrap_or(false)
}

/// `ask-popup answer ID`: the envelope of the request last asked under the id with `--no-wait`
/// (or the record's of that request; see `later::recorded_reply`), once it ended; while it
/// waits, says so (exit `later::EXIT_WAITING`), or with `wait` looks again until it ends or
/// `timeout` passes.
pub fn answer_command(id: &str, wait: bool, timeout: Option<Duration>) -> i32 {
    let started = Instant::now();
    loop {
        match standing(id) {
            Standing::Ended(envelope) => return printed(&envelope),
            Standing::Waiting => {
                let timed_out = timeout.is_some_and(|limit| started.elapsed() >= limit);
                if !wait || timed_out {
                    print(&later::waiting_line(id));
                    return later::EXIT_WAITING;
                }
                std::thread::sleep(LOOK_EVERY);
            }
            Standing::Unknown => {
                say_err!("ask-popup answer: no request {id:?} is waiting or recorded");
                let caller = Caller {
                    pane_id: None,
                    agent: None,
                    id: id.to_owned(),
                    id_given: true,
                    approval_by: None,
                };
                return printed(&caller.failure(ErrorCode::NoReply));
            }
        }
    }
}

/// Where request `id` stands, from the mark of the request last asked under it (its waiting
/// process, its kept answer) and the record.
pub fn standing(id: &str) -> Standing {
    let dir = answers_dir();
    let asked = dir
        .as_ref()
        .and_then(|dir| std::fs::read_to_string(later::mark_file(dir, id)).ok())
        .and_then(|text| later::Asked::read(&text));
    later::standing(
        asked.as_ref(),
        waits_for,
        |asked| {
            let file = later::answer_file(dir.as_ref()?, id, &asked.token);
            std::fs::read_to_string(file).ok()
        },
        || {
            let here = later::Here::new(
                std::env::var("ZELLIJ_SESSION_NAME").ok().as_deref(),
                std::env::var("ZELLIJ_PANE_ID").ok().as_deref(),
            );
            later::recorded_reply(recorded_entries(), id, asked.as_ref(), &here)
        },
    )
}

/// Prints an envelope (what the user and the agent wrote in it cannot drive the terminal, see
/// `terminal::json_for_terminal`); the exit status for it.
fn printed(envelope: &str) -> i32 {
    print(&terminal::json_for_terminal(envelope));
    ask::exit_status(envelope)
}
