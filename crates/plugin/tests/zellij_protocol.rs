//! The plugin's readers of Zellij's protocol against Zellij's own encoding: events and pipe
//! messages built as zellij-utils 0.45.1 types, encoded exactly as Zellij encodes them (its
//! `TryFrom` conversions into the protobuf types, then prost), and read the way the plugin
//! reads them from the lines Zellij writes to its stdin: `wire::read_bytes` then
//! `incoming::read_event` for an event, `wire::read_message` for a pipe message. What the
//! plugin reads is checked against what zellij-utils itself reads from the same bytes, and what
//! zellij-utils refuses the plugin refuses too.

use ask_popup_plugin::incoming::{
    read_event, ClosedPane, KeyName, KeyPress, Malformed, Mode, MouseEvent, PaneState,
    StyleDeclaration, TabState, ThemeColors, ZellijEvent,
};
use ask_popup_plugin::view::Color;
use ask_popup_plugin::wire::{
    read_bytes, read_message, Malformed as WireMalformed, WireMessage, WirePayload, WireSource,
};
use ask_popup_protocol::request::MAX_PAYLOAD_BYTES;
use prost::Message;
use std::collections::{BTreeMap, HashMap};
use zellij_utils::data::{
    BareKey, CopyDestination, Event, InputMode, KeyModifier, KeyWithModifier, ModeInfo, Mouse,
    PaletteColor, PaneId, PaneInfo, PaneManifest, PermissionStatus, PipeMessage, PipeSource, Style,
    StyleDeclaration as ZellijDeclaration, Styling, TabInfo,
};
use zellij_utils::input::config::Config;
use zellij_utils::plugin_api::event::{
    ProtobufEvent, ProtobufEventPayload, ProtobufEventType, ProtobufPaneId, ProtobufPaneManifest,
};
use zellij_utils::plugin_api::generated_api::api::event::{
    mouse_event_payload::MouseEventPayload as ProtobufMouseDetail,
    MouseEventPayload as ProtobufMouseEventPayload, PaneClosedPayload as ProtobufPaneClosedPayload,
    PaneUpdatePayload as ProtobufPaneUpdatePayload, PastedTextPayload as ProtobufPastedTextPayload,
};
use zellij_utils::plugin_api::generated_api::api::style::color::Payload as ProtobufColorPayload;
use zellij_utils::plugin_api::key::{ProtobufKey, ProtobufMainKey};
use zellij_utils::plugin_api::pipe_message::ProtobufPipeMessage;

/// `event` as Zellij sends it to a plugin: converted to its protobuf type and encoded.
fn encoded(event: Event) -> Vec<u8> {
    ProtobufEvent::try_from(event)
        .expect("Zellij encodes the event")
        .encode_to_vec()
}

/// What zellij-utils reads from an event's bytes, as zellij-tile would hand it to a plugin.
fn zellij_reads(bytes: &[u8]) -> Result<Event, String> {
    let event = ProtobufEvent::decode(bytes).map_err(|e| e.to_string())?;
    Event::try_from(event).map_err(str::to_owned)
}

/// What the plugin reads of `event`, which zellij-utils must read back as it was sent.
fn read(event: Event) -> ZellijEvent {
    let bytes = encoded(event.clone());
    assert_eq!(
        zellij_reads(&bytes),
        Ok(event),
        "zellij-utils reads it back"
    );
    // As the plugin's `update` export reads its stdin.
    assert_eq!(read_bytes(stdin_line(&bytes).as_bytes()), bytes);
    read_event(&bytes).unwrap_or_else(|Malformed| panic!("the plugin could not read {bytes:?}"))
}

fn declaration(colors: [PaletteColor; 6]) -> ZellijDeclaration {
    let [base, background, emphasis_0, emphasis_1, emphasis_2, emphasis_3] = colors;
    ZellijDeclaration {
        base,
        background,
        emphasis_0,
        emphasis_1,
        emphasis_2,
        emphasis_3,
    }
}

/// A mode update as Zellij sends one to a plugin that does not ask for its keybindings apart:
/// with every mode's keybindings (the default configuration's) and the session's style.
fn mode_update(styling: Styling) -> Event {
    let config = Config::from_default_assets().expect("the default configuration");
    Event::ModeUpdate(ModeInfo {
        mode: InputMode::Locked,
        base_mode: Some(InputMode::Normal),
        keybinds: config.keybinds.to_keybinds_vec(),
        style: Style {
            colors: styling,
            rounded_corners: true,
            hide_session_name: false,
        },
        session_name: Some("agents".into()),
        editor: Some("/usr/bin/vi".into()),
        ..ModeInfo::default()
    })
}

#[test]
fn a_mode_update_gives_the_two_declarations_the_popup_takes() {
    let rgb = |r, g, b| PaletteColor::Rgb((r, g, b));
    let styling = Styling {
        text_unselected: declaration([
            rgb(1, 2, 3),
            PaletteColor::EightBit(0),
            rgb(255, 0, 0),
            rgb(0, 255, 0),
            PaletteColor::EightBit(4),
            rgb(0, 0, 255),
        ]),
        ribbon_selected: declaration([
            PaletteColor::EightBit(10),
            rgb(20, 21, 22),
            PaletteColor::EightBit(12),
            PaletteColor::EightBit(13),
            PaletteColor::EightBit(14),
            PaletteColor::EightBit(255),
        ]),
        ..Styling::default()
    };
    let event = mode_update(styling);
    // Every mode's keybindings are most of it, and are skipped unread.
    let Event::ModeUpdate(mut without_keybinds) = event.clone() else {
        unreachable!("a mode update");
    };
    without_keybinds.keybinds.clear();
    let sizes = [event.clone(), Event::ModeUpdate(without_keybinds)].map(|e| encoded(e).len());
    assert!(sizes[0] > 2 * sizes[1], "{sizes:?}");
    assert_eq!(
        read(event),
        ZellijEvent::ModeUpdate(Mode {
            session_name: Some("agents".into()),
            colors: ThemeColors {
                text_unselected: StyleDeclaration {
                    base: Color::Rgb(1, 2, 3),
                    background: Color::Indexed(0),
                    emphasis_0: Color::Rgb(255, 0, 0),
                    emphasis_1: Color::Rgb(0, 255, 0),
                    emphasis_2: Color::Indexed(4),
                    emphasis_3: Color::Rgb(0, 0, 255),
                },
                ribbon_selected: StyleDeclaration {
                    base: Color::Indexed(10),
                    background: Color::Rgb(20, 21, 22),
                    emphasis_0: Color::Indexed(12),
                    emphasis_1: Color::Indexed(13),
                    emphasis_2: Color::Indexed(14),
                    emphasis_3: Color::Indexed(255),
                },
            },
        })
    );
}

#[test]
fn a_tab_update_gives_each_tabs_id_name_size_and_the_other_clients_on_it() {
    let tab = |position: usize, active: bool, others: Vec<u16>, rows, columns| TabInfo {
        position,
        name: format!("Tab #{}", position + 1),
        active,
        are_floating_panes_visible: active,
        other_focused_clients: others,
        active_swap_layout_name: Some("default".into()),
        viewport_rows: rows - 2,
        viewport_columns: columns,
        display_area_rows: rows,
        display_area_columns: columns,
        selectable_tiled_panes_count: 2,
        tab_id: position + 7,
        ..TabInfo::default()
    };
    let event = Event::TabUpdate(vec![
        tab(0, false, vec![], 10, 20),
        tab(1, true, vec![2, 3, u16::MAX], 42, 160),
    ]);
    assert_eq!(
        read(event),
        ZellijEvent::TabUpdate(vec![
            TabState {
                position: 0,
                id: 7,
                name: "Tab #1".into(),
                active: false,
                floating_visible: false,
                other_focused_clients: vec![],
                display_area_rows: 10,
                display_area_columns: 20,
            },
            TabState {
                position: 1,
                id: 8,
                name: "Tab #2".into(),
                active: true,
                floating_visible: true,
                other_focused_clients: vec![2, 3, u16::MAX],
                display_area_rows: 42,
                display_area_columns: 160,
            },
        ])
    );
    assert_eq!(
        read(Event::TabUpdate(vec![])),
        ZellijEvent::TabUpdate(vec![])
    );
}

#[test]
fn a_pane_update_gives_every_pane_of_every_tab() {
    let pane = |id, is_plugin, title: &str| PaneInfo {
        id,
        is_plugin,
        title: title.into(),
        is_floating: is_plugin && id > 0,
        is_suppressed: id == 7,
        is_fullscreen: id == 4,
        is_focused: true,
        pane_rows: 20,
        cursor_coordinates_in_pane: Some((3, 4)),
        terminal_command: (!is_plugin).then(|| "claude".into()),
        plugin_url: is_plugin.then(|| "zellij:tab-bar".into()),
        index_in_pane_group: BTreeMap::from([(1, 0)]),
        ..PaneInfo::default()
    };
    let panes = HashMap::from([
        (0, vec![pane(1, false, "claude"), pane(0, true, "tab-bar")]),
        (1, vec![pane(4, false, "pi ✓"), pane(7, true, "ask-popup")]),
        (2, vec![]),
    ]);
    let ZellijEvent::PaneUpdate(mut read) = read(Event::PaneUpdate(PaneManifest { panes })) else {
        panic!("not a pane update");
    };
    // Zellij sends the tabs in its map's order.
    read.sort_by_key(|p| (p.id, p.is_plugin));
    let want = |id, is_plugin, title: &str, tab| PaneState {
        id,
        is_plugin,
        title: title.into(),
        tab,
        is_floating: is_plugin && id > 0,
        is_suppressed: id == 7,
        is_fullscreen: id == 4,
    };
    assert_eq!(
        read,
        [
            want(0, true, "tab-bar", 0),
            want(1, false, "claude", 0),
            want(4, false, "pi ✓", 1),
            want(7, true, "ask-popup", 1),
        ]
    );
}

/// The plugin's name of a key zellij-utils names.
fn key_name(key: BareKey) -> KeyName {
    match key {
        BareKey::PageDown => KeyName::PageDown,
        BareKey::PageUp => KeyName::PageUp,
        BareKey::Left => KeyName::Left,
        BareKey::Down => KeyName::Down,
        BareKey::Up => KeyName::Up,
        BareKey::Right => KeyName::Right,
        BareKey::Home => KeyName::Home,
        BareKey::End => KeyName::End,
        BareKey::Backspace => KeyName::Backspace,
        BareKey::Delete => KeyName::Delete,
        BareKey::Insert => KeyName::Insert,
        BareKey::F(n) => KeyName::F(n),
        BareKey::Char(c) => KeyName::Char(c),
        BareKey::Tab => KeyName::Tab,
        BareKey::Esc => KeyName::Esc,
        BareKey::Enter => KeyName::Enter,
        BareKey::CapsLock => KeyName::CapsLock,
        BareKey::ScrollLock => KeyName::ScrollLock,
        BareKey::NumLock => KeyName::NumLock,
        BareKey::PrintScreen => KeyName::PrintScreen,
        BareKey::Pause => KeyName::Pause,
        BareKey::Menu => KeyName::Menu,
    }
}

#[test]
fn every_key_and_its_modifiers_read_as_zellij_utils_reads_them() {
    let named = [
        BareKey::PageDown,
        BareKey::PageUp,
        BareKey::Left,
        BareKey::Down,
        BareKey::Up,
        BareKey::Right,
        BareKey::Home,
        BareKey::End,
        BareKey::Backspace,
        BareKey::Delete,
        BareKey::Insert,
        BareKey::Tab,
        BareKey::Esc,
        BareKey::Enter,
        BareKey::CapsLock,
        BareKey::ScrollLock,
        BareKey::NumLock,
        BareKey::PrintScreen,
        BareKey::Pause,
        BareKey::Menu,
    ];
    let keys = named
        .into_iter()
        .chain((1..=12).map(BareKey::F))
        .chain("aZ0 ]\u{7f}é".chars().map(BareKey::Char));
    let modifier_sets: [&[KeyModifier]; 6] = [
        &[],
        &[KeyModifier::Ctrl],
        &[KeyModifier::Alt],
        &[KeyModifier::Shift, KeyModifier::Super],
        &[KeyModifier::Ctrl, KeyModifier::Alt, KeyModifier::Shift],
        &[
            KeyModifier::Ctrl,
            KeyModifier::Alt,
            KeyModifier::Shift,
            KeyModifier::Super,
        ],
    ];
    for key in keys {
        for modifiers in modifier_sets {
            let sent = KeyWithModifier {
                bare_key: key,
                key_modifiers: modifiers.iter().copied().collect(),
            };
            let want = KeyPress {
                key: key_name(key),
                ctrl: modifiers.contains(&KeyModifier::Ctrl),
                alt: modifiers.contains(&KeyModifier::Alt),
                shift: modifiers.contains(&KeyModifier::Shift),
                super_key: modifiers.contains(&KeyModifier::Super),
            };
            assert_eq!(
                read(Event::Key(sent)),
                ZellijEvent::Key(want),
                "{key:?} {modifiers:?}"
            );
        }
    }
}

#[test]
fn a_character_past_one_byte_keeps_its_low_byte_as_zellij_utils_does() {
    // Zellij sends the character's code; zellij-utils keeps its low byte.
    for c in ['設', 'ā', '😀'] {
        let bytes = encoded(Event::Key(KeyWithModifier::new(BareKey::Char(c))));
        let Ok(Event::Key(zellij)) = zellij_reads(&bytes) else {
            panic!("zellij-utils reads a key");
        };
        let low = char::from(c as u32 as u8);
        assert_eq!(zellij.bare_key, BareKey::Char(low));
        let Ok(ZellijEvent::Key(press)) = read_event(&bytes) else {
            panic!("the plugin reads a key");
        };
        assert_eq!(press.key, KeyName::Char(low), "{c}");
    }
}

#[test]
fn every_kind_of_mouse_event_is_read() {
    let cases = [
        (Mouse::ScrollUp(3), MouseEvent::ScrollUp(3)),
        (Mouse::ScrollDown(1), MouseEvent::ScrollDown(1)),
        (
            Mouse::LeftClick(4, 17),
            MouseEvent::LeftClick {
                line: 4,
                column: 17,
            },
        ),
        // A click above the pane's first line.
        (
            Mouse::LeftClick(-1, 0),
            MouseEvent::LeftClick {
                line: -1,
                column: 0,
            },
        ),
        (Mouse::RightClick(1, 2), MouseEvent::Other),
        (Mouse::Hold(1, 2), MouseEvent::Other),
        (Mouse::Release(1, 2), MouseEvent::Other),
        (Mouse::Hover(1, 2), MouseEvent::Other),
        (Mouse::ScrollLeft(2), MouseEvent::Other),
        (Mouse::ScrollRight(2), MouseEvent::Other),
    ];
    for (sent, want) in cases {
        assert_eq!(
            read(Event::Mouse(sent)),
            ZellijEvent::Mouse(want),
            "{sent:?}"
        );
    }
}

#[test]
fn the_small_events_are_read() {
    let cases = [
        (Event::Timer(0.5), ZellijEvent::Timer),
        (
            Event::PermissionRequestResult(PermissionStatus::Granted),
            ZellijEvent::PermissionRequestResult(true),
        ),
        (
            Event::PermissionRequestResult(PermissionStatus::Denied),
            ZellijEvent::PermissionRequestResult(false),
        ),
        (
            Event::PaneClosed(PaneId::Terminal(7)),
            ZellijEvent::PaneClosed(ClosedPane::Terminal(7)),
        ),
        (
            Event::PaneClosed(PaneId::Plugin(u32::MAX)),
            ZellijEvent::PaneClosed(ClosedPane::Plugin(u32::MAX)),
        ),
        (
            Event::PastedText("héllo\n設計".into()),
            ZellijEvent::PastedText("héllo\n設計".into()),
        ),
        (
            Event::PastedText(String::new()),
            ZellijEvent::PastedText(String::new()),
        ),
        (Event::BeforeClose, ZellijEvent::BeforeClose),
    ];
    for (sent, want) in cases {
        assert_eq!(read(sent.clone()), want, "{sent:?}");
    }
}

#[test]
fn kinds_the_plugin_does_not_subscribe_to_are_other() {
    for event in [
        Event::Visible(true),
        Event::InputReceived,
        Event::CopyToClipboard(CopyDestination::System),
        Event::CustomMessage("name".into(), "payload".into()),
        Event::SessionUpdate(vec![], vec![]),
        Event::InterceptedKeyPress(KeyWithModifier::new(BareKey::Enter)),
    ] {
        assert_eq!(read(event.clone()), ZellijEvent::Other, "{event:?}");
    }
}

/// An event of `kind` with `payload`, as Zellij's encoder would write whatever it is given.
fn raw(kind: ProtobufEventType, payload: Option<ProtobufEventPayload>) -> Vec<u8> {
    ProtobufEvent {
        name: kind as i32,
        payload,
    }
    .encode_to_vec()
}

/// A valid event's protobuf message, changed by `change`, encoded.
fn changed(event: Event, change: impl FnOnce(&mut ProtobufEvent)) -> Vec<u8> {
    let mut message = ProtobufEvent::try_from(event).expect("Zellij encodes the event");
    change(&mut message);
    message.encode_to_vec()
}

#[test]
fn what_zellij_utils_refuses_the_plugin_refuses_too() {
    use ProtobufEventPayload as Payload;
    use ProtobufEventType as Kind;
    let key = |modifier: Option<i32>, main_key, additional: Vec<i32>| {
        Some(Payload::KeyPayload(ProtobufKey {
            modifier,
            main_key,
            additional_modifiers: additional,
        }))
    };
    let mouse = |name: i32, detail| {
        Some(Payload::MouseEventPayload(ProtobufMouseEventPayload {
            mouse_event_name: name,
            mouse_event_payload: detail,
        }))
    };
    let pane_closed = |pane_id| {
        Some(Payload::PaneClosedPayload(ProtobufPaneClosedPayload {
            pane_id,
        }))
    };
    let styled = || mode_update(Styling::default());
    let with_styling = |change: fn(&mut Vec<_>, &mut Vec<_>)| {
        changed(styled(), |message| {
            let Some(Payload::ModeUpdatePayload(mode)) = &mut message.payload else {
                panic!("a mode update");
            };
            let styling = mode
                .style
                .as_mut()
                .and_then(|s| s.styling.as_mut())
                .expect("styling");
            change(&mut styling.text_unselected, &mut styling.ribbon_selected);
        })
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a key without its payload", raw(Kind::Key, None)),
        (
            "a key with a mouse event's payload",
            raw(Kind::Key, mouse(0, Some(ProtobufMouseDetail::LineCount(1)))),
        ),
        (
            "a key without a key",
            raw(Kind::Key, key(None, None, vec![])),
        ),
        (
            "a named key past the last",
            raw(Kind::Key, key(None, Some(ProtobufMainKey::Key(32)), vec![])),
        ),
        (
            "a negative named key",
            raw(Kind::Key, key(None, Some(ProtobufMainKey::Key(-1)), vec![])),
        ),
        (
            "an unknown modifier",
            raw(
                Kind::Key,
                key(Some(4), Some(ProtobufMainKey::Char(97)), vec![]),
            ),
        ),
        (
            "an unknown additional modifier",
            raw(
                Kind::Key,
                key(Some(0), Some(ProtobufMainKey::Char(97)), vec![1, 9]),
            ),
        ),
        (
            "a left click without its position",
            raw(
                Kind::Mouse,
                mouse(2, Some(ProtobufMouseDetail::LineCount(1))),
            ),
        ),
        (
            "a scroll without its line count",
            raw(Kind::Mouse, mouse(0, None)),
        ),
        (
            "an unknown mouse event",
            raw(
                Kind::Mouse,
                mouse(9, Some(ProtobufMouseDetail::LineCount(1))),
            ),
        ),
        ("a timer without its time", raw(Kind::Timer, None)),
        (
            "a permission result without its payload",
            raw(Kind::PermissionRequestResult, None),
        ),
        (
            "a pane closed without its pane",
            raw(Kind::PaneClosed, pane_closed(None)),
        ),
        (
            "a pane closed of an unknown type",
            raw(
                Kind::PaneClosed,
                pane_closed(Some(ProtobufPaneId {
                    pane_type: 2,
                    id: 1,
                })),
            ),
        ),
        (
            "one tab's panes twice",
            raw(
                Kind::PaneUpdate,
                Some(Payload::PaneUpdatePayload(ProtobufPaneUpdatePayload {
                    pane_manifest: vec![
                        ProtobufPaneManifest {
                            tab_index: 1,
                            panes: vec![],
                        };
                        2
                    ],
                })),
            ),
        ),
        (
            "a pasted text without its payload",
            raw(Kind::PastedText, None),
        ),
        (
            "before close with a payload",
            raw(
                Kind::BeforeClose,
                Some(Payload::PastedTextPayload(ProtobufPastedTextPayload {
                    pasted_text: "x".into(),
                })),
            ),
        ),
        (
            "a mode update without its payload",
            raw(Kind::ModeUpdate, None),
        ),
        (
            "a mode update without a style",
            changed(styled(), |message| {
                if let Some(Payload::ModeUpdatePayload(mode)) = &mut message.payload {
                    mode.style = None;
                }
            }),
        ),
        (
            "a style without its styling",
            changed(styled(), |message| {
                if let Some(Payload::ModeUpdatePayload(mode)) = &mut message.payload {
                    if let Some(style) = &mut mode.style {
                        style.styling = None;
                    }
                }
            }),
        ),
        (
            "five colours where six are due",
            with_styling(|text, _| {
                text.pop();
            }),
        ),
        (
            "seven colours where six are due",
            with_styling(|_, ribbon| ribbon.push(ribbon[0].clone())),
        ),
        (
            "an RGB colour given as an index",
            with_styling(|_, ribbon| {
                ribbon[3].color_type = 0;
                ribbon[3].payload = Some(ProtobufColorPayload::EightBitColorPayload(3));
            }),
        ),
        (
            "a colour of an unknown type",
            with_styling(|text, _| text[0].color_type = 2),
        ),
        ("no bytes at all: a mode update without its payload", vec![]),
    ];
    for (case, bytes) in cases {
        assert!(zellij_reads(&bytes).is_err(), "zellij-utils reads {case}");
        assert_eq!(read_event(&bytes), Err(Malformed), "{case}");
    }
}

/// A message's encoding as Zellij writes it to a plugin's stdin: a JSON list of bytes, on a
/// line ended by `\r\n` (zellij-server's `wasi_write_object`).
fn stdin_line(bytes: &[u8]) -> String {
    format!(
        "{}\r\n",
        serde_json::to_string(bytes).expect("a list of bytes")
    )
}

/// A pipe message as Zellij writes it to a plugin's stdin.
fn line(message: &ProtobufPipeMessage) -> String {
    stdin_line(&message.encode_to_vec())
}

/// A pipe message as Zellij encodes it.
fn pipe_message(message: PipeMessage) -> ProtobufPipeMessage {
    ProtobufPipeMessage::try_from(message).expect("Zellij encodes the message")
}

/// What the plugin reads of `message`, checked against what zellij-utils reads of it.
fn receive(message: PipeMessage) -> WireMessage {
    let encoded = pipe_message(message.clone());
    let zellij = PipeMessage::try_from(encoded.clone()).expect("zellij-utils reads it back");
    assert_eq!(zellij, message);
    // As the plugin's `pipe` export reads its stdin.
    let read = read_message(line(&encoded).as_bytes(), MAX_PAYLOAD_BYTES)
        .unwrap_or_else(|WireMalformed| panic!("the plugin could not read {message:?}"));
    assert_eq!(read.name, message.name);
    match &message.source {
        PipeSource::Cli(id) => {
            assert_eq!(read.source, WireSource::Cli);
            assert_eq!(read.cli_source_id.as_ref(), Some(id));
            assert_eq!(read.plugin_source_id, None);
        }
        PipeSource::Plugin(id) => {
            assert_eq!(read.source, WireSource::Plugin);
            assert_eq!(read.plugin_source_id, Some(*id));
            assert_eq!(read.cli_source_id, None);
        }
        PipeSource::Keybind => {
            assert_eq!(read.source, WireSource::Keybind);
            assert_eq!((&read.cli_source_id, read.plugin_source_id), (&None, None));
        }
    }
    read
}

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn message(source: PipeSource, name: &str, payload: Option<String>) -> PipeMessage {
    PipeMessage {
        source,
        name: name.into(),
        payload,
        args: BTreeMap::new(),
        is_private: false,
    }
}

#[test]
fn a_cli_message_with_its_payload_and_args_is_read() {
    let payload = r#"{"questions":[{"question":"Which database?","header":"DB"}]}"#;
    let id = "job=7,q1%";
    let sent = PipeMessage {
        args: args(&[
            ("pane_id", "3"),
            ("agent", "claude"),
            ("id", &ask_popup_protocol::pipe_args::encode(id)),
        ]),
        is_private: true,
        ..message(
            PipeSource::Cli("5e1f-pipe".into()),
            "ask",
            Some(payload.into()),
        )
    };
    let read = receive(sent);
    assert_eq!(read.payload, WirePayload::Text(payload.into()));
    // The request id as the command wrote it, decoded; the others as they came.
    assert_eq!(
        read.args,
        args(&[("pane_id", "3"), ("agent", "claude"), ("id", id)])
    );
}

#[test]
fn a_cli_message_without_a_payload_has_none() {
    let read = receive(message(PipeSource::Cli("p".into()), "status", None));
    assert_eq!(read.payload, WirePayload::Absent);
    assert!(read.args.is_empty());
    // An empty payload is there, empty.
    let read = receive(message(
        PipeSource::Cli("p".into()),
        "ask",
        Some(String::new()),
    ));
    assert_eq!(read.payload, WirePayload::Text(String::new()));
}

#[test]
fn another_plugins_message_carries_its_id() {
    for id in [0, 7, 300, u32::MAX] {
        let read = receive(message(
            PipeSource::Plugin(id),
            "ask-popup-peer",
            Some(r#"{"type":"hello"}"#.into()),
        ));
        assert_eq!(
            read.payload,
            WirePayload::Text(r#"{"type":"hello"}"#.into())
        );
    }
}

#[test]
fn a_keybindings_message_is_read() {
    let sent = PipeMessage {
        args: args(&[("hide", "true")]),
        ..message(PipeSource::Keybind, "ask-popup", None)
    };
    let read = receive(sent);
    assert_eq!(read.args, args(&[("hide", "true")]));
}

#[test]
fn a_payload_up_to_the_limit_is_kept_and_past_it_only_its_size() {
    let at_limit = "ü".repeat(MAX_PAYLOAD_BYTES / 2);
    let read = receive(message(
        PipeSource::Cli("p".into()),
        "ask",
        Some(at_limit.clone()),
    ));
    assert_eq!(read.payload, WirePayload::Text(at_limit));
    let over = "x".repeat(MAX_PAYLOAD_BYTES + 1);
    let sent = PipeMessage {
        args: args(&[("id", "big")]),
        ..message(PipeSource::Cli("p".into()), "ask", Some(over))
    };
    let read = receive(sent);
    assert_eq!(read.payload, WirePayload::TooLarge(MAX_PAYLOAD_BYTES + 1));
    // The fields after the payload are still read.
    assert_eq!(read.args, args(&[("id", "big")]));
}

#[test]
fn a_payload_that_is_not_utf8_is_reported_with_where_it_breaks() {
    // Zellij's strings are UTF-8; the payload's bytes are changed after encoding, where the
    // marker is.
    let mut bytes = pipe_message(message(
        PipeSource::Cli("p".into()),
        "ask",
        Some("{\"q\":\u{7f}}".into()),
    ))
    .encode_to_vec();
    let marker = bytes.iter().rposition(|&b| b == 0x7f).expect("the marker");
    bytes[marker] = 0xff;
    let line = format!(
        "{}\r\n",
        serde_json::to_string(&bytes).expect("a list of bytes")
    );
    let read = read_message(line.as_bytes(), MAX_PAYLOAD_BYTES).expect("a message");
    assert_eq!(read.name, "ask");
    assert_eq!(read.payload, WirePayload::InvalidUtf8(5));
}

#[test]
fn a_message_cut_short_is_malformed() {
    let encoded = pipe_message(message(
        PipeSource::Cli("p".into()),
        "ask",
        Some("0123456789".into()),
    ))
    .encode_to_vec();
    for len in [encoded.len() - 1, encoded.len() / 2] {
        let cut = format!(
            "{}\r\n",
            serde_json::to_string(&encoded[..len]).expect("a list")
        );
        assert!(ProtobufPipeMessage::decode(&encoded[..len]).is_err());
        assert_eq!(
            read_message(cut.as_bytes(), MAX_PAYLOAD_BYTES),
            Err(WireMalformed)
        );
    }
}
