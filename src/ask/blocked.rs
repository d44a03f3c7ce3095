//! `ask-popup blocked`: an agent waits on the person in a dialog of its own (another Pi
//! extension's confirm, say), not in the popup. The plugin marks the asking pane and says the
//! blocked pair as it does for a question, until the command is stopped (SIGINT, SIGTERM,
//! SIGHUP) or its parent ends; `--end` ends a wait of that id at once.

use super::caller::Caller;
use super::command::{fresh_id, parent_name};
use super::stop::{Interrupts, Stop};
use crate::zellij::pipe::{NoAnswer, Zellij};
use ask_popup_protocol::envelope::ErrorCode;
use std::time::Duration;

/// The plugin's pipe.
const PIPE: &str = "blocked";

/// Whether the plugin's reply says the wait now stands (`active`) or not, as asked.
pub fn is_reply(stdout: &[u8], active: bool) -> bool {
    serde_json::from_slice::<serde_json::Value>(stdout)
        .ok()
        .and_then(|v| v.get("active").and_then(serde_json::Value::as_bool))
        == Some(active)
}

/// The pipe's arguments: the caller's, and whether the wait starts or ends.
pub fn pipe_args(caller: &Caller, active: bool) -> String {
    format!("{},active={active}", caller.pipe_args())
}

/// `ask-popup blocked`.
pub fn blocked_command(agent: Option<String>, id: Option<String>, end: bool, plugin: &str) -> i32 {
    let zellij = match Zellij::find_for(plugin, "blocked") {
        Ok(zellij) => zellij,
        Err(status) => return status,
    };
    let caller = Caller {
        pane_id: std::env::var("ZELLIJ_PANE_ID").ok(),
        agent: agent.or_else(parent_name),
        id: id.filter(|id| !id.is_empty()).unwrap_or_else(fresh_id),
        id_given: true,
        approval_by: None,
    };
    if end {
        return finish(tell(&zellij, &caller, false));
    }
    // Stopped early (the dialog was answered at once), the wait still ends below.
    let stop = Interrupts::install();
    if let Err(why) = tell(&zellij, &caller, true) {
        return finish(Err(why));
    }
    // Its parent's end is seen within a poll, however long the wait (`Interrupts`).
    while !stop.wait(Duration::from_secs(3600)) {}
    finish(tell(&zellij, &caller, false))
}

/// Sends the wait's start or end until the plugin says it heard it (`answer_at_once`).
fn tell(zellij: &Zellij, caller: &Caller, active: bool) -> Result<(), NoAnswer> {
    let args = pipe_args(caller, active);
    zellij
        .answer_at_once(PIPE, &args, "wait", |_, stdout| is_reply(stdout, active))
        .map(drop)
}

fn finish(heard: Result<(), NoAnswer>) -> i32 {
    match heard {
        Ok(()) => 0,
        Err(why) => {
            say_err!("ask-popup blocked: {why}");
            ErrorCode::NoReply.exit_status()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pipe_names_the_caller_the_id_and_the_change() {
        let caller = Caller {
            pane_id: Some("7".into()),
            agent: Some("pi".into()),
            id: "confirm-1".into(),
            id_given: true,
            approval_by: None,
        };
        assert_eq!(
            pipe_args(&caller, true),
            "pane_id=7,agent=pi,id=confirm-1,active=true"
        );
        assert_eq!(
            pipe_args(&caller, false),
            "pane_id=7,agent=pi,id=confirm-1,active=false"
        );
    }

    #[test]
    fn only_the_plugins_word_on_this_change_counts() {
        assert!(is_reply(br#"{"active":true,"waiting":1}"#, true));
        assert!(!is_reply(br#"{"active":true,"waiting":1}"#, false));
        assert!(is_reply(br#"{"active":false,"waiting":0}"#, false));
        // Zellij's empty answer to a dropped call, or an error envelope.
        assert!(!is_reply(b"", true));
        assert!(!is_reply(
            br#"{"content":[],"details":{"error":"busy"}}"#,
            true
        ));
    }
}
