//! The ask loop: one question asked in a session's popup until an envelope for it comes back,
//! shown meanwhile in the other sessions a person is attached to (`inbox::copies`), withdrawn
//! when the caller goes away, given up once the session's server is gone.

use super::caller::{self as ask, Caller};
use super::stop::Stop;
use crate::inbox::copies;
use crate::notify::desktop_notice::DesktopNotice;
use crate::notify::notice as notify;
use crate::remote::client::ask_through_socket;
use crate::remote::server as serve;
use crate::zellij::children;
use crate::zellij::pipe::Zellij;
use crate::zellij::process::{reply_in_background, POLL};
use ask_popup_protocol::envelope::{Envelope, ErrorCode};
use std::io::Write;
use std::process::{Child, Stdio};
use std::sync::mpsc::RecvTimeoutError;
use std::thread;
use std::time::{Duration, Instant};

/// The envelope for a questionnaire read as `payload`: rejected at once, or asked in the popup
/// until it is answered, fails, or `stop` says the caller went away (then withdrawn).
pub fn answer(
    payload: Result<Vec<u8>, ask_popup_protocol::request::RequestError>,
    caller: &Caller,
    plugin: &str,
    stop: &dyn Stop,
) -> String {
    let line = match payload.and_then(|payload| ask::prepare(&payload, caller)) {
        Ok(line) => line,
        Err(error) => return caller.rejection(&error),
    };
    let zellij = Zellij::find(plugin);
    // A session this command cannot reach itself (not inside Zellij, no `zellij` here, or the
    // named session's server not on this machine: a container given `$ZELLIJ_SESSION_NAME`)
    // is asked through `ask-popup serve`'s socket when there is one; without one, as before.
    if zellij.is_err() || !children::session_is_here() {
        if let Some(envelope) = ask_through_socket(caller, &line, stop) {
            // A server with no session to ask in either adds nothing to what is lacking here.
            let no_ui =
                Envelope::read(&envelope).is_some_and(|e| e.error() == Some(Ok(ErrorCode::NoUi)));
            if !no_ui {
                return envelope;
            }
        }
    }
    match zellij {
        Err(code) => caller.failure(code),
        Ok(zellij) => zellij.ask(caller, &line, stop),
    }
}

/// The longest pause between two askings of a question whose copies wait in other sessions.
const COPIES_RETRY: Duration = Duration::from_secs(2);
/// How long after its first pipe a question's session may still be starting, so that Zellij's
/// CLI does not find it yet and fails at once.
const SESSION_STARTS: Duration = Duration::from_secs(10);

impl Zellij {
    /// Asks the question until an envelope for it comes back; withdraws it when interrupted,
    /// and gives up (`no_reply`) once the session's server is gone. Asked again or not, it is
    /// one question: the user's notify command runs at most once, and only while no envelope
    /// is in hand.
    ///
    /// Asked in this command's own session, or by `ask-popup serve` in the one it picked, it
    /// is shown in the other sessions that have a client attached too, when nobody is attached
    /// there (`copies`): answered there, it is
    /// taken back here without a record (the answering session keeps it) and that answer is
    /// the reply; ended here, it is taken back there.
    pub fn ask(&self, caller: &Caller, line: &str, stop: &dyn Stop) -> String {
        let copies = match self.session {
            None => {
                // For the agents of containers and other machines (see `serve`).
                serve::start_on_demand(&self.plugin);
                copies::Copies::start(&self.plugin, caller, line)
            }
            // `ask-popup serve`'s question, in the session it picked: the same copies.
            Some(ref session) => copies::Copies::start_in(&self.plugin, caller, line, session),
        };
        let envelope = self.ask_here(caller, "", line, stop, &copies);
        // The plugin has loaded: its cache folder, which Zellij may have just made open to
        // others, is made private, and the record it holds until then is written.
        crate::history::command::keep_records_private();
        copies.end_after(&envelope);
        envelope
    }

    /// `ask` in this session alone, the pipe's arguments with `extra` (a copy's `from_session`
    /// and `from_pane`; no notification for a copy); a copy's answer in `copies` ends it.
    pub fn ask_here(
        &self,
        caller: &Caller,
        extra: &str,
        line: &str,
        stop: &dyn Stop,
        copies: &copies::Copies,
    ) -> String {
        let notice = if extra.is_empty() {
            notify::Notice::start(&self.cli, caller, line, self.session.as_deref())
        } else {
            notify::Notice::none()
        };
        // The desktop notification with actions, where a notification server shows them, else
        // the asking pane's own terminal (none for `ask-popup serve`: the caller's command
        // tells its own, on the other machine). Closed when this ends, however it ends.
        let _told = if self.session.is_none() && extra.is_empty() {
            DesktopNotice::start(self, caller, line, caller.pane_id.is_some())
        } else {
            DesktopNotice::none()
        };
        let mut args = caller.pipe_args();
        if !extra.is_empty() {
            args.push(',');
            args.push_str(extra);
        }
        let mut session = match &self.session {
            Some(name) => children::SessionWatch::of_session(name),
            None => children::SessionWatch::of_this_session(),
        };
        // Shown in other sessions, or asked where nobody is attached, it is asked here again
        // and again until it ends (a session nobody is attached to lets no pipe through): once
        // somebody comes (say by the go key of a copy), it is here too. Only the pipes sent
        // while somebody could let them through count as attempts.
        let mut attempt = 0;
        let mut sent = 0;
        let mut at_once = false;
        let first_sent = Instant::now();
        let mut folders = crate::history::command::FolderWatch::start();
        while attempt < ask::ATTEMPTS || copies.made() || copies.home_unattended() {
            sent += 1;
            if sent > ask::ATTEMPTS && session.gone() {
                break;
            }
            let backoff = if at_once {
                Duration::ZERO
            } else {
                Duration::from_millis(ask::backoff_ms(sent)).min(COPIES_RETRY)
            };
            match pause(stop, copies, backoff) {
                Paused::Over => {}
                Paused::Stopped => {
                    notice.settle();
                    copies.end();
                    return self.withdraw_from(caller, None, copies);
                }
                Paused::Answered(envelope) => {
                    notice.settle();
                    return self.answered_elsewhere(caller, copies, envelope);
                }
            }
            let mut command = self.pipe("ask", &args);
            let Ok(mut child) = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn() else {
                continue;
            };
            let stdin = child.stdin.take();
            let payload = format!("{line}\n");
            thread::spawn(move || {
                if let Some(mut stdin) = stdin {
                    let _ = stdin.write_all(payload.as_bytes());
                }
            });
            let stdout = reply_in_background(&mut child, &caller.id);
            let asked = Instant::now();
            // A pipe into a session nobody is attached to waits, and is never let through, not
            // even once somebody comes: such a pipe is sent again, at once when somebody came.
            // So is one sent while the session's metadata still counted a client that was not
            // there (`attach --create-background` leaves its creating client counted until
            // the next CLI connection).
            let unattended = copies.home_unattended();
            let mut counted = !unattended;
            if counted {
                attempt += 1;
            }
            at_once = false;
            let out = loop {
                match stdout.recv_timeout(POLL) {
                    Ok(out) => break out,
                    Err(RecvTimeoutError::Disconnected) => break Vec::new(),
                    Err(RecvTimeoutError::Timeout) => {}
                }
                copies.look();
                folders.look();
                let unattended_now = copies.home_unattended();
                at_once = unattended && !unattended_now;
                let again = at_once
                    || (unattended && asked.elapsed() >= COPIES_RETRY)
                    || (!unattended && unattended_now);
                if again {
                    if counted {
                        // Sent where nobody was: it was no attempt.
                        attempt -= 1;
                        counted = false;
                    }
                    let _ = child.kill();
                    let _ = child.wait();
                    break Vec::new();
                }
                if stop.wait(Duration::ZERO) {
                    notice.settle();
                    // The copies first: taking it back here may wait on a session nobody
                    // is attached to.
                    copies.end();
                    return self.withdraw_from(caller, Some(child), copies);
                }
                if let copies::State::Answered(envelope, _) = copies.state() {
                    notice.settle();
                    let _ = child.kill();
                    let _ = child.wait();
                    return self.answered_elsewhere(caller, copies, envelope);
                }
                if session.gone() {
                    // Its `zellij pipe` would wait for good, spinning a core.
                    notice.settle();
                    copies.end();
                    let _ = child.kill();
                    let _ = child.wait();
                    return caller.failure(ErrorCode::NoReply);
                }
            };
            if let Some(envelope) = ask::reply_in(&out, &caller.id) {
                notice.settle();
                // The CLI exits once the plugin lets its pipe go, a moment after the reply:
                // the agent need not wait for that.
                thread::spawn(move || child.wait());
                return envelope;
            }
            let failed = child.wait().is_ok_and(|status| !status.success());
            if counted && failed && first_sent.elapsed() < SESSION_STARTS {
                // Zellij's CLI did not find this session among the live ones yet (its server
                // starts): no attempt either.
                attempt -= 1;
            }
        }
        copies.end();
        // No reply came back, but a question may have reached the popup all the same: it is
        // taken back, or the agent, asking in its own dialog now, would leave it there for
        // the person to answer for nothing.
        if !session.gone() {
            self.take_back(caller);
        }
        caller.failure(ErrorCode::NoReply)
    }

    /// The question was answered in another session (`envelope`), which keeps the record: it
    /// is taken back here and from the other sessions, and that answer is the reply.
    fn answered_elsewhere(
        &self,
        caller: &Caller,
        copies: &copies::Copies,
        envelope: String,
    ) -> String {
        copies.end();
        // Not waited for: nobody may be attached here to let it through soon.
        let mut args = caller.pipe_args();
        args.push_str(",answered_elsewhere=1");
        self.cancel_in_background(&args);
        envelope
    }

    /// `withdraw`, not waiting for a session nobody is attached to (it lets no pipe through,
    /// and the caller that stopped waits for its envelope).
    fn withdraw_from(
        &self,
        caller: &Caller,
        asking: Option<Child>,
        copies: &copies::Copies,
    ) -> String {
        if !copies.home_unattended() {
            return self.withdraw(caller, asking);
        }
        if let Some(mut child) = asking {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.cancel_in_background(&caller.pipe_args());
        caller.failure(ErrorCode::Aborted)
    }
}

/// How a pause of a waiting question ended.
enum Paused {
    /// Its time is over.
    Over,
    /// The caller went away (`Stop`).
    Stopped,
    /// It was answered in another session.
    Answered(String),
}

/// Waits up to `limit`, ending early when the caller goes away or a copy is answered.
fn pause(stop: &dyn Stop, copies: &copies::Copies, limit: Duration) -> Paused {
    let until = Instant::now() + limit;
    loop {
        copies.look();
        if let copies::State::Answered(envelope, _) = copies.state() {
            return Paused::Answered(envelope);
        }
        let now = Instant::now();
        if now >= until {
            return Paused::Over;
        }
        if stop.wait(POLL.min(until - now)) {
            return Paused::Stopped;
        }
    }
}
