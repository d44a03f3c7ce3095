//! Zellij's protobuf messages as the plugin reads them (zellij-utils 0.45.1
//! `plugin_api/event.proto`, `key.proto`, `style.proto`, `action.proto` and
//! `pipe_message.proto`), decoded by prost, and the one error of the two readers built on them
//! (`zellij_event` for events, `wire` for pipe messages).
//!
//! Each message declares only the fields the plugin reads, with the numbers and types of the
//! `.proto` files: prost skips every other field unread (a mode update's keybindings, most of a
//! pane's or a tab's fields). Decoding them through zellij-tile instead would turn every mode
//! update's keybindings into actions, which parse plugin URLs (the `url` crate, IDNA and their
//! Unicode tables): about 410 KB of the plugin. Enumerations are read as their `int32` (as prost
//! stores them), and turned into the plugin's own types by the readers, the way zellij-utils
//! converts them.

/// A message Zellij would not decode (a truncated field, an unknown key, a payload of the wrong
/// kind), or a pipe message cut off before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Malformed;

impl From<prost::DecodeError> for Malformed {
    fn from(_: prost::DecodeError) -> Self {
        Malformed
    }
}

/// `api.event.Event`: the kind, and its payload.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Event {
    /// `EventType`.
    #[prost(int32, tag = "1")]
    pub name: i32,
    #[prost(oneof = "EventPayload", tags = "2, 3, 4, 5, 6, 7, 12, 18, 26")]
    pub payload: Option<EventPayload>,
}

/// The payloads of the kinds of event the plugin subscribes to.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum EventPayload {
    #[prost(message, tag = "2")]
    ModeUpdate(ModeUpdatePayload),
    #[prost(message, tag = "3")]
    TabUpdate(TabUpdatePayload),
    #[prost(message, tag = "4")]
    PaneUpdate(PaneUpdatePayload),
    #[prost(message, tag = "5")]
    Key(Key),
    #[prost(message, tag = "6")]
    Mouse(MouseEventPayload),
    /// The seconds the timer was set for.
    #[prost(float, tag = "7")]
    Timer(f32),
    #[prost(message, tag = "12")]
    PermissionRequestResult(PermissionRequestResultPayload),
    #[prost(message, tag = "18")]
    PaneClosed(PaneClosedPayload),
    #[prost(message, tag = "26")]
    PastedText(PastedTextPayload),
}

/// Of a mode update, its style and the session's name (the mode and its keybindings are not
/// read).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModeUpdatePayload {
    #[prost(message, optional, tag = "3")]
    pub style: Option<Style>,
    #[prost(string, optional, tag = "5")]
    pub session_name: Option<String>,
}

/// `api.style.Style`: of it, the styling.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Style {
    #[prost(message, optional, tag = "4")]
    pub styling: Option<Styling>,
}

/// `api.style.Styling`: the two style declarations the popup takes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Styling {
    #[prost(message, repeated, tag = "1")]
    pub text_unselected: Vec<Color>,
    #[prost(message, repeated, tag = "4")]
    pub ribbon_selected: Vec<Color>,
}

/// `api.style.Color`: a type, and an RGB payload or an 8-bit index.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Color {
    /// `ColorType`: 0 RGB, 1 eight-bit.
    #[prost(int32, tag = "1")]
    pub color_type: i32,
    #[prost(oneof = "ColorPayload", tags = "2, 3")]
    pub payload: Option<ColorPayload>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum ColorPayload {
    #[prost(message, tag = "2")]
    Rgb(RgbColorPayload),
    #[prost(uint32, tag = "3")]
    EightBit(u32),
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct RgbColorPayload {
    #[prost(uint32, tag = "1")]
    pub red: u32,
    #[prost(uint32, tag = "2")]
    pub green: u32,
    #[prost(uint32, tag = "3")]
    pub blue: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TabUpdatePayload {
    #[prost(message, repeated, tag = "1")]
    pub tab_info: Vec<TabInfo>,
}

/// Of a tab, what the plugin reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TabInfo {
    #[prost(bool, tag = "3")]
    pub active: bool,
    #[prost(uint32, repeated, tag = "8")]
    pub other_focused_clients: Vec<u32>,
    #[prost(uint32, tag = "13")]
    pub display_area_rows: u32,
    #[prost(uint32, tag = "14")]
    pub display_area_columns: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PaneUpdatePayload {
    #[prost(message, repeated, tag = "1")]
    pub pane_manifest: Vec<PaneManifest>,
}

/// A tab's index and its panes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PaneManifest {
    #[prost(uint32, tag = "1")]
    pub tab_index: u32,
    #[prost(message, repeated, tag = "2")]
    pub panes: Vec<PaneInfo>,
}

/// Of a pane, what the plugin reads.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PaneInfo {
    #[prost(uint32, tag = "1")]
    pub id: u32,
    #[prost(bool, tag = "2")]
    pub is_plugin: bool,
    #[prost(string, tag = "7")]
    pub title: String,
}

/// `api.key.Key`: an optional modifier, the key (a named key or a character), more modifiers.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Key {
    /// `KeyModifier`.
    #[prost(int32, optional, tag = "1")]
    pub modifier: Option<i32>,
    #[prost(oneof = "MainKey", tags = "2, 3")]
    pub main_key: Option<MainKey>,
    /// `KeyModifier`s.
    #[prost(int32, repeated, tag = "4")]
    pub additional_modifiers: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum MainKey {
    /// `NamedKey`.
    #[prost(int32, tag = "2")]
    Named(i32),
    /// A character's code (the `Char` enum is a misnomer: Zellij sends the code itself).
    #[prost(int32, tag = "3")]
    Char(i32),
}

/// What happened, and a line count or a position.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MouseEventPayload {
    /// `MouseEventName`.
    #[prost(int32, tag = "1")]
    pub mouse_event_name: i32,
    #[prost(oneof = "MouseEventDetail", tags = "2, 3")]
    pub detail: Option<MouseEventDetail>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum MouseEventDetail {
    #[prost(uint32, tag = "2")]
    LineCount(u32),
    #[prost(message, tag = "3")]
    Position(Position),
}

/// `api.action.Position`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Position {
    #[prost(int64, tag = "1")]
    pub line: i64,
    #[prost(int64, tag = "2")]
    pub column: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PermissionRequestResultPayload {
    #[prost(bool, tag = "1")]
    pub granted: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PaneClosedPayload {
    #[prost(message, optional, tag = "1")]
    pub pane_id: Option<PaneId>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PaneId {
    /// `PaneType`: 0 terminal, 1 plugin.
    #[prost(int32, tag = "1")]
    pub pane_type: i32,
    #[prost(uint32, tag = "2")]
    pub id: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PastedTextPayload {
    #[prost(string, tag = "1")]
    pub pasted_text: String,
}

/// `api.pipe_message.PipeMessage` without its payload (field 5), which `wire` reads as it
/// streams in, and `is_private` (7), which the plugin does not read (every message to it is
/// answered alike).
#[derive(Clone, PartialEq, prost::Message)]
pub struct PipeMessage {
    /// `PipeSource`: 0 CLI, 1 plugin, 2 keybinding.
    #[prost(int32, tag = "1")]
    pub source: i32,
    #[prost(string, optional, tag = "2")]
    pub cli_source_id: Option<String>,
    /// A `uint32` in the `.proto`, read wider so that a value past it reads as no plugin's id
    /// rather than as another plugin's (prost would keep its low 32 bits).
    #[prost(uint64, optional, tag = "3")]
    pub plugin_source_id: Option<u64>,
    #[prost(string, tag = "4")]
    pub name: String,
    #[prost(message, repeated, tag = "6")]
    pub args: Vec<Arg>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Arg {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(string, tag = "2")]
    pub value: String,
}
