//! Reads the events Zellij sends the plugin: only the kinds the plugin subscribes to, and of
//! those only the fields it uses, decoded by prost from their protobuf encoding into the
//! messages of `zellij_proto` (zellij-utils 0.45.1 `plugin_api/event.proto`, `key.proto` and
//! `style.proto`), then turned into the plugin's own types the way zellij-utils converts them.
//!
//! Not through zellij-tile, which decodes every mode update's keybindings into actions (see
//! `zellij_proto` for what that costs). An event Zellij would not decode (a truncated field, an
//! unknown key or modifier, a payload of the wrong kind) is `Malformed` here too, and dropped;
//! the parts of an event the plugin does not read (a mode update's keybindings, the rest of a
//! pane's or a tab's fields, the payload of a kind it does not subscribe to) are skipped
//! unread.

pub use crate::dialog::{KeyName, KeyPress};
use crate::view::{Color, Theme};
use crate::zellij_proto as proto;
pub use crate::zellij_proto::Malformed;
use prost::Message;

/// An event the plugin handles, as far as it reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ZellijEvent {
    /// `ModeUpdate`: the session theme's colours the popup takes, and the session's name.
    ModeUpdate(Mode),
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
    /// The tab's position (what a pane update names its tab by).
    pub position: usize,
    /// Its id, which stays while tabs before it close (what a rename names it by).
    pub id: u32,
    /// Its name as Zellij shows it: on a tab of one pane and no name of its own (`Tab #N`),
    /// the pane's explicit title.
    pub name: String,
    pub active: bool,
    /// Whether the tab shows its floating panes.
    pub floating_visible: bool,
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
    /// The position of the pane's tab.
    pub tab: usize,
    pub is_floating: bool,
    /// Hidden by its plugin (`hide_self`): on no tab's screen.
    pub is_suppressed: bool,
    /// Taking up its whole tab.
    pub is_fullscreen: bool,
}

/// Whether the popup's pane is on screen, as the latest tab and pane updates have it: not
/// hidden by its plugin, and, floating, on a tab that shows its floating panes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PopupSighting {
    /// The positions of the tabs that show their floating panes.
    floating_shown: Vec<usize>,
    /// The popup's pane, once a pane update has listed it.
    pane: Option<PaneState>,
    /// The tiled panes that take up their whole tab: (tab, pane id, whether a plugin's).
    fullscreen: Vec<(usize, u32, bool)>,
}

impl PopupSighting {
    /// A tab update came.
    pub fn tabs(&mut self, tabs: &[TabState]) {
        self.floating_shown = floating_shown(tabs);
    }

    /// A pane update came; the popup is plugin `plugin_id`'s pane.
    pub fn panes(&mut self, panes: &[PaneState], plugin_id: u32) {
        self.pane = panes
            .iter()
            .find(|p| p.is_plugin && p.id == plugin_id)
            .cloned();
        self.fullscreen = fullscreen_tiled(panes)
            .map(|p| (p.tab, p.id, p.is_plugin))
            .collect();
    }

    /// The tiled pane that hides the popup, when it does: the popup is shown (not hidden by
    /// its plugin), floating, on a tab that does not show its floating panes though a show
    /// shows them, and a tiled pane there takes up the whole tab. That is a fullscreen that
    /// covers the floating panes and the bars: what Zellij's web client on a phone asks for
    /// its focused pane (its "single pane" view).
    pub fn covered_by(&self) -> Option<(u32, bool)> {
        let popup = self.pane.as_ref()?;
        if popup.is_suppressed || !popup.is_floating || self.floating_shown.contains(&popup.tab) {
            return None;
        }
        self.fullscreen
            .iter()
            .find(|(tab, _, _)| *tab == popup.tab)
            .map(|&(_, id, plugin)| (id, plugin))
    }

    /// This instance hid the popup: it is not on screen until an update lists it again (the
    /// updates so far do not know of the hide yet).
    pub fn hidden_here(&mut self) {
        self.pane = None;
    }

    /// Whether the popup is on screen (false when no update listed its pane).
    pub fn on_screen(&self) -> bool {
        self.pane.as_ref().is_some_and(|p| {
            !p.is_suppressed && (!p.is_floating || self.floating_shown.contains(&p.tab))
        })
    }
}

/// The positions of the tabs among `tabs` that show their floating panes.
pub fn floating_shown(tabs: &[TabState]) -> Vec<usize> {
    tabs.iter()
        .filter(|t| t.floating_visible)
        .map(|t| t.position)
        .collect()
}

/// The tiled panes among `panes` that take up their whole tab.
pub fn fullscreen_tiled(panes: &[PaneState]) -> impl Iterator<Item = &PaneState> {
    panes.iter().filter(|p| p.is_fullscreen && !p.is_floating)
}

/// The clients attached besides this instance's, as a tab update lists them (on any tab).
pub fn other_clients(tabs: &[TabState]) -> Vec<u16> {
    tabs.iter()
        .flat_map(|t| t.other_focused_clients.iter().copied())
        .collect()
}

/// The pane a `PaneClosed` event names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClosedPane {
    Terminal(u32),
    Plugin(u32),
}

/// What the plugin reads of a mode update.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mode {
    pub colors: ThemeColors,
    pub session_name: Option<String>,
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
// Inline, so that prost's decoding of events is built in the plugin's crate, which builds
// prost's decoding of its options and ids (`zellij_command`'s readers, inline too) and of pipe
// messages (`wire::read_message`, generic over its input) already: one copy of the decoding
// code they share rather than two (about 3 KB of the plugin).
#[inline]
pub fn read_event(bytes: &[u8]) -> Result<ZellijEvent, Malformed> {
    use proto::EventPayload as Payload;
    let event = proto::Event::decode(bytes)?;
    // Each kind with its own payload, as zellij-utils requires; `EventType`'s numbers.
    Ok(match (event.name, event.payload) {
        (0, Some(Payload::ModeUpdate(mode))) => ZellijEvent::ModeUpdate(Mode {
            session_name: mode.session_name.clone(),
            colors: theme_colors(mode)?,
        }),
        (1, Some(Payload::TabUpdate(tabs))) => {
            ZellijEvent::TabUpdate(tabs.tab_info.into_iter().map(tab_state).collect())
        }
        (2, Some(Payload::PaneUpdate(panes))) => ZellijEvent::PaneUpdate(pane_states(panes)?),
        (3, Some(Payload::Key(key))) => ZellijEvent::Key(key_press(key)?),
        (4, Some(Payload::Mouse(mouse))) => ZellijEvent::Mouse(mouse_event(mouse)?),
        (5, Some(Payload::Timer(_))) => ZellijEvent::Timer,
        (15, Some(Payload::PermissionRequestResult(result))) => {
            ZellijEvent::PermissionRequestResult(result.granted)
        }
        (21, Some(Payload::PaneClosed(closed))) => ZellijEvent::PaneClosed(closed_pane(closed)?),
        (29, Some(Payload::PastedText(pasted))) => ZellijEvent::PastedText(pasted.pasted_text),
        (32, None) => ZellijEvent::BeforeClose,
        (0..=5 | 15 | 21 | 29 | 32, _) => return Err(Malformed),
        _ => ZellijEvent::Other,
    })
}

/// The key, and its modifiers (the first in its own field, the others after the key).
fn key_press(key: proto::Key) -> Result<KeyPress, Malformed> {
    let name = match key.main_key.ok_or(Malformed)? {
        proto::MainKey::Named(index) => usize::try_from(index)
            .ok()
            .and_then(|index| NAMED_KEYS.get(index).copied())
            .ok_or(Malformed)?,
        // zellij-utils keeps a character's low byte.
        proto::MainKey::Char(code) => KeyName::Char(char::from(code as u8)),
    };
    let mut press = KeyPress {
        key: name,
        ctrl: false,
        alt: false,
        shift: false,
        super_key: false,
    };
    for modifier in key.modifier.into_iter().chain(key.additional_modifiers) {
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

/// What happened, with the line count or the position its kind carries (`MouseEventName`).
fn mouse_event(mouse: proto::MouseEventPayload) -> Result<MouseEvent, Malformed> {
    use proto::MouseEventDetail::{LineCount, Position};
    Ok(match (mouse.mouse_event_name, mouse.detail) {
        (0, Some(LineCount(n))) => MouseEvent::ScrollUp(n),
        (1, Some(LineCount(n))) => MouseEvent::ScrollDown(n),
        (2, Some(Position(at))) => MouseEvent::LeftClick {
            line: at.line,
            column: at.column,
        },
        (3..=6, Some(Position(_))) | (7 | 8, Some(LineCount(_))) => MouseEvent::Other,
        _ => return Err(Malformed),
    })
}

fn tab_state(tab: proto::TabInfo) -> TabState {
    TabState {
        position: tab.position as usize,
        id: tab.tab_id,
        name: tab.name,
        active: tab.active,
        floating_visible: tab.are_floating_panes_visible,
        // zellij-utils keeps the low 16 bits of each id.
        other_focused_clients: tab
            .other_focused_clients
            .into_iter()
            .map(|c| c as u16)
            .collect(),
        display_area_rows: tab.display_area_rows as usize,
        display_area_columns: tab.display_area_columns as usize,
    }
}

/// Every tab's panes, flattened. Two manifests of one tab are malformed, as in zellij-utils.
fn pane_states(update: proto::PaneUpdatePayload) -> Result<Vec<PaneState>, Malformed> {
    let mut tabs = Vec::new();
    let mut panes = Vec::new();
    for manifest in update.pane_manifest {
        if tabs.contains(&manifest.tab_index) {
            return Err(Malformed);
        }
        tabs.push(manifest.tab_index);
        let tab = manifest.tab_index as usize;
        panes.extend(manifest.panes.into_iter().map(|pane| PaneState {
            id: pane.id,
            is_plugin: pane.is_plugin,
            title: pane.title,
            tab,
            is_floating: pane.is_floating,
            is_suppressed: pane.is_suppressed,
            is_fullscreen: pane.is_fullscreen,
        }));
    }
    Ok(panes)
}

/// The pane, of a type zellij-utils knows (`PaneType`).
fn closed_pane(closed: proto::PaneClosedPayload) -> Result<ClosedPane, Malformed> {
    let pane = closed.pane_id.ok_or(Malformed)?;
    match pane.pane_type {
        0 => Ok(ClosedPane::Terminal(pane.id)),
        1 => Ok(ClosedPane::Plugin(pane.id)),
        _ => Err(Malformed),
    }
}

/// The style's two declarations the popup takes, six colours each, as zellij-utils requires.
fn theme_colors(mode: proto::ModeUpdatePayload) -> Result<ThemeColors, Malformed> {
    let styling = mode
        .style
        .and_then(|style| style.styling)
        .ok_or(Malformed)?;
    Ok(ThemeColors {
        text_unselected: declaration(styling.text_unselected)?,
        ribbon_selected: declaration(styling.ribbon_selected)?,
    })
}

fn declaration(colors: Vec<proto::Color>) -> Result<StyleDeclaration, Malformed> {
    let mut six = [Color::Default; 6];
    if colors.len() != six.len() {
        return Err(Malformed);
    }
    for (slot, proto) in six.iter_mut().zip(colors) {
        *slot = color(proto)?;
    }
    let [base, background, emphasis_0, emphasis_1, emphasis_2, emphasis_3] = six;
    Ok(StyleDeclaration {
        base,
        background,
        emphasis_0,
        emphasis_1,
        emphasis_2,
        emphasis_3,
    })
}

/// An RGB colour or an 8-bit index, by its type (each component keeps its low byte, as in
/// zellij-utils).
fn color(color: proto::Color) -> Result<Color, Malformed> {
    match (color.color_type, color.payload) {
        (0, Some(proto::ColorPayload::Rgb(rgb))) => {
            Ok(Color::Rgb(rgb.red as u8, rgb.green as u8, rgb.blue as u8))
        }
        (1, Some(proto::ColorPayload::EightBit(index))) => Ok(Color::Indexed(index as u8)),
        _ => Err(Malformed),
    }
}

#[cfg(test)]
mod tests;
