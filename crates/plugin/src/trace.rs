//! What the `trace` option has an instance write to Zellij's log, as text: what it hears (an
//! event's kind, a pipe message) and what it does (its effects). Never the keys the user typed
//! or the text pasted, a pipe's payload only for the messages between the instances, and a
//! reply's size, not its text: the reply is its caller's alone (the record, the events and
//! those messages say it as others are shown it, a form's secrets hidden).

use crate::broker::{Effect, PipeIn, Source, PEER_PIPE};
use crate::incoming::{floating_shown, fullscreen_tiled, other_clients, ClosedPane, ZellijEvent};
use std::fmt::Display;

/// `text` in double quotes, with a quote, a backslash and a control character escaped: read as
/// Rust's `{:?}` reads, without bringing its Unicode tables into the plugin.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `[a, b]`.
fn list<T: Display>(items: &[T]) -> String {
    let items: Vec<String> = items.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// What the trace says of an event (None: nothing, as for a mode update). The popup is plugin
/// `plugin_id`'s pane.
pub fn event(event: &ZellijEvent, plugin_id: Option<u32>) -> Option<String> {
    let said = match event {
        ZellijEvent::TabUpdate(tabs) => {
            let others = other_clients(tabs);
            let floating = floating_shown(tabs);
            format!(
                "tab update, other clients {}, floating panes shown on tabs {}",
                list(&others),
                list(&floating)
            )
        }
        ZellijEvent::PaneUpdate(panes) => {
            let popup = panes
                .iter()
                .find(|p| p.is_plugin && Some(p.id) == plugin_id)?;
            let fullscreen: Vec<u32> = fullscreen_tiled(panes).map(|p| p.id).collect();
            format!(
                "pane update, popup on tab {}, floating {}, hidden {}, fullscreen tiled panes {}",
                popup.tab,
                popup.is_floating,
                popup.is_suppressed,
                list(&fullscreen)
            )
        }
        ZellijEvent::PermissionRequestResult(granted) => format!("permission granted: {granted}"),
        ZellijEvent::Key(_) => "key".to_owned(),
        ZellijEvent::Mouse(_) => "mouse".to_owned(),
        ZellijEvent::PastedText(_) => "paste".to_owned(),
        ZellijEvent::Timer => "timer".to_owned(),
        ZellijEvent::BeforeClose => "before close".to_owned(),
        ZellijEvent::PaneClosed(ClosedPane::Terminal(id)) => format!("pane closed terminal {id}"),
        ZellijEvent::PaneClosed(ClosedPane::Plugin(id)) => format!("pane closed plugin {id}"),
        ZellijEvent::ModeUpdate(m) => format!("mode update, session {:?}", m.session_name),
        ZellijEvent::Other => return None,
    };
    Some(said)
}

/// What the trace says of a pipe message: its name, source, arguments and size, and the
/// payload of a message between the instances.
pub fn pipe(msg: &PipeIn) -> String {
    let payload = msg.payload.as_deref().unwrap_or("");
    let shown = if msg.name == PEER_PIPE { payload } else { "" };
    let source = match &msg.source {
        // As its `Debug` writes it (the e2e tests read the CLI pipe's id from the trace).
        Source::Cli(id) => format!("Cli({})", quoted(id)),
        Source::Plugin(id) => format!("Plugin({id})"),
        Source::Keybind => "Keybind".to_owned(),
    };
    let args: Vec<String> = msg
        .args
        .iter()
        .map(|(k, v)| format!("{}: {}", quoted(k), quoted(v)))
        .collect();
    format!(
        "pipe {} {source} args {{{}}}, {} bytes {}",
        quoted(&msg.name),
        args.join(", "),
        payload.len(),
        shown
    )
}

/// Whether the trace says an effect is done: every one but drawing and an ignored message
/// (said by itself, `ignored`).
pub fn says_effect(effect: &Effect) -> bool {
    !matches!(effect, Effect::Render | Effect::IgnoredPeerMessage { .. })
}

/// What the trace says of an effect done: its kind and what it names, a reply's size only.
pub fn effect(effect: &Effect) -> String {
    match effect {
        Effect::Block(pipe) => format!("Block {}", quoted(pipe)),
        Effect::Reply { pipe, output } => {
            format!("Reply to {}, {} bytes", quoted(pipe), output.len())
        }
        Effect::Broadcast { name, payload } => {
            format!("Broadcast {} {}", quoted(name), quoted(payload))
        }
        Effect::Peer(message) => format!("Peer {}", quoted(message)),
        Effect::IgnoredPeerMessage { from_plugin } => ignored(*from_plugin),
        Effect::RenamePane { pane, title } => format!("RenamePane {pane} {}", quoted(title)),
        Effect::RenameTab { tab, name } => format!("RenameTab {tab} {}", quoted(name)),
        Effect::SetOwnTitle(title) => format!("SetOwnTitle {}", quoted(title)),
        Effect::SetTimer(seconds) => format!("SetTimer {} ms", (seconds * 1000.0) as u64),
        Effect::Record(line) => format!("Record {}", quoted(line)),
        Effect::SwitchSession(name) => format!("SwitchSession {}", quoted(name)),
        Effect::KeepAcrossReload(kept) => format!("KeepAcrossReload {}", quoted(kept)),
        Effect::Show => "Show".to_owned(),
        Effect::ShowAsPlaced => "ShowAsPlaced".to_owned(),
        Effect::Hide => "Hide".to_owned(),
        Effect::RequestPermission => "RequestPermission".to_owned(),
        Effect::Render => "Render".to_owned(),
        Effect::Fit => "Fit".to_owned(),
        Effect::FitAnew => "FitAnew".to_owned(),
        Effect::OpenHistory => "OpenHistory".to_owned(),
        Effect::ForgetKeptAcrossReload => "ForgetKeptAcrossReload".to_owned(),
    }
}

/// What the trace says of a message named as the instances' own that came from elsewhere,
/// from plugin `from_plugin` (None: a keybinding).
pub fn ignored(from_plugin: Option<u32>) -> String {
    match from_plugin {
        Some(id) => format!(
            "ignored {} from plugin {id}, not this one",
            quoted(PEER_PIPE)
        ),
        None => format!("ignored {} from a keybinding", quoted(PEER_PIPE)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The trace says a pipe as `{:?}` said it (the e2e tests read a CLI pipe's id from it),
    /// without `Debug` in the plugin.
    #[test]
    fn a_pipe_reads_as_its_debug_form() {
        for source in [
            Source::Cli("p\"1".into()),
            Source::Plugin(3),
            Source::Keybind,
        ] {
            let args = BTreeMap::from([
                ("agent".to_owned(), "real".to_owned()),
                ("id".to_owned(), "real-1\n".to_owned()),
            ]);
            let msg = PipeIn {
                source: source.clone(),
                name: "ask".into(),
                payload: Some("x".into()),
                args: args.clone(),
            };
            assert_eq!(
                pipe(&msg),
                format!("pipe \"ask\" {source:?} args {args:?}, 1 bytes ")
            );
        }
    }
}
