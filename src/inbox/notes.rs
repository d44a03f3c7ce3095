//! Questions that wait where nobody sees them: asked in a session nobody is attached to, each
//! is noted in a file of its own while it waits there, so that `ask-popup status
//! --all-sessions` can say so (that session's plugin does not run to answer for it). A note
//! says where it is shown meanwhile (the sessions a copy went to; none: nobody is attached
//! anywhere, and it shows once somebody attaches).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One question waiting in a session nobody is attached to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Note {
    /// The asking session.
    pub session: String,
    pub request_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<u64>,
    /// The sessions it is shown in meanwhile.
    pub shown_in: Vec<String>,
    /// When it was asked (ms since the Unix epoch), and the process that waits for it.
    pub since_ms: u64,
    pub pid: u32,
}

/// The folders the command makes on the way to the notes, the outermost first, the notes in the
/// last: `ask-popup-waiting` in `$XDG_RUNTIME_DIR` (an absolute path), else `waiting` in a
/// folder of the user's own in the temp dir (the one `remote::wire::socket_path` puts the
/// socket in). Each must be the user's own, as `serve`'s is (`remote::socket::own_folder`): in
/// the temp dir, which anyone may write, a folder another user made first is theirs to change.
pub fn notes_folders(
    env: impl Fn(&str) -> Option<String>,
    uid: u32,
    temp_dir: &Path,
) -> Vec<PathBuf> {
    match env("XDG_RUNTIME_DIR").filter(|d| !d.is_empty() && Path::new(d).is_absolute()) {
        Some(dir) => vec![Path::new(&dir).join("ask-popup-waiting")],
        None => {
            let own = temp_dir.join(format!("ask-popup-{uid}"));
            let notes = own.join("waiting");
            vec![own, notes]
        }
    }
}

/// The note of request `id`, waited for by process `pid`.
pub fn note_file(dir: &Path, id: &str, pid: u32) -> PathBuf {
    dir.join(format!("{}-{pid}.json", crate::later::file_stem(id)))
}

/// What `status --all-sessions` says of the questions of `notes` asked in `session`, as of
/// `now_ms`: `[{"requestId","agent","paneId","ageSeconds","shownIn"}]`, the oldest first.
pub fn waiting_in(session: &str, notes: &[Note], now_ms: u64) -> Vec<serde_json::Value> {
    let mut here: Vec<&Note> = notes.iter().filter(|n| n.session == session).collect();
    here.sort_by_key(|n| (n.since_ms, n.request_id.clone()));
    here.into_iter()
        .map(|n| {
            let mut entry = serde_json::json!({
                "requestId": n.request_id,
                "ageSeconds": now_ms.saturating_sub(n.since_ms) / 1000,
                "shownIn": n.shown_in,
            });
            if let Some(agent) = &n.agent {
                entry["agent"] = agent.clone().into();
            }
            if let Some(pane) = n.pane_id {
                entry["paneId"] = pane.into();
            }
            entry
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notes_go_in_the_runtime_dir_else_in_the_users_own_folder_in_the_temp_dir() {
        let temp = Path::new("/tmp");
        let runtime = |value: &'static str| {
            move |name: &str| (name == "XDG_RUNTIME_DIR").then(|| value.to_owned())
        };
        assert_eq!(
            notes_folders(runtime("/run/user/1000"), 1000, temp),
            [PathBuf::from("/run/user/1000/ask-popup-waiting")]
        );
        // Unset, empty or relative: the temp dir, each folder on the way checked.
        for env in [runtime(""), runtime("run/user/1000")] {
            assert_eq!(
                notes_folders(env, 1000, temp),
                [
                    PathBuf::from("/tmp/ask-popup-1000"),
                    PathBuf::from("/tmp/ask-popup-1000/waiting")
                ]
            );
        }
    }
}
