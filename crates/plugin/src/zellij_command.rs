//! The commands the plugin sends Zellij, as data, and their encoding: the bytes Zellij reads
//! (zellij-utils 0.45.1 `plugin_api/plugin_command.proto`, through the messages of
//! `zellij_proto`); and Zellij's answers the plugin reads back as it loads (its options and its
//! ids).
//!
//! Not through zellij-tile, whose one conversion into Zellij's commands knows every one of
//! them, two hundred, and so brings each into the plugin. Each command here is encoded as
//! zellij-utils' own conversion encodes it, byte for byte (tests/zellij_protocol.rs checks it
//! against zellij-utils).

use crate::popup::{Placement, Size};
use crate::zellij_proto as proto;
use prost::Message;
use std::collections::BTreeMap;

/// A command to Zellij, with what the plugin gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Send these kinds of event to the plugin.
    Subscribe(Vec<EventKind>),
    /// Ask the user for these permissions.
    RequestPermissions(Vec<Permission>),
    /// Show the plugin's pane (floating, if it is hidden), focused.
    ShowSelf,
    /// Hide the plugin's pane.
    HideSelf,
    /// Hold a CLI pipe open: its caller waits.
    BlockCliPipe(String),
    /// Release a CLI pipe: its caller's `zellij pipe` ends.
    UnblockCliPipe(String),
    /// Write `output` to a CLI pipe's stdout.
    CliPipeOutput { pipe: String, output: String },
    /// A message to other plugins, or to one.
    MessageToPlugin(PluginMessage),
    /// Name a terminal pane (an empty title takes the name off).
    RenameTerminalPane { pane: u32, title: String },
    /// Name a plugin's pane.
    RenamePluginPane { plugin: u32, title: String },
    /// Name the tab of this id.
    RenameTab { tab: u32, name: String },
    /// Send a timer event after this many seconds.
    SetTimeout(f64),
    /// Move and size a plugin's floating pane.
    PlacePluginPane { plugin: u32, placement: Placement },
    /// Tell this plugin its ids (read with `read_plugin_ids`).
    GetPluginIds,
    /// Say the plugin panicked, with this text.
    ReportPanic(String),
    /// Take this client to the session of this name.
    SwitchSession(String),
    /// Toggle the fullscreen of this pane (a plugin's when `plugin`): a fullscreen that hides
    /// the floating panes becomes one that shows them.
    ToggleFullscreen { pane: u32, plugin: bool },
}

/// A message to plugins (`zellij pipe`'s messages, sent from a plugin).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PluginMessage {
    /// The pipe's name.
    pub name: String,
    pub payload: Option<String>,
    pub args: BTreeMap<String, String>,
    /// The plugin to send it to; None for every plugin running.
    pub destination: Option<u32>,
}

/// The kinds of event the plugin subscribes to, numbered as `event.proto`'s `EventType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    ModeUpdate = 0,
    TabUpdate = 1,
    PaneUpdate = 2,
    Key = 3,
    Mouse = 4,
    Timer = 5,
    PermissionRequestResult = 15,
    PaneClosed = 21,
    PastedText = 29,
    BeforeClose = 32,
}

/// The permissions the plugin asks for, numbered as `plugin_permission.proto`'s
/// `PermissionType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permission {
    ReadApplicationState = 0,
    ChangeApplicationState = 1,
    ReadCliPipes = 7,
    MessageAndLaunchOtherPlugins = 8,
}

/// What the plugin asks Zellij for (the README says why each).
pub const PERMISSIONS: [Permission; 4] = [
    Permission::ReadCliPipes,
    Permission::ChangeApplicationState,
    Permission::MessageAndLaunchOtherPlugins,
    Permission::ReadApplicationState,
];

/// The events the plugin hears.
pub const SUBSCRIPTIONS: [EventKind; 10] = [
    EventKind::PermissionRequestResult,
    EventKind::BeforeClose,
    EventKind::Key,
    EventKind::Mouse,
    EventKind::PastedText,
    EventKind::Timer,
    EventKind::ModeUpdate,
    EventKind::PaneUpdate,
    EventKind::TabUpdate,
    EventKind::PaneClosed,
];

/// How long an instance that starts later waits (see `start`).
pub const LATER_START_S: f64 = 0.1;

/// Whether the instance for client `client` (0 when Zellij did not say) starts later: one for
/// a client other than the first. With two clients attached, the first question loads an
/// instance for each at once, and the second's grant, updates, hellos and drawing shared the
/// first's plugin thread before its first frame; now they come after it (the first frame comes
/// 15 to 40 ms after the load; 30 ms was too short for the slower ones).
pub fn starts_later(client: u16) -> bool {
    client > 1
}

/// What an instance sends Zellij as it loads, for its client `client`: `start_now()`, or for
/// one that `starts_later`, a timer heard alone, `LATER_START_S` away, on which it sends
/// `start_now()`.
pub fn start(client: u16) -> Vec<Command> {
    if starts_later(client) {
        return vec![
            Command::Subscribe(vec![EventKind::Timer]),
            Command::SetTimeout(LATER_START_S),
        ];
    }
    start_now()
}

/// An instance starting: it shows its pane (the permission request is drawn there; before the
/// request, since Zellij refuses a show until the request is answered), asks for its
/// permissions and subscribes.
pub fn start_now() -> Vec<Command> {
    vec![
        Command::ShowSelf,
        Command::RequestPermissions(PERMISSIONS.to_vec()),
        Command::Subscribe(SUBSCRIPTIONS.to_vec()),
    ]
}

/// `command` as Zellij reads it: an `api.plugin_command.PluginCommand`, encoded.
pub fn encode(command: Command) -> Vec<u8> {
    use proto::CommandPayload as Payload;
    // `CommandName`'s numbers.
    let (name, payload) = match command {
        Command::Subscribe(kinds) => (
            0,
            Some(Payload::Subscribe(proto::SubscribePayload {
                subscriptions: Some(proto::EventNameList {
                    event_types: kinds.into_iter().map(|kind| kind as i32).collect(),
                }),
            })),
        ),
        Command::GetPluginIds => (3, None),
        Command::SetTimeout(seconds) => (
            12,
            Some(Payload::SetTimeout(proto::SetTimeoutPayload { seconds })),
        ),
        Command::HideSelf => (16, None),
        Command::ShowSelf => (17, Some(Payload::ShowSelf(true))),
        Command::RenameTerminalPane { pane, title } => (
            62,
            Some(Payload::RenameTerminalPane(proto::IdAndNewName {
                id: pane,
                new_name: title,
            })),
        ),
        Command::RenamePluginPane { plugin, title } => (
            63,
            Some(Payload::RenamePluginPane(proto::IdAndNewName {
                id: plugin,
                new_name: title,
            })),
        ),
        Command::ReportPanic(text) => (65, Some(Payload::ReportCrash(text))),
        Command::RequestPermissions(permissions) => (
            66,
            Some(Payload::RequestPluginPermission(
                proto::RequestPluginPermissionPayload {
                    permissions: permissions.into_iter().map(|p| p as i32).collect(),
                },
            )),
        ),
        Command::SwitchSession(name) => (
            67,
            Some(Payload::SwitchSession(proto::SwitchSessionPayload {
                name: Some(name),
            })),
        ),
        Command::UnblockCliPipe(pipe) => (76, Some(Payload::UnblockCliPipeInput(pipe))),
        Command::BlockCliPipe(pipe) => (77, Some(Payload::BlockCliPipeInput(pipe))),
        Command::CliPipeOutput { pipe, output } => (
            78,
            Some(Payload::CliPipeOutput(proto::CliPipeOutputPayload {
                pipe_name: pipe,
                output,
            })),
        ),
        Command::MessageToPlugin(message) => (
            79,
            Some(Payload::MessageToPlugin(proto::MessageToPluginPayload {
                message_name: message.name,
                message_payload: message.payload,
                message_args: message
                    .args
                    .into_iter()
                    .map(|(name, value)| proto::ContextItem { name, value })
                    .collect(),
                destination_plugin_id: message.destination,
            })),
        ),
        Command::PlacePluginPane { plugin, placement } => (
            117,
            Some(Payload::ChangeFloatingPanesCoordinates(
                proto::ChangeFloatingPanesCoordinatesPayload {
                    pane_ids_and_floating_panes_coordinates: vec![
                        proto::PaneIdAndFloatingPaneCoordinates {
                            // `PaneType` 1: a plugin's pane.
                            pane_id: Some(proto::PaneId {
                                pane_type: 1,
                                id: plugin,
                            }),
                            floating_pane_coordinates: Some(coordinates(placement)),
                        },
                    ],
                },
            )),
        ),
        Command::ToggleFullscreen { pane, plugin } => (
            105,
            Some(Payload::TogglePaneIdFullscreen(
                proto::TogglePaneIdFullscreenPayload {
                    pane_id: Some(proto::PaneId {
                        pane_type: i32::from(plugin),
                        id: pane,
                    }),
                },
            )),
        ),
        Command::RenameTab { tab, name } => (
            195,
            Some(Payload::RenameTabWithId(proto::RenameTabWithIdPayload {
                tab_id: u64::from(tab),
                new_name: name,
            })),
        ),
    };
    proto::PluginCommand { name, payload }.encode_to_vec()
}

fn coordinates(placement: Placement) -> proto::FloatingPaneCoordinates {
    proto::FloatingPaneCoordinates {
        x: placement.x.map(coordinate),
        y: placement.y.map(coordinate),
        width: placement.width.map(coordinate),
        height: placement.height.map(coordinate),
    }
}

/// A position or size as `FixedOrPercentValue` (the value cut to 32 bits as zellij-utils cuts
/// it).
fn coordinate(size: Size) -> proto::FixedOrPercentValue {
    let (r#type, value) = match size {
        Size::Cells(n) => (0, n as u32),
        Size::Percent(p) => (1, p as u32),
    };
    proto::FixedOrPercentValue { r#type, value }
}

/// This plugin's ids in the session, as Zellij answers `GetPluginIds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PluginIds {
    /// The plugin's own id (its pane's).
    pub plugin_id: u32,
    /// The client this instance draws for.
    pub client_id: u16,
    /// The Zellij server's process id.
    pub zellij_pid: u32,
}

/// Zellij's answer to `GetPluginIds` (an `api.plugin_ids.PluginIds`); None when it cannot be
/// read. Each id keeps the bits zellij-utils keeps.
// Inline, as `incoming::read_event` is and for the same reason: prost's decoding is then
// built once, in the plugin's crate (with both readers inline the plugin is 2 KB smaller).
#[inline]
pub fn read_plugin_ids(bytes: &[u8]) -> Option<PluginIds> {
    let ids = proto::PluginIds::decode(bytes).ok()?;
    Some(PluginIds {
        plugin_id: ids.plugin_id as u32,
        client_id: ids.client_id as u16,
        zellij_pid: ids.zellij_pid as u32,
    })
}

/// The plugin's options as Zellij hands them to `load` (an `api.action.PluginConfiguration`);
/// none when they cannot be read. A name given twice keeps its last value, as in zellij-utils.
// Inline: see `read_plugin_ids`.
#[inline]
pub fn read_configuration(bytes: &[u8]) -> BTreeMap<String, String> {
    let mut options = BTreeMap::new();
    // One at a time rather than collected: collecting sorts them first, with a sort the plugin
    // has no other use for.
    if let Ok(configuration) = proto::PluginConfiguration::decode(bytes) {
        for pair in configuration.name_and_value {
            options.insert(pair.name, pair.value);
        }
    }
    options
}
