//! Events encoded as Zellij 0.45.1 encodes them (field numbers from zellij-utils'
//! `plugin_api/*.proto`), read back.

use super::*;

/// A protobuf message under construction.
#[derive(Default, Clone)]
struct Msg(Vec<u8>);

use crate::protobuf_encode::{field, varint};

impl Msg {
    fn int(mut self, field: u64, v: u64) -> Self {
        varint(field << 3, &mut self.0);
        varint(v, &mut self.0);
        self
    }

    fn bytes(mut self, n: u64, b: &[u8]) -> Self {
        field(n, b, &mut self.0);
        self
    }

    fn msg(self, field: u64, m: Msg) -> Self {
        self.bytes(field, &m.0)
    }

    fn float(mut self, field: u64, f: f32) -> Self {
        varint(field << 3 | 5, &mut self.0);
        self.0.extend_from_slice(&f.to_le_bytes());
        self
    }

    fn packed(self, field: u64, values: &[u64]) -> Self {
        let mut packed = Vec::new();
        for v in values {
            varint(*v, &mut packed);
        }
        self.bytes(field, &packed)
    }
}

/// An `api.event.Event` of type `name` with its payload in field `field`.
fn event(name: u64, field: u64, payload: Msg) -> Vec<u8> {
    Msg::default().int(1, name).msg(field, payload).0
}

fn read(bytes: &[u8]) -> ZellijEvent {
    match read_event(bytes) {
        Ok(event) => event,
        Err(Malformed) => panic!("malformed: {bytes:?}"),
    }
}

fn key(press: Msg) -> ZellijEvent {
    read(&event(3, 5, press))
}

#[test]
fn keys_read_as_zellij_names_them() {
    let plain = |key| KeyPress {
        key,
        ctrl: false,
        alt: false,
        shift: false,
        super_key: false,
    };
    let cases = [
        (Msg::default().int(3, 'a' as u64), plain(KeyName::Char('a'))),
        (Msg::default().int(2, 31), plain(KeyName::Enter)),
        (Msg::default().int(2, 24), plain(KeyName::Esc)),
        (Msg::default().int(2, 23), plain(KeyName::Tab)),
        (Msg::default().int(2, 0), plain(KeyName::PageDown)),
        (Msg::default().int(2, 4), plain(KeyName::Up)),
        (Msg::default().int(2, 11), plain(KeyName::F(1))),
        (Msg::default().int(2, 22), plain(KeyName::F(12))),
        (
            Msg::default().int(1, 0).int(3, 'u' as u64),
            KeyPress {
                ctrl: true,
                ..plain(KeyName::Char('u'))
            },
        ),
        (
            // The first modifier in its own field, the others packed.
            Msg::default().int(1, 2).int(2, 23).packed(4, &[1, 3]),
            KeyPress {
                alt: true,
                shift: true,
                super_key: true,
                ..plain(KeyName::Tab)
            },
        ),
        (
            // Unpacked, as prost also reads them.
            Msg::default().int(3, ']' as u64).int(4, 0).int(4, 1),
            KeyPress {
                ctrl: true,
                alt: true,
                ..plain(KeyName::Char(']'))
            },
        ),
    ];
    for (press, want) in cases {
        assert_eq!(key(press.clone()), ZellijEvent::Key(want), "{:?}", press.0);
    }
}

#[test]
fn a_character_keeps_its_low_byte_as_zellij_utils_does() {
    let ZellijEvent::Key(press) = key(Msg::default().int(3, 'é' as u64 + 0x100)) else {
        panic!("not a key");
    };
    assert_eq!(press.key, KeyName::Char('é'));
}

#[test]
fn unknown_keys_and_modifiers_are_malformed() {
    for press in [
        Msg::default(),
        Msg::default().int(2, 32),
        Msg::default().int(1, 4).int(2, 1),
        Msg::default().int(2, 1).packed(4, &[9]),
    ] {
        assert_eq!(read_event(&event(3, 5, press)), Err(Malformed));
    }
}

#[test]
fn mouse_scrolls_and_left_clicks_are_read() {
    let position = |line, column| Msg::default().int(1, line).int(2, column);
    let cases = [
        (Msg::default().int(1, 0).int(2, 3), MouseEvent::ScrollUp(3)),
        (
            Msg::default().int(1, 1).int(2, 2),
            MouseEvent::ScrollDown(2),
        ),
        (
            Msg::default().int(1, 2).msg(3, position(4, 17)),
            MouseEvent::LeftClick {
                line: 4,
                column: 17,
            },
        ),
        (
            // A negative line, as an int64 is encoded.
            Msg::default().int(1, 2).msg(3, position(-1i64 as u64, 0)),
            MouseEvent::LeftClick {
                line: -1,
                column: 0,
            },
        ),
        (
            Msg::default().int(1, 3).msg(3, position(1, 1)),
            MouseEvent::Other,
        ),
        (Msg::default().int(1, 7).int(2, 1), MouseEvent::Other),
    ];
    for (payload, want) in cases {
        assert_eq!(read(&event(4, 6, payload)), ZellijEvent::Mouse(want));
    }
    // A click without its position.
    assert_eq!(
        read_event(&event(4, 6, Msg::default().int(1, 2).int(2, 1))),
        Err(Malformed)
    );
}

#[test]
fn tabs_give_their_size_and_the_other_clients_on_them() {
    let tab = |active: bool, others: &[u64], rows, cols| {
        Msg::default()
            .int(1, 0)
            .bytes(2, b"Tab #1")
            .int(3, u64::from(active))
            .packed(8, others)
            .int(11, 99)
            .int(13, rows)
            .int(14, cols)
            .int(17, 5)
    };
    let payload = Msg::default()
        .msg(1, tab(false, &[], 10, 20))
        .msg(1, tab(true, &[2, 3], 40, 120));
    assert_eq!(
        read(&event(1, 3, payload)),
        ZellijEvent::TabUpdate(vec![
            TabState {
                active: false,
                other_focused_clients: vec![],
                display_area_rows: 10,
                display_area_columns: 20,
            },
            TabState {
                active: true,
                other_focused_clients: vec![2, 3],
                display_area_rows: 40,
                display_area_columns: 120,
            },
        ])
    );
}

#[test]
fn panes_of_every_tab_give_their_id_kind_and_title() {
    let pane = |id, plugin: bool, title: &str| {
        Msg::default()
            .int(1, id)
            .int(2, u64::from(plugin))
            .int(3, 1)
            .bytes(7, title.as_bytes())
            .msg(19, Msg::default().int(1, 2))
            .bytes(21, b"zellij:tab-bar")
    };
    let manifest = |tab, panes: Vec<Msg>| {
        panes
            .into_iter()
            .fold(Msg::default().int(1, tab), |m, p| m.msg(2, p))
    };
    let payload = Msg::default()
        .msg(
            1,
            manifest(0, vec![pane(1, false, "claude"), pane(0, true, "bar")]),
        )
        .msg(1, manifest(1, vec![pane(4, false, "pi ✓")]));
    let want = vec![
        PaneState {
            id: 1,
            is_plugin: false,
            title: "claude".into(),
        },
        PaneState {
            id: 0,
            is_plugin: true,
            title: "bar".into(),
        },
        PaneState {
            id: 4,
            is_plugin: false,
            title: "pi ✓".into(),
        },
    ];
    assert_eq!(read(&event(2, 4, payload)), ZellijEvent::PaneUpdate(want));
    // One tab twice, which zellij-utils refuses.
    let twice = Msg::default()
        .msg(1, manifest(0, vec![]))
        .msg(1, manifest(0, vec![]));
    assert_eq!(read_event(&event(2, 4, twice)), Err(Malformed));
}

fn rgb(r: u64, g: u64, b: u64) -> Msg {
    let payload = Msg::default().int(1, r).int(2, g).int(3, b);
    Msg::default().int(1, 0).msg(2, payload)
}

fn indexed(i: u64) -> Msg {
    Msg::default().int(1, 1).int(3, i)
}

/// A `ModeUpdatePayload` whose styling has `text` and `ribbon` colours, with the other
/// declarations and a keybinding around them, as Zellij sends it.
fn mode_update(text: Vec<Msg>, ribbon: Vec<Msg>) -> Vec<u8> {
    let mut styling = Msg::default();
    for c in text {
        styling = styling.msg(1, c);
    }
    for _ in 0..6 {
        styling = styling.msg(2, indexed(7));
    }
    for c in ribbon {
        styling = styling.msg(4, c);
    }
    for _ in 0..10 {
        styling = styling.msg(15, rgb(1, 2, 3));
    }
    let style = Msg::default()
        .msg(1, Msg::default().msg(2, rgb(9, 9, 9)))
        .int(2, 1)
        .msg(4, styling);
    let keybind = Msg::default()
        .msg(1, Msg::default().int(3, 'q' as u64))
        .msg(2, Msg::default().int(1, 3));
    let payload = Msg::default()
        .int(1, 2)
        .msg(2, Msg::default().int(1, 0).msg(2, keybind))
        .msg(3, style)
        .int(4, 1)
        .bytes(5, b"session");
    event(0, 2, payload)
}

#[test]
fn a_mode_update_gives_the_theme_colours() {
    let text = vec![
        rgb(1, 2, 3),
        indexed(0),
        rgb(255, 0, 0),
        rgb(0, 255, 0),
        indexed(4),
        rgb(0x1ff, 0, 0),
    ];
    let ribbon = vec![
        indexed(10),
        indexed(11),
        indexed(12),
        indexed(13),
        indexed(14),
        indexed(15),
    ];
    assert_eq!(
        read(&mode_update(text, ribbon)),
        ZellijEvent::ModeUpdate(ThemeColors {
            text_unselected: StyleDeclaration {
                base: Color::Rgb(1, 2, 3),
                background: Color::Indexed(0),
                emphasis_0: Color::Rgb(255, 0, 0),
                emphasis_1: Color::Rgb(0, 255, 0),
                emphasis_2: Color::Indexed(4),
                // Each component keeps its low byte.
                emphasis_3: Color::Rgb(0xff, 0, 0),
            },
            ribbon_selected: StyleDeclaration {
                base: Color::Indexed(10),
                background: Color::Indexed(11),
                emphasis_0: Color::Indexed(12),
                emphasis_1: Color::Indexed(13),
                emphasis_2: Color::Indexed(14),
                emphasis_3: Color::Indexed(15),
            },
        })
    );
}

#[test]
fn a_mode_update_without_six_colours_is_malformed() {
    let six = || vec![indexed(1); 6];
    assert_eq!(
        read_event(&mode_update(vec![indexed(1); 5], six())),
        Err(Malformed)
    );
    assert_eq!(read_event(&mode_update(six(), vec![])), Err(Malformed));
    // An RGB colour without its components.
    let mut bad = six();
    bad[2] = Msg::default().int(1, 0).int(3, 5);
    assert_eq!(read_event(&mode_update(six(), bad)), Err(Malformed));
}

#[test]
fn the_small_events_are_read() {
    let granted = |g| read(&event(15, 12, Msg::default().int(1, g)));
    assert_eq!(granted(1), ZellijEvent::PermissionRequestResult(true));
    assert_eq!(
        read(&event(15, 12, Msg::default())),
        ZellijEvent::PermissionRequestResult(false)
    );
    assert_eq!(granted(0), ZellijEvent::PermissionRequestResult(false));
    let timer = Msg::default().int(1, 5).float(7, 0.5).0;
    assert_eq!(read(&timer), ZellijEvent::Timer);
    let closed = |kind, id| {
        let pane_id = Msg::default().int(1, kind).int(2, id);
        read(&event(21, 18, Msg::default().msg(1, pane_id)))
    };
    assert_eq!(
        closed(0, 7),
        ZellijEvent::PaneClosed(ClosedPane::Terminal(7))
    );
    assert_eq!(closed(1, 2), ZellijEvent::PaneClosed(ClosedPane::Plugin(2)));
    let pasted = event(29, 26, Msg::default().bytes(1, "héllo\n".as_bytes()));
    assert_eq!(read(&pasted), ZellijEvent::PastedText("héllo\n".into()));
    assert_eq!(read(&Msg::default().int(1, 32).0), ZellijEvent::BeforeClose);
    // A kind the plugin does not subscribe to (`Visible`).
    assert_eq!(
        read(&Msg::default().int(1, 9).int(9, 1).0),
        ZellijEvent::Other
    );
}

#[test]
fn malformed_events_are_errors_not_panics() {
    let cases: Vec<Vec<u8>> = vec![
        // A key event without its key, or with a mouse payload.
        Msg::default().int(1, 3).0,
        event(3, 6, Msg::default().int(1, 0).int(2, 1)),
        // A timer without its seconds.
        Msg::default().int(1, 5).0,
        // Before-close with a payload.
        event(32, 26, Msg::default()),
        // A pasted text that is not UTF-8.
        event(29, 26, Msg::default().bytes(1, b"a\xffb")),
        // A length past the end, a truncated varint, a group, field number 0.
        vec![8, 3, 42, 200],
        vec![8, 0x80],
        vec![8, 3, 43],
        vec![0, 1],
        // A pane closed without its pane, or of an unknown type.
        event(21, 18, Msg::default()),
        event(21, 18, Msg::default().msg(1, Msg::default().int(1, 2))),
    ];
    for bytes in cases {
        assert_eq!(read_event(&bytes), Err(Malformed), "{bytes:?}");
    }
    // Nothing at all is a mode update with no payload.
    assert_eq!(read_event(&[]), Err(Malformed));
}
