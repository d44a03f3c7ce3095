//! The notification written into the asking pane's terminal (OSC 777), which Zellij passes on to
//! the outer terminal as a desktop notification.

use crate::ask::{agent_value, Caller};
use ask_popup_protocol::request;

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
/// The title and body are `title_and_body`'s; neither can end the sequence or start another
/// (they hold no control character, and `;` in the title, which would end it, becomes `,`).
pub fn terminal_sequence(line: &str, caller: &Caller) -> String {
    let (title, body) = title_and_body(line, caller);
    format!("\u{1b}]777;notify;{};{body}\u{7}", title.replace(';', ","))
}

/// What a notification of the question `line` of `caller` says: the title who asks, the body
/// the first question's header and text (a form's: its server and message), each one line of
/// at most `MAX_TERMINAL_CHARS` characters without a control character (`clean_line`).
pub fn title_and_body(line: &str, caller: &Caller) -> (String, String) {
    let agent = caller
        .agent
        .as_deref()
        .map(agent_value)
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| "An agent".to_owned());
    let title = clean_line(&format!("{agent} asks"), MAX_TERMINAL_CHARS);
    let body = request::parse(line)
        .ok()
        .and_then(|q| match &q.form {
            // An MCP server's form: who asks for what, rather than its first field.
            Some(form) => Some(format!("{} asks: {}", form.server, form.message)),
            None => q
                .questions
                .first()
                .map(|first| format!("{}: {}", first.header, first.question)),
        })
        .unwrap_or_else(|| "a question is waiting".to_owned());
    (title, clean_line(&body, MAX_TERMINAL_CHARS))
}

/// `text` without control characters (C0, DEL, C1) and bidi controls (which would reorder
/// the notification as shown), its runs of white space one space, cut to `max` characters.
pub fn clean_line(text: &str, max: usize) -> String {
    let spaced: String = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| !c.is_control() && !ask_popup_protocol::text::is_bidi_control(*c))
        .collect();
    let words: Vec<&str> = spaced.split(' ').filter(|w| !w.is_empty()).collect();
    let joined = words.join(" ");
    if joined.chars().count() <= max {
        return joined;
    }
    let mut cut: String = joined.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notify::document::tests::DB;

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
        let form = r#"{"form":{"server":"shop","message":"Your order","schema":{"properties":{"size":{"type":"string"}}}}}"#;
        assert_eq!(
            terminal_sequence(form, &caller),
            "\u{1b}]777;notify;claude asks;shop asks: Your order\u{7}"
        );
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
