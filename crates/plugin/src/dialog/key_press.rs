//! A key as the terminal sends it through Zellij: a key and its modifiers, written and read in
//! Zellij's key syntax (`Ctrl ]`, `Alt Enter`, `F5`), and compared as Zellij compares keys. The
//! configured hide key is one; every key press the plugin gets is one.

use std::fmt;
use std::str::FromStr;

/// A key press: the key and its modifiers.
#[derive(Clone, Copy, Debug, Eq)]
pub struct KeyPress {
    pub key: KeyName,
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
    pub super_key: bool,
}

/// The key itself, as zellij-utils' `BareKey` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyName {
    Char(char),
    PageDown,
    PageUp,
    Left,
    Down,
    Up,
    Right,
    Home,
    End,
    Backspace,
    Delete,
    Insert,
    /// F1-F12.
    F(u8),
    Tab,
    Esc,
    CapsLock,
    ScrollLock,
    NumLock,
    PrintScreen,
    Pause,
    Menu,
    Enter,
}

/// A key Zellij's syntax does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownKey;

impl KeyPress {
    /// `key` without modifiers.
    pub fn plain(key: KeyName) -> KeyPress {
        KeyPress {
            key,
            ctrl: false,
            alt: false,
            shift: false,
            super_key: false,
        }
    }

    /// A bare control character 0x1c-0x1f (how legacy terminals send Ctrl+] and its kin) as
    /// the key it stands for, the way the kitty keyboard protocol reports it: Ctrl + the
    /// symbol (see `dialog::ctrl_symbol`).
    pub fn with_control_named(self) -> KeyPress {
        match self.key {
            KeyName::Char(c) => match super::user_input::ctrl_symbol(c) {
                Some(symbol) => KeyPress {
                    key: KeyName::Char(symbol),
                    ctrl: true,
                    ..self
                },
                None => self,
            },
            _ => self,
        }
    }

    /// An upper-case ASCII letter as Zellij compares it: the lower-case letter with Shift.
    fn folded(self) -> KeyPress {
        match self.key {
            KeyName::Char(c) if c.is_ascii_uppercase() => KeyPress {
                key: KeyName::Char(c.to_ascii_lowercase()),
                shift: true,
                ..self
            },
            _ => self,
        }
    }
}

/// As zellij-utils' `KeyWithModifier` compares keys: `A` is `Shift a`.
impl PartialEq for KeyPress {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.folded(), other.folded());
        a.key == b.key
            && (a.ctrl, a.alt, a.shift, a.super_key) == (b.ctrl, b.alt, b.shift, b.super_key)
    }
}

/// Zellij's key syntax: modifiers (`Ctrl`, `Alt`, `Shift`, `Super`, any case) then the key (a
/// name in any case, `Space`, or one character), separated by spaces.
impl FromStr for KeyPress {
    type Err = UnknownKey;

    fn from_str(text: &str) -> Result<KeyPress, UnknownKey> {
        let mut words: Vec<&str> = text.split_ascii_whitespace().collect();
        let key = key_name(words.pop().ok_or(UnknownKey)?)?;
        let mut press = KeyPress::plain(key);
        for modifier in words {
            match modifier.to_ascii_lowercase().as_str() {
                "ctrl" => press.ctrl = true,
                "alt" => press.alt = true,
                "shift" => press.shift = true,
                "super" => press.super_key = true,
                _ => return Err(UnknownKey),
            }
        }
        Ok(press)
    }
}

/// A key's name in Zellij's syntax.
fn key_name(word: &str) -> Result<KeyName, UnknownKey> {
    Ok(match word.to_ascii_lowercase().as_str() {
        "pagedown" => KeyName::PageDown,
        "pageup" => KeyName::PageUp,
        "left" => KeyName::Left,
        "down" => KeyName::Down,
        "up" => KeyName::Up,
        "right" => KeyName::Right,
        "home" => KeyName::Home,
        "end" => KeyName::End,
        "backspace" => KeyName::Backspace,
        "delete" | "del" => KeyName::Delete,
        "insert" => KeyName::Insert,
        "tab" => KeyName::Tab,
        "esc" => KeyName::Esc,
        "enter" => KeyName::Enter,
        "capslock" => KeyName::CapsLock,
        "scrolllock" => KeyName::ScrollLock,
        "numlock" => KeyName::NumLock,
        "printscreen" => KeyName::PrintScreen,
        "pause" => KeyName::Pause,
        "menu" => KeyName::Menu,
        "space" => KeyName::Char(' '),
        lower => match (1..=12u8).find(|n| lower == format!("f{n}")) {
            Some(n) => KeyName::F(n),
            None => {
                let mut chars = word.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => KeyName::Char(c),
                    _ => return Err(UnknownKey),
                }
            }
        },
    })
}

/// As Zellij writes a key (`Ctrl ]`, `Alt ENTER`, `PgDn`): the modifiers in Zellij's order,
/// then the key.
impl fmt::Display for KeyPress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let modifiers = [
            (self.ctrl, "Ctrl"),
            (self.alt, "Alt"),
            (self.shift, "Shift"),
            (self.super_key, "Super"),
        ];
        for (_, name) in modifiers.iter().filter(|(on, _)| *on) {
            write!(f, "{name} ")?;
        }
        match self.key {
            KeyName::PageDown => f.write_str("PgDn"),
            KeyName::PageUp => f.write_str("PgUp"),
            KeyName::Left => f.write_str("←"),
            KeyName::Down => f.write_str("↓"),
            KeyName::Up => f.write_str("↑"),
            KeyName::Right => f.write_str("→"),
            KeyName::Home => f.write_str("HOME"),
            KeyName::End => f.write_str("END"),
            KeyName::Backspace => f.write_str("BACKSPACE"),
            KeyName::Delete => f.write_str("DEL"),
            KeyName::Insert => f.write_str("INS"),
            KeyName::F(n) => write!(f, "F{n}"),
            KeyName::Char(' ') => f.write_str("SPACE"),
            KeyName::Char(c) => write!(f, "{c}"),
            KeyName::Tab => f.write_str("TAB"),
            KeyName::Esc => f.write_str("ESC"),
            KeyName::Enter => f.write_str("ENTER"),
            KeyName::CapsLock => f.write_str("CAPSlOCK"),
            KeyName::ScrollLock => f.write_str("SCROLLlOCK"),
            KeyName::NumLock => f.write_str("NUMLOCK"),
            KeyName::PrintScreen => f.write_str("PRINTSCREEN"),
            KeyName::Pause => f.write_str("PAUSE"),
            KeyName::Menu => f.write_str("MENU"),
        }
    }
}
