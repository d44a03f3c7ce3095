//! What tells a waiting question that its caller went away: signals, the parent's end, or
//! what a hook watches (its agent's own prompt answered).

use crate::zellij::process::{parent_pid, POLL};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// What tells a waiting question that its caller went away, so it is withdrawn.
pub trait Stop {
    /// Waits up to `limit`; true once the caller has gone.
    fn wait(&self, limit: Duration) -> bool;
}

/// What stops a waiting command: SIGINT, SIGTERM or SIGHUP, or its parent process ending.
pub struct Interrupts {
    signals: Receiver<()>,
    /// None: the parent's end does not count.
    parent: Option<i32>,
}

/// Something a waiting hook polls: true once what it waits for was settled elsewhere.
pub type Watch = Box<dyn Fn() -> bool + Send>;

impl Interrupts {
    pub fn install() -> Interrupts {
        Interrupts::install_watching(None)
    }

    /// `install`, and `watch` polled four times a second: once it says so, the command stops
    /// as on a signal (the question is withdrawn).
    pub fn install_watching(watch: Option<Watch>) -> Interrupts {
        let (tx, rx) = mpsc::channel();
        if let Some(watch) = watch {
            let tx = tx.clone();
            thread::spawn(move || loop {
                thread::sleep(Duration::from_millis(250));
                if watch() {
                    let _ = tx.send(());
                    break;
                }
            });
        }
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            thread::spawn(move || {
                for _ in signals.forever() {
                    if tx.send(()).is_err() {
                        break;
                    }
                }
            });
        }
        let parent = parent_pid();
        // `wait` notices a new parent (the old one ended) within a poll. Not PR_SET_PDEATHSIG:
        // Linux sends it when the *thread* that spawned this process ends, and multi-threaded
        // agents spawn from worker threads that come and go (Codex's MCP servers got it 10 s
        // into every call, when the thread pool let its spawning thread go).
        Interrupts {
            signals: rx,
            parent: Some(parent),
        }
    }

    /// The signals alone: for a process whose parent ends at once by design.
    pub fn signals_only() -> Interrupts {
        Interrupts {
            parent: None,
            ..Interrupts::install()
        }
    }

    /// Whether the parent this command started with has ended.
    fn parent_gone(&self) -> bool {
        self.parent.is_some_and(|parent| parent_pid() != parent)
    }
}

impl Stop for Interrupts {
    /// Nothing tells this process that its parent ended (see `install_watching`), so a long
    /// wait looks at the parent every `POLL`: a command whose agent was killed ends within a
    /// poll, however long it was told to wait.
    fn wait(&self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        loop {
            if self.parent_gone() {
                return true;
            }
            let left = until.saturating_duration_since(Instant::now());
            let slice = match self.parent {
                Some(_) => left.min(POLL),
                None => left,
            };
            match self.signals.recv_timeout(slice) {
                Ok(()) => return true,
                Err(RecvTimeoutError::Timeout) => {}
                // No signal can come (they could not be watched): the parent still counts.
                Err(RecvTimeoutError::Disconnected) => thread::sleep(slice),
            }
            if Instant::now() >= until {
                return self.parent_gone();
            }
        }
    }
}
