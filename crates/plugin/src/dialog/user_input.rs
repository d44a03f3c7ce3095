//! What the user does, as the dialog understands it: a key, a paste, a click, the wheel.

/// A key, as the dialog understands it. The plugin maps Zellij's keys onto these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// A printable character (no Ctrl or Alt).
    Char(char),
    Enter,
    /// Alt+Enter: a newline in an editor.
    AltEnter,
    Esc,
    Tab,
    BackTab,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    Backspace,
    Delete,
    /// Ctrl+U: clear the editor.
    ClearLine,
    /// Ctrl+E: expand or collapse the context.
    ToggleContext,
    /// The configured hide key.
    Hide,
    /// Anything else: it stops the countdown and does nothing more.
    Other,
}

/// The symbol typed with Ctrl when a key arrives as one of the bare control characters
/// 0x1c-0x1f. Legacy terminals (tmux, and most others without the kitty keyboard protocol)
/// send Ctrl+\, Ctrl+], Ctrl+^ and Ctrl+_ as those bytes, and Zellij passes them on unnamed,
/// as plain characters without Ctrl, while Ctrl+letters arrive named. Naming them lets a
/// configured `Ctrl ]` match on every terminal.
pub fn ctrl_symbol(c: char) -> Option<char> {
    match c {
        '\u{1c}'..='\u{1f}' => char::from_u32(c as u32 + 0x40),
        _ => None,
    }
}

/// Something a click or the wheel can land on; the renderer reports where each one is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Tab(usize),
    Row(usize),
    SubmitChoice(usize),
    Preview,
}

/// Input from the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Key(Key),
    /// Text pasted into the terminal, inserted whole into the open editor.
    Paste(String),
    Click(Target),
    /// The mouse wheel (Zellij does not say where the pointer is): it scrolls the preview;
    /// negative lines scroll up.
    Wheel {
        lines: i32,
    },
}
