//! What the `trace` option has an instance write to Zellij's log, as text: what it hears (an
//! event's kind, a pipe message) and what it does (its effects). Never the keys the user typed
//! or the text pasted, a pipe's payload only for the messages between the instances, and a
//! reply's size, not its text: the reply is its caller's alone (the record, the events and
//! those messages say it as others are shown it, a form's secrets hidden).

use crate::broker::{Effect, PipeIn, PEER_PIPE};
use crate::incoming::{floating_shown, other_clients, ZellijEvent};

/// What the trace says of an event (None: nothing, as for a mode update). The popup is plugin
/// `plugin_id`'s pane.
pub fn event(event: &ZellijEvent, plugin_id: Option<u32>) -> Option<String> {
    let said = match event {
        ZellijEvent::TabUpdate(tabs) => {
            let others = other_clients(tabs);
            let floating = floating_shown(tabs);
            format!(
                "tab update, other clients {others:?}, floating panes shown on tabs {floating:?}"
            )
        }
        ZellijEvent::PaneUpdate(panes) => {
            let popup = panes
                .iter()
                .find(|p| p.is_plugin && Some(p.id) == plugin_id)?;
            format!(
                "pane update, popup on tab {}, floating {}, hidden {}",
                popup.tab, popup.is_floating, popup.is_suppressed
            )
        }
        ZellijEvent::PermissionRequestResult(granted) => format!("permission granted: {granted}"),
        ZellijEvent::Key(_) => "key".to_owned(),
        ZellijEvent::Mouse(_) => "mouse".to_owned(),
        ZellijEvent::PastedText(_) => "paste".to_owned(),
        ZellijEvent::Timer => "timer".to_owned(),
        ZellijEvent::BeforeClose => "before close".to_owned(),
        ZellijEvent::PaneClosed(pane) => format!("pane closed {pane:?}"),
        ZellijEvent::ModeUpdate(_) | ZellijEvent::Other => return None,
    };
    Some(said)
}

/// What the trace says of a pipe message: its name, source, arguments and size, and the
/// payload of a message between the instances.
pub fn pipe(msg: &PipeIn) -> String {
    let payload = msg.payload.as_deref().unwrap_or("");
    let shown = if msg.name == PEER_PIPE { payload } else { "" };
    format!(
        "pipe {:?} {:?} args {:?}, {} bytes {}",
        msg.name,
        msg.source,
        msg.args,
        payload.len(),
        shown
    )
}

/// Whether the trace says an effect is done: every one but drawing and an ignored message
/// (said by itself, `ignored`).
pub fn says_effect(effect: &Effect) -> bool {
    !matches!(effect, Effect::Render | Effect::IgnoredPeerMessage { .. })
}

/// What the trace says of an effect done.
pub fn effect(effect: &Effect) -> String {
    match effect {
        Effect::Reply { pipe, output } => format!("Reply to {pipe:?}, {} bytes", output.len()),
        _ => format!("{effect:?}"),
    }
}

/// What the trace says of a message named as the instances' own that came from elsewhere,
/// from plugin `from_plugin` (None: a keybinding).
pub fn ignored(from_plugin: Option<u32>) -> String {
    match from_plugin {
        Some(id) => format!("ignored {PEER_PIPE:?} from plugin {id}, not this one"),
        None => format!("ignored {PEER_PIPE:?} from a keybinding"),
    }
}
