//! `ask-popup history`: where the plugin's record of questionnaires is (`ask_popup_protocol::history`), which
//! of its entries a person asks for, and how each reads.
//!
//! The plugin writes the record in its cache folder: Zellij's cache folder, then the plugin's
//! location as a path (`file:/home/u/.config/zellij/plugins/ask-popup.wasm`, or a URL), then
//! `plugin_cache`. The command looks under every location there, so a plugin loaded from a
//! file, from another file or from a URL is found alike.

use ask_popup_protocol::history::{Entry, FILE_NAME, NO_RECORD, PRIVATE_MARK};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// How deep a plugin's location goes below Zellij's cache folder at most (a path's folders).
const MAX_DEPTH: usize = 32;

/// Zellij's cache folder on this system, as Zellij finds it: `$XDG_CACHE_HOME/zellij` (or
/// `~/.cache/zellij`) on Linux, `~/Library/Caches/org.Zellij-Contributors.Zellij` on macOS.
pub fn zellij_cache_dir(xdg_cache_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    if cfg!(target_os = "macos") {
        let home = Path::new(home.filter(|h| !h.is_empty())?);
        return Some(home.join("Library/Caches/org.Zellij-Contributors.Zellij"));
    }
    crate::xdg::path_of(xdg_cache_home, home, ".cache", "zellij")
}

/// The plugin's cache folder, where its record is, when it is loaded from `location` (`file:`
/// and a path, or a URL), as Zellij names it: the location as a path below its cache folder.
pub fn plugin_cache_dir(cache: &Path, location: &str) -> PathBuf {
    cache.join(location).join("plugin_cache")
}

/// The plugin's cache folders under Zellij's cache folder `cache` that hold its files (the
/// record, `PRIVATE_MARK`, or the `NO_RECORD` it leaves where it keeps none): one for each
/// location the plugin was loaded from. (Zellij's own folders there, its sessions' and its
/// versions', and other plugins' hold none.)
pub fn plugin_folders(cache: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(cache) else {
        return found;
    };
    for entry in entries.flatten() {
        // A location is a URL: its scheme has a colon (`file:`, `https:`).
        if entry.file_name().to_string_lossy().contains(':') {
            find_folders(&entry.path(), 0, &mut found);
        }
    }
    found.sort();
    found
}

/// The record files under Zellij's cache folder `cache`: one for each location the plugin was
/// loaded from.
pub fn record_files(cache: &Path) -> Vec<PathBuf> {
    plugin_folders(cache)
        .into_iter()
        .map(|folder| folder.join(FILE_NAME))
        .filter(|record| record.is_file())
        .collect()
}

fn find_folders(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    let folder = dir.join("plugin_cache");
    let ours = [FILE_NAME, PRIVATE_MARK, NO_RECORD]
        .iter()
        .any(|name| std::fs::symlink_metadata(folder.join(name)).is_ok());
    if ours {
        found.push(folder);
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && entry.file_name() != "plugin_cache" {
            find_folders(&entry.path(), depth + 1, found);
        }
    }
}

/// Which entries a person asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Asked by this agent (its name, any case).
    pub agent: Option<String>,
    /// In this session.
    pub session: Option<String>,
    /// With this text in its questions, labels, answers or notes (any case).
    pub search: Option<String>,
    /// Asked at or after this time (milliseconds since the Unix epoch).
    pub since_ms: Option<u64>,
    /// The request with this id.
    pub request_id: Option<String>,
}

impl Filter {
    pub fn matches(&self, entry: &Entry) -> bool {
        let same = |wanted: &Option<String>, got: Option<&str>| match wanted {
            None => true,
            Some(w) => got.is_some_and(|g| g.eq_ignore_ascii_case(w)),
        };
        same(&self.agent, Some(&entry.agent))
            && same(&self.session, entry.session.as_deref())
            && self.since_ms.is_none_or(|since| entry.asked_ms >= since)
            && self
                .request_id
                .as_ref()
                .is_none_or(|id| entry.request_id.as_ref() == Some(id))
            && self
                .search
                .as_ref()
                .is_none_or(|text| entry.mentions(&text.to_lowercase()))
    }
}

/// The entries of every record that `filter` takes, latest first, at most `limit` (0: all).
pub fn select(mut entries: Vec<Entry>, filter: &Filter, limit: usize) -> Vec<Entry> {
    entries.retain(|e| filter.matches(e));
    entries.sort_by_key(|e| std::cmp::Reverse(e.asked_ms));
    if limit > 0 {
        entries.truncate(limit);
    }
    entries
}

/// A span of time as a person writes it (`90s`, `30m`, `2h`, `3d`), in milliseconds.
pub fn parse_span(text: &str) -> Option<u64> {
    let text = text.trim();
    let unit = text.chars().last()?;
    let number: u64 = text
        .get(..text.len() - unit.len_utf8())?
        .trim()
        .parse()
        .ok()?;
    let ms = match unit {
        's' => 1_000,
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => 86_400_000,
        'w' => 7 * 86_400_000,
        _ => return None,
    };
    number.checked_mul(ms)
}

/// An entry as one JSON line for scripts: the record's fields, the reply's details in place
/// of the reply.
pub fn json_line(entry: &Entry) -> String {
    let mut value = serde_json::to_value(entry).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        object.remove("reply");
        object.insert("details".to_owned(), entry.details());
    }
    value.to_string()
}

/// A calendar time, as an entry's first line shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct When {
    pub year: i32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
}

/// An entry as a person reads it, `when` it was asked in the reader's time (see
/// `ask_popup_protocol::history::Entry::block`).
pub fn block(entry: &Entry, when: When) -> String {
    let when = format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        when.year, when.month, when.day, when.hour, when.minute
    );
    entry.block(&when).join("\n")
}

/// A time in milliseconds since the Unix epoch, at `offset_s` seconds from UTC, as a calendar
/// time (the proleptic Gregorian calendar, days from the epoch as in Howard Hinnant's
/// `civil_from_days`).
pub fn when(unix_ms: u64, offset_s: i64) -> When {
    let secs = i64::try_from(unix_ms / 1000)
        .unwrap_or(i64::MAX)
        .saturating_add(offset_s);
    let days = secs.div_euclid(86_400);
    let of_day = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    When {
        year: i32::try_from(year).unwrap_or(i32::MAX),
        month: month as u32,
        day: day as u32,
        hour: (of_day / 3_600) as u32,
        minute: (of_day % 3_600 / 60) as u32,
    }
}
