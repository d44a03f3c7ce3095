//! The desktop notification of one question (`desktop.rs` says what it offers): looked for when
//! the question starts waiting, on a thread of its own (with a tokio runtime of its own), so that
//! nothing on the asking path waits for the bus or fails with it; a click sends the plugin the
//! pick through the same `zellij` the question was asked through; closed when the question ends,
//! however it ends. Where no notification with actions is shown (no bus, no server, no
//! `actions`, turned off, or none within `DECIDE_WITHIN`), the terminal is told as before
//! (`notice::tell_terminal`).

use super::desktop::{self, Action, Meaning, Unavailable};
use super::desktop_bus::Server;
use super::notice;
use super::settings::{self, ConfigFile};
use super::terminal_notice::{self, title_and_body};
use crate::ask::Caller;
use crate::zellij::pipe::Zellij;
use ask_popup_protocol::request;
use std::future::Future;
use std::sync::{mpsc, Arc, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Duration;
use tokio::sync::Notify;

/// How long the notification server has to show the notification before the terminal is told
/// instead: a healthy bus answers in milliseconds, and a question should not go untold longer.
pub const DECIDE_WITHIN: Duration = Duration::from_millis(500);
/// How long the end of a question waits for its notification to be closed.
const CLOSE_WITHIN: Duration = Duration::from_secs(1);
/// How long one pipe a click sends may take, and how many times it is sent (Zellij 0.45.1's CLI
/// drops a call now and then).
const PIPE_LIMIT: Duration = Duration::from_secs(5);
const PIPE_ATTEMPTS: u32 = 3;

/// One question's desktop notification; dropped, it is closed.
pub struct DesktopNotice {
    state: Option<Arc<Mutex<State>>>,
}

/// Where the notification stands, shared by the asking path and the notification's thread.
#[derive(Default)]
struct State {
    /// The question has ended: nothing is shown any more, no click counts.
    ended: bool,
    /// The notification on screen: what has it closed.
    shown: Option<Closer>,
}

/// Has the notification's thread close the notification, and says when it has.
struct Closer {
    close: Arc<Notify>,
    closed: mpsc::Receiver<()>,
}

/// What the notification's thread needs of the question.
struct Question {
    zellij: Zellij,
    caller: Caller,
    line: String,
    /// Whether the terminal is told when no notification is shown.
    tell_terminal: bool,
}

impl DesktopNotice {
    /// None: the question is told nowhere (a copy in another session).
    pub fn none() -> DesktopNotice {
        DesktopNotice { state: None }
    }

    /// Tells of `caller`'s question `line`, asked now through `zellij`: a desktop notification
    /// with actions where one is wanted and a server shows them, else the terminal (when
    /// `tell_terminal`), as before.
    pub fn start(zellij: &Zellij, caller: &Caller, line: &str, tell_terminal: bool) -> Self {
        let told_terminal = || {
            if tell_terminal {
                notice::tell_terminal(caller, line);
            }
            DesktopNotice::none()
        };
        if wanted().is_err() {
            return told_terminal();
        }
        let state = Arc::new(Mutex::new(State::default()));
        let question = Question {
            zellij: Zellij {
                cli: zellij.cli.clone(),
                plugin: zellij.plugin.clone(),
                session: zellij.session.clone(),
            },
            caller: caller.clone(),
            line: line.to_owned(),
            tell_terminal,
        };
        let shared = Arc::clone(&state);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        let Ok(runtime) = runtime else {
            return told_terminal();
        };
        let started = thread::Builder::new()
            .name("desktop".to_owned())
            .spawn(move || runtime.block_on(run(shared, question)));
        if started.is_err() {
            return told_terminal();
        }
        DesktopNotice { state: Some(state) }
    }

    /// The question has ended: the notification is closed (waiting for that `CLOSE_WITHIN` at
    /// most), and no click counts from now on.
    pub fn settle(&self) {
        let Some(state) = &self.state else {
            return;
        };
        let shown = {
            let mut state = lock(state);
            state.ended = true;
            state.shown.take()
        };
        if let Some(shown) = shown {
            shown.close.notify_one();
            let _ = shown.closed.recv_timeout(CLOSE_WITHIN);
        }
    }
}

impl Drop for DesktopNotice {
    fn drop(&mut self) {
        self.settle();
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Shows the notification, or tells the terminal when none is on screen within
/// `DECIDE_WITHIN`; then listens to it until the question ends.
async fn run(state: Arc<Mutex<State>>, question: Question) {
    // (A server that takes longer than that to answer `Notify` may still show it once the
    // terminal was told: two notifications then, with nobody listening to the desktop's, rather
    // than a question told nowhere.)
    let shown = tokio::time::timeout(DECIDE_WITHIN, show(&state, &question)).await;
    let Ok(Some(shown)) = shown else {
        let ended = lock(&state).ended;
        if !ended && question.tell_terminal {
            notice::tell_terminal(&question.caller, &question.line);
        }
        return;
    };
    listen(&state, &question, shown).await;
}

/// A notification on screen, listened to.
struct Shown {
    server: Server,
    id: u32,
    offered: Vec<Action>,
    close: Arc<Notify>,
    /// Dropped once it is closed (or no longer listened to).
    _closed: mpsc::Sender<()>,
}

/// Shows the question's notification when the server shows actions and the question still
/// waits.
async fn show(state: &Mutex<State>, question: &Question) -> Option<Shown> {
    let server = Server::connect().await.ok()?;
    let capabilities = server.capabilities().await.ok()?;
    if !capabilities.iter().any(|c| c == "actions") || lock(state).ended {
        return None;
    }
    let questionnaire = request::parse(&question.line).ok()?;
    let offered = desktop::offered(&questionnaire);
    let (summary, body) = title_and_body(&question.line, &question.caller);
    let body = if capabilities.iter().any(|c| c == "body-markup") {
        desktop::as_markup(&body)
    } else {
        body
    };
    let buttons: Vec<(String, String)> = offered
        .iter()
        .map(|(action, label)| (action.key(), label.clone()))
        .collect();
    let id = server.notify(&summary, &body, &buttons).await.ok()?;
    let close = Arc::new(Notify::new());
    let (closed_tx, closed_rx) = mpsc::channel();
    let ended = {
        let mut state = lock(state);
        if !state.ended {
            state.shown = Some(Closer {
                close: Arc::clone(&close),
                closed: closed_rx,
            });
        }
        state.ended
    };
    if ended {
        // The question ended meanwhile.
        server.close_notification(id).await;
        server.close().await;
        return None;
    }
    Some(Shown {
        server,
        id,
        offered: offered.into_iter().map(|(action, _)| action).collect(),
        close,
        _closed: closed_tx,
    })
}

/// Hears the server's signals until the question ends (then closes the notification) or the
/// notification is gone: a click on a button it offered, from the server itself, sends the
/// plugin that pick (or `show`).
async fn listen(state: &Arc<Mutex<State>>, question: &Question, mut shown: Shown) {
    let caller_args = question.caller.pipe_args();
    loop {
        let heard = tokio::select! {
            () = shown.close.notified() => break,
            heard = shown.server.next_signal() => heard,
        };
        let Some(heard) = heard else {
            return;
        };
        if heard.id != shown.id {
            continue;
        }
        // Whoever owns the name now: a server that was replaced no longer speaks for it.
        let owner = shown.server.owner().await;
        match desktop::meaning(&heard, owner.as_deref(), shown.id, &shown.offered) {
            Meaning::Click(action) => {
                if lock(state).ended {
                    continue;
                }
                let (pipe, args) = action.pipe(&caller_args);
                send_in_background(&question.zellij, pipe, args, state);
            }
            Meaning::Closed => return,
            Meaning::Nothing => {}
        }
    }
    shown.server.close_notification(shown.id).await;
    shown.server.close().await;
}

/// Sends the pipe a click makes, on a thread of its own (the signals are still heard meanwhile),
/// until the plugin answers it or `PIPE_ATTEMPTS` times, unless the question ends meanwhile.
fn send_in_background(
    zellij: &Zellij,
    pipe: &'static str,
    args: String,
    state: &Arc<Mutex<State>>,
) {
    let zellij = Zellij {
        cli: zellij.cli.clone(),
        plugin: zellij.plugin.clone(),
        session: zellij.session.clone(),
    };
    let state = Arc::clone(state);
    let _ = thread::Builder::new()
        .name("desktop-click".to_owned())
        .spawn(move || {
            for _ in 0..PIPE_ATTEMPTS {
                if lock(&state).ended {
                    return;
                }
                let answered =
                    zellij
                        .call(pipe, &args, "now", PIPE_LIMIT)
                        .is_some_and(|(success, stdout)| {
                            success
                                && (pipe != desktop::PICK_PIPE
                                    || stdout.starts_with(b"{\"picked\""))
                        });
                if answered {
                    return;
                }
            }
        });
}

/// Whether a desktop notification is wanted here: settings, the terminal notification and the
/// bus's address (`desktop::wanted`).
pub fn wanted() -> Result<(), Unavailable> {
    let var = std::env::var(desktop::ACTIONS_VAR).ok();
    let path = settings::config_path(
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    );
    let text = path
        .as_ref()
        .and_then(|path| std::fs::read_to_string(path).ok());
    let shown_path = path.as_ref().map(|p| p.display().to_string());
    let file = match (&shown_path, &text) {
        (Some(path), Some(text)) => Some(ConfigFile { path, text }),
        _ => None,
    };
    let desktop_on = match settings::desktop_actions(var.as_deref(), file) {
        Ok(true) => Ok(()),
        Ok(false) if settings::desktop_actions(var.as_deref(), None) == Ok(false) => Err(format!(
            "{}={}",
            desktop::ACTIONS_VAR,
            var.unwrap_or_default().trim()
        )),
        Ok(false) => Err(format!(
            "notify.desktop_actions = false in {}",
            shown_path.unwrap_or_default()
        )),
        Err(e) => Err(e.to_string()),
    };
    let terminal = std::env::var(terminal_notice::TERMINAL_VAR).ok();
    let terminal_on = terminal_notice::terminal_notification_on(terminal.as_deref());
    let bus = std::env::var(desktop::BUS_VAR).ok();
    desktop::wanted(desktop_on, terminal_on, bus.as_deref())
}

/// For `doctor`: the notification server that would show a waiting question with its actions
/// (its name and version), or why none would.
pub fn availability() -> Result<String, Unavailable> {
    wanted()?;
    let no_server = |why: String| Unavailable::NoServer(why);
    on_a_runtime(Duration::from_secs(3), async move {
        let server = Server::connect()
            .await
            .map_err(|e| no_server(e.to_string()))?;
        let capabilities = server
            .capabilities()
            .await
            .map_err(|e| no_server(e.to_string()))?;
        let name = server.name().await.unwrap_or_else(|_| "unnamed".to_owned());
        server.close().await;
        if capabilities.iter().any(|c| c == "actions") {
            Ok(name)
        } else {
            Err(Unavailable::NoActions(name))
        }
    })
    .unwrap_or_else(|| Err(no_server("no answer within 3 s".to_owned())))
}

/// Runs `work` on a runtime of its own, on a thread of its own (the caller may be inside
/// another runtime), for at most `limit`.
fn on_a_runtime<T: Send + 'static>(
    limit: Duration,
    work: impl Future<Output = T> + Send + 'static,
) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("desktop-probe".to_owned())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            if let Ok(runtime) = runtime {
                let _ = tx
                    .send(runtime.block_on(async { tokio::time::timeout(limit, work).await.ok() }));
            }
        })
        .ok()?;
    rx.recv_timeout(limit + Duration::from_secs(1))
        .ok()
        .flatten()
}
