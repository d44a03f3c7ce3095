//! The `zellij pipe` client: the session asked and the plugin, the pipes sent to it (a question,
//! `cancel`, and those it answers at once: `status`, `show`, `blocked`, `version`), and
//! `ask-popup status` and `show`.

use super::children;
use super::process::run;
use super::programs::ZellijCli;
use super::session::LiveSession;
use crate::ask::{self, Caller};
use crate::terminal::{self, print};
use ask_popup_protocol::envelope::ErrorCode;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How long a `cancel` pipe may take.
pub const PIPE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a pipe the plugin answers at once (`status`, `show`, `blocked`, `version`) is
/// waited for in all, however many times it is sent: the commands that send one answer within
/// two seconds, or say why they could not. In a session nobody is attached to Zellij runs no
/// plugin and lets no pipe through, and its CLI waits for good.
pub const ANSWER_WITHIN: Duration = Duration::from_millis(1500);

/// Why a pipe the plugin answers at once got no answer: the user-visible texts, in one place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoAnswer {
    #[error(
        "nobody is attached to session `{0}`, and Zellij runs the plugin only for a client \
         attached to its session"
    )]
    Unattended(String),
    #[error(
        "no answer from the plugin `{0}` within {secs} s (is it loaded in this session?)",
        secs = ANSWER_WITHIN.as_secs_f32()
    )]
    NotLoaded(String),
}

impl NoAnswer {
    /// Why the plugin `plugin` did not answer in `session` (None: not among the live ones):
    /// nobody is attached, as Zellij's metadata says, or it is not loaded there.
    pub fn why(plugin: &str, session: Option<&LiveSession>) -> NoAnswer {
        match session {
            Some(session) if session.clients == Some(0) => {
                NoAnswer::Unattended(session.name.clone())
            }
            _ => NoAnswer::NotLoaded(plugin.to_owned()),
        }
    }
}

/// The Zellij session this command runs in, and the plugin it asks.
pub struct Zellij {
    pub cli: ZellijCli,
    pub plugin: String,
    /// The session asked, when not the one this command runs in (`ask-popup serve`).
    pub session: Option<String>,
}

impl Zellij {
    /// `find` for the subcommand `command` (`status`, `blocked`…): why there is no `zellij`
    /// said on stderr, and the exit status for it.
    pub fn find_for(plugin: &str, command: &str) -> Result<Zellij, i32> {
        Zellij::find(plugin).map_err(|code| {
            say_err!(
                "ask-popup {command}: {}",
                ask_popup_protocol::envelope::host_text(code)
            );
            code.exit_status()
        })
    }

    /// The session's `zellij`, or why there is none: not inside Zellij, or not installed.
    pub fn find(plugin: &str) -> Result<Zellij, ErrorCode> {
        let inside = ["ZELLIJ", "ZELLIJ_SESSION_NAME"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
        if !inside {
            return Err(ErrorCode::NoUi);
        }
        let cli = ZellijCli::find().ok_or(ErrorCode::ZellijNotFound)?;
        Ok(Zellij {
            cli,
            plugin: plugin.to_owned(),
            session: None,
        })
    }

    /// The session named `session`, asked from outside it (`ask-popup serve`).
    pub fn of_session(plugin: &str, session: &str) -> Result<Zellij, ErrorCode> {
        let cli = ZellijCli::find().ok_or(ErrorCode::ZellijNotFound)?;
        Ok(Zellij {
            cli,
            plugin: plugin.to_owned(),
            session: Some(session.to_owned()),
        })
    }

    /// A `zellij pipe` that ends with this command (see `children`).
    pub fn pipe(&self, name: &str, args: &str) -> Command {
        let mut command = self.pipe_on_its_own(name, args);
        children::tied_to_this_process(&mut command);
        command
    }

    /// A `zellij pipe` that this command's end does not end. Its session is named even when
    /// it is this command's own: with one session that Zellij's CLI takes for live it sends to
    /// that one whatever `$ZELLIJ_SESSION_NAME` says, and a session whose server is starting
    /// is not yet among them (the question went to another session, marking a pane there).
    pub fn pipe_on_its_own(&self, name: &str, args: &str) -> Command {
        let mut command = self.cli.command();
        if let Some(session) = self.session.clone().or_else(children::this_session_by_name) {
            command.args(["--session", &session]);
        }
        command.args(["pipe", "--plugin", &self.plugin, "--name", name]);
        if !args.is_empty() {
            command.args(["--args", args]);
        }
        command.stderr(Stdio::null());
        command
    }

    /// Sends a `cancel` pipe with `args` that this command does not wait for, and that
    /// outlives it (ending by itself after `PIPE_TIMEOUT`). Reaped on a thread of its own while
    /// this command runs (a long-lived `ask-popup mcp` would otherwise keep a zombie of every
    /// cancel), by whoever adopts it once the command has ended.
    pub fn cancel_in_background(&self, args: &str) {
        let mut command = self.pipe_on_its_own("cancel", args);
        children::on_its_own_for(&mut command, PIPE_TIMEOUT);
        command.args(["--", "withdraw"]);
        if let Ok(mut child) = command.stdin(Stdio::null()).stdout(Stdio::null()).spawn() {
            thread::spawn(move || child.wait());
        }
    }

    /// Takes the question back from the popup (the `cancel` pipe) and returns the `aborted`
    /// envelope.
    pub fn withdraw(&self, caller: &Caller, asking: Option<Child>) -> String {
        if let Some(mut child) = asking {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.take_back(caller);
        caller.failure(ErrorCode::Aborted)
    }

    /// Sends the `cancel` pipe for the caller's question until the plugin says it is withdrawn
    /// (or a few times).
    pub fn take_back(&self, caller: &Caller) {
        let args = caller.pipe_args();
        for attempt in 1..=3 {
            thread::sleep(Duration::from_millis(ask::backoff_ms(attempt)));
            // On its own: Claude Code sends SIGKILL to the hook's whole group 1.5 s after
            // SIGTERM, and the withdrawal must get through even so; it still ends by itself.
            let mut command = self.pipe_on_its_own("cancel", &args);
            children::on_its_own_for(&mut command, PIPE_TIMEOUT);
            if let Some((_, out)) = run(command, "withdraw", PIPE_TIMEOUT) {
                if ask::is_withdrawal(&out) {
                    break;
                }
            }
        }
    }

    /// One `zellij pipe` that answers at once (`run`): whether it exited 0, and its stdout.
    pub fn call(
        &self,
        name: &str,
        args: &str,
        payload: &str,
        limit: Duration,
    ) -> Option<(bool, Vec<u8>)> {
        run(self.pipe(name, args), payload, limit)
    }

    /// A pipe the plugin answers at once, sent until `answered` (given whether it exited 0, and
    /// its stdout) takes what came back, as Zellij 0.45.1's CLI drops a call now and then:
    /// within `ANSWER_WITHIN` in all, each call cut off at what is left of it. Its stdout, or
    /// why no answer came.
    pub fn answer_at_once(
        &self,
        name: &str,
        args: &str,
        payload: &str,
        answered: impl Fn(bool, &[u8]) -> bool,
    ) -> Result<Vec<u8>, NoAnswer> {
        let until = Instant::now() + ANSWER_WITHIN;
        for attempt in 1..=ask::ATTEMPTS {
            let pause = Duration::from_millis(ask::backoff_ms(attempt));
            if Instant::now() + pause >= until {
                break;
            }
            thread::sleep(pause);
            let left = until.saturating_duration_since(Instant::now());
            if let Some((success, stdout)) = self.call(name, args, payload, left) {
                if answered(success, &stdout) {
                    return Ok(stdout);
                }
            }
        }
        Err(self.no_answer())
    }

    /// Why the session asked did not answer (`NoAnswer::why`).
    fn no_answer(&self) -> NoAnswer {
        let name = self
            .session
            .clone()
            .or_else(children::this_session_by_name)
            .or_else(|| std::env::var("ZELLIJ_SESSION_NAME").ok());
        let session = name.and_then(|name| {
            children::live_sessions()
                .into_iter()
                .find(|s| s.name == name)
        });
        NoAnswer::why(&self.plugin, session.as_ref())
    }
}

/// `ask-popup status` and `ask-popup show`: what the pipe answers, printed as it came.
pub fn pipe_command(plugin: &str, name: &str) -> i32 {
    let zellij = match Zellij::find_for(plugin, name) {
        Ok(zellij) => zellij,
        Err(status) => return status,
    };
    let answer = zellij.answer_at_once(name, "", "now", |success, stdout| {
        if name == "status" {
            ask::is_status(stdout)
        } else {
            success
        }
    });
    match answer {
        Ok(stdout) => {
            // The plugin's JSON: what agents asked (their names, headers) stays exact, and
            // cannot drive the terminal.
            print(&terminal::json_for_terminal(&String::from_utf8_lossy(
                &stdout,
            )));
            0
        }
        Err(why) => {
            say_err!("ask-popup {name}: {why}");
            ErrorCode::NoReply.exit_status()
        }
    }
}
