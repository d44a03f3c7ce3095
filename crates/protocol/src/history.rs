//! The record of every questionnaire: one JSON line per request that reached the popup, written
//! once when it ends (by the instance that replies), with when it was asked and ended, who
//! asked, the questions (previews cut to a few lines) and how it ended, with the envelope its
//! caller got. The plugin appends to it and keeps it bounded; `ask-popup history` reads it,
//! and `ask-popup answer` finds an envelope in it after the session is gone.
//!
//! It lives in the plugin's cache folder (`/cache` inside the plugin: Zellij's cache folder,
//! then the plugin's location, then `plugin_cache`), the one folder a plugin can write that
//! outlives its session and that every instance and session of the plugin shares. The command
//! finds it there by its name (`FILE_NAME`).
//!
//! Zellij makes that folder as any folder (0755 under the usual umask), and the plugin can
//! neither give a file a mode nor see one (WASI has none): so the plugin writes the record only
//! where the command, running as the user, has made the folder its user's alone and left
//! `PRIVATE_MARK` (with the record, created 0600). Until then what it would write waits in the
//! plugin, and it leaves `NO_RECORD` for the command to find the folder by.

use crate::request::Questionnaire;
use serde::Serialize;
use serde_json::Value;
use std::io::{self, Write};
use std::path::Path;

/// The record's file name, in the plugin's cache folder.
pub const FILE_NAME: &str = "ask-popup-history.jsonl";
/// The file the command leaves in the plugin's cache folder once it has made the folder its
/// user's alone (0700) and the record in it (0600): the plugin writes the record only there.
pub const PRIVATE_MARK: &str = "ask-popup-private";
/// The file the plugin leaves in its cache folder when it keeps no record there (the folder
/// not made private): what the command finds the folder by, and `doctor` reads.
pub const NO_RECORD: &str = "ask-popup-no-record";
/// Past this size the record is cut back to its newest entries (`KEEP_BYTES`, `MAX_ENTRIES`).
pub const MAX_BYTES: u64 = 2 * 1024 * 1024;
/// What is kept when the record is cut back.
const KEEP_BYTES: usize = 1024 * 1024;
/// The most entries kept when the record is cut back.
pub const MAX_ENTRIES: usize = 1000;
/// A preview is recorded up to this many lines, of this many characters.
const PREVIEW_LINES: usize = 4;
const PREVIEW_LINE_CHARS: usize = 200;
/// A question's text and an option's description are recorded up to this many characters.
const TEXT_CHARS: usize = 2000;
/// The largest reply an entry keeps (see `kept_reply`).
pub const MAX_REPLY_BYTES: usize = 256 * 1024;

/// One questionnaire and how it ended. Read back by hand from a `serde_json::Value` (see
/// `from_line`), as the instances' messages are: serde's derive of the reading would cost the
/// plugin tens of kilobytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// When it reached the popup and when it ended, in milliseconds since the Unix epoch.
    pub asked_ms: u64,
    pub ended_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Who asked, as the dialog named it.
    pub agent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Empty for a request rejected before it was asked.
    pub questions: Vec<RecordedQuestion>,
    /// `answered`, `declined`, `chat`, `timed_out`, or the error code it was answered with
    /// (`dismissed`, `aborted`, `superseded`, `busy`, a validation code…).
    pub ending: String,
    /// The envelope its caller got (one line).
    pub reply: String,
    /// For an approval (an agent's permission prompt), what it decided: `allow_once`,
    /// `allow_always`, `deny`, or `agent` (left to the agent's own prompt).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
    /// For an approval, the command that asked it (`claude-approval`, `codex-approval`,
    /// `opencode-approval`); none for one that came some other way (a bare `zellij pipe`),
    /// which the record and `ask-popup history` say was not asked by an approval hook.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_by: Option<String>,
    /// The session whose popup ended it, when that is not `session` (a question shown in
    /// several sessions, `ask-popup`'s copies): which of its copies this entry is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered_in: Option<String>,
    /// Where it was answered when not in the popup: `notification` (an option or Deny picked
    /// from the desktop notification, the `pick` pipe), `pipe` (that pipe sent some other way).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered_from: Option<String>,
    /// For an MCP server's form: which server asked, and what was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<RecordedForm>,
}

/// An MCP server's form as recorded: the server, its message, and the content sent (a
/// secret-looking field's value as `•••`), when the form was sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RecordedForm {
    pub server: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent: Option<Value>,
}

impl RecordedForm {
    fn from_value(value: &Value) -> Option<RecordedForm> {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(RecordedForm {
            server: text("server")?,
            message: text("message").unwrap_or_default(),
            sent: value.get("sent").filter(|s| s.is_object()).cloned(),
        })
    }
}

/// The ending of an MCP server's form that was declined (its `Decline`).
pub const FORM_DECLINED: &str = "form_declined";

/// The ending of an entry that corrects an earlier one of the same copy: answered there, but
/// another session's answer was the reply its caller took (see `read`).
pub const ANSWERED_ELSEWHERE: &str = "answered_elsewhere";

/// A question as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedQuestion {
    pub question: String,
    pub header: String,
    pub multi_select: bool,
    pub options: Vec<RecordedOption>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedOption {
    pub label: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The first lines of its preview.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

impl RecordedQuestion {
    fn from_value(value: &Value) -> Option<RecordedQuestion> {
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let options = value
            .get("options")?
            .as_array()?
            .iter()
            .map(|o| {
                Some(RecordedOption {
                    label: text(o, "label")?,
                    description: text(o, "description").unwrap_or_default(),
                    preview: text(o, "preview"),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(RecordedQuestion {
            question: text(value, "question")?,
            header: text(value, "header")?,
            multi_select: value
                .get("multiSelect")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            options,
        })
    }

    /// The questions of `questionnaire`, previews cut to `PREVIEW_LINES`.
    pub fn all_of(questionnaire: &Questionnaire) -> Vec<RecordedQuestion> {
        questionnaire
            .questions
            .iter()
            .map(|q| RecordedQuestion {
                question: cut(&q.question, TEXT_CHARS),
                header: q.header.clone(),
                multi_select: q.multi_select,
                options: q
                    .options
                    .iter()
                    .map(|o| RecordedOption {
                        label: o.label.clone(),
                        description: cut(&o.description, TEXT_CHARS),
                        preview: o.preview.as_deref().map(cut_preview),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// A preview's first `PREVIEW_LINES` lines, each at most `PREVIEW_LINE_CHARS` characters, `…`
/// where something was cut (a preview may be a megabyte on one line).
fn cut_preview(preview: &str) -> String {
    let mut lines = preview.lines();
    let mut cut: Vec<String> = lines
        .by_ref()
        .take(PREVIEW_LINES)
        .map(|line| cut(line, PREVIEW_LINE_CHARS))
        .collect();
    if lines.next().is_some() {
        cut.push("…".to_owned());
    }
    cut.join("\n")
}

/// `text`, at most `max` characters of it, `…` where it was cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or_default()),
        None => text.to_owned(),
    }
}

/// The reply as the record keeps it: whole up to `MAX_REPLY_BYTES`; a larger one (a preview of
/// the option picked comes back in it, twice) is left out, and only the answers the record
/// keeps beside it say how it ended. The plugin writes the entry with the payloads it holds in
/// memory: a copy of a megabyte could exhaust its 16 MiB.
pub fn kept_reply(reply: &str) -> String {
    let reply = reply.trim_end();
    if reply.len() <= MAX_REPLY_BYTES {
        reply.to_owned()
    } else {
        String::new()
    }
}

impl Entry {
    /// The entry as one line of the record (no line break).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A line of the record read back; None for a line that is not one (torn, or another
    /// version's that lacks what this one needs).
    pub fn from_line(line: &str) -> Option<Entry> {
        let value: Value = serde_json::from_str(line.trim()).ok()?;
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let questions = match value.get("questions") {
            Some(Value::Array(questions)) => questions
                .iter()
                .map(RecordedQuestion::from_value)
                .collect::<Option<Vec<_>>>()?,
            _ => Vec::new(),
        };
        Some(Entry {
            asked_ms: value.get("askedMs")?.as_u64()?,
            ended_ms: value.get("endedMs")?.as_u64()?,
            session: text("session"),
            agent: text("agent")?,
            pane_id: value
                .get("paneId")
                .and_then(Value::as_u64)
                .and_then(|p| u32::try_from(p).ok()),
            request_id: text("requestId"),
            questions,
            ending: text("ending")?,
            reply: text("reply")?,
            approval: text("approval"),
            approval_by: text("approvalBy"),
            answered_in: text("answeredIn"),
            answered_from: text("answeredFrom"),
            form: value.get("form").and_then(RecordedForm::from_value),
        })
    }

    /// Whether `later` speaks of the same copy of the same request as this entry.
    fn same_copy(&self, later: &Entry) -> bool {
        self.request_id.is_some()
            && self.request_id == later.request_id
            && self.session == later.session
            && self.agent == later.agent
            && self.answered_in == later.answered_in
    }

    /// The envelope's details (a JSON object; null when the reply is not an envelope).
    pub fn details(&self) -> Value {
        serde_json::from_str::<Value>(&self.reply)
            .ok()
            .and_then(|mut v| v.get_mut("details").map(Value::take))
            .unwrap_or(Value::Null)
    }

    /// The entry as a person reads it, a line each: `when` (as the reader tells time), who
    /// asked and how it ended, then each question and its answer, notes below.
    pub fn block(&self, when: &str) -> Vec<String> {
        let mut who = self.agent.clone();
        if let Some(pane) = self.pane_id {
            who.push_str(&format!(" (pane {pane})"));
        }
        let mut head = format!("{when} · {who}");
        if let Some(session) = &self.session {
            head.push_str(&format!(" · session {session}"));
        }
        head.push_str(&format!(" · {}", self.ending));
        if let Some(from) = &self.answered_from {
            head.push_str(&format!(" (from the {from})"));
        }
        if let Some(decision) = &self.approval {
            head.push_str(&format!(" · approval: {}", decision.replace('_', " ")));
            match &self.approval_by {
                Some(by) => head.push_str(&format!(" (by {by})")),
                None => head.push_str(" (not asked by an approval hook)"),
            }
        }
        if let Some(id) = &self.request_id {
            head.push_str(&format!(" · {id}"));
        }
        let mut out = vec![head];
        if let Some(form) = &self.form {
            let message = form.message.lines().next().unwrap_or_default();
            out.push(format!("  form of {}: {message}", form.server));
        }
        let details = self.details();
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let list = |key: &str| match details.get(key) {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        };
        let index = |v: &Value| v.get("questionIndex").and_then(Value::as_u64);
        let (answers, unanswered) = (list("answers"), list("unansweredNotes"));
        for (i, q) in self.questions.iter().enumerate() {
            out.push(format!("  {}: {}", q.header, q.question));
            let answer = answer_of(&details, i);
            let answer = match &self.form {
                // A form's `Decline` is where `Chat about this` is.
                Some(_) if answer == CHAT_ANSWER => "(declined)".to_owned(),
                _ => answer,
            };
            out.push(format!("    → {answer}"));
            let of_this = |v: &&Value| index(v) == Some(i as u64);
            let notes = answers
                .iter()
                .filter(of_this)
                .filter_map(|a| text(a, "notes"))
                .chain(
                    unanswered
                        .iter()
                        .filter(of_this)
                        .filter_map(|n| text(n, "note")),
                );
            for note in notes {
                out.push(format!("    note: {note}"));
            }
        }
        if let Some(note) = text(&details, "globalNote") {
            out.push(format!("  note: {note}"));
        }
        if let Some(sent) = self.form.as_ref().and_then(|f| f.sent.as_ref()) {
            out.push(format!("  sent: {sent}"));
        }
        if self.questions.is_empty() {
            // Answered before it was asked: what it was told.
            let told = serde_json::from_str::<Value>(&self.reply)
                .ok()
                .and_then(|v| {
                    v.pointer("/content/0/text")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_default();
            out.push(format!("  {told}"));
        }
        // What agents and people wrote, cleaned as the popup shows it: one line each, and no
        // sequence that would drive the terminal `ask-popup history` prints to.
        out.iter()
            .map(|line| crate::text::sanitize_line(line))
            .collect()
    }

    /// Whether `text` (lower case) is in its questions, headers, labels, answers or notes.
    pub fn mentions(&self, text: &str) -> bool {
        let found = |s: &str| s.to_lowercase().contains(text);
        let asked = self.questions.iter().any(|q| {
            found(&q.question) || found(&q.header) || q.options.iter().any(|o| found(&o.label))
        });
        // Answers, ticked labels, notes and the global note are the details' strings.
        asked || strings_in(&self.details()).iter().any(|s| found(s))
    }
}

/// What `answer_of` says of the question whose `Chat about this` was picked.
const CHAT_ANSWER: &str = "(chat about this)";

/// What question `index` got, as a line: the label, the labels ticked, the text typed, or why
/// none. `details`: the envelope's.
fn answer_of(details: &Value, index: usize) -> String {
    let index = index as u64;
    let of_this = |v: &Value| v.get("questionIndex").and_then(Value::as_u64) == Some(index);
    if details.get("chatRequested").is_some_and(of_this) {
        return CHAT_ANSWER.to_owned();
    }
    let answer = details
        .get("answers")
        .and_then(Value::as_array)
        .and_then(|answers| answers.iter().find(|a| of_this(a)));
    let Some(answer) = answer else {
        return "(no answer)".to_owned();
    };
    match answer.get("selected").and_then(Value::as_array) {
        Some(ticked) if !ticked.is_empty() => ticked
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        _ => answer
            .get("answer")
            .and_then(Value::as_str)
            .unwrap_or("(no input)")
            .to_owned(),
    }
}

/// Every string in `value` (the details' answers, labels and notes).
fn strings_in(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().flat_map(strings_in).collect(),
        Value::Object(map) => map.values().flat_map(strings_in).collect(),
        _ => Vec::new(),
    }
}

/// Appends an entry's `line` (`Entry::to_line`) to the record at `path` (created private: its
/// answers may be secrets), whole in one write, and cuts the record back to its newest entries
/// once it passes `MAX_BYTES`.
pub fn append(path: &Path, line: &str) -> io::Result<()> {
    let line = format!("{}\n", line.trim_end());
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(crate::atomic_file::OWNER_ONLY);
    }
    let mut file = options.open(path)?;
    file.write_all(line.as_bytes())?;
    if file.metadata()?.len() > MAX_BYTES {
        drop(file);
        cut_back(path)?;
    }
    Ok(())
}

/// Keeps the newest entries of the record at `path` that fit in `KEEP_BYTES` (at most
/// `MAX_ENTRIES`), rewritten in place: a new file would have the mode the Zellij server's umask
/// gives (the plugin cannot set one), open to others where the record was its user's alone.
/// The kept entries are written over the start, then the rest is cut off: a crash in between
/// leaves entries twice, never loses one.
fn cut_back(path: &Path) -> io::Result<()> {
    use std::io::{Read, Seek};
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    let mut kept = Vec::new();
    let mut bytes = 0;
    for line in text.lines().rev().filter(|l| !l.trim().is_empty()) {
        if kept.len() == MAX_ENTRIES || bytes + line.len() + 1 > KEEP_BYTES {
            break;
        }
        bytes += line.len() + 1;
        kept.push(line);
    }
    let mut out = String::with_capacity(bytes);
    for line in kept.iter().rev() {
        out.push_str(line);
        out.push('\n');
    }
    file.rewind()?;
    file.write_all(out.as_bytes())?;
    file.set_len(out.len() as u64)?;
    file.sync_data()
}

/// The entries of a record's text, oldest first; lines that are not entries are skipped.
///
/// A question shown in several sessions may be answered in two of them at once: each popup
/// writes its answer, but its caller took one. The other session's popup then adds an
/// `ANSWERED_ELSEWHERE` entry of its copy, which takes the place of that copy's answer here:
/// the record holds the answer the caller got, once, and says the other was answered
/// elsewhere (its questions kept, its reply and decision dropped).
pub fn read(text: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for entry in text.lines().filter_map(Entry::from_line) {
        if entry.ending == ANSWERED_ELSEWHERE {
            if let Some(earlier) = entries.iter_mut().rev().find(|e| e.same_copy(&entry)) {
                earlier.ending = entry.ending;
                earlier.ended_ms = entry.ended_ms;
                earlier.reply = entry.reply;
                earlier.approval = None;
                earlier.approval_by = None;
                continue;
            }
        }
        entries.push(entry);
    }
    entries
}
