//! What the plugin keeps in the folder every instance of it shares (Zellij's `/cache`, which
//! it shares between every instance of the plugin's URL; `/data` is the instance's own): the
//! replies one instance keeps for the next when the popup closes (`Effect::KeepAcrossReload`),
//! and the record of questionnaires (`Effect::Record`).
//!
//! The record only where the command made the folder private (`history::PRIVATE_MARK`, beside
//! the record it made): Zellij makes the folder open to others however it came to be (loaded
//! by path or URL, a wiped cache), and the plugin can neither set nor see a mode. Until then
//! the entries wait here, a few hundred kilobytes at most, and `history::NO_RECORD` says why
//! (left as the instance loads, so that the command finds the folder before the first entry);
//! the command makes the folder private as it gets its reply, and the instance looks again
//! (`write_held`).
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
/// The most that waits for the folder to be made private (the oldest entries go first): the
/// plugin has 16 MiB.
const HELD_BYTES: usize = 512 * 1024;
/// What `history::NO_RECORD` says to a person who finds it.
const NO_RECORD_TEXT: &str = "ask-popup keeps no record of questionnaires in this folder: it is \
not known to be private (Zellij made it readable by other users). The ask-popup command makes it \
its user's alone after each question it asks, and `ask-popup history` does too; `ask-popup \
doctor` says what stands in the way.\n";

/// The shared folder, by its path (`/cache` inside Zellij).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedFolder {
    dir: PathBuf,
    /// Entries of the record that wait for the folder to be made private, oldest first.
    held: Vec<String>,
}

impl Default for SharedFolder {
    /// Where Zellij mounts it for the plugin.
    fn default() -> Self {
        SharedFolder::at("/cache")
    }
}

impl SharedFolder {
    pub fn at(dir: impl Into<PathBuf>) -> SharedFolder {
        SharedFolder {
            dir: dir.into(),
            held: Vec::new(),
        }
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

    /// Appends one line to the record, now if the folder is private, else once it is (see
    /// `write_held`); a failed write is logged. Whether entries wait.
    pub fn record(&mut self, line: &str) -> bool {
        self.held.push(line.to_owned());
        let mut bytes: usize = self.held.iter().map(String::len).sum();
        while bytes > HELD_BYTES && self.held.len() > 1 {
            bytes -= self.held.remove(0).len();
        }
        self.write_held()
    }

    /// Writes the entries that wait, if the command has made the folder private. Whether
    /// entries still wait.
    pub fn write_held(&mut self) -> bool {
        if self.held.is_empty() {
            return false;
        }
        if !self.is_private() {
            return true;
        }
        let path = self.record_path();
        for line in std::mem::take(&mut self.held) {
            if let Err(e) = ask_popup_protocol::history::append(&path, &line) {
                log_line::write(format_args!(
                    "ask-popup: cannot write the record ({}): {e}",
                    path.display()
                ));
            }
        }
        false
    }

    /// Whether the command has made the folder private: its mark and the record it made are
    /// there. If not, `history::NO_RECORD` says so (written once), and the command finds the
    /// folder by it.
    pub fn is_private(&self) -> bool {
        use ask_popup_protocol::history::{NO_RECORD, PRIVATE_MARK};
        if self.dir.join(PRIVATE_MARK).exists() && self.record_path().exists() {
            return true;
        }
        let notice = self.dir.join(NO_RECORD);
        if !notice.exists() && std::fs::write(&notice, NO_RECORD_TEXT).is_ok() {
            log_line::write(format_args!(
                "ask-popup: no record is kept until its folder is made private ({})",
                notice.display()
            ));
        }
        false
    }

    /// The newest entries of the record (its last 512 KiB).
    pub fn recent_history(&self) -> Vec<ask_popup_protocol::history::Entry> {
        use std::io::{Read, Seek, SeekFrom};
        let mut bytes = Vec::new();
        if let Ok(mut file) = std::fs::File::open(self.record_path()) {
            let size = file.metadata().map(|m| m.len()).unwrap_or(0);
            let _ = file.seek(SeekFrom::Start(size.saturating_sub(HISTORY_TAIL)));
            let _ = file.take(HISTORY_TAIL).read_to_end(&mut bytes);
        }
        // The first line may be cut: it is not an entry, and is skipped. What waits to be
        // written comes last.
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        for line in &self.held {
            text.push('\n');
            text.push_str(line);
        }
        ask_popup_protocol::history::read(&text)
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

/// How long apart the instance looks whether its folder was made private, while entries of the
/// record wait, and for how long after the latest (the command makes it private as it gets its
/// reply: the first look finds it so; a bare `zellij pipe` waits for the next command).
pub const FOLDER_LOOK_MS: u64 = 500;
const FOLDER_LOOKS_FOR_MS: u64 = 60_000;

/// When the instance next looks at its folder, and until when it looks (none: it does not).
#[derive(Clone, Copy, Debug, Default)]
pub struct FolderLooks(Option<Looks>);

#[derive(Clone, Copy, Debug)]
struct Looks {
    next_ms: u64,
    until_ms: u64,
}

impl FolderLooks {
    /// Entries wait as of `now_ms`: looks go on for a while from now. True when a timer is to be
    /// set for the next look (none is set yet).
    pub fn wait(&mut self, now_ms: u64) -> bool {
        let until_ms = now_ms.saturating_add(FOLDER_LOOKS_FOR_MS);
        match &mut self.0 {
            Some(looks) => {
                looks.until_ms = until_ms;
                false
            }
            None => {
                self.0 = Some(Looks {
                    next_ms: now_ms.saturating_add(FOLDER_LOOK_MS),
                    until_ms,
                });
                true
            }
        }
    }

    /// Whether a timer at `now_ms` is the look's (other timers come too): it is then over, and
    /// this gives until when looks go on, for `again`.
    pub fn due(&mut self, now_ms: u64) -> Option<u64> {
        let looks = self.0?;
        if now_ms.saturating_add(50) < looks.next_ms {
            return None;
        }
        self.0 = None;
        Some(looks.until_ms)
    }

    /// After a due look that found entries still waiting: the next look, unless their time
    /// (`until_ms`) is over. True when a timer is to be set.
    pub fn again(&mut self, now_ms: u64, until_ms: u64) -> bool {
        if now_ms >= until_ms {
            return false;
        }
        self.0 = Some(Looks {
            next_ms: now_ms.saturating_add(FOLDER_LOOK_MS),
            until_ms,
        });
        true
    }
}
