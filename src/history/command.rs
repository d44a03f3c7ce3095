//! `ask-popup history`, and the record files on this machine (read by `ask-popup answer` too).

use super::private;
use super::read::{self, Filter};
use crate::terminal::{self, print};
use ask_popup_protocol::history::Entry;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Every entry of every record on this machine.
pub fn recorded_entries() -> Vec<Entry> {
    record_files()
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .flat_map(|text| ask_popup_protocol::history::read(&text))
        .collect()
}

/// The record files: under Zellij's cache folder, one for each location the plugin was loaded
/// from; each folder made private first (`keep_records_private`).
pub fn record_files() -> Vec<PathBuf> {
    keep_records_private();
    zellij_cache_dir()
        .map(|cache| read::record_files(&cache))
        .unwrap_or_default()
}

/// Makes every folder the plugin keeps its record in (or would) its user's alone, and marks it
/// so: the plugin writes the record only there (`private`). What cannot be done is left for
/// `doctor` to tell.
pub fn keep_records_private() {
    let folders = zellij_cache_dir()
        .map(|cache| read::plugin_folders(&cache))
        .unwrap_or_default();
    for folder in folders {
        let _ = private::make_private(&folder);
    }
}

/// Zellij's cache folder, as Zellij finds it from this environment.
pub fn zellij_cache_dir() -> Option<PathBuf> {
    read::zellij_cache_dir(
        std::env::var_os("XDG_CACHE_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
}

/// While a question waits: the plugin's cache folder made private as soon as the plugin has
/// loaded (Zellij makes the folder then, and the plugin leaves its notice), before the question
/// can be answered (keys count 400 ms after it shows), so that its entry is written at once.
pub struct FolderWatch {
    started: Instant,
    next: Instant,
}

impl FolderWatch {
    /// How often it looks, and for how long after the question was first sent (after that, as
    /// the reply comes: `Zellij::ask`).
    const EVERY: Duration = Duration::from_millis(250);
    const FOR: Duration = Duration::from_secs(10);

    pub fn start() -> FolderWatch {
        let now = Instant::now();
        FolderWatch {
            started: now,
            next: now + FolderWatch::EVERY,
        }
    }

    /// Called as the question waits.
    pub fn look(&mut self) {
        let now = Instant::now();
        if now >= self.next && now.duration_since(self.started) < FolderWatch::FOR {
            keep_records_private();
            self.next = now + FolderWatch::EVERY;
        }
    }
}

/// What `ask-popup history` shows.
pub struct HistoryRequest {
    /// Only those asked by this agent, in this session, with this text.
    pub agent: Option<String>,
    pub session: Option<String>,
    pub search: Option<String>,
    /// Only those asked in this last span of time, in milliseconds.
    pub since_ms: Option<u64>,
    pub limit: usize,
    pub json: bool,
    pub clear: bool,
}

/// `ask-popup history`.
pub fn history_command(request: HistoryRequest) -> i32 {
    let now = crate::clock::now_ms();
    let filter = Filter {
        agent: request.agent,
        session: request.session,
        search: request.search,
        since_ms: request.since_ms.map(|span| now.saturating_sub(span)),
        request_id: None,
    };
    let files = record_files();
    if request.clear {
        let entries = recorded_entries().len();
        for path in &files {
            // Emptied, not deleted: a record the plugin made anew would be open to others.
            if let Err(e) = private::clear(path) {
                say_err!("ask-popup history: cannot clear {}: {e}", path.display());
                return 1;
            }
        }
        say!("Cleared the record: {entries} questionnaires.");
        return 0;
    }
    let entries = read::select(recorded_entries(), &filter, request.limit);
    if request.json {
        let mut out = String::new();
        for entry in &entries {
            out.push_str(&read::json_line(entry));
            out.push('\n');
        }
        print(&terminal::json_for_terminal(&out));
        return 0;
    }
    if entries.is_empty() {
        let none_yet = files
            .iter()
            .all(|f| std::fs::metadata(f).map_or(true, |m| m.len() == 0));
        say!(
            "No questionnaires recorded{}.",
            if none_yet { " yet" } else { " that match" }
        );
        return 0;
    }
    let blocks: Vec<String> = entries
        .iter()
        .map(|e| read::block(e, read::when(e.asked_ms, local_offset_s(e.asked_ms))))
        .collect();
    print(&terminal::for_person(&format!("{}\n", blocks.join("\n\n"))));
    0
}

/// The local time's offset from UTC, in seconds, at `unix_ms` (the system's time zone: `$TZ`,
/// else /etc/localtime; UTC when neither says).
fn local_offset_s(unix_ms: u64) -> i64 {
    let Ok(at) = i64::try_from(unix_ms).map(jiff::Timestamp::from_millisecond) else {
        return 0;
    };
    at.map_or(0, |at| {
        i64::from(jiff::tz::TimeZone::system().to_offset(at).seconds())
    })
}
