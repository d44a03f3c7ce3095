//! Reads the events Zellij sends the plugin from their protobuf encoding: only the kinds the
//! plugin subscribes to, and of those only the fields it uses (zellij-utils 0.45.1
//! `plugin_api/event.proto`, `key.proto` and `style.proto`).
//!
//! Read by hand, as `wire` reads pipe messages, rather than through zellij-tile: that decodes
//! every kind of event with prost into zellij-utils' `Event`, and each mode update's
//! keybindings (every mode's, sent with every mode update) into actions, which parse plugin
//! URLs (the `url` crate, IDNA and their Unicode tables). That was about 410 KB of the
//! plugin's 1.08 MB, for ten kinds of event of which the plugin reads a few fields.
//!
//! An event Zellij would not decode (a truncated field, an unknown key or modifier, a payload
//! of the wrong kind) is `Malformed` here too, and dropped; the parts of an event the plugin
//! does not read (a mode update's keybindings, the rest of a pane's or a tab's fields) are
//! skipped unread.

pub use crate::dialog::{KeyName, KeyPress};
use crate::view::{Color, Theme};

/// An event the plugin handles, as far as it reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ZellijEvent {
    /// `ModeUpdate`: the session theme's colours the popup takes.
    ModeUpdate(ThemeColors),
    /// `TabUpdate`: every tab.
    TabUpdate(Vec<TabState>),
    /// `PaneUpdate`: every pane of every tab.
    PaneUpdate(Vec<PaneState>),
    Key(KeyPress),
    Mouse(MouseEvent),
    Timer,
    /// Whether the user granted the permissions.
    PermissionRequestResult(bool),
    PaneClosed(ClosedPane),
    PastedText(String),
    BeforeClose,
    /// A kind the plugin does not subscribe to.
    Other,
}

/// Why an event could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Malformed;

/// `key.proto`'s `NamedKey`, in the order of its values.
const NAMED_KEYS: [KeyName; 32] = [
    KeyName::PageDown,
    KeyName::PageUp,
    KeyName::Left,
    KeyName::Down,
    KeyName::Up,
    KeyName::Right,
    KeyName::Home,
    KeyName::End,
    KeyName::Backspace,
    KeyName::Delete,
    KeyName::Insert,
    KeyName::F(1),
    KeyName::F(2),
    KeyName::F(3),
    KeyName::F(4),
    KeyName::F(5),
    KeyName::F(6),
    KeyName::F(7),
    KeyName::F(8),
    KeyName::F(9),
    KeyName::F(10),
    KeyName::F(11),
    KeyName::F(12),
    KeyName::Tab,
    KeyName::Esc,
    KeyName::CapsLock,
    KeyName::ScrollLock,
    KeyName::NumLock,
    KeyName::PrintScreen,
    KeyName::Pause,
    KeyName::Menu,
    KeyName::Enter,
];

/// A mouse event, of the kinds the plugin uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseEvent {
    ScrollUp(u32),
    ScrollDown(u32),
    LeftClick {
        line: i64,
        column: i64,
    },
    /// A right click, a hold, a release, a hover or a sideways scroll.
    Other,
}

/// What the plugin reads of a tab.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TabState {
    pub active: bool,
    /// The other clients focused on this tab.
    pub other_focused_clients: Vec<u16>,
    pub display_area_rows: usize,
    pub display_area_columns: usize,
}

/// What the plugin reads of a pane.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaneState {
    pub id: u32,
    pub is_plugin: bool,
    pub title: String,
}

/// The pane a `PaneClosed` event names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClosedPane {
    Terminal(u32),
    Plugin(u32),
}

/// The theme's colours the popup takes: two of its style declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThemeColors {
    pub text_unselected: StyleDeclaration,
    pub ribbon_selected: StyleDeclaration,
}

/// One of the theme's style declarations: six colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StyleDeclaration {
    pub base: Color,
    pub background: Color,
    pub emphasis_0: Color,
    pub emphasis_1: Color,
    pub emphasis_2: Color,
    pub emphasis_3: Color,
}

/// The dialog's colours from the session theme.
impl From<&ThemeColors> for Theme {
    fn from(colors: &ThemeColors) -> Theme {
        let text = &colors.text_unselected;
        Theme {
            accent: text.emphasis_1,
            success: text.emphasis_2,
            warning: text.emphasis_0,
            selected_fg: colors.ribbon_selected.base,
            selected_bg: colors.ribbon_selected.background,
            code: text.emphasis_3,
            heading: text.emphasis_0,
            link: text.emphasis_1,
            ..Theme::default()
        }
    }
}

/// Reads one event (`api.event.Event`).
pub fn read_event(bytes: &[u8]) -> Result<ZellijEvent, Malformed> {
    let mut name = 0;
    // The payload is a oneof: the last one wins, as in prost.
    let mut payload = None;
    for field in Reader::new(bytes) {
        let (number, value) = field?;
        if number == 1 {
            name = value.varint()?;
        } else {
            payload = Some((number, value));
        }
    }
    let has_payload = payload.is_some();
    let payload = |expected: u64| match payload {
        Some((number, value)) if number == expected => Ok(value),
        _ => Err(Malformed),
    };
    Ok(match name {
        0 => ZellijEvent::ModeUpdate(read_mode_update(payload(2)?.bytes()?)?),
        1 => ZellijEvent::TabUpdate(read_tabs(payload(3)?.bytes()?)?),
        2 => ZellijEvent::PaneUpdate(read_panes(payload(4)?.bytes()?)?),
        3 => ZellijEvent::Key(read_key(payload(5)?.bytes()?)?),
        4 => ZellijEvent::Mouse(read_mouse(payload(6)?.bytes()?)?),
        5 => match payload(7)? {
            Field::Fixed32 => ZellijEvent::Timer,
            _ => return Err(Malformed),
        },
        15 => {
            let mut granted = false;
            for field in Reader::new(payload(12)?.bytes()?) {
                if let (1, value) = field? {
                    granted = value.varint()? != 0;
                }
            }
            ZellijEvent::PermissionRequestResult(granted)
        }
        21 => ZellijEvent::PaneClosed(read_pane_closed(payload(18)?.bytes()?)?),
        29 => {
            let mut text = String::new();
            for field in Reader::new(payload(26)?.bytes()?) {
                if let (1, value) = field? {
                    text = value.string()?;
                }
            }
            ZellijEvent::PastedText(text)
        }
        32 if !has_payload => ZellijEvent::BeforeClose,
        32 => return Err(Malformed),
        _ => ZellijEvent::Other,
    })
}

/// `api.key.Key`: an optional modifier, the key (a named key or a character), more modifiers.
fn read_key(bytes: &[u8]) -> Result<KeyPress, Malformed> {
    let mut key = None;
    let mut modifiers = Vec::new();
    for field in Reader::new(bytes) {
        match field? {
            (1, value) => modifiers.push(value.varint()?),
            (2, value) => {
                let index = usize::try_from(value.varint()?).map_err(|_| Malformed)?;
                key = Some(*NAMED_KEYS.get(index).ok_or(Malformed)?);
            }
            // A character travels as its code and zellij-utils keeps its low byte.
            (3, value) => key = Some(KeyName::Char(char::from(value.varint()? as u8))),
            (4, value) => value.varints(&mut modifiers)?,
            _ => {}
        }
    }
    let mut press = KeyPress {
        key: key.ok_or(Malformed)?,
        ctrl: false,
        alt: false,
        shift: false,
        super_key: false,
    };
    for modifier in modifiers {
        match modifier {
            0 => press.ctrl = true,
            1 => press.alt = true,
            2 => press.shift = true,
            3 => press.super_key = true,
            _ => return Err(Malformed),
        }
    }
    Ok(press)
}

/// `MouseEventPayload`: what happened, and a line count or a position.
fn read_mouse(bytes: &[u8]) -> Result<MouseEvent, Malformed> {
    let mut name = 0;
    let mut lines = None;
    let mut position = None;
    for field in Reader::new(bytes) {
        match field? {
            (1, value) => name = value.varint()?,
            (2, value) => {
                lines = Some(value.varint()? as u32);
                position = None;
            }
            (3, value) => {
                let (mut line, mut column) = (0, 0);
                for field in Reader::new(value.bytes()?) {
                    match field? {
                        (1, value) => line = value.varint()? as i64,
                        (2, value) => column = value.varint()? as i64,
                        _ => {}
                    }
                }
                position = Some((line, column));
                lines = None;
            }
            _ => {}
        }
    }
    Ok(match (name, lines, position) {
        (0, Some(n), _) => MouseEvent::ScrollUp(n),
        (1, Some(n), _) => MouseEvent::ScrollDown(n),
        (2, _, Some((line, column))) => MouseEvent::LeftClick { line, column },
        (3..=6, _, Some(_)) | (7 | 8, Some(_), _) => MouseEvent::Other,
        _ => return Err(Malformed),
    })
}

/// `TabUpdatePayload`: repeated `TabInfo`.
fn read_tabs(bytes: &[u8]) -> Result<Vec<TabState>, Malformed> {
    let mut tabs = Vec::new();
    for field in Reader::new(bytes) {
        let (1, value) = field? else { continue };
        let mut tab = TabState::default();
        for field in Reader::new(value.bytes()?) {
            match field? {
                (3, value) => tab.active = value.varint()? != 0,
                (8, value) => {
                    let mut clients = Vec::new();
                    value.varints(&mut clients)?;
                    // zellij-utils keeps the low 16 bits of each id.
                    tab.other_focused_clients
                        .extend(clients.into_iter().map(|c| c as u16));
                }
                (13, value) => tab.display_area_rows = value.varint()? as u32 as usize,
                (14, value) => tab.display_area_columns = value.varint()? as u32 as usize,
                _ => {}
            }
        }
        tabs.push(tab);
    }
    Ok(tabs)
}

/// `PaneUpdatePayload`: repeated `PaneManifest` (a tab index and its `PaneInfo`s), flattened.
/// Two manifests of one tab are malformed, as in zellij-utils.
fn read_panes(bytes: &[u8]) -> Result<Vec<PaneState>, Malformed> {
    let mut panes = Vec::new();
    let mut tabs = Vec::new();
    for field in Reader::new(bytes) {
        let (1, manifest) = field? else { continue };
        let mut tab_index = 0;
        for field in Reader::new(manifest.bytes()?) {
            match field? {
                (1, value) => tab_index = value.varint()? as u32,
                (2, value) => {
                    let mut pane = PaneState::default();
                    for field in Reader::new(value.bytes()?) {
                        match field? {
                            (1, value) => pane.id = value.varint()? as u32,
                            (2, value) => pane.is_plugin = value.varint()? != 0,
                            (7, value) => pane.title = value.string()?,
                            _ => {}
                        }
                    }
                    panes.push(pane);
                }
                _ => {}
            }
        }
        if tabs.contains(&tab_index) {
            return Err(Malformed);
        }
        tabs.push(tab_index);
    }
    Ok(panes)
}

/// `PaneClosedPayload`: the `PaneId` (a type and an id).
fn read_pane_closed(bytes: &[u8]) -> Result<ClosedPane, Malformed> {
    let mut pane = None;
    for field in Reader::new(bytes) {
        let (1, value) = field? else { continue };
        let (mut kind, mut id) = (0, 0);
        for field in Reader::new(value.bytes()?) {
            match field? {
                (1, value) => kind = value.varint()?,
                (2, value) => id = value.varint()? as u32,
                _ => {}
            }
        }
        pane = Some(match kind {
            0 => ClosedPane::Terminal(id),
            1 => ClosedPane::Plugin(id),
            _ => return Err(Malformed),
        });
    }
    pane.ok_or(Malformed)
}

/// `ModeUpdatePayload`: its style's `Styling`, of which the two declarations the popup takes
/// (six colours each, as zellij-utils requires). The rest (the mode, its keybindings) is
/// skipped.
fn read_mode_update(bytes: &[u8]) -> Result<ThemeColors, Malformed> {
    let mut styling = None;
    for field in Reader::new(bytes) {
        if let (3, style) = field? {
            for field in Reader::new(style.bytes()?) {
                if let (4, value) = field? {
                    styling = Some(value.bytes()?);
                }
            }
        }
    }
    let (mut text_unselected, mut ribbon_selected) = (Vec::new(), Vec::new());
    for field in Reader::new(styling.ok_or(Malformed)?) {
        match field? {
            (1, value) => text_unselected.push(read_color(value.bytes()?)?),
            (4, value) => ribbon_selected.push(read_color(value.bytes()?)?),
            _ => {}
        }
    }
    Ok(ThemeColors {
        text_unselected: declaration(&text_unselected)?,
        ribbon_selected: declaration(&ribbon_selected)?,
    })
}

fn declaration(colors: &[Color]) -> Result<StyleDeclaration, Malformed> {
    let &[base, background, emphasis_0, emphasis_1, emphasis_2, emphasis_3] = colors else {
        return Err(Malformed);
    };
    Ok(StyleDeclaration {
        base,
        background,
        emphasis_0,
        emphasis_1,
        emphasis_2,
        emphasis_3,
    })
}

/// `api.style.Color`: a type, and an RGB payload or an 8-bit index (each component keeps its
/// low byte, as in zellij-utils).
fn read_color(bytes: &[u8]) -> Result<Color, Malformed> {
    let mut kind = 0;
    let mut rgb = None;
    let mut index = None;
    for field in Reader::new(bytes) {
        match field? {
            (1, value) => kind = value.varint()?,
            (2, value) => {
                let mut c = [0u8; 3];
                for field in Reader::new(value.bytes()?) {
                    if let (n @ 1..=3, value) = field? {
                        if let Some(slot) = c.get_mut(n as usize - 1) {
                            *slot = value.varint()? as u8;
                        }
                    }
                }
                rgb = Some(c);
                index = None;
            }
            (3, value) => {
                index = Some(value.varint()? as u8);
                rgb = None;
            }
            _ => {}
        }
    }
    match (kind, rgb, index) {
        (0, Some([r, g, b]), _) => Ok(Color::Rgb(r, g, b)),
        (1, _, Some(i)) => Ok(Color::Indexed(i)),
        _ => Err(Malformed),
    }
}

/// A field's value, by its wire type.
#[derive(Clone, Copy)]
enum Field<'a> {
    Varint(u64),
    Fixed64,
    Fixed32,
    Bytes(&'a [u8]),
}

impl<'a> Field<'a> {
    fn varint(self) -> Result<u64, Malformed> {
        match self {
            Field::Varint(v) => Ok(v),
            _ => Err(Malformed),
        }
    }

    fn bytes(self) -> Result<&'a [u8], Malformed> {
        match self {
            Field::Bytes(b) => Ok(b),
            _ => Err(Malformed),
        }
    }

    fn string(self) -> Result<String, Malformed> {
        std::str::from_utf8(self.bytes()?)
            .map(str::to_owned)
            .map_err(|_| Malformed)
    }

    /// Adds the values of a repeated varint field, packed (proto3's default) or not.
    fn varints(self, out: &mut Vec<u64>) -> Result<(), Malformed> {
        match self {
            Field::Varint(v) => out.push(v),
            Field::Bytes(packed) => {
                let mut reader = Reader::new(packed);
                while !reader.rest.is_empty() {
                    out.push(reader.varint()?);
                }
            }
            _ => return Err(Malformed),
        }
        Ok(())
    }
}

/// The fields of one message, in order: (field number, value).
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    fn varint(&mut self) -> Result<u64, Malformed> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self.rest.split_first().ok_or(Malformed)?;
            self.rest = rest;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Malformed)
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], Malformed> {
        if len > self.rest.len() {
            return Err(Malformed);
        }
        let (taken, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(taken)
    }

    fn field(&mut self) -> Result<(u64, Field<'a>), Malformed> {
        let key = self.varint()?;
        let value = match key & 7 {
            0 => Field::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Field::Fixed64
            }
            2 => {
                let len = usize::try_from(self.varint()?).map_err(|_| Malformed)?;
                Field::Bytes(self.take(len)?)
            }
            5 => {
                self.take(4)?;
                Field::Fixed32
            }
            _ => return Err(Malformed),
        };
        match key >> 3 {
            0 => Err(Malformed),
            number => Ok((number, value)),
        }
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<(u64, Field<'a>), Malformed>;

    /// The next field; after a malformed one, none.
    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            self.rest = &[];
        }
        Some(field)
    }
}

#[cfg(test)]
mod tests;
