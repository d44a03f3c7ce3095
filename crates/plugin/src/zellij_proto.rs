//! Zellij's protobuf messages as the plugin reads and writes them (zellij-utils 0.45.1
//! `plugin_api/event.proto`, `key.proto`, `style.proto`, `action.proto`, `pipe_message.proto`,
//! `plugin_ids.proto` and `plugin_command.proto`), decoded and encoded by prost, and the one error of the two
//! readers built on them (`incoming` for events, `wire` for pipe messages);
//! `zellij_command` writes the commands.
//!
//! Each message declares only the fields the plugin reads or writes, with the numbers and types
//! of the `.proto` files: prost skips every other field unread (a mode update's keybindings,
//! most of a pane's or a tab's fields), and a field left out is one the plugin never sets, which
//! protobuf would not write anyway. Decoding events through zellij-tile instead would turn every
//! mode update's keybindings into actions, which parse plugin URLs (the `url` crate, IDNA and
//! their Unicode tables): about 410 KB of the plugin; encoding commands through it goes through
//! one conversion that knows each of Zellij's two hundred commands. Enumerations are read and
//! written as their `int32` (as prost stores them), and turned into or from the plugin's own
//! types by the readers and `zellij_command`, the way zellij-utils converts them.

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
    #[prost(uint32, tag = "1")]
    pub position: u32,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(bool, tag = "3")]
    pub active: bool,
    #[prost(bool, tag = "7")]
    pub are_floating_panes_visible: bool,
    #[prost(uint32, repeated, tag = "8")]
    pub other_focused_clients: Vec<u32>,
    #[prost(uint32, tag = "13")]
    pub display_area_rows: u32,
    #[prost(uint32, tag = "14")]
    pub display_area_columns: u32,
    #[prost(uint32, tag = "17")]
    pub tab_id: u32,
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
    #[prost(bool, tag = "4")]
    pub is_fullscreen: bool,
    #[prost(bool, tag = "5")]
    pub is_floating: bool,
    #[prost(bool, tag = "6")]
    pub is_suppressed: bool,
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

/// `api.action.PluginConfiguration`: the plugin's options, as Zellij hands them to `load`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PluginConfiguration {
    #[prost(message, repeated, tag = "1")]
    pub name_and_value: Vec<NameAndValue>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct NameAndValue {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

/// `api.plugin_ids.PluginIds`, Zellij's answer to `GetPluginIds`, without the folder it started
/// in (3), which the plugin does not read.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PluginIds {
    #[prost(int32, tag = "1")]
    pub plugin_id: i32,
    #[prost(int32, tag = "2")]
    pub zellij_pid: i32,
    #[prost(uint32, tag = "4")]
    pub client_id: u32,
}

/// `api.plugin_command.PluginCommand`: the command's name (`CommandName`), and its payload.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PluginCommand {
    #[prost(int32, tag = "1")]
    pub name: i32,
    #[prost(
        oneof = "CommandPayload",
        tags = "2, 12, 16, 34, 35, 37, 38, 39, 47, 48, 49, 50, 81, 92, 146"
    )]
    pub payload: Option<CommandPayload>,
}

/// The payloads of the commands the plugin sends (`HideSelf` and `GetPluginIds` have none).
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum CommandPayload {
    #[prost(message, tag = "2")]
    Subscribe(SubscribePayload),
    #[prost(message, tag = "12")]
    SetTimeout(SetTimeoutPayload),
    /// Whether to float the pane if it is hidden.
    #[prost(bool, tag = "16")]
    ShowSelf(bool),
    #[prost(message, tag = "34")]
    RenameTerminalPane(IdAndNewName),
    #[prost(message, tag = "35")]
    RenamePluginPane(IdAndNewName),
    /// The panic's text.
    #[prost(string, tag = "37")]
    ReportCrash(String),
    #[prost(message, tag = "38")]
    RequestPluginPermission(RequestPluginPermissionPayload),
    #[prost(message, tag = "39")]
    SwitchSession(SwitchSessionPayload),
    /// The pipe's name.
    #[prost(string, tag = "47")]
    UnblockCliPipeInput(String),
    /// The pipe's name.
    #[prost(string, tag = "48")]
    BlockCliPipeInput(String),
    #[prost(message, tag = "49")]
    CliPipeOutput(CliPipeOutputPayload),
    #[prost(message, tag = "50")]
    MessageToPlugin(MessageToPluginPayload),
    #[prost(message, tag = "81")]
    TogglePaneIdFullscreen(TogglePaneIdFullscreenPayload),
    #[prost(message, tag = "92")]
    ChangeFloatingPanesCoordinates(ChangeFloatingPanesCoordinatesPayload),
    #[prost(message, tag = "146")]
    RenameTabWithId(RenameTabWithIdPayload),
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SubscribePayload {
    #[prost(message, optional, tag = "1")]
    pub subscriptions: Option<EventNameList>,
}

/// `api.event.EventNameList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EventNameList {
    /// `EventType`s (packed, as proto3 writes a repeated enumeration).
    #[prost(int32, repeated, tag = "1")]
    pub event_types: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SetTimeoutPayload {
    #[prost(double, tag = "1")]
    pub seconds: f64,
}

/// A pane's id and its new name.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IdAndNewName {
    #[prost(uint32, tag = "1")]
    pub id: u32,
    #[prost(string, tag = "2")]
    pub new_name: String,
}

/// The pane whose fullscreen to toggle.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TogglePaneIdFullscreenPayload {
    #[prost(message, optional, tag = "1")]
    pub pane_id: Option<PaneId>,
}

/// A tab's id (as a tab update gives it) and its new name.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RenameTabWithIdPayload {
    #[prost(uint64, tag = "1")]
    pub tab_id: u64,
    #[prost(string, tag = "2")]
    pub new_name: String,
}

/// Of a switch to another session, the session's name alone (not a tab, a pane, a layout or
/// a folder: 2-6).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SwitchSessionPayload {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct RequestPluginPermissionPayload {
    /// `api.plugin_permission.PermissionType`s (packed).
    #[prost(int32, repeated, tag = "1")]
    pub permissions: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct CliPipeOutputPayload {
    #[prost(string, tag = "1")]
    pub pipe_name: String,
    #[prost(string, tag = "2")]
    pub output: String,
}

/// Of a message to plugins, what the plugin sets: not which plugin to load, its configuration,
/// how to launch it (1, 2, 6) or where to place it (8), since the messages go to plugins
/// already running (every one, or this plugin's instances).
#[derive(Clone, PartialEq, prost::Message)]
pub struct MessageToPluginPayload {
    #[prost(string, tag = "3")]
    pub message_name: String,
    #[prost(string, optional, tag = "4")]
    pub message_payload: Option<String>,
    #[prost(message, repeated, tag = "5")]
    pub message_args: Vec<ContextItem>,
    #[prost(uint32, optional, tag = "7")]
    pub destination_plugin_id: Option<u32>,
}

/// `api.plugin_command.ContextItem`: a name and its value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ContextItem {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ChangeFloatingPanesCoordinatesPayload {
    #[prost(message, repeated, tag = "1")]
    pub pane_ids_and_floating_panes_coordinates: Vec<PaneIdAndFloatingPaneCoordinates>,
}

/// A pane (`api.plugin_command.PaneId`, laid out as the event's `PaneId`) and where it goes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PaneIdAndFloatingPaneCoordinates {
    #[prost(message, optional, tag = "1")]
    pub pane_id: Option<PaneId>,
    #[prost(message, optional, tag = "2")]
    pub floating_pane_coordinates: Option<FloatingPaneCoordinates>,
}

/// Where a floating pane goes, without whether it is pinned or borderless (5, 6), which the
/// plugin leaves as they are.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FloatingPaneCoordinates {
    #[prost(message, optional, tag = "1")]
    pub x: Option<FixedOrPercentValue>,
    #[prost(message, optional, tag = "2")]
    pub y: Option<FixedOrPercentValue>,
    #[prost(message, optional, tag = "3")]
    pub width: Option<FixedOrPercentValue>,
    #[prost(message, optional, tag = "4")]
    pub height: Option<FixedOrPercentValue>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct FixedOrPercentValue {
    /// `FixedOrPercent`: 0 cells, 1 percent.
    #[prost(int32, tag = "1")]
    pub r#type: i32,
    #[prost(uint32, tag = "2")]
    pub value: u32,
}
