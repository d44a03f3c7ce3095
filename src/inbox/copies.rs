//! A question asked in a session nobody is attached to, shown in the sessions somebody is
//! (`routes::forward_to`): one `zellij --session S pipe` per such session, on a
//! thread of its own, asking the same questionnaire with the same id as `<agent> in <home>`.
//! The sessions are looked at again every second while the question waits, so that one a
//! person attaches to later (or the first, when nobody was attached anywhere) gets its copy
//! then. The first answer there is the reply; whatever ends the question, every copy is taken
//! back.

use super::notes as inbox;
use super::routes;
use crate::ask::stop::Stop;
use crate::ask::{self, Caller};
use crate::clock::now_ms;
use crate::remote::socket::own_folder;
use crate::zellij::children::live_sessions;
use crate::zellij::pipe::{NoAnswer, Zellij};
use crate::zellij::process::{self, run_for_output, POLL};
use crate::zellij::programs::{missed_session, ZellijCli};
use crate::zellij::session::LiveSession;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// The copies of one question.
pub struct Copies {
    plugin: String,
    /// The caller as the other sessions see it, the pipe's arguments that say where it was
    /// asked, and the questionnaire.
    caller: Caller,
    extra: String,
    line: String,
    /// `$ASK_POPUP_FORWARD`.
    setting: Option<String>,
    /// The asking pane and agent, for the waiting mark.
    pane: Option<String>,
    agent: Option<String>,
    /// The sessions a copy was started in.
    sessions: Mutex<Vec<String>>,
    /// Set when the question has ended: each copy takes itself back.
    done: Arc<AtomicBool>,
    /// Each copy's envelope, with its session.
    answers: Option<(Sender<Answer>, Receiver<Answer>)>,
    /// The asking session.
    home: Option<String>,
    /// What `state` found so far (an answer is kept once read).
    seen: Mutex<State>,
    /// The asking pane, marked by this command (nobody is attached to its session, so its
    /// plugin does not run): its session, id and title before.
    marked: Mutex<Option<(String, String, String)>>,
    /// The last look at the sessions.
    looked: Mutex<Looked>,
    /// When the question was asked (ms since the Unix epoch).
    since_ms: u64,
}

/// A copy's session, and its envelope.
type Answer = (String, String);

/// What the last look at the sessions found, and when the next is due.
struct Looked {
    next: Instant,
    /// How many clients the asking session has (None: unknown).
    home_clients: Option<usize>,
    /// How many more looks may try to mark the asking pane (Zellij 0.45.1's CLI drops an
    /// action now and then: tried again at the next look, as the question's pipe is).
    mark_tries_left: u8,
    /// What the question's note says now (`inbox::Note`'s `shownIn`), when one is written.
    noted: Option<Vec<String>>,
}

/// The folder of the notes of questions waiting where nobody is attached, made (`make`) and
/// private, each folder on the way the user's own (`notes::notes_folders`). None when it is
/// missing, or refused: then no note is written or read there, which is said once (the
/// question itself is asked all the same).
fn notes_dir(make: bool) -> Option<PathBuf> {
    let folders = inbox::notes_folders(
        |name| std::env::var(name).ok(),
        crate::zellij::children::this_uid(),
        &std::env::temp_dir(),
    );
    let mut opened = None;
    for dir in &folders {
        match own_folder(dir, make) {
            Ok(folder) => opened = Some(folder),
            Err(e) if !make && e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                static SAID: AtomicBool = AtomicBool::new(false);
                if !SAID.swap(true, Ordering::SeqCst) {
                    say_err!(
                        "ask-popup: questions waiting where nobody is attached are not noted in {} \
                         (`status --all-sessions` cannot list them): {e}",
                        dir.display()
                    );
                }
                return None;
            }
        }
    }
    if make {
        use std::os::unix::fs::PermissionsExt;
        // Through the folder opened, never through a path a link could be put at.
        let _ = opened?.set_permissions(std::fs::Permissions::from_mode(0o700));
    }
    folders.last().cloned()
}

/// The notes of questions waiting where nobody is attached, of processes that still run (a
/// note left by one that was killed is removed).
fn waiting_notes() -> Vec<inbox::Note> {
    let Some(dir) = notes_dir(false) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let text = std::fs::read_to_string(entry.path()).ok()?;
            let note: inbox::Note = serde_json::from_str(&text).ok()?;
            let runs = process::exists(note.pid);
            if !runs {
                let _ = std::fs::remove_file(entry.path());
            }
            runs.then_some(note)
        })
        .collect()
}

/// How often the sessions are looked at while a question waits.
const LOOK_EVERY: Duration = Duration::from_secs(1);
/// How many looks try to mark the asking pane at most (once each).
const MARK_TRIES: u8 = 5;

impl Copies {
    /// No copies.
    pub fn none() -> Copies {
        Copies {
            plugin: String::new(),
            caller: Caller {
                pane_id: None,
                agent: None,
                id: String::new(),
                id_given: false,
                approval_by: None,
            },
            extra: String::new(),
            line: String::new(),
            setting: None,
            pane: None,
            agent: None,
            sessions: Mutex::new(Vec::new()),
            done: Arc::new(AtomicBool::new(false)),
            answers: None,
            home: None,
            seen: Mutex::new(State::None),
            marked: Mutex::new(None),
            looked: Mutex::new(Looked {
                next: Instant::now(),
                home_clients: None,
                mark_tries_left: 0,
                noted: None,
            }),
            since_ms: 0,
        }
    }

    /// Shows the question of `caller` (`line`), asked in this command's session, in the
    /// sessions `routes::forward_to` names, now and whenever a look finds another.
    pub fn start(plugin: &str, caller: &Caller, line: &str) -> Copies {
        match std::env::var("ZELLIJ_SESSION_NAME")
            .ok()
            .filter(|s| !s.is_empty())
        {
            Some(home) => Copies::start_in(plugin, caller, line, &home),
            None => Copies::none(),
        }
    }

    /// `start`, for a question asked in session `home` (for `ask-popup serve`, not this
    /// command's own).
    pub fn start_in(plugin: &str, caller: &Caller, line: &str, home: &str) -> Copies {
        let copy = Caller {
            pane_id: None,
            agent: Some(routes::copy_agent(caller.agent.as_deref(), home)),
            id: caller.id.clone(),
            id_given: true,
            approval_by: caller.approval_by.clone(),
        };
        let mut extra = format!("from_session={}", ask::arg_value(home));
        let pane = caller
            .pane_id
            .as_deref()
            .map(ask::arg_value)
            .filter(|p| !p.is_empty());
        if let Some(pane) = &pane {
            extra.push_str(&format!(",from_pane={pane}"));
        }
        let copies = Copies {
            plugin: plugin.to_owned(),
            caller: copy,
            extra,
            line: line.to_owned(),
            setting: std::env::var(routes::FORWARD_ENV).ok(),
            pane,
            agent: caller.agent.clone(),
            sessions: Mutex::new(Vec::new()),
            done: Arc::new(AtomicBool::new(false)),
            answers: Some(mpsc::channel()),
            home: Some(home.to_owned()),
            seen: Mutex::new(State::Waiting),
            marked: Mutex::new(None),
            looked: Mutex::new(Looked {
                next: Instant::now(),
                home_clients: None,
                mark_tries_left: MARK_TRIES,
                noted: None,
            }),
            since_ms: now_ms(),
        };
        copies.look();
        copies
    }

    /// Looks at the sessions when it is time: starts a copy in each session `forward_to` names
    /// that has none yet, and marks the asking pane once nobody is attached to its session.
    pub fn look(&self) {
        let (Some(home), Some((tx, _))) = (self.home.as_deref(), self.answers.as_ref()) else {
            return;
        };
        let mut looked = self.looked.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        if now < looked.next || self.done.load(Ordering::SeqCst) {
            return;
        }
        looked.next = now + LOOK_EVERY;
        let live = live_sessions();
        looked.home_clients = live.iter().find(|s| s.name == home).and_then(|s| s.clients);
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        for session in routes::forward_to(home, self.setting.as_deref(), &live) {
            if sessions.contains(&session) {
                continue;
            }
            let Ok(zellij) = Zellij::of_session(&self.plugin, &session) else {
                continue;
            };
            let (copy, extra, line, done, tx) = (
                self.caller.clone(),
                self.extra.clone(),
                self.line.clone(),
                Done(self.done.clone()),
                tx.clone(),
            );
            let name = session.clone();
            thread::spawn(move || {
                let envelope = zellij.ask_here(&copy, &extra, &line, &done, &Copies::none());
                let _ = tx.send((name, envelope));
            });
            sessions.push(session);
        }
        let unattended = !sessions.is_empty() || looked.home_clients == Some(0);
        let shown_in = (looked.home_clients == Some(0)).then(|| sessions.clone());
        drop(sessions);
        if looked.noted != shown_in {
            match &shown_in {
                Some(shown_in) => self.note(home, shown_in.clone()),
                None => self.forget_note(),
            }
            looked.noted = shown_in;
        }
        if unattended && looked.mark_tries_left > 0 {
            looked.mark_tries_left -= 1;
            if let Some(pane) = self.pane.as_deref() {
                let marked = mark(home, pane, self.agent.as_deref());
                if marked.is_some() {
                    looked.mark_tries_left = 0;
                }
                *self.marked.lock().unwrap_or_else(PoisonError::into_inner) = marked;
            }
        }
    }

    /// Notes that the question waits in `home`, where nobody is attached, shown in
    /// `shown_in` (`notes.rs`).
    fn note(&self, home: &str, shown_in: Vec<String>) {
        let note = inbox::Note {
            session: home.to_owned(),
            request_id: self.caller.id.clone(),
            agent: self.agent.clone(),
            pane_id: self
                .pane
                .as_deref()
                .and_then(crate::later::pane_number)
                .map(u64::from),
            shown_in,
            since_ms: self.since_ms,
            pid: std::process::id(),
        };
        let Some(dir) = notes_dir(true) else {
            return;
        };
        let text = serde_json::to_string(&note).unwrap_or_default();
        let file = inbox::note_file(&dir, &self.caller.id, std::process::id());
        let _ = ask_popup_protocol::atomic_file::write(&file, text.as_bytes(), 0o600);
    }

    /// Removes the question's note, when there is one.
    fn forget_note(&self) {
        if let (Some(_), Some(dir)) = (&self.home, notes_dir(false)) {
            let _ =
                std::fs::remove_file(inbox::note_file(&dir, &self.caller.id, std::process::id()));
        }
    }

    /// Whether nobody is attached to the asking session, at the last look (Zellij's metadata
    /// says so).
    pub fn home_unattended(&self) -> bool {
        self.home.is_some()
            && self
                .looked
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .home_clients
                == Some(0)
    }

    /// Whether the question was shown in other sessions.
    pub fn made(&self) -> bool {
        !self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    /// Where the copies are: the first answer a person gave in another session (a copy that
    /// failed, or was taken back, is no answer), or whether any still waits.
    pub fn state(&self) -> State {
        let Some((_, answers)) = self.answers.as_ref() else {
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
    pub fn end(&self) {
        self.end_answered(false);
    }

    /// `end`, once the question's `envelope` is in hand: an answer given in its own session
    /// is one the copies are told was answered elsewhere too.
    pub fn end_after(&self, envelope: &str) {
        self.end_answered(ask::exit_status(envelope) == ask::EXIT_RESPONDED);
    }

    fn end_answered(&self, answered_at_home: bool) {
        if self.done.swap(true, Ordering::SeqCst) {
            return;
        }
        // Once a look in progress has ended: it may be writing the note.
        let noted = self
            .looked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .noted
            .is_some();
        if noted {
            self.forget_note();
        }
        let marked = self
            .marked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some((session, pane, title)) = &marked {
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
        let sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        for session in sessions.iter() {
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
pub enum State {
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
/// Run again when Zellij's CLI missed the session (`missed_session`: it then sent nothing, yet
/// may exit 0), so that a mark is not taken for made, or for taken off, when it was not.
fn action_in(session: &str, args: &[&str]) -> Option<Vec<u8>> {
    let zellij = ZellijCli::find()?;
    for attempt in 1..=ask::ATTEMPTS {
        thread::sleep(Duration::from_millis(ask::backoff_ms(attempt)));
        let mut command = zellij.command();
        command.args(["-s", session, "action"]).args(args);
        crate::zellij::children::tied_to_this_process(&mut command);
        let out = run_for_output(command, ACTION_LIMIT)?;
        if !missed_session(&out.stderr) {
            return out.status.success().then_some(out.stdout);
        }
    }
    None
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

/// `ask-popup status --all-sessions`: every live session's `status`, asked at once.
pub fn status_of_every_session(plugin: &str) -> i32 {
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
                let out = zellij
                    .answer_at_once("status", "", "now", |_, out| ask::is_status(out))
                    .ok()?;
                String::from_utf8_lossy(&out)
                    .lines()
                    .find_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            });
            (session, handle)
        })
        .collect();
    let notes = waiting_notes();
    let now = now_ms();
    let sessions: Vec<serde_json::Value> = asking
        .into_iter()
        .map(|(session, handle)| {
            let waiting = inbox::waiting_in(&session.name, &notes, now);
            let mut status = match handle.join().ok().flatten() {
                Some(mut status) => {
                    status["session"] = session.name.into();
                    status["clients"] = session.clients.into();
                    status
                }
                None => serde_json::json!({
                    "error": NoAnswer::why(plugin, Some(&session)).to_string(),
                    "session": session.name,
                    "clients": session.clients,
                }),
            };
            if !waiting.is_empty() {
                status["waiting"] = waiting.into();
            }
            status
        })
        .collect();
    let text = serde_json::json!({ "sessions": sessions }).to_string();
    crate::terminal::print(&format!(
        "{}\n",
        crate::terminal::json_for_terminal(&text).trim_end()
    ));
    0
}
