//! The notification of a question left waiting: which command the user chose and after how long
//! it runs (the config file and the environment), and the JSON document it reads on its stdin.
//! `notice.rs` keeps the time and runs the command.

use crate::ask::{agent_value, Caller};
use crate::setup::web;
use ask_popup_protocol::request::{self, Questionnaire};
use serde::Serialize;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

/// The notify command (run through `sh -c`); set, even empty, it wins over the config file, and
/// empty it turns the notification off.
pub const COMMAND_VAR: &str = "ASK_POPUP_NOTIFY";
/// How long a question waits unanswered before the command runs; wins over the config file.
pub const DELAY_VAR: &str = "ASK_POPUP_NOTIFY_DELAY";
/// The delay when neither the environment nor the config file gives one: long enough that a
/// person at the screen answers first, short enough to be of use to one who walked away.
pub const DEFAULT_DELAY: Duration = Duration::from_secs(30);
/// The config file, under the XDG config dir (`$XDG_CONFIG_HOME`, else `~/.config`).
pub const CONFIG_FILE: &str = "ask-popup/config.toml";
/// The longest question text the document carries, in characters: a notification shows a line
/// or two, and a small document fits in a pipe's buffer, so writing it never waits on the
/// command reading it.
pub const MAX_QUESTION_CHARS: usize = 500;

/// What to run, and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// A shell command line, run through `sh -c`.
    pub command: String,
    pub delay: Duration,
}

/// The config file's text and where it was read from (for the messages).
#[derive(Clone, Copy, Debug)]
pub struct ConfigFile<'a> {
    pub path: &'a str,
    pub text: &'a str,
}

/// Why no notification is set up for a question (said once on stderr; the question is asked
/// all the same).
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum NotifyError {
    #[error("{path} is not valid TOML ({detail})")]
    NotToml { path: String, detail: String },
    #[error("{path}: `notify` must be a table ([notify])")]
    NotATable { path: String },
    #[error("{path}: `notify.command` must be a string")]
    CommandNotText { path: String },
    #[error("{from}: {value} is not a delay (seconds, or a number followed by ms, s, m or h, as in \"30s\" or \"2m\")")]
    BadDelay { from: String, value: String },
}

/// The config file's path: `$XDG_CONFIG_HOME/ask-popup/config.toml` when that variable holds an
/// absolute path (the XDG spec ignores any other), else `$HOME/.config/ask-popup/config.toml`.
pub fn config_path(xdg_config_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    crate::xdg::path_of(xdg_config_home, home, ".config", CONFIG_FILE)
}

/// The notification's settings: `command_var` and `delay_var` (the environment) win over `file`;
/// `None` when no command is set, or it is empty. The file is read only for what the environment
/// leaves out.
pub fn settings(
    command_var: Option<&str>,
    delay_var: Option<&str>,
    file: Option<ConfigFile>,
) -> Result<Option<Settings>, NotifyError> {
    let delay_var = delay_var.filter(|d| !d.trim().is_empty());
    let from_file = match file {
        Some(file) if command_var.is_none() || delay_var.is_none() => read_file(file)?,
        _ => FileSettings::default(),
    };
    let command = match command_var {
        Some(command) => command.to_owned(),
        None => from_file.command.unwrap_or_default(),
    };
    if command.trim().is_empty() {
        return Ok(None);
    }
    let delay = match (delay_var, from_file.delay) {
        (Some(text), _) => parse_delay(text).ok_or_else(|| NotifyError::BadDelay {
            from: DELAY_VAR.to_owned(),
            value: format!("{text:?}"),
        })?,
        (None, Some(delay)) => delay,
        (None, None) => DEFAULT_DELAY,
    };
    Ok(Some(Settings { command, delay }))
}

/// What the `[notify]` table of the config file says.
#[derive(Default)]
struct FileSettings {
    command: Option<String>,
    delay: Option<Duration>,
}

/// Reads `[notify]` (`command`, `delay`) from the config file; other tables and keys are left
/// to whoever reads them.
fn read_file(file: ConfigFile) -> Result<FileSettings, NotifyError> {
    let path = || file.path.to_owned();
    let doc: toml_edit::DocumentMut =
        file.text
            .parse()
            .map_err(|e: toml_edit::TomlError| NotifyError::NotToml {
                path: path(),
                detail: e.message().to_owned(),
            })?;
    let Some(notify) = doc.get("notify") else {
        return Ok(FileSettings::default());
    };
    let notify = notify
        .as_table_like()
        .ok_or_else(|| NotifyError::NotATable { path: path() })?;
    let command = match notify.get("command") {
        None => None,
        Some(command) => Some(
            command
                .as_str()
                .ok_or_else(|| NotifyError::CommandNotText { path: path() })?
                .to_owned(),
        ),
    };
    let delay = match notify.get("delay") {
        None => None,
        Some(item) => {
            let delay = if let Some(text) = item.as_str() {
                parse_delay(text)
            } else if let Some(seconds) = item.as_integer() {
                u64::try_from(seconds).ok().map(Duration::from_secs)
            } else {
                item.as_float().and_then(seconds)
            };
            let bad = || NotifyError::BadDelay {
                from: format!("{}: notify.delay", file.path),
                value: item.to_string().trim().to_owned(),
            };
            Some(delay.ok_or_else(bad)?)
        }
    };
    Ok(FileSettings { command, delay })
}

/// A delay as the user writes it: seconds (`30`, `1.5`), or a number with a unit (`500ms`,
/// `30s`, `2m`, `1h`). Hand-written: four units do not need a duration-parsing crate.
pub fn parse_delay(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 0.001,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return None,
    };
    seconds(number * scale)
}

fn seconds(seconds: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(seconds).ok()
}

/// The JSON document the notify command reads on its stdin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Waiting {
    /// The name the popup shows for the asking agent.
    pub agent: Option<String>,
    /// Each question's header, in order.
    pub headers: Vec<String>,
    pub questions: Vec<WaitingQuestion>,
    /// The asking pane (`$ZELLIJ_PANE_ID`).
    pub pane_id: Option<u64>,
    /// The Zellij session (`$ZELLIJ_SESSION_NAME`).
    pub session: Option<String>,
    pub request_id: String,
    /// How long the question has waited, in whole seconds.
    pub waited_seconds: u64,
    /// The session in Zellij's web client, when its web server runs.
    pub url: Option<String>,
}

/// One question as the document gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitingQuestion {
    pub header: String,
    /// The question's text, cut to `MAX_QUESTION_CHARS` characters.
    pub question: String,
    /// The options' labels.
    pub options: Vec<String>,
}

impl Waiting {
    /// The document for the questionnaire sent as `line` by `caller`, in `session`, after
    /// `waited`, with the session's web `url` when there is one.
    pub fn new(
        line: &str,
        caller: &Caller,
        session: Option<&str>,
        waited: Duration,
        url: Option<String>,
    ) -> Waiting {
        // The line was checked before it was sent; should it not read, the document still goes
        // out, without questions.
        let questions = request::parse(line)
            .map(|q| questions_of(&q))
            .unwrap_or_default();
        Waiting {
            agent: caller
                .agent
                .as_deref()
                .map(agent_value)
                .filter(|a| !a.is_empty()),
            headers: questions.iter().map(|q| q.header.clone()).collect(),
            questions,
            pane_id: caller
                .pane_id
                .as_deref()
                .and_then(|p| p.trim().parse().ok()),
            session: session.filter(|s| !s.is_empty()).map(str::to_owned),
            request_id: caller.id.clone(),
            waited_seconds: waited.as_secs(),
            url,
        }
    }

    /// The document as one line of JSON, with its newline.
    pub fn to_json(&self) -> String {
        let mut json = serde_json::to_string(self).unwrap_or_default();
        json.push('\n');
        json
    }
}

fn questions_of(questionnaire: &Questionnaire) -> Vec<WaitingQuestion> {
    questionnaire
        .questions
        .iter()
        .map(|q| WaitingQuestion {
            header: q.header.clone(),
            question: cut(&q.question, MAX_QUESTION_CHARS),
            options: q.options.iter().map(|o| o.label.clone()).collect(),
        })
        .collect()
}

/// `text` cut to at most `max` characters, an ellipsis marking the cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The arguments of the command that tells whether Zellij's web server runs.
pub const WEB_STATUS_ARGS: [&str; 4] = ["web", "--status", "--timeout", "2"];

/// The session's URL in Zellij's web client, from what `zellij web --status` printed: None
/// when the server is offline, or the output is anything else (a Zellij built without the web
/// server says so and exits 2).
pub fn web_url(status: &[u8], session: &str) -> Option<String> {
    if session.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(status);
    web::online_base(&text).map(|base| web::session_url(base, session))
}

/// Set to `off`, `0`, `false` or `no`, no terminal notification is written (`terminal_sequence`).
pub const TERMINAL_VAR: &str = "ASK_POPUP_TERMINAL_NOTIFY";
/// The longest title or body of a terminal notification, in characters.
pub const MAX_TERMINAL_CHARS: usize = 120;

/// Whether the terminal notification is on, given `$ASK_POPUP_TERMINAL_NOTIFY` (on unless set
/// to turn it off).
pub fn terminal_notification_on(value: Option<&str>) -> bool {
    !value.is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "false" | "no"
        )
    })
}

/// The sequence written into the asking pane when its question starts waiting: OSC 777
/// (`ESC ] 777 ; notify ; TITLE ; BODY BEL`), which Zellij 0.45 passes on to its outer terminal
/// as a desktop notification (its `host_notification_protocol`: OSC 9, or OSC 99 for kitty).
/// The title says who asks, the body the first question's header and text; neither can end the
/// sequence or start another (control characters are taken out, and `;` in the title, which
/// would end it, becomes `,`).
pub fn terminal_sequence(line: &str, caller: &Caller) -> String {
    let agent = caller
        .agent
        .as_deref()
        .map(agent_value)
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| "An agent".to_owned());
    let title = clean_for_sequence(&format!("{agent} asks")).replace(';', ",");
    let body = request::parse(line)
        .ok()
        .and_then(|q| {
            q.questions
                .first()
                .map(|first| format!("{}: {}", first.header, first.question))
        })
        .unwrap_or_else(|| "a question is waiting".to_owned());
    format!(
        "\u{1b}]777;notify;{title};{}\u{7}",
        clean_for_sequence(&body)
    )
}

/// `text` without control characters (C0, DEL, C1) and bidi controls (which would reorder
/// the notification as shown), its runs of white space one space, cut to `MAX_TERMINAL_CHARS`
/// characters.
fn clean_for_sequence(text: &str) -> String {
    let spaced: String = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| !c.is_control() && !ask_popup_protocol::text::is_bidi_control(*c))
        .collect();
    let words: Vec<&str> = spaced.split(' ').filter(|w| !w.is_empty()).collect();
    let joined = words.join(" ");
    if joined.chars().count() <= MAX_TERMINAL_CHARS {
        return joined;
    }
    let mut cut: String = joined.chars().take(MAX_TERMINAL_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DB: &str = r#"{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres","description":"Relational"},{"label":"SQLite","description":"Embedded"}]}]}"#;

    fn file(text: &str) -> Option<ConfigFile<'_>> {
        Some(ConfigFile {
            path: "config.toml",
            text,
        })
    }

    fn set(command: &str, seconds: u64) -> Option<Settings> {
        Some(Settings {
            command: command.to_owned(),
            delay: Duration::from_secs(seconds),
        })
    }

    #[test]
    fn the_environment_wins_over_the_config_file() {
        let both = "[notify]\ncommand = \"from-file\"\ndelay = \"2m\"\n";
        let cases = [
            ("nothing set", None, None, None, None),
            ("file only", None, None, file(both), set("from-file", 120)),
            (
                "command from the environment",
                Some("from-env"),
                None,
                file(both),
                set("from-env", 120),
            ),
            (
                "delay from the environment",
                None,
                Some("5"),
                file(both),
                set("from-file", 5),
            ),
            (
                "an empty variable turns it off",
                Some(""),
                None,
                file(both),
                None,
            ),
            (
                "an empty delay variable is unset",
                None,
                Some(" "),
                file(both),
                set("from-file", 120),
            ),
            (
                "the default delay",
                Some("from-env"),
                None,
                None,
                set("from-env", 30),
            ),
            (
                "no [notify] table",
                None,
                None,
                file("[other]\nx = 1\n"),
                None,
            ),
            (
                "an empty command",
                None,
                None,
                file("[notify]\ncommand = \"  \"\n"),
                None,
            ),
            (
                "a broken file is not read when the environment says everything",
                Some("from-env"),
                Some("1"),
                file("[notify"),
                set("from-env", 1),
            ),
            (
                "a delay as a number of seconds",
                None,
                None,
                file("[notify]\ncommand = \"c\"\ndelay = 45\n"),
                set("c", 45),
            ),
            (
                "an inline table",
                None,
                None,
                file("notify = { command = \"c\", delay = 10 }\n"),
                set("c", 10),
            ),
        ];
        for (what, command, delay, file, expected) in cases {
            assert_eq!(settings(command, delay, file), Ok(expected), "{what}");
        }
    }

    #[test]
    fn a_config_that_cannot_be_read_says_why() {
        let cases = [
            ("[notify", "config.toml is not valid TOML"),
            ("notify = 3\n", "config.toml: `notify` must be a table"),
            (
                "[notify]\ncommand = [\"a\"]\n",
                "config.toml: `notify.command` must be a string",
            ),
            (
                "[notify]\ncommand = \"c\"\ndelay = \"soon\"\n",
                "config.toml: notify.delay: \"soon\" is not a delay",
            ),
            (
                "[notify]\ncommand = \"c\"\ndelay = -1\n",
                "config.toml: notify.delay: -1 is not a delay",
            ),
        ];
        for (text, says) in cases {
            let error = settings(None, None, file(text)).expect_err(text);
            assert!(error.to_string().starts_with(says), "{text:?}: {error}");
        }
        let error = settings(Some("c"), Some("later"), None).expect_err("a bad delay");
        assert!(
            error
                .to_string()
                .starts_with("ASK_POPUP_NOTIFY_DELAY: \"later\" is not a delay"),
            "{error}"
        );
    }

    #[test]
    fn delays_are_seconds_or_a_number_with_a_unit() {
        let ms = Duration::from_millis;
        let cases = [
            ("30", Some(ms(30_000))),
            (" 30s ", Some(ms(30_000))),
            ("1.5", Some(ms(1_500))),
            ("500ms", Some(ms(500))),
            ("2m", Some(ms(120_000))),
            ("2 m", Some(ms(120_000))),
            ("1h", Some(ms(3_600_000))),
            ("0", Some(ms(0))),
            ("", None),
            ("s", None),
            ("-1", None),
            ("1d", None),
            ("1.2.3", None),
            ("1e400", None),
            ("99999999999999999999999h", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_delay(text), expected, "{text:?}");
        }
    }

    #[test]
    fn the_config_file_is_under_the_xdg_config_dir() {
        let os = |s: &'static str| Some(OsStr::new(s));
        let cases = [
            (
                os("/x/config"),
                os("/home/u"),
                Some("/x/config/ask-popup/config.toml"),
            ),
            (
                None,
                os("/home/u"),
                Some("/home/u/.config/ask-popup/config.toml"),
            ),
            (
                os("relative"),
                os("/home/u"),
                Some("/home/u/.config/ask-popup/config.toml"),
            ),
            (
                os(""),
                os("/home/u"),
                Some("/home/u/.config/ask-popup/config.toml"),
            ),
            (None, None, None),
            (None, os(""), None),
        ];
        for (xdg, home, expected) in cases {
            assert_eq!(
                config_path(xdg, home),
                expected.map(PathBuf::from),
                "{xdg:?} {home:?}"
            );
        }
    }

    #[test]
    fn the_document_names_the_agent_the_questions_and_where_they_wait() {
        let caller = Caller {
            pane_id: Some("3".to_owned()),
            agent: Some("claude".to_owned()),
            id: "r1".to_owned(),
            id_given: true,
            approval_by: None,
        };
        let waiting = Waiting::new(
            DB,
            &caller,
            Some("main"),
            Duration::from_millis(30_900),
            Some("http://127.0.0.1:8082/main".to_owned()),
        );
        let document: serde_json::Value =
            serde_json::from_str(&waiting.to_json()).expect("one JSON document");
        assert_eq!(
            document,
            json!({
                "agent": "claude",
                "headers": ["DB"],
                "questions": [{"header": "DB", "question": "Which database?", "options": ["Postgres", "SQLite"]}],
                "paneId": 3,
                "session": "main",
                "requestId": "r1",
                "waitedSeconds": 30,
                "url": "http://127.0.0.1:8082/main",
            })
        );
        assert!(waiting.to_json().ends_with("}\n"));
    }

    #[test]
    fn what_is_unknown_is_null_in_the_document() {
        let caller = Caller {
            pane_id: Some("not a pane".to_owned()),
            agent: Some("a,b".to_owned()),
            id: "r2".to_owned(),
            id_given: false,
            approval_by: None,
        };
        let document =
            serde_json::to_value(Waiting::new(DB, &caller, Some(""), Duration::ZERO, None))
                .expect("JSON");
        assert_eq!(document["agent"], "ab", "as the popup shows it");
        assert_eq!(document["paneId"], json!(null));
        assert_eq!(document["session"], json!(null));
        assert_eq!(document["url"], json!(null));
        let nobody = Caller {
            pane_id: None,
            agent: None,
            ..caller
        };
        let document = serde_json::to_value(Waiting::new(
            "not json",
            &nobody,
            None,
            Duration::ZERO,
            None,
        ))
        .expect("JSON");
        assert_eq!(document["agent"], json!(null));
        assert_eq!(document["headers"], json!([]));
        assert_eq!(document["questions"], json!([]));
        assert_eq!(document["requestId"], "r2");
    }

    #[test]
    fn a_long_question_is_cut_and_options_are_their_labels() {
        let long = "x".repeat(MAX_QUESTION_CHARS + 10);
        // Options as plain strings, an alias the request reads.
        let payload =
            json!({"questions": [{"question": long, "header": "Long", "options": ["A", "B"]}]});
        let caller = Caller {
            pane_id: None,
            agent: None,
            id: "r3".to_owned(),
            id_given: false,
            approval_by: None,
        };
        let waiting = Waiting::new(&payload.to_string(), &caller, None, Duration::ZERO, None);
        let question = &waiting.questions[0];
        assert_eq!(question.question.chars().count(), MAX_QUESTION_CHARS);
        assert!(question.question.ends_with('…'));
        assert_eq!(question.options, ["A", "B"]);
        assert_eq!(waiting.headers, ["Long"]);
    }

    #[test]
    fn the_web_url_is_the_online_servers_base_and_the_session() {
        let online = b"Web server online with version: 0.45.1. Checked: http://127.0.0.1:8082\n";
        let cases: [(&[u8], &str, Option<&str>); 7] = [
            (online, "main", Some("http://127.0.0.1:8082/main")),
            (online, "my session/1", Some("http://127.0.0.1:8082/my%20session%2F1")),
            (
                b"Web server online with version: 0.44.0. Checked: https://host:9000/\n\nNote: this version differs from the current Zellij version: 0.45.1.\n",
                "s",
                Some("https://host:9000/s"),
            ),
            (online, "", None),
            (b"Web server is offline, checked: http://127.0.0.1:8082\n", "main", None),
            (
                b"This version of Zellij was compiled without web server support, cannot get web server status!",
                "main",
                None,
            ),
            (b"", "main", None),
        ];
        for (status, session, expected) in cases {
            assert_eq!(
                web_url(status, session).as_deref(),
                expected,
                "{:?} {session:?}",
                String::from_utf8_lossy(status)
            );
        }
    }

    #[test]
    fn the_terminal_is_told_who_asks_and_the_first_question() {
        let caller = Caller {
            pane_id: Some("3".to_owned()),
            agent: Some("claude".to_owned()),
            id: "r1".to_owned(),
            id_given: true,
            approval_by: None,
        };
        assert_eq!(
            terminal_sequence(DB, &caller),
            "\u{1b}]777;notify;claude asks;DB: Which database?\u{7}"
        );
        let nameless = Caller {
            agent: None,
            ..caller.clone()
        };
        assert!(terminal_sequence(DB, &nameless).contains(";An agent asks;"));
    }

    #[test]
    fn nothing_an_agent_writes_ends_the_sequence_or_starts_another() {
        let caller = Caller {
            pane_id: None,
            agent: Some("a;b\u{7}\u{1b}]0;x".to_owned()),
            id: "r1".to_owned(),
            id_given: false,
            approval_by: None,
        };
        let evil = r#"{"questions":[{"question":"Run\u001b]52;c;AAAA\u0007 it?\u009c\nnow","header":"H;x","options":["A","B"]}]}"#;
        let sequence = terminal_sequence(evil, &caller);
        let inner = &sequence[2..sequence.len() - 1];
        assert!(!inner.chars().any(char::is_control), "{sequence:?}");
        // The title keeps its place: `;` in it becomes `,`.
        assert!(
            sequence.starts_with("\u{1b}]777;notify;a,b]0,x asks;"),
            "{sequence:?}"
        );
        assert!(
            sequence.ends_with("H;x: Run]52;c;AAAA it? now\u{7}"),
            "{sequence:?}"
        );
        let long = format!(
            r#"{{"questions":[{{"question":"{}?","header":"H","options":["A","B"]}}]}}"#,
            "word ".repeat(100)
        );
        let body = terminal_sequence(&long, &caller);
        let body = body.rsplit(';').next().unwrap_or_default();
        assert_eq!(body.chars().count(), MAX_TERMINAL_CHARS + 1, "{body:?}");
        assert!(body.ends_with("…\u{7}"));
    }

    #[test]
    fn the_notification_shows_no_bidi_control_an_agent_writes() {
        let caller = Caller {
            pane_id: Some("3".to_owned()),
            agent: Some("cla\u{202e}ude\u{2066}".to_owned()),
            id: "r1".to_owned(),
            id_given: true,
            approval_by: None,
        };
        let tricky = r#"{"questions":[{"question":"Delete\u202e\u2067 it\u200f\u200e\u061c?","header":"D\u202aB\u2069","options":["A","B"]}]}"#;
        assert_eq!(
            terminal_sequence(tricky, &caller),
            "\u{1b}]777;notify;claude asks;DB: Delete it?\u{7}"
        );
    }

    #[test]
    fn the_terminal_notification_is_on_unless_turned_off() {
        assert!(terminal_notification_on(None));
        assert!(terminal_notification_on(Some("")));
        assert!(terminal_notification_on(Some("on")));
        for off in ["off", "0", "false", "no", " OFF "] {
            assert!(!terminal_notification_on(Some(off)), "{off}");
        }
    }
}
