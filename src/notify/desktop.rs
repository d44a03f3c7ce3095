//! The desktop notification with actions (Linux, a notification server on the session bus): what
//! it offers for a question, what a click on it does, and which of the bus's signals count.
//! `desktop_bus.rs` talks to the bus, `desktop_notice.rs` runs it beside the question.
//!
//! It takes the place of the terminal notification (OSC 777) where a server says it shows
//! actions, at the same moment: the question starts waiting. A click answers through the plugin
//! (the `pick` pipe), so it is the very pick the popup makes, with its one envelope, its record
//! and its marks. A notification offers only what can be decided without reading more than it
//! shows: a lone single-select question's options, or an approval's Deny; never an Allow.

use super::terminal_notice::clean_line;
use ask_popup_protocol::approval::DENY;
use ask_popup_protocol::request::Questionnaire;

/// Set to `off` (`0`, `false`, `no`), no desktop notification: the terminal one, as before.
pub const ACTIONS_VAR: &str = "ASK_POPUP_DESKTOP_ACTIONS";
/// Where the session bus is; unset (SSH, containers, macOS), there is no desktop to tell.
pub const BUS_VAR: &str = "DBUS_SESSION_BUS_ADDRESS";
/// The plugin's pipe that answers a waiting request with one of its options.
pub const PICK_PIPE: &str = "pick";
/// The plugin's pipe that shows the popup (with an `id`: that request first).
pub const SHOW_PIPE: &str = "show";
/// The most options a notification offers: servers show three or four buttons in all, and one
/// is `Open`.
pub const MAX_OPTIONS: usize = 3;
/// The longest label of a button, in characters.
pub const MAX_LABEL_CHARS: usize = 40;
/// The name the notification goes by (its `app_name`).
pub const APP_NAME: &str = "ask-popup";
/// The label of the button that shows the question in the popup.
pub const OPEN_LABEL: &str = "Open";

/// What a button of the notification does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Picks option `n` (0-based) of the lone question.
    Option(usize),
    /// Picks an approval's Deny.
    Deny,
    /// Shows the question in the popup.
    Open,
}

impl Action {
    /// Its key, as the notification's `actions` carry it and `ActionInvoked` names it.
    pub fn key(self) -> String {
        match self {
            Action::Option(n) => n.to_string(),
            Action::Deny => "deny".to_owned(),
            Action::Open => "open".to_owned(),
        }
    }

    /// The pipe a click sends and its arguments, after the caller's own (`Caller::pipe_args`).
    pub fn pipe(self, caller_args: &str) -> (&'static str, String) {
        match self {
            Action::Option(n) => (
                PICK_PIPE,
                format!("{caller_args},option={n},from=notification"),
            ),
            Action::Deny => (PICK_PIPE, format!("{caller_args},deny=1,from=notification")),
            Action::Open => (SHOW_PIPE, caller_args.to_owned()),
        }
    }
}

/// The buttons of the notification of `questionnaire`, in order, each with its label: a lone
/// single-select question's options (the recommended one first, up to `MAX_OPTIONS`), or an
/// approval's Deny; then `Open`. Several questions, multi-select, forms: `Open` alone.
pub fn offered(questionnaire: &Questionnaire) -> Vec<(Action, String)> {
    let mut buttons = Vec::new();
    let lone = match questionnaire.questions.as_slice() {
        [question] if !question.multi_select && questionnaire.form.is_none() => Some(question),
        _ => None,
    };
    if let Some(question) = lone {
        if questionnaire.approval {
            // Deny alone: what an Allow lets run must be read whole, in the popup.
            if question.options.iter().any(|o| o.label == DENY) {
                buttons.push((Action::Deny, DENY.to_owned()));
            }
        } else {
            let first = question.recommended().unwrap_or(0);
            let order =
                std::iter::once(first).chain((0..question.options.len()).filter(|&i| i != first));
            for i in order.take(MAX_OPTIONS) {
                if let Some(option) = question.options.get(i) {
                    buttons.push((
                        Action::Option(i),
                        clean_line(&option.label, MAX_LABEL_CHARS),
                    ));
                }
            }
        }
    }
    buttons.push((Action::Open, OPEN_LABEL.to_owned()));
    buttons
}

/// `text` as a body the server reads as markup (its capability `body-markup`): `&`, `<` and
/// `>` escaped, so that what an agent wrote shows as written.
pub fn as_markup(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A signal of the notifications' interface, as heard on the bus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heard {
    /// The unique name that sent it (the bus daemon sets it: no client can forge it).
    pub sender: Option<String>,
    /// `ActionInvoked` or `NotificationClosed`.
    pub member: String,
    pub id: u32,
    /// `ActionInvoked`'s key.
    pub key: Option<String>,
}

/// What a signal means for the notification `ours` with buttons `offered`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Meaning {
    /// The person clicked this button.
    Click(Action),
    /// The notification is gone (expired, dismissed, closed).
    Closed,
    /// Not ours, not the server's, or no button of ours: nothing happens.
    Nothing,
}

/// What `heard` means: only the notification server's own signals (sent by `owner`, the unique
/// name that owns `org.freedesktop.Notifications` now) about our notification `ours` count,
/// and a click only on a button it offered.
pub fn meaning(heard: &Heard, owner: Option<&str>, ours: u32, offered: &[Action]) -> Meaning {
    let from_the_server = heard.sender.is_some() && heard.sender.as_deref() == owner;
    if !from_the_server || heard.id != ours {
        return Meaning::Nothing;
    }
    match heard.member.as_str() {
        "ActionInvoked" => offered
            .iter()
            .find(|a| heard.key.as_deref() == Some(a.key().as_str()))
            .map_or(Meaning::Nothing, |a| Meaning::Click(*a)),
        "NotificationClosed" => Meaning::Closed,
        _ => Meaning::Nothing,
    }
}

/// Why no desktop notification with actions is shown (`doctor` says it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    #[error("turned off ({0})")]
    TurnedOff(String),
    #[error("no session bus (DBUS_SESSION_BUS_ADDRESS is not set: SSH, a container, macOS)")]
    NoBus,
    #[error("no notification server on the session bus ({0})")]
    NoServer(String),
    #[error("the notification server ({0}) shows no actions")]
    NoActions(String),
}

/// Whether to look for a notification server at all, given the settings and the environment:
/// `desktop_on` (`settings::desktop_actions`, or what turned it off), `terminal_on`
/// (`ASK_POPUP_TERMINAL_NOTIFY`: the desktop notification takes the terminal one's place, and is
/// off with it) and the bus's address.
pub fn wanted(
    desktop_on: Result<(), String>,
    terminal_on: bool,
    bus: Option<&str>,
) -> Result<(), Unavailable> {
    desktop_on.map_err(Unavailable::TurnedOff)?;
    if !terminal_on {
        return Err(Unavailable::TurnedOff(format!(
            "{}=off",
            super::terminal_notice::TERMINAL_VAR
        )));
    }
    match bus {
        Some(address) if !address.trim().is_empty() => Ok(()),
        _ => Err(Unavailable::NoBus),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ask_popup_protocol::request::parse;
    use serde_json::json;

    fn offer_of(payload: serde_json::Value) -> Vec<(String, String)> {
        let questionnaire = parse(&payload.to_string()).expect("valid");
        offered(&questionnaire)
            .into_iter()
            .map(|(action, label)| (action.key(), label))
            .collect()
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected
            .iter()
            .map(|(k, l)| (k.to_string(), l.to_string()))
            .collect()
    }

    #[test]
    fn a_lone_single_select_question_offers_its_options_the_recommended_first() {
        let cases = [
            (
                "two options",
                json!({"questions": [{"question": "Which?", "header": "DB", "options": ["Postgres", "SQLite"]}]}),
                pairs(&[("0", "Postgres"), ("1", "SQLite"), ("open", "Open")]),
            ),
            (
                "the recommended one first, three at most",
                json!({"questions": [{"question": "Which?", "header": "DB",
                    "options": ["A", "B", "C (Recommended)", "D"]}]}),
                pairs(&[
                    ("2", "C (Recommended)"),
                    ("0", "A"),
                    ("1", "B"),
                    ("open", "Open"),
                ]),
            ),
            (
                "a long label is cut",
                json!({"questions": [{"question": "Which?", "header": "DB",
                    "options": ["x".repeat(60), "B\u{1b}]0;title\u{7}"]}]}),
                pairs(&[
                    ("0", &format!("{}…", "x".repeat(39))),
                    ("1", "B]0;title"),
                    ("open", "Open"),
                ]),
            ),
        ];
        for (what, payload, expected) in cases {
            assert_eq!(offer_of(payload), expected, "{what}");
        }
    }

    #[test]
    fn an_approval_offers_deny_and_open_never_allow() {
        for options in [
            json!(["Allow once", "Allow always", "Deny"]),
            json!(["Allow once", "Deny"]),
            json!(["Deny", "Allow once"]),
        ] {
            let offer = offer_of(json!({"approval": true, "questions": [{
                "question": "Allow claude to use Bash: rm -rf build?", "header": "Approval",
                "options": options}]}));
            assert_eq!(
                offer,
                pairs(&[("deny", "Deny"), ("open", "Open")]),
                "{options}"
            );
        }
        // An approval without a Deny row offers Open alone.
        let offer = offer_of(json!({"approval": true, "questions": [{
            "question": "Go?", "header": "Approval", "options": ["Allow once", "Later"]}]}));
        assert_eq!(offer, pairs(&[("open", "Open")]));
    }

    #[test]
    fn several_questions_multi_select_and_forms_offer_open_alone() {
        let cases = [
            json!({"questions": [
                {"question": "One?", "header": "One", "options": ["A", "B"]},
                {"question": "Two?", "header": "Two", "options": ["C", "D"]}]}),
            json!({"questions": [{"question": "Which?", "header": "M", "multiSelect": true,
                "options": ["A", "B"]}]}),
            json!({"form": {"server": "shop", "message": "Size?", "schema": {"type": "object",
                "properties": {"size": {"type": "string", "enum": ["S", "M"]}}}}}),
        ];
        for payload in cases {
            assert_eq!(
                offer_of(payload.clone()),
                pairs(&[("open", "Open")]),
                "{payload}"
            );
        }
    }

    #[test]
    fn a_click_sends_the_pick_or_show_pipe_after_the_callers_arguments() {
        let caller = "pane_id=3,agent=claude,id=r1";
        assert_eq!(
            Action::Option(1).pipe(caller),
            (
                "pick",
                "pane_id=3,agent=claude,id=r1,option=1,from=notification".to_owned()
            )
        );
        assert_eq!(
            Action::Deny.pipe(caller),
            (
                "pick",
                "pane_id=3,agent=claude,id=r1,deny=1,from=notification".to_owned()
            )
        );
        assert_eq!(Action::Open.pipe(caller), ("show", caller.to_owned()));
    }

    #[test]
    fn the_pipes_are_the_plugins() {
        assert_eq!(PICK_PIPE, ask_popup_plugin::broker::PICK_PIPE);
        assert_eq!(SHOW_PIPE, ask_popup_plugin::broker::SHOW_PIPE);
    }

    #[test]
    fn only_the_servers_own_signals_about_our_notification_count() {
        let offered = [Action::Option(0), Action::Option(1), Action::Open];
        let server = Some(":1.7");
        let heard = |sender: Option<&str>, member: &str, id: u32, key: Option<&str>| Heard {
            sender: sender.map(str::to_owned),
            member: member.to_owned(),
            id,
            key: key.map(str::to_owned),
        };
        let cases = [
            (
                "a click on an option",
                heard(server, "ActionInvoked", 42, Some("1")),
                Meaning::Click(Action::Option(1)),
            ),
            (
                "a click on Open",
                heard(server, "ActionInvoked", 42, Some("open")),
                Meaning::Click(Action::Open),
            ),
            (
                "closed",
                heard(server, "NotificationClosed", 42, None),
                Meaning::Closed,
            ),
            (
                "another client forged it",
                heard(Some(":1.9"), "ActionInvoked", 42, Some("1")),
                Meaning::Nothing,
            ),
            (
                "no sender",
                heard(None, "ActionInvoked", 42, Some("1")),
                Meaning::Nothing,
            ),
            (
                "another notification",
                heard(server, "ActionInvoked", 41, Some("1")),
                Meaning::Nothing,
            ),
            (
                "another notification closed",
                heard(server, "NotificationClosed", 41, None),
                Meaning::Nothing,
            ),
            (
                "a button it did not offer",
                heard(server, "ActionInvoked", 42, Some("2")),
                Meaning::Nothing,
            ),
            (
                "an approval's allow",
                heard(server, "ActionInvoked", 42, Some("allow")),
                Meaning::Nothing,
            ),
            (
                "deny, not offered here",
                heard(server, "ActionInvoked", 42, Some("deny")),
                Meaning::Nothing,
            ),
            (
                "the default action",
                heard(server, "ActionInvoked", 42, Some("default")),
                Meaning::Nothing,
            ),
            (
                "another signal",
                heard(server, "ActivationToken", 42, Some("t")),
                Meaning::Nothing,
            ),
        ];
        for (what, heard, expected) in cases {
            assert_eq!(meaning(&heard, server, 42, &offered), expected, "{what}");
        }
        // With no owner known, nothing counts.
        let click = heard(server, "ActionInvoked", 42, Some("1"));
        assert_eq!(meaning(&click, None, 42, &offered), Meaning::Nothing);
    }

    #[test]
    fn it_is_looked_for_only_where_a_bus_is_and_nothing_turned_it_off() {
        let bus = Some("unix:path=/run/bus");
        assert_eq!(wanted(Ok(()), true, bus), Ok(()));
        assert_eq!(wanted(Ok(()), true, None), Err(Unavailable::NoBus));
        assert_eq!(wanted(Ok(()), true, Some(" ")), Err(Unavailable::NoBus));
        let off = |why: &str| Err(Unavailable::TurnedOff(why.to_owned()));
        assert_eq!(
            wanted(Err("ASK_POPUP_DESKTOP_ACTIONS=off".into()), true, bus),
            off("ASK_POPUP_DESKTOP_ACTIONS=off")
        );
        assert_eq!(
            wanted(Ok(()), false, bus),
            off("ASK_POPUP_TERMINAL_NOTIFY=off")
        );
    }

    #[test]
    fn markup_shows_what_an_agent_wrote() {
        assert_eq!(as_markup("a <b> & c"), "a &lt;b&gt; &amp; c");
    }
}
