//! Events in encodings Zellij's own encoder does not write but prost reads, as zellij-utils
//! would, and bytes that are no event at all. Events as Zellij encodes them are read in
//! `tests/zellij_protocol.rs`, against zellij-utils itself.

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

#[test]
fn modifiers_are_read_packed_or_not() {
    // Zellij's encoder packs the modifiers after the key; prost reads them unpacked too.
    let press = Msg::default().int(3, ']' as u64).int(4, 0).int(4, 1);
    assert_eq!(
        read(&event(3, 5, press)),
        ZellijEvent::Key(KeyPress {
            key: KeyName::Char(']'),
            ctrl: true,
            alt: true,
            shift: false,
            super_key: false,
        })
    );
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
fn each_colour_component_keeps_its_low_byte() {
    let six = |c: fn() -> Msg| vec![c(); 6];
    let ZellijEvent::ModeUpdate(Mode { colors, .. }) = read(&mode_update(
        six(|| rgb(0x1ff, 0x100, 0x2ab)),
        six(|| indexed(0x10f)),
    )) else {
        panic!("not a mode update");
    };
    assert_eq!(colors.text_unselected.base, Color::Rgb(0xff, 0, 0xab));
    assert_eq!(colors.ribbon_selected.emphasis_3, Color::Indexed(0x0f));
}

#[test]
fn bytes_that_are_no_event_are_errors_not_panics() {
    let cases: Vec<Vec<u8>> = vec![
        // A pasted text that is not UTF-8.
        event(29, 26, Msg::default().bytes(1, b"a\xffb")),
        // A pane's title that is not UTF-8.
        event(
            2,
            4,
            Msg::default().msg(1, Msg::default().msg(2, Msg::default().bytes(7, b"\xff"))),
        ),
        // A length past the end, a truncated varint, a group, field number 0.
        vec![8, 3, 42, 200],
        vec![8, 0x80],
        vec![8, 3, 43],
        vec![0, 1],
        // A field of the wrong wire type: the kind as a string.
        Msg::default().bytes(1, b"3").0,
    ];
    for bytes in cases {
        assert_eq!(read_event(&bytes), Err(Malformed), "{bytes:?}");
    }
}

#[test]
fn a_popup_hidden_here_is_off_screen_until_an_update_lists_it_again() {
    let mut sighting = PopupSighting::default();
    sighting.tabs(&[TabState {
        position: 0,
        id: 0,
        name: "Tab #1".to_owned(),
        active: true,
        floating_visible: true,
        other_focused_clients: Vec::new(),
        display_area_rows: 40,
        display_area_columns: 120,
    }]);
    let popup = PaneState {
        id: 7,
        is_plugin: true,
        title: "ask-popup".to_owned(),
        tab: 0,
        is_floating: true,
        is_suppressed: false,
        is_fullscreen: false,
    };
    sighting.panes(std::slice::from_ref(&popup), 7);
    assert!(sighting.on_screen());
    // Hidden by this instance: a show that comes before Zellij tells of it must show.
    sighting.hidden_here();
    assert!(!sighting.on_screen());
    sighting.panes(&[popup], 7);
    assert!(sighting.on_screen());
}

#[test]
fn a_shown_popup_under_a_fullscreen_that_hides_the_floating_panes_is_covered_by_it() {
    let tab = |position, floating_visible| TabState {
        position,
        id: position as u32,
        name: format!("Tab #{}", position + 1),
        active: position == 0,
        floating_visible,
        other_focused_clients: Vec::new(),
        display_area_rows: 28,
        display_area_columns: 27,
    };
    let pane = |id, is_plugin, tab, is_floating, is_fullscreen| PaneState {
        id,
        is_plugin,
        title: String::new(),
        tab,
        is_floating,
        is_suppressed: false,
        is_fullscreen,
    };
    let popup = pane(7, true, 0, true, false);
    // A phone's single-pane view: the asker's pane fullscreen, the floating panes not shown.
    let mut sighting = PopupSighting::default();
    sighting.tabs(&[tab(0, false), tab(1, true)]);
    sighting.panes(
        &[
            pane(0, false, 0, false, true),
            popup.clone(),
            pane(2, false, 1, false, true),
        ],
        7,
    );
    assert!(!sighting.on_screen());
    assert_eq!(sighting.covered_by(), Some((0, false)));
    // A fullscreen plugin's pane covers it too.
    sighting.panes(&[pane(4, true, 0, false, true), popup.clone()], 7);
    assert_eq!(sighting.covered_by(), Some((4, true)));
    // Not when the tab shows its floating panes (a fullscreen that leaves them over it)...
    sighting.tabs(&[tab(0, true)]);
    sighting.panes(&[pane(0, false, 0, false, true), popup.clone()], 7);
    assert!(sighting.on_screen());
    assert_eq!(sighting.covered_by(), None);
    // ...nor when nothing is fullscreen, or the fullscreen pane is on another tab...
    sighting.tabs(&[tab(0, false), tab(1, false)]);
    sighting.panes(&[pane(0, false, 0, false, false), popup.clone()], 7);
    assert_eq!(sighting.covered_by(), None);
    sighting.panes(&[pane(2, false, 1, false, true), popup.clone()], 7);
    assert_eq!(sighting.covered_by(), None);
    // ...nor when the popup is hidden, or not listed yet.
    let hidden = PaneState {
        is_suppressed: true,
        ..popup
    };
    sighting.panes(&[pane(0, false, 0, false, true), hidden], 7);
    assert_eq!(sighting.covered_by(), None);
    sighting.panes(&[pane(0, false, 0, false, true)], 7);
    assert_eq!(sighting.covered_by(), None);
}
