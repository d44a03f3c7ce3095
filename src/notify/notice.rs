//! The notify command of a question left waiting: one timer per asked question, which runs the
//! user's command once when the question has waited its delay unanswered. The command runs
//! detached (a process group of its own, no stdout or stderr shared with the agent) and nothing
//! on the asking path ever waits for it. What runs, when, and the document it reads are decided
//! in `settings.rs`, `document.rs` and `terminal_notice.rs`.

use super::document::{self, Waiting};
use super::settings::{self as notify, ConfigFile, Settings};
use super::terminal_notice;
use crate::ask::Caller;
use crate::zellij::process::run_for;
use crate::zellij::programs::ZellijCli;
use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// How long `zellij web --status` may take (it gives its own check 2 s).
const WEB_STATUS_LIMIT: Duration = Duration::from_secs(5);

/// One question's notification: armed when the question is first asked, settled when its
/// envelope is in hand or it is being withdrawn. Settled before the delay ran out, the command
/// never runs; dropped, it is settled.
pub struct Notice {
    clock: Option<Arc<Clock>>,
}

/// Whether the question has ended, shared by the asking path and the timer.
#[derive(Default)]
struct Clock {
    settled: Mutex<bool>,
    changed: Condvar,
}

/// What the timer needs to tell of the question.
struct Question {
    zellij: ZellijCli,
    caller: Caller,
    line: String,
    asked: Instant,
    /// The session it is asked in, when not this command's own (`ask-popup serve`).
    session: Option<String>,
}

impl Notice {
    /// No notification (a question shown in another session for one asked here).
    pub fn none() -> Notice {
        Notice { clock: None }
    }

    /// Starts the timer of a question asked now by `caller` (the checked questionnaire `line`)
    /// in `session` (None: this command's own), when a notify command is set; a config that
    /// cannot be read is said on stderr and notifies nobody.
    pub fn start(zellij: &ZellijCli, caller: &Caller, line: &str, session: Option<&str>) -> Notice {
        let settings = match load() {
            Ok(Some(settings)) => settings,
            Ok(None) => return Notice { clock: None },
            Err(e) => {
                say_err!("ask-popup: no notification for this question: {e}");
                return Notice { clock: None };
            }
        };
        let clock = Arc::new(Clock::default());
        let question = Question {
            zellij: zellij.clone(),
            caller: caller.clone(),
            line: line.to_owned(),
            asked: Instant::now(),
            session: session.map(str::to_owned),
        };
        let timer = Arc::clone(&clock);
        let started = thread::Builder::new()
            .name("notify".to_owned())
            .spawn(move || timer.run(&settings, &question));
        Notice {
            clock: started.is_ok().then_some(clock),
        }
    }

    /// The question has ended: from now on the command never runs.
    pub fn settle(&self) {
        if let Some(clock) = &self.clock {
            *clock.settled.lock().unwrap_or_else(PoisonError::into_inner) = true;
            clock.changed.notify_all();
        }
    }
}

impl Drop for Notice {
    fn drop(&mut self) {
        self.settle();
    }
}

impl Clock {
    /// Waits out the delay (ending early once settled), then runs the command unless the
    /// question was settled meanwhile.
    fn run(&self, settings: &Settings, question: &Question) {
        let settled = self.settled.lock().unwrap_or_else(PoisonError::into_inner);
        let (settled, _) = self
            .changed
            .wait_timeout_while(settled, settings.delay, |settled| !*settled)
            .unwrap_or_else(PoisonError::into_inner);
        if *settled {
            return;
        }
        drop(settled);
        let session = question
            .session
            .clone()
            .or_else(|| std::env::var("ZELLIJ_SESSION_NAME").ok());
        let url = session
            .as_deref()
            .and_then(|session| web_url(&question.zellij, session));
        let document = Waiting::new(
            &question.line,
            &question.caller,
            session.as_deref(),
            question.asked.elapsed(),
            url,
        )
        .to_json();
        // Spawned under the lock, and only while the question is unsettled: an envelope in hand
        // first means no command, and one that comes now waits only for the spawn, never for
        // the command.
        let spawned = {
            let settled = self.settled.lock().unwrap_or_else(PoisonError::into_inner);
            if *settled {
                return;
            }
            spawn(&settings.command)
        };
        match spawned {
            Ok(child) => feed_and_reap(child, &document),
            Err(e) => say_err!("ask-popup: the notify command could not start: {e}"),
        }
    }
}

/// The notify command, through `sh -c`, in a process group of its own (a signal to the agent's
/// group leaves it be) with its output going nowhere: holding the agent's stdout or stderr open,
/// a slow command would keep an agent that reads them to their end waiting.
fn spawn(command: &str) -> std::io::Result<Child> {
    let mut sh = Command::new("/bin/sh");
    sh.arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut sh, 0);
    sh.spawn()
}

/// Writes the document to the command's stdin and waits for it on this (the timer's) thread,
/// so that it leaves no zombie in a long-lived MCP server; a failure is one line on stderr.
fn feed_and_reap(mut child: Child, document: &str) {
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its stdin is no error.
        let _ = stdin.write_all(document.as_bytes());
    }
    match child.wait() {
        Ok(status) if !status.success() => {
            say_err!("ask-popup: the notify command failed ({status})");
        }
        _ => {}
    }
}

/// The session's URL in Zellij's web client, when its web server runs.
fn web_url(zellij: &ZellijCli, session: &str) -> Option<String> {
    let mut status = zellij.command();
    status.args(document::WEB_STATUS_ARGS).stderr(Stdio::null());
    crate::zellij::children::tied_to_this_process(&mut status);
    let (_, stdout) = run_for(status, WEB_STATUS_LIMIT)?;
    document::web_url(&stdout, session)
}

/// The notify settings from the environment and, for what it leaves out, the config file.
fn load() -> Result<Option<Settings>, String> {
    let command = std::env::var(notify::COMMAND_VAR).ok();
    let delay = std::env::var(notify::DELAY_VAR).ok();
    let env_says_all = command.is_some() && delay.as_deref().is_some_and(|d| !d.trim().is_empty());
    let path = notify::config_path(
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    );
    let file = match path {
        Some(path) if !env_says_all => match std::fs::read_to_string(&path) {
            Ok(text) => Some((path.display().to_string(), text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("{}: {e}", path.display())),
        },
        _ => None,
    };
    let file = file.as_ref().map(|(path, text)| ConfigFile { path, text });
    notify::settings(command.as_deref(), delay.as_deref(), file).map_err(|e| e.to_string())
}

/// Tells the terminal the caller runs in that its question is waiting (`notify::
/// terminal_sequence`): for an agent in a Zellij pane, or on another machine over `ssh -t` from
/// one, that is the pane, and Zellij passes the notification on to its outer terminal. The
/// terminal is the controlling one (`/dev/tty`), else (Claude Code runs its hooks without one)
/// the terminal of the nearest ancestor whose output is one: the agent's. Never waits: a
/// terminal that would block, or none (a bare `zellij pipe`, a daemon), gets nothing.
pub fn tell_terminal(caller: &Caller, line: &str) {
    let setting = std::env::var(terminal_notice::TERMINAL_VAR).ok();
    if !terminal_notice::terminal_notification_on(setting.as_deref()) {
        return;
    }
    let sequence = terminal_notice::terminal_sequence(line, caller);
    if let Some(mut tty) = open_terminal("/dev/tty").or_else(ancestors_terminal) {
        let _ = tty.write_all(sequence.as_bytes());
    }
}

/// A terminal opened for writing, never to become this process's controlling one, and never
/// blocking.
fn open_terminal(path: &str) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(path)
        .ok()
}

/// The terminal the nearest ancestor (up to a few) writes to, from `/proc` (Linux).
fn ancestors_terminal() -> Option<std::fs::File> {
    // SAFETY: getppid has no preconditions.
    let mut pid = unsafe { libc::getppid() };
    for _ in 0..8 {
        if pid <= 1 {
            return None;
        }
        for fd in [1, 2, 0] {
            let Ok(target) = std::fs::read_link(format!("/proc/{pid}/fd/{fd}")) else {
                continue;
            };
            let target = target.to_string_lossy().into_owned();
            if target.starts_with("/dev/pts/") || target.starts_with("/dev/tty") {
                if let Some(tty) = open_terminal(&target) {
                    return Some(tty);
                }
            }
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid …`: the name may hold spaces and parentheses.
        let after = stat.rsplit_once(')')?.1;
        pid = after.split_whitespace().nth(1)?.parse().ok()?;
    }
    None
}
