//! A question asked in a session nobody is attached to, shown in the sessions somebody is
//! (`ask_popup::relay::forward_to`): one `zellij --session S pipe` per such session, on a
//! thread of its own, asking the same questionnaire with the same id as `<agent> in <home>`.
//! The first answer there is the reply; whatever ends the question, every copy is taken back.

use super::children::{clients_of, live_sessions};
use super::programs::ZellijCli;
use super::{Stop, Zellij, POLL};
use ask_popup::ask::{self, Caller};
use ask_popup::relay::{self, LiveSession};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// The copies of one question.
pub(super) struct Copies {
    plugin: String,
    /// The caller as the other sessions see it, and the sessions.
    caller: Caller,
    sessions: Vec<String>,
    /// Set when the question has ended: each copy takes itself back.
    done: Arc<AtomicBool>,
    /// Each copy's envelope, with its session.
    answers: Option<Receiver<(String, String)>>,
    /// The asking session.
    home: Option<String>,
    /// What `state` found so far (an answer is kept once read).
    seen: Mutex<State>,
    /// The asking pane, marked by this command (nobody is attached to its session, so its
    /// plugin does not run): its session, id and title before.
    marked: Option<(String, String, String)>,
}

impl Copies {
    /// No copies.
    pub(super) fn none() -> Copies {
        Copies {
            plugin: String::new(),
            caller: Caller {
                pane_id: None,
                agent: None,
                id: String::new(),
                id_given: false,
                approval_by: None,
            },
            sessions: Vec::new(),
            done: Arc::new(AtomicBool::new(false)),
            answers: None,
            home: None,
            seen: Mutex::new(State::None),
            marked: None,
        }
    }

    /// Shows the question of `caller` (`line`), asked in this command's session, in the
    /// sessions `relay::forward_to` names.
    pub(super) fn start(plugin: &str, caller: &Caller, line: &str) -> Copies {
        let Some(home) = std::env::var("ZELLIJ_SESSION_NAME")
            .ok()
            .filter(|s| !s.is_empty())
        else {
            return Copies::none();
        };
        let setting = std::env::var(relay::FORWARD_ENV).ok();
        if relay::never_forwards(setting.as_deref()) {
            return Copies::none();
        }
        let sessions = relay::forward_to(&home, setting.as_deref(), &live_sessions());
        if sessions.is_empty() {
            return Copies::none();
        }
        let copy = Caller {
            pane_id: None,
            agent: Some(relay::copy_agent(caller.agent.as_deref(), &home)),
            id: caller.id.clone(),
            id_given: true,
            approval_by: caller.approval_by.clone(),
        };
        let mut extra = format!("from_session={}", ask::arg_value(&home));
        if let Some(pane) = caller.pane_id.as_deref().map(ask::arg_value) {
            if !pane.is_empty() {
                extra.push_str(&format!(",from_pane={pane}"));
            }
        }
        let done = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        for session in &sessions {
            let Ok(zellij) = Zellij::of_session(plugin, session) else {
                continue;
            };
            let (copy, extra, line, done, tx, session) = (
                copy.clone(),
                extra.clone(),
                line.to_owned(),
                Done(done.clone()),
                tx.clone(),
                session.clone(),
            );
            thread::spawn(move || {
                let envelope = zellij.ask_here(&copy, &extra, &line, &done, &Copies::none());
                let _ = tx.send((session, envelope));
            });
        }
        let marked = caller
            .pane_id
            .as_deref()
            .and_then(|pane| mark(&home, pane, caller.agent.as_deref()));
        Copies {
            plugin: plugin.to_owned(),
            caller: copy,
            sessions,
            done,
            answers: Some(rx),
            home: Some(home),
            seen: Mutex::new(State::Waiting),
            marked,
        }
    }

    /// Whether nobody is attached to the asking session still (Zellij's metadata says so).
    pub(super) fn home_unattended(&self) -> bool {
        self.home
            .as_deref()
            .is_some_and(|home| clients_of(home) == Some(0))
    }

    /// Whether the question was shown in other sessions (its own has nobody attached, then).
    pub(super) fn made(&self) -> bool {
        !self.sessions.is_empty()
    }

    /// Where the copies are: the first answer a person gave in another session (a copy that
    /// failed, or was taken back, is no answer), or whether any still waits.
    pub(super) fn state(&self) -> State {
        let Some(answers) = self.answers.as_ref() else {
            return State::None;
        };
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        while let State::Waiting = *seen {
            match answers.try_recv() {
                Ok((session, envelope)) if ask::exit_status(&envelope) == ask::EXIT_RESPONDED => {
                    *seen = State::Answered(envelope, session);
                }
                Ok(_) => {}
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => *seen = State::None,
            }
        }
        seen.clone()
    }

    /// The question has ended: every copy is taken back at once, by a `cancel` pipe in each
    /// session that outlives this command (the agent need not wait for it). When a copy's
    /// answer was the reply, the others are told it was answered elsewhere: one answered at
    /// the same moment then says so in the record (`history::ANSWERED_ELSEWHERE`), and the
    /// session whose answer was taken is sent nothing.
    pub(super) fn end(&self) {
        self.end_answered(false);
    }

    /// `end`, once the question's `envelope` is in hand: an answer given in its own session
    /// is one the copies are told was answered elsewhere too.
    pub(super) fn end_after(&self, envelope: &str) {
        self.end_answered(ask::exit_status(envelope) == ask::EXIT_RESPONDED);
    }

    fn end_answered(&self, answered_at_home: bool) {
        if self.done.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Some((session, pane, title)) = &self.marked {
            unmark(session, pane, title);
        }
        let answered_in = match self.state() {
            State::Answered(_, session) => Some(session),
            State::None | State::Waiting => None,
        };
        let mut args = self.caller.pipe_args();
        if answered_in.is_some() || answered_at_home {
            let home = self.home.as_deref().map(ask::arg_value).unwrap_or_default();
            args.push_str(&format!(",from_session={home},answered_elsewhere=1"));
        }
        for session in &self.sessions {
            if answered_in.as_ref() == Some(session) {
                continue;
            }
            if let Ok(zellij) = Zellij::of_session(&self.plugin, session) {
                zellij.cancel_in_background(&args);
            }
        }
    }
}

/// Where the copies of a question are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum State {
    /// None (left), or none was made.
    None,
    /// At least one waits.
    Waiting,
    /// A person answered one: its envelope, and its session.
    Answered(String, String),
}

/// The question ended elsewhere.
struct Done(Arc<AtomicBool>);

impl Stop for Done {
    fn wait(&self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        loop {
            if self.0.load(Ordering::SeqCst) {
                return true;
            }
            let now = Instant::now();
            if now >= until {
                return false;
            }
            thread::sleep(POLL.min(until - now));
        }
    }
}

/// `zellij -s SESSION ACTION…`, waited for a few seconds at most: its stdout when it succeeded.
fn action_in(session: &str, args: &[&str]) -> Option<Vec<u8>> {
    let zellij = ZellijCli::find()?;
    let mut command = zellij.command();
    command.args(["-s", session, "action"]).args(args);
    command.stderr(std::process::Stdio::null());
    super::children::tied_to_this_process(&mut command);
    let (success, out) = super::run_for(command, ACTION_LIMIT)?;
    success.then_some(out)
}

/// How long a `zellij action` of the marks may take.
const ACTION_LIMIT: Duration = Duration::from_secs(5);

/// Marks terminal pane `pane` of `session` as waiting (its title with `TITLE_MARK` in front),
/// as the plugin does where it runs: the session, the pane and the title before.
fn mark(session: &str, pane: &str, agent: Option<&str>) -> Option<(String, String, String)> {
    let pane = pane.trim().trim_start_matches("terminal_").to_owned();
    let id: u64 = pane.parse().ok()?;
    let listed = action_in(session, &["list-panes", "--json", "--all"])?;
    let panes: serde_json::Value = serde_json::from_slice(&listed).ok()?;
    let title = panes.as_array()?.iter().find_map(|p| {
        (p["is_plugin"] == false && p["id"].as_u64() == Some(id))
            .then(|| p["title"].as_str().map(str::to_owned))?
    });
    let title = title
        .or_else(|| agent.map(str::to_owned))
        .unwrap_or_default();
    let bare = title
        .trim_start_matches(ask_popup_protocol::TITLE_MARK)
        .to_owned();
    let target = format!("terminal_{pane}");
    let marked = format!("{}{bare}", ask_popup_protocol::TITLE_MARK);
    action_in(session, &["rename-pane", "--pane-id", &target, &marked])?;
    Some((session.to_owned(), pane, bare))
}

/// Puts the title back (`mark`'s).
fn unmark(session: &str, pane: &str, title: &str) {
    let target = format!("terminal_{pane}");
    let _ = action_in(session, &["rename-pane", "--pane-id", &target, title]);
}

/// How long each session's `status` pipe may take for `status --all-sessions`, and how many
/// times it is asked (Zellij 0.45.1's CLI drops calls now and then).
const STATUS_LIMIT: Duration = Duration::from_secs(3);
const STATUS_ATTEMPTS: u32 = 2;

/// `ask-popup status --all-sessions`: every live session's `status`, asked at once.
pub(super) fn status_of_every_session(plugin: &str) -> i32 {
    if ZellijCli::find().is_none() {
        say_err!(
            "ask-popup status: {}",
            ask_popup_protocol::envelope::host_text(
                ask_popup_protocol::envelope::ErrorCode::ZellijNotFound
            )
        );
        return ask_popup_protocol::envelope::ErrorCode::ZellijNotFound.exit_status();
    }
    let asking: Vec<(LiveSession, thread::JoinHandle<Option<serde_json::Value>>)> = live_sessions()
        .into_iter()
        .map(|session| {
            let plugin = plugin.to_owned();
            let name = session.name.clone();
            let handle = thread::spawn(move || {
                let zellij = Zellij::of_session(&plugin, &name).ok()?;
                (1..=STATUS_ATTEMPTS).find_map(|_| {
                    let (_, out) = zellij.call("status", "", "now", STATUS_LIMIT)?;
                    ask::is_status(&out).then_some(())?;
                    String::from_utf8_lossy(&out)
                        .lines()
                        .find_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
                })
            });
            (session, handle)
        })
        .collect();
    let sessions: Vec<serde_json::Value> = asking
        .into_iter()
        .map(
            |(LiveSession { name, clients }, handle)| match handle.join().ok().flatten() {
                Some(mut status) => {
                    status["session"] = name.into();
                    status["clients"] = clients.into();
                    status
                }
                None => serde_json::json!({
                    "session": name,
                    "clients": clients,
                    "error": "no answer from the plugin (nobody is attached, or it is not loaded)",
                }),
            },
        )
        .collect();
    let text = serde_json::json!({ "sessions": sessions }).to_string();
    super::print(&format!(
        "{}\n",
        ask_popup::terminal::json_for_terminal(&text).trim_end()
    ));
    0
}
