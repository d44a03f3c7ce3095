//! The notification of a question left waiting: which command the user chose and after how long
//! it runs (the config file and the environment). `document.rs` is what the command reads,
//! `notice.rs` keeps the time and runs it.

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
    #[error("{path}: `notify.desktop_actions` must be true or false")]
    DesktopActionsNotBool { path: String },
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

/// Whether a question that starts waiting is a desktop notification with actions where a
/// notification server offers them (`notify::desktop`): `desktop_var`
/// (`$ASK_POPUP_DESKTOP_ACTIONS`: `off`, `0`, `false`, `no`; or `on`, `1`, `true`, `yes`) wins
/// over the config file's `notify.desktop_actions`; on when neither says.
pub fn desktop_actions(
    desktop_var: Option<&str>,
    file: Option<ConfigFile>,
) -> Result<bool, NotifyError> {
    let said = desktop_var.map(|v| v.trim().to_ascii_lowercase());
    match said.as_deref() {
        Some("off" | "0" | "false" | "no") => return Ok(false),
        Some("on" | "1" | "true" | "yes") => return Ok(true),
        _ => {}
    }
    let from_file = match file {
        Some(file) => read_file(file)?.desktop_actions,
        None => None,
    };
    Ok(from_file.unwrap_or(true))
}

/// What the `[notify]` table of the config file says.
#[derive(Default)]
struct FileSettings {
    command: Option<String>,
    delay: Option<Duration>,
    desktop_actions: Option<bool>,
}

/// Reads `[notify]` (`command`, `delay`, `desktop_actions`) from the config file; other tables
/// and keys are left to whoever reads them.
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
    let desktop_actions = match notify.get("desktop_actions") {
        None => None,
        Some(item) => Some(
            item.as_bool()
                .ok_or_else(|| NotifyError::DesktopActionsNotBool { path: path() })?,
        ),
    };
    Ok(FileSettings {
        command,
        delay,
        desktop_actions,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn desktop_actions_are_on_unless_the_environment_or_the_file_turns_them_off() {
        let off = "[notify]\ndesktop_actions = false\n";
        let on = "[notify]\ndesktop_actions = true\n";
        let cases = [
            ("nothing said", None, None, true),
            (
                "a file without the key",
                None,
                file("[notify]\ncommand = \"c\"\n"),
                true,
            ),
            ("the file turns them off", None, file(off), false),
            ("the file turns them on", None, file(on), true),
            (
                "the environment turns them off",
                Some("off"),
                file(on),
                false,
            ),
            ("… in any of its words", Some(" NO "), None, false),
            ("the environment turns them on", Some("1"), file(off), true),
            (
                "an empty variable leaves it to the file",
                Some(""),
                file(off),
                false,
            ),
            (
                "an unknown word leaves it to the file",
                Some("maybe"),
                None,
                true,
            ),
            (
                "a broken file is not read when the environment says",
                Some("off"),
                file("[notify"),
                false,
            ),
        ];
        for (what, var, file, expected) in cases {
            assert_eq!(desktop_actions(var, file), Ok(expected), "{what}");
        }
        let error = desktop_actions(None, file("[notify]\ndesktop_actions = \"no\"\n"))
            .expect_err("a string");
        assert_eq!(
            error.to_string(),
            "config.toml: `notify.desktop_actions` must be true or false"
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
}
