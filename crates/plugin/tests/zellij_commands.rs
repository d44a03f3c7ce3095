//! The plugin's commands against Zellij's own encoding: every kind of command the plugin sends,
//! encoded by `zellij_command::encode`, must be byte for byte what zellij-utils 0.45.1 encodes
//! for the same command (its `TryFrom<PluginCommand>` conversion, then prost), and zellij-utils
//! must read it back as that command. And what Zellij hands the plugin as it loads (its options,
//! its ids), encoded by zellij-utils, is read as zellij-utils reads it.

use ask_popup_plugin::popup::{Placement, PopupSize, Rect, Size};
use ask_popup_plugin::wire::read_bytes;
use ask_popup_plugin::zellij_command::{
    encode, read_configuration, read_plugin_ids, start, start_now, starts_later, Command,
    EventKind, Permission, PluginIds, PluginMessage, LATER_START_S, PERMISSIONS, SUBSCRIPTIONS,
};
use prost::Message;
use std::collections::{BTreeMap, HashSet};
use zellij_utils::data::{
    ConnectToSession, EventType, FloatingPaneCoordinates, MessageToPlugin, PaneId, PermissionType,
    PluginCommand as ZellijCommand, PluginIds as ZellijPluginIds,
};
use zellij_utils::input::layout::PluginUserConfiguration;
use zellij_utils::plugin_api::action::{ProtobufNameAndValue, ProtobufPluginConfiguration};
use zellij_utils::plugin_api::plugin_command::ProtobufPluginCommand;
use zellij_utils::plugin_api::plugin_ids::ProtobufPluginIds;

/// `command` as a plugin built on zellij-tile sends it.
fn zellij_encodes(command: ZellijCommand) -> Vec<u8> {
    ProtobufPluginCommand::try_from(command)
        .expect("zellij-utils encodes the command")
        .encode_to_vec()
}

/// The command Zellij reads from a plugin's bytes.
fn zellij_reads(bytes: &[u8]) -> ZellijCommand {
    let command = ProtobufPluginCommand::decode(bytes).expect("Zellij decodes the command");
    ZellijCommand::try_from(command).expect("Zellij knows the command")
}

/// The plugin's `ours` is encoded as zellij-utils encodes `theirs`, and read back as it.
/// (zellij-utils' commands can be compared only by how they print.)
fn same(ours: Command, theirs: ZellijCommand) {
    let bytes = encode(ours.clone());
    assert_eq!(bytes, zellij_encodes(theirs.clone()), "{ours:?}");
    assert_eq!(
        format!("{:?}", zellij_reads(&bytes)),
        format!("{theirs:?}"),
        "{ours:?}"
    );
}

fn zellij_event_type(kind: EventKind) -> EventType {
    match kind {
        EventKind::ModeUpdate => EventType::ModeUpdate,
        EventKind::TabUpdate => EventType::TabUpdate,
        EventKind::PaneUpdate => EventType::PaneUpdate,
        EventKind::Key => EventType::Key,
        EventKind::Mouse => EventType::Mouse,
        EventKind::Timer => EventType::Timer,
        EventKind::PermissionRequestResult => EventType::PermissionRequestResult,
        EventKind::PaneClosed => EventType::PaneClosed,
        EventKind::PastedText => EventType::PastedText,
        EventKind::BeforeClose => EventType::BeforeClose,
    }
}

fn zellij_permission(permission: Permission) -> PermissionType {
    match permission {
        Permission::ReadApplicationState => PermissionType::ReadApplicationState,
        Permission::ChangeApplicationState => PermissionType::ChangeApplicationState,
        Permission::ReadCliPipes => PermissionType::ReadCliPipes,
        Permission::MessageAndLaunchOtherPlugins => PermissionType::MessageAndLaunchOtherPlugins,
    }
}

#[test]
fn the_commands_without_data_are_encoded_as_zellij_encodes_them() {
    same(Command::ShowSelf, ZellijCommand::ShowSelf(true));
    same(Command::HideSelf, ZellijCommand::HideSelf);
    same(Command::GetPluginIds, ZellijCommand::GetPluginIds);
}

#[test]
fn the_pipe_commands_are_encoded_as_zellij_encodes_them() {
    for pipe in ["0f1e2d3c-aaaa-bbbb-cccc-0123456789ab", "", "ä ⏳"] {
        same(
            Command::BlockCliPipe(pipe.into()),
            ZellijCommand::BlockCliPipeInput(pipe.into()),
        );
        same(
            Command::UnblockCliPipe(pipe.into()),
            ZellijCommand::UnblockCliPipeInput(pipe.into()),
        );
    }
    let envelope = format!("{{\"answers\":[\"{}\"]}}\n", "é".repeat(40_000));
    for output in ["{\"cancelled\":true}\n", "", envelope.as_str()] {
        same(
            Command::CliPipeOutput {
                pipe: "pipe-1".into(),
                output: output.into(),
            },
            ZellijCommand::CliPipeOutput("pipe-1".into(), output.into()),
        );
    }
}

#[test]
fn messages_to_plugins_are_encoded_as_zellij_encodes_them() {
    let args: BTreeMap<String, String> = [("b", "2"), ("a", "1"), ("é", "")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    // A broadcast with a payload, as the plugin sends its waiting events.
    same(
        Command::MessageToPlugin(PluginMessage {
            name: "ask-popup:waiting".into(),
            payload: Some("{\"pane\":3}".into()),
            ..PluginMessage::default()
        }),
        ZellijCommand::MessageToPlugin(
            MessageToPlugin::new("ask-popup:waiting").with_payload("{\"pane\":3}"),
        ),
    );
    // To one plugin, as to the plugin's own instances.
    same(
        Command::MessageToPlugin(PluginMessage {
            name: "ask-popup:peer".into(),
            payload: Some(String::new()),
            destination: Some(7),
            ..PluginMessage::default()
        }),
        ZellijCommand::MessageToPlugin(
            MessageToPlugin::new("ask-popup:peer")
                .with_destination_plugin_id(7)
                .with_payload(""),
        ),
    );
    // With args, with and without a payload and a destination.
    for destination in [None, Some(0), Some(u32::MAX)] {
        for payload in [None, Some("x".repeat(300))] {
            let mut theirs = MessageToPlugin::new("name").with_args(args.clone());
            if let Some(id) = destination {
                theirs = theirs.with_destination_plugin_id(id);
            }
            if let Some(payload) = &payload {
                theirs = theirs.with_payload(payload.clone());
            }
            same(
                Command::MessageToPlugin(PluginMessage {
                    name: "name".into(),
                    payload,
                    args: args.clone(),
                    destination,
                }),
                ZellijCommand::MessageToPlugin(theirs),
            );
        }
    }
    same(
        Command::MessageToPlugin(PluginMessage::default()),
        ZellijCommand::MessageToPlugin(MessageToPlugin::new("")),
    );
}

#[test]
fn renames_are_encoded_as_zellij_encodes_them() {
    for (id, title) in [(3, "⏳ claude"), (0, ""), (u32::MAX, "a title")] {
        same(
            Command::RenameTerminalPane {
                pane: id,
                title: title.into(),
            },
            ZellijCommand::RenameTerminalPane(id, title.into()),
        );
        same(
            Command::RenamePluginPane {
                plugin: id,
                title: title.into(),
            },
            ZellijCommand::RenamePluginPane(id, title.into()),
        );
        same(
            Command::RenameTab {
                tab: id,
                name: title.into(),
            },
            ZellijCommand::RenameTabWithId(u64::from(id), title.into()),
        );
    }
}

#[test]
fn a_fullscreen_toggle_is_encoded_as_zellij_encodes_it() {
    for id in [0, 3, 70_000] {
        same(
            Command::ToggleFullscreen {
                pane: id,
                plugin: false,
            },
            ZellijCommand::TogglePaneIdFullscreen(PaneId::Terminal(id)),
        );
        same(
            Command::ToggleFullscreen {
                pane: id,
                plugin: true,
            },
            ZellijCommand::TogglePaneIdFullscreen(PaneId::Plugin(id)),
        );
    }
}

#[test]
fn timers_and_panics_are_encoded_as_zellij_encodes_them() {
    for seconds in [1.5, 0.0, 0.25, 86_400.0] {
        same(
            Command::SetTimeout(seconds),
            ZellijCommand::SetTimeout(seconds),
        );
    }
    let text = "panicked at src/main.rs:1:1:\r\nboom";
    same(
        Command::ReportPanic(text.into()),
        ZellijCommand::ReportPanic(text.into()),
    );
}

#[test]
fn the_permissions_the_plugin_asks_for_are_encoded_as_zellij_encodes_them() {
    let theirs = |permissions: &[Permission]| {
        ZellijCommand::RequestPluginPermissions(
            permissions.iter().copied().map(zellij_permission).collect(),
        )
    };
    same(
        Command::RequestPermissions(PERMISSIONS.to_vec()),
        theirs(&PERMISSIONS),
    );
    for permission in PERMISSIONS {
        same(
            Command::RequestPermissions(vec![permission]),
            theirs(&[permission]),
        );
    }
}

#[test]
fn the_events_the_plugin_subscribes_to_are_encoded_as_zellij_encodes_them() {
    let set: HashSet<EventType> = SUBSCRIPTIONS.into_iter().map(zellij_event_type).collect();
    assert_eq!(set.len(), SUBSCRIPTIONS.len());
    // zellij-utils writes a set's kinds in the set's order: ours are put in that order (a clone
    // iterates as the original does).
    let in_set_order: Vec<EventKind> = set
        .iter()
        .map(|kind| {
            *SUBSCRIPTIONS
                .iter()
                .find(|ours| zellij_event_type(**ours) == *kind)
                .expect("one of the plugin's kinds")
        })
        .collect();
    let bytes = encode(Command::Subscribe(in_set_order));
    assert_eq!(bytes, zellij_encodes(ZellijCommand::Subscribe(set.clone())));
    // Zellij reads the plugin's order as the same set.
    let bytes = encode(Command::Subscribe(SUBSCRIPTIONS.to_vec()));
    match zellij_reads(&bytes) {
        ZellijCommand::Subscribe(read) => assert_eq!(read, set),
        other => panic!("read as {other:?}"),
    }
    for kind in SUBSCRIPTIONS {
        let bytes = encode(Command::Subscribe(vec![kind]));
        let one = HashSet::from([zellij_event_type(kind)]);
        assert_eq!(
            bytes,
            zellij_encodes(ZellijCommand::Subscribe(one)),
            "{kind:?}"
        );
    }
}

/// The plugin's placement of its pane, as zellij-tile's plugins place one.
fn place(plugin: u32, placement: Placement, theirs: FloatingPaneCoordinates) {
    same(
        Command::PlacePluginPane { plugin, placement },
        ZellijCommand::ChangeFloatingPanesCoordinates(vec![(PaneId::Plugin(plugin), theirs)]),
    );
}

#[test]
fn the_popup_is_placed_in_cells_as_zellij_places_it() {
    let rects = [
        (10, 5, 80, 12),
        (0, 0, 1, 1),
        (1, 0, 8, 4),
        // The most a 32-bit plugin has.
        (u32::MAX as usize, 2, 3, u32::MAX as usize),
    ];
    for (x, y, width, height) in rects {
        let rect = Rect {
            x,
            y,
            width,
            height,
        };
        place(
            9,
            Placement::from(rect),
            FloatingPaneCoordinates::default()
                .with_x_fixed(x)
                .with_y_fixed(y)
                .with_width_fixed(width)
                .with_height_fixed(height),
        );
    }
}

#[test]
fn before_the_screen_is_known_the_popup_is_placed_as_zellij_parses_the_configured_size() {
    // As the plugin placed it through zellij-tile: the configured size written out
    // (`80%`, `30`), the offset that centres a share, parsed by `FloatingPaneCoordinates::new`.
    let written = |size: Size| match size {
        Size::Percent(p) => format!("{p}%"),
        Size::Cells(n) => n.to_string(),
    };
    let centring = |size: Size| match size {
        Size::Percent(p) => Some(format!("{}%", (100 - p.min(100)) / 2)),
        Size::Cells(_) => None,
    };
    let sizes = [
        Size::Percent(80),
        Size::Percent(100),
        Size::Percent(1),
        Size::Percent(0),
        Size::Cells(60),
        Size::Cells(0),
    ];
    for width in sizes {
        for height in sizes {
            let size = PopupSize { width, height };
            let theirs = FloatingPaneCoordinates::new(
                centring(width),
                centring(height),
                Some(written(width)),
                Some(written(height)),
                None,
                None,
            );
            let ours = size.unmeasured_placement();
            assert_eq!(ours.is_some(), theirs.is_some(), "{size:?}");
            if let (Some(ours), Some(theirs)) = (ours, theirs) {
                place(u32::MAX, ours, theirs);
            }
        }
    }
}

#[test]
fn the_plugins_ids_are_read_as_zellij_utils_reads_them() {
    let cases = [
        (1, 123_456, 1),
        (0, 0, 0),
        (u32::MAX, u32::MAX, u16::MAX),
        (7, 1 << 31, 300),
    ];
    for (plugin_id, zellij_pid, client_id) in cases {
        let ids = ZellijPluginIds {
            plugin_id,
            zellij_pid,
            initial_cwd: "/home/user/project".into(),
            client_id,
        };
        let bytes = ProtobufPluginIds::try_from(ids)
            .expect("zellij-utils encodes the ids")
            .encode_to_vec();
        let theirs = ZellijPluginIds::try_from(
            ProtobufPluginIds::decode(bytes.as_slice()).expect("zellij-utils decodes them"),
        )
        .expect("and reads them");
        // As the plugin reads its stdin after asking.
        let line = format!(
            "{}\r\n",
            serde_json::to_string(&bytes).expect("a byte list")
        );
        assert_eq!(read_bytes(line.as_bytes()), bytes);
        assert_eq!(
            read_plugin_ids(&bytes),
            Some(PluginIds {
                plugin_id: theirs.plugin_id,
                client_id: theirs.client_id,
                zellij_pid: theirs.zellij_pid,
            })
        );
        assert_eq!(
            (theirs.plugin_id, theirs.zellij_pid, theirs.client_id),
            (plugin_id, zellij_pid, client_id)
        );
    }
    // A client id past 16 bits keeps its low ones, as in zellij-utils.
    let wide = ProtobufPluginIds {
        plugin_id: 4,
        zellij_pid: 5,
        initial_cwd: String::new(),
        client_id: 0x1_0002,
    };
    let read = read_plugin_ids(&wide.encode_to_vec()).map(|ids| ids.client_id);
    let theirs = ZellijPluginIds::try_from(wide).map(|ids| ids.client_id);
    assert_eq!(read, theirs.ok());
    assert_eq!(read_plugin_ids(&[0x0a, 0x05, 0x61]), None, "cut short");
}

#[test]
fn the_configuration_is_read_as_zellij_utils_reads_it() {
    let options: BTreeMap<String, String> = [
        ("popup_width", "60%"),
        ("hide_key", "Ctrl ]"),
        ("trace", "true"),
        ("empty", ""),
        ("é", "⏳"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let configuration =
        ProtobufPluginConfiguration::try_from(PluginUserConfiguration::new(options.clone()))
            .expect("zellij-utils encodes the configuration");
    let bytes = configuration.encode_to_vec();
    // As the plugin's `load` export reads its stdin.
    let line = format!(
        "{}\r\n",
        serde_json::to_string(&bytes).expect("a byte list")
    );
    assert_eq!(read_bytes(line.as_bytes()), bytes);
    assert_eq!(read_configuration(&bytes), options);
    assert_eq!(
        read_configuration(&bytes),
        BTreeMap::try_from(&configuration).expect("zellij-utils reads it")
    );
    // A name given twice keeps its last value.
    let pair = |name: &str, value: &str| ProtobufNameAndValue {
        name: name.into(),
        value: value.into(),
    };
    let twice = ProtobufPluginConfiguration {
        name_and_value: vec![pair("a", "1"), pair("b", "2"), pair("a", "3")],
    };
    assert_eq!(
        read_configuration(&twice.encode_to_vec()),
        BTreeMap::try_from(&twice).expect("zellij-utils reads it")
    );
    assert_eq!(read_configuration(&[]), BTreeMap::new());
    assert_eq!(read_configuration(&[0x0a, 0x09, 0x0a]), BTreeMap::new());
}

#[test]
fn a_switch_to_another_session_is_encoded_as_zellij_encodes_it() {
    for name in ["api", "", "a session · ⏳"] {
        same(
            Command::SwitchSession(name.into()),
            ZellijCommand::SwitchSession(ConnectToSession {
                name: Some(name.into()),
                ..Default::default()
            }),
        );
    }
}

#[test]
fn the_first_clients_instance_starts_at_once_and_shows_before_it_asks() {
    // The pane shows before the permission request (Zellij refuses a show until the request is
    // answered, and draws the request in the pane); without ids the instance starts at once.
    assert_eq!(
        start_now(),
        vec![
            Command::ShowSelf,
            Command::RequestPermissions(PERMISSIONS.to_vec()),
            Command::Subscribe(SUBSCRIPTIONS.to_vec()),
        ]
    );
    for client in [0, 1] {
        assert!(!starts_later(client), "client {client}");
        assert_eq!(
            start(client),
            vec![
                Command::ShowSelf,
                Command::RequestPermissions(PERMISSIONS.to_vec()),
                Command::Subscribe(SUBSCRIPTIONS.to_vec()),
            ],
            "client {client}"
        );
    }
}

#[test]
fn another_clients_instance_waits_for_its_timer_alone_then_starts() {
    for client in [2, 3, 40] {
        assert!(starts_later(client), "client {client}");
        assert_eq!(
            start(client),
            vec![
                Command::Subscribe(vec![EventKind::Timer]),
                Command::SetTimeout(LATER_START_S),
            ],
            "client {client}"
        );
    }
    // What it sends when the timer fires: `start_now()`, the first client's start.
    assert_eq!(start_now(), start(1));
}
