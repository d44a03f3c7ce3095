//! `ask-popup ask`: the questionnaire read from where the argument says, the caller made from
//! the arguments and the environment, and the envelope, asked in this session's popup, through
//! `ask-popup serve`'s socket, or rejected at once.

use super::caller::{self as ask, Caller, PayloadSource};
use super::stop::Interrupts;
use super::waiting::answer;
use crate::later::command as later;
use crate::terminal::{self, print};
use crate::zellij::programs;

use std::path::Path;
use std::process::Command;

/// How `ask-popup ask` waits for the answer.
#[derive(Clone, PartialEq, Eq)]
pub enum Asking {
    /// Until it comes, and prints it.
    Waiting,
    /// Not: prints the request's id (`--no-wait`).
    Later,
    /// In the place of an `ask --no-wait`, keeping the answer under its token
    /// (`--keep-answer=TOKEN`).
    Kept(String),
}

/// `ask-popup ask`.
pub fn ask_command(
    arg: Option<&str>,
    agent: Option<String>,
    id: Option<String>,
    plugin: &str,
    how: Asking,
) -> i32 {
    // Asked without waiting, the id is what the answer is fetched with: always the caller's.
    let id_given = how != Asking::Waiting || id.as_deref().is_some_and(|id| !id.is_empty());
    let caller = Caller {
        pane_id: std::env::var("ZELLIJ_PANE_ID").ok(),
        agent: agent.or_else(parent_name),
        id: id.filter(|id| !id.is_empty()).unwrap_or_else(fresh_id),
        id_given,
        approval_by: None,
    };
    let payload = read_payload(&PayloadSource::of(arg, |path| Path::new(path).is_file()));
    match how {
        Asking::Later => later::ask_without_waiting(payload, &caller, plugin),
        Asking::Kept(token) => later::ask_and_keep(payload, &caller, plugin, &token),
        Asking::Waiting => {
            let envelope = answer(payload, &caller, plugin, &Interrupts::install());
            print(&terminal::json_for_terminal(&envelope));
            ask::exit_status(&envelope)
        }
    }
}

/// The parent program's name, for an agent that gave none.
pub fn parent_name() -> Option<String> {
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    let comm = std::fs::read_to_string(format!("/proc/{parent}/comm"))
        .ok()
        .or_else(|| {
            // No /proc (macOS): `ps` names it, there as the program's path.
            let mut ps = Command::new("ps");
            ps.args(["-o", "comm=", "-p", &parent.to_string()]);
            programs::output_of(ps)
        })?;
    let comm = comm.trim();
    ask::agent_from_parent(comm.rsplit('/').next().unwrap_or(comm))
}

/// A fresh request id for this process.
pub fn fresh_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    ask::fresh_id(std::process::id(), nanos)
}

/// Reads the questionnaire from where the argument says.
fn read_payload(
    source: &PayloadSource,
) -> Result<Vec<u8>, ask_popup_protocol::request::RequestError> {
    match source {
        PayloadSource::Inline(json) => Ok(json.clone().into_bytes()),
        PayloadSource::File(path) => std::fs::File::open(path)
            .map_err(|e| ask_popup_protocol::request::RequestError::Unreadable {
                detail: format!("{}: {e}", path.display()),
            })
            .and_then(ask::read_bounded),
        PayloadSource::Stdin => ask::read_bounded(std::io::stdin().lock()),
    }
}
