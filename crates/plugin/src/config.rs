//! The plugin's options, as the user wrote them in the alias block of `plugin.kdl`: parsed
//! here, and every value that cannot be used is reported (in the log and in the popup), not
//! silently dropped.

use crate::broker::Config;
use crate::dialog::KeyPress;
use crate::popup::{PopupSize, Size};
use ask_popup_protocol::request::MIN_TIMEOUT_MS;
use std::collections::BTreeMap;
use thiserror::Error;

/// The hide key when the configuration names none.
pub const DEFAULT_HIDE_KEY: &str = "Ctrl ]";

/// Everything the configuration sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub broker: Config,
    pub popup: PopupSize,
    /// Write what the plugin hears and does to Zellij's log (for a bug report).
    pub trace: bool,
    /// Mark the name of a tab where an agent waits (with `indicator`).
    pub tab_marks: bool,
}

/// A value of the configuration that cannot be used; its default applies instead.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error(
        "ask-popup: {key} \"{value}\" is not a size (like \"80%\" or \"30\"); using {default}"
    )]
    Size {
        key: &'static str,
        value: String,
        default: &'static str,
    },
    #[error("ask-popup: {key} \"{value}\" is neither true nor false; using {default}")]
    Flag {
        key: &'static str,
        value: String,
        default: bool,
    },
    #[error("ask-popup: default_timeout \"{0}\" is not a number of milliseconds of at least {MIN_TIMEOUT_MS}; requests without a timeout wait until answered")]
    Timeout(String),
    #[error("ask-popup: hide_key \"{0}\" is not a key Zellij knows (like \"Ctrl ]\" or \"Alt o\", or \"off\"); using \"{DEFAULT_HIDE_KEY}\"")]
    HideKey(String),
}

impl Settings {
    /// Reads the alias block's options. Unknown keys are Zellij's own (`location`, …) and
    /// pass; a bad value falls back to its default and is reported.
    /// Every option read from the alias block, as plugin.kdl and the README document them.
    pub const OPTIONS: [&'static str; 10] = [
        "hide_key",
        "popup_width",
        "popup_height",
        "indicator",
        "tab_marks",
        "full_events",
        "default_timeout",
        "zjstatus",
        "trace",
        "history",
    ];

    pub fn from_map(map: &BTreeMap<String, String>) -> (Settings, Vec<ConfigError>) {
        let mut errors = Vec::new();
        let get = |key: &str| map.get(key).map(|v| v.trim().to_owned());
        let mut flag = |key: &'static str, default: bool| match get(key) {
            None => default,
            Some(value) => match value.to_ascii_lowercase().as_str() {
                "true" | "on" | "yes" | "1" => true,
                "false" | "off" | "no" | "0" => false,
                _ => {
                    errors.push(ConfigError::Flag {
                        key,
                        value,
                        default,
                    });
                    default
                }
            },
        };
        let indicator = flag("indicator", true);
        let tab_marks = flag("tab_marks", true);
        let full_events = flag("full_events", false);
        let zjstatus = flag("zjstatus", false);
        let trace = flag("trace", false);
        let history = flag("history", true);
        let mut size = |key: &'static str| match get(key) {
            None => Size::default(),
            Some(value) => Size::parse(&value).unwrap_or_else(|| {
                errors.push(ConfigError::Size {
                    key,
                    value,
                    default: "80%",
                });
                Size::default()
            }),
        };
        let popup = PopupSize {
            width: size("popup_width"),
            height: size("popup_height"),
        };
        let default_timeout_ms = get("default_timeout").and_then(|value| {
            let ms = value.parse::<u64>().ok().filter(|ms| *ms >= MIN_TIMEOUT_MS);
            if ms.is_none() {
                errors.push(ConfigError::Timeout(value));
            }
            ms
        });
        let default_hide_key = || DEFAULT_HIDE_KEY.parse::<KeyPress>().ok();
        let hide_key = match get("hide_key") {
            None => default_hide_key(),
            Some(key) => match key.to_ascii_lowercase().as_str() {
                "off" | "none" | "disabled" | "" => None,
                _ => match key.parse::<KeyPress>() {
                    Ok(press) => Some(press),
                    Err(_) => {
                        errors.push(ConfigError::HideKey(key));
                        default_hide_key()
                    }
                },
            },
        };
        let settings = Settings {
            broker: Config {
                // The footer names the key as Zellij writes it.
                hide_key_label: hide_key.map(|key| key_label(&key.to_string())),
                hide_key,
                default_timeout_ms,
                indicator,
                full_events,
                zjstatus,
                history,
            },
            popup,
            trace,
            tab_marks,
        };
        (settings, errors)
    }
}

/// `Ctrl ]` → `Ctrl+]`, as the footer shows a key.
pub fn key_label(key: &str) -> String {
    key.split_whitespace().collect::<Vec<_>>().join("+")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_when_nothing_is_set() {
        let (settings, errors) = Settings::from_map(&map(&[("location", "file:x.wasm")]));
        assert!(errors.is_empty());
        assert_eq!(settings.broker, Config::default());
        assert_eq!(settings.popup, PopupSize::default());
        assert_eq!(settings.broker.hide_key, "Ctrl ]".parse().ok());
        assert!(!settings.trace);
        assert!(settings.tab_marks);
    }

    #[test]
    fn every_option_is_read() {
        let (settings, errors) = Settings::from_map(&map(&[
            ("hide_key", "Alt o"),
            ("popup_width", "100"),
            ("popup_height", "60%"),
            ("indicator", "off"),
            ("tab_marks", "false"),
            ("full_events", "true"),
            ("zjstatus", "yes"),
            ("default_timeout", "300000"),
            ("trace", "on"),
        ]));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(settings.broker.hide_key, "Alt o".parse().ok());
        assert_eq!(settings.broker.hide_key_label.as_deref(), Some("Alt+o"));
        assert_eq!(settings.popup.width, Size::Cells(100));
        assert_eq!(settings.popup.height, Size::Percent(60));
        assert!(!settings.broker.indicator && !settings.tab_marks);
        assert!(settings.broker.full_events && settings.broker.zjstatus);
        assert_eq!(settings.broker.default_timeout_ms, Some(300_000));
        assert!(settings.trace);
        let (off, _) = Settings::from_map(&map(&[("hide_key", "off")]));
        assert_eq!(
            (off.broker.hide_key, off.broker.hide_key_label),
            (None, None)
        );
    }

    #[test]
    fn bad_values_are_reported_and_their_defaults_serve() {
        let (settings, errors) = Settings::from_map(&map(&[
            ("popup_width", "huge"),
            ("indicator", "maybe"),
            ("default_timeout", "10"),
        ]));
        assert_eq!(settings.popup.width, Size::Percent(80));
        assert!(settings.broker.indicator);
        assert_eq!(settings.broker.default_timeout_ms, None);
        let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "ask-popup: indicator \"maybe\" is neither true nor false; using true",
                "ask-popup: popup_width \"huge\" is not a size (like \"80%\" or \"30\"); using 80%",
                "ask-popup: default_timeout \"10\" is not a number of milliseconds of at least 1000; requests without a timeout wait until answered",
            ]
        );
    }

    #[test]
    fn a_hide_key_zellij_does_not_know_falls_back_to_the_default() {
        let (settings, errors) = Settings::from_map(&map(&[("hide_key", "Hyper q")]));
        assert_eq!(settings.broker.hide_key, "Ctrl ]".parse().ok());
        assert_eq!(settings.broker.hide_key_label.as_deref(), Some("Ctrl+]"));
        assert_eq!(errors, [ConfigError::HideKey("Hyper q".into())]);
    }
}
