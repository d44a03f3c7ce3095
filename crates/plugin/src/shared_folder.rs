//! What the plugin keeps in the folder every instance of it shares (Zellij's `/cache`, which
//! it shares between every instance of the plugin's URL; `/data` is the instance's own): the
//! replies one instance keeps for the next when the popup closes (`Effect::KeepAcrossReload`),
//! and the record of questionnaires (`Effect::Record`).
//!
//! Kept replies: one file per session (named after its server), written whole (`atomic_file`),
//! and read by the instances that load in the minute after; deleted once the instance that
//! leads then has read it, or found stale. Loading reads that one file: a folder's listing
//! costs a loading instance several milliseconds in Zellij's interpreter, and the first
//! question waits for every instance to load. The files of sessions gone are deleted when the
//! next popup closes.

use crate::log_line;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const PREFIX: &str = "ask-popup-closed-";
/// How long kept replies count: as long as the broker remembers replies.
const FRESH: Duration = Duration::from_millis(crate::broker::FORGET_AFTER_MS);
/// How much of the record's end is listed: older entries are not, and reading the whole record
/// costs the interpreter.
const HISTORY_TAIL: u64 = 512 * 1024;

/// The shared folder, by its path (`/cache` inside Zellij).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedFolder {
    dir: PathBuf,
}

impl Default for SharedFolder {
    /// Where Zellij mounts it for the plugin.
    fn default() -> Self {
        SharedFolder::at("/cache")
    }
}

impl SharedFolder {
    pub fn at(dir: impl Into<PathBuf>) -> SharedFolder {
        SharedFolder { dir: dir.into() }
    }

    /// The file of the replies kept for the session whose server is `zellij_pid`.
    pub fn kept_path(&self, zellij_pid: u32) -> PathBuf {
        self.dir.join(format!("{PREFIX}{zellij_pid}.json"))
    }

    /// The record of questionnaires.
    pub fn record_path(&self) -> PathBuf {
        self.dir.join(ask_popup_protocol::history::FILE_NAME)
    }

    /// Keeps `kept` for this session's next instance, and deletes other sessions' files once
    /// stale.
    pub fn keep(&self, zellij_pid: u32, kept: &str) {
        let path = self.kept_path(zellij_pid);
        // Whole or not at all: the next instance may load while this one writes.
        let written = ask_popup_protocol::atomic_file::write(
            &path,
            kept.as_bytes(),
            ask_popup_protocol::atomic_file::OWNER_ONLY,
        );
        if let Err(e) = written {
            log_line::write(format_args!(
                "ask-popup: cannot keep the replies across the reload ({}): {e}",
                path.display()
            ));
        }
        for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let stale =
                entry.file_name().to_string_lossy().starts_with(PREFIX) && !is_fresh(&entry.path());
            if stale {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// What this session's latest closing instance kept, if it closed in the last minute
    /// (older, it is deleted).
    pub fn take(&self, zellij_pid: u32) -> Option<String> {
        let path = self.kept_path(zellij_pid);
        if !is_fresh(&path) {
            let _ = std::fs::remove_file(&path);
            return None;
        }
        std::fs::read_to_string(&path).ok()
    }

    /// Deletes what this session's closing instance kept: it holds answers, and has been read
    /// back.
    pub fn forget(&self, zellij_pid: u32) {
        let _ = std::fs::remove_file(self.kept_path(zellij_pid));
    }

    /// Appends one line to the record; a failed write is logged.
    pub fn record(&self, line: &str) {
        let path = self.record_path();
        if let Err(e) = ask_popup_protocol::history::append(&path, line) {
            log_line::write(format_args!(
                "ask-popup: cannot write the record ({}): {e}",
                path.display()
            ));
        }
    }

    /// The newest entries of the record (its last 512 KiB).
    pub fn recent_history(&self) -> Vec<ask_popup_protocol::history::Entry> {
        use std::io::{Read, Seek, SeekFrom};
        let Ok(mut file) = std::fs::File::open(self.record_path()) else {
            return Vec::new();
        };
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let _ = file.seek(SeekFrom::Start(size.saturating_sub(HISTORY_TAIL)));
        let mut bytes = Vec::new();
        let _ = file.take(HISTORY_TAIL).read_to_end(&mut bytes);
        // The first line may be cut: it is not an entry, and is skipped.
        ask_popup_protocol::history::read(&String::from_utf8_lossy(&bytes))
    }
}

/// Whether the file at `path` was written within `FRESH` (unknown: not).
fn is_fresh(path: &Path) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|written| SystemTime::now().duration_since(written).ok())
        .is_some_and(|age| age < FRESH)
}
