//! The dialog's keys, one table per mode: which keys are bound to which command, and how the
//! footer names them. The key handling (`input.rs`) runs the command a key is bound to and the
//! footer lists the bindings that do something now, both from these tables, so a hint can
//! never name a key the dialog would ignore, nor a key go unnamed because its hint was typed
//! elsewhere.

use super::key_press::{KeyName, KeyPress};
use super::state::{Dialog, Mode};
use super::user_input::Key;

/// A key (or keys) and what it does now: `Enter` `select`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hint {
    pub keys: &'static str,
    pub action: &'static str,
}

const fn hint(keys: &'static str, action: &'static str) -> Option<Hint> {
    Some(Hint { keys, action })
}

/// What a bound key asks of the dialog; where keys share a command (↑ and ↓), the key says
/// which way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Command {
    /// Esc: close the editor, or cancel the questionnaire (asking once more when there is
    /// something to lose).
    Escape,
    /// Enter: pick the focused row, or confirm what was typed, or the Submit tab's choice.
    Confirm,
    /// Enter in the note editor: keep the note and close it.
    SaveNote,
    /// ↑/↓: the focus up or down.
    Move,
    /// ↑/↓ while typing an answer: stop typing, and move.
    LeaveTyping,
    /// A digit: the row with that number.
    Jump,
    /// Space: tick or untick the focused option of a multi-select question.
    Toggle,
    /// `n`: open the note editor (the global note on the Submit tab).
    OpenNote,
    /// PgUp/PgDn: scroll the preview.
    Scroll,
    /// Tab/→ and Shift+Tab/←: the next or previous tab.
    SwitchTab,
    /// Ctrl+E: expand or collapse the question's context.
    ToggleContext,
    /// `c`: the context, on a question that has one; otherwise the letter like any other.
    ContextLetter,
    /// An editor's own keys: newline, clear, delete, move the cursor.
    Edit,
    /// `h`: the list of the questionnaires asked before.
    History,
    /// `a` on the Submit tab: every question not answered yet gets its recommended option.
    AcceptRecommended,
}

/// Keys bound to a command, and how the footer names them (`None`: it does not).
pub(super) struct Binding {
    pub keys: &'static [Key],
    pub command: Command,
    pub hint: Option<Hint>,
}

const fn bind(keys: &'static [Key], command: Command, hint: Option<Hint>) -> Binding {
    Binding {
        keys,
        command,
        hint,
    }
}

const MOVE_KEYS: &[Key] = &[Key::Up, Key::Down];
const TAB_KEYS: &[Key] = &[Key::Tab, Key::Right, Key::BackTab, Key::Left];
const CURSOR_KEYS: &[Key] = &[
    Key::Backspace,
    Key::Delete,
    Key::Left,
    Key::Right,
    Key::Home,
    Key::End,
];
const DIGITS: &[Key] = &[
    Key::Char('1'),
    Key::Char('2'),
    Key::Char('3'),
    Key::Char('4'),
    Key::Char('5'),
    Key::Char('6'),
    Key::Char('7'),
    Key::Char('8'),
    Key::Char('9'),
];

/// Browsing a question's rows. Other printable keys on the free-form row resume typing there.
const QUESTION: &[Binding] = &[
    bind(&[Key::Enter], Command::Confirm, hint("Enter", "select")),
    bind(MOVE_KEYS, Command::Move, hint("↑/↓", "move")),
    bind(&[Key::Char(' ')], Command::Toggle, hint("Space", "toggle")),
    bind(&[Key::Char('n')], Command::OpenNote, hint("n", "note")),
    bind(
        &[Key::PageUp, Key::PageDown],
        Command::Scroll,
        hint("PgUp/PgDn", "scroll"),
    ),
    bind(TAB_KEYS, Command::SwitchTab, hint("Tab", "switch")),
    bind(&[Key::Esc], Command::Escape, hint("Esc", "cancel")),
    bind(&[Key::Char('h')], Command::History, hint("h", "history")),
    bind(DIGITS, Command::Jump, None),
    bind(&[Key::ToggleContext], Command::ToggleContext, None),
    bind(&[Key::Char('c')], Command::ContextLetter, None),
];

/// The Submit tab: submit or cancel, and the global note.
const SUBMIT: &[Binding] = &[
    bind(&[Key::Enter], Command::Confirm, hint("Enter", "select")),
    bind(MOVE_KEYS, Command::Move, hint("↑/↓", "move")),
    bind(&[Key::Char('n')], Command::OpenNote, hint("n", "note")),
    bind(TAB_KEYS, Command::SwitchTab, hint("Tab", "switch")),
    bind(&[Key::Esc], Command::Escape, hint("Esc", "cancel")),
    bind(
        &[Key::Char('a')],
        Command::AcceptRecommended,
        hint("a", "accept recommended"),
    ),
    bind(&[Key::Char('h')], Command::History, hint("h", "history")),
    bind(&[Key::Char('1'), Key::Char('2')], Command::Jump, None),
];

/// Typing an answer on the free-form row. Other printable keys are typed.
const TYPING: &[Binding] = &[
    bind(&[Key::Enter], Command::Confirm, hint("Enter", "confirm")),
    bind(
        &[Key::AltEnter],
        Command::Edit,
        hint("Alt+Enter", "newline"),
    ),
    bind(&[Key::ClearLine], Command::Edit, hint("Ctrl+U", "clear")),
    bind(MOVE_KEYS, Command::LeaveTyping, hint("↑/↓", "leave")),
    bind(&[Key::Esc], Command::Escape, hint("Esc", "stop typing")),
    bind(&[Key::ToggleContext], Command::ToggleContext, None),
    bind(CURSOR_KEYS, Command::Edit, None),
];

/// Typing a note. Other printable keys are typed.
const NOTE: &[Binding] = &[
    bind(&[Key::Enter], Command::SaveNote, hint("Enter", "save note")),
    bind(
        &[Key::AltEnter],
        Command::Edit,
        hint("Alt+Enter", "newline"),
    ),
    bind(&[Key::ClearLine], Command::Edit, hint("Ctrl+U", "clear")),
    bind(&[Key::Esc], Command::Escape, hint("Esc", "close")),
    bind(CURSOR_KEYS, Command::Edit, None),
];

impl Dialog {
    /// The bindings of the current mode, most used first.
    pub(super) fn keymap(&self) -> &'static [Binding] {
        match self.mode {
            Mode::Note => NOTE,
            Mode::Typing => TYPING,
            Mode::Browse if self.on_submit_tab() => SUBMIT,
            Mode::Browse => QUESTION,
        }
    }

    /// The command `key` is bound to now, if any. On an approval digits are bound to nothing
    /// (see `Dialog::numbers_rows`): typed where typing goes, like any other character.
    pub(super) fn command_for(&self, key: Key) -> Option<Command> {
        self.keymap()
            .iter()
            .find(|binding| binding.keys.contains(&key))
            .map(|binding| binding.command)
            .filter(|command| *command != Command::Jump || self.numbers_rows())
            .filter(|command| self.takes(*command))
    }

    /// Whether this dialog has a use for `command`: a form's fields take no notes (the server
    /// has no place for them) and recommend nothing.
    fn takes(&self, command: Command) -> bool {
        self.questionnaire.form.is_none()
            || !matches!(command, Command::OpenNote | Command::AcceptRecommended)
    }

    /// The keys of the current mode that do something now, as the footer names them, most
    /// used first. The hide key is the host's: the view adds it.
    pub fn hints(&self) -> Vec<Hint> {
        self.keymap()
            .iter()
            .filter_map(|binding| self.hint_now(binding))
            .collect()
    }

    /// A binding's hint as things stand: left out when its command would do nothing, and worded
    /// for what it does now.
    fn hint_now(&self, binding: &Binding) -> Option<Hint> {
        let hint = binding.hint.filter(|_| self.takes(binding.command))?;
        let question = self.questionnaire.questions.get(self.tab);
        let multi = question.is_some_and(|question| question.multi_select);
        match binding.command {
            Command::Confirm if self.mode == Mode::Typing && !multi && !self.has_submit_tab() => {
                Some(Hint {
                    action: "submit",
                    ..hint
                })
            }
            Command::Toggle => multi.then_some(hint),
            Command::OpenNote => {
                let noted = self
                    .tabs
                    .get(self.tab)
                    .map_or(!self.global_note.is_blank(), |tab| !tab.note.is_blank());
                Some(if noted {
                    Hint {
                        action: "edit note",
                        ..hint
                    }
                } else {
                    hint
                })
            }
            Command::Scroll => {
                (question.is_some_and(|question| question.has_preview()) && !multi).then_some(hint)
            }
            Command::SwitchTab => (self.tab_count() > 1).then_some(hint),
            Command::AcceptRecommended => {
                (!self.unanswered_with_recommendation().is_empty()).then_some(hint)
            }
            _ => Some(hint),
        }
    }
}

/// The dialog's key for what the terminal sent: `hide`, the configured hide key (compared as
/// Zellij compares keys, a bare control character named as its Ctrl key first). Of the keys
/// with Ctrl or Alt only Ctrl+U and Ctrl+E mean something; Alt+Enter and Shift+Enter are a
/// newline; a shifted letter is its capital.
pub fn key_of(press: KeyPress, hide: Option<&KeyPress>) -> Key {
    let press = press.with_control_named();
    if hide == Some(&press) {
        return Key::Hide;
    }
    let KeyPress {
        key,
        ctrl,
        alt,
        shift,
        ..
    } = press;
    match key {
        KeyName::Enter if alt || shift => Key::AltEnter,
        KeyName::Enter if !ctrl => Key::Enter,
        KeyName::Esc => Key::Esc,
        KeyName::Tab if shift => Key::BackTab,
        KeyName::Tab if !ctrl && !alt => Key::Tab,
        KeyName::Up => Key::Up,
        KeyName::Down => Key::Down,
        KeyName::Left => Key::Left,
        KeyName::Right => Key::Right,
        KeyName::Home => Key::Home,
        KeyName::End => Key::End,
        KeyName::PageUp => Key::PageUp,
        KeyName::PageDown => Key::PageDown,
        KeyName::Backspace => Key::Backspace,
        KeyName::Delete => Key::Delete,
        KeyName::Char('u') if ctrl => Key::ClearLine,
        KeyName::Char('e') if ctrl => Key::ToggleContext,
        KeyName::Char(c) if !ctrl && !alt => match shift {
            true => Key::Char(c.to_uppercase().next().unwrap_or(c)),
            false => Key::Char(c),
        },
        _ => Key::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialog::{Input, Response};
    use ask_popup_protocol::request;

    fn dialog(payload: &str, keys: &[Key]) -> Dialog {
        let mut dialog = Dialog::new(request::parse(payload).expect("a valid payload"));
        for key in keys {
            dialog.handle(Input::Key(*key));
        }
        dialog
    }

    /// A dialog in every mode, with text in its editors, so that every hint can show.
    fn dialogs() -> Vec<(&'static str, Dialog)> {
        let preview = r#"{"questions":[{"question":"Which?","header":"H","options":[
            {"label":"A","description":"a","preview":"long\n\npreview"},
            {"label":"B","description":"b"}]}]}"#;
        let two = r#"{"questions":[
            {"question":"Which ones?","header":"M","multiSelect":true,"options":["A","B"]},
            {"question":"Which one?","header":"S","options":["C","D"]}]}"#;
        let typed = [Key::Char('3'), Key::Char('x')];
        vec![
            ("a question with a preview", dialog(preview, &[])),
            ("a multi-select question", dialog(two, &[])),
            ("the Submit tab", dialog(two, &[Key::BackTab])),
            ("typing an answer", dialog(preview, &typed)),
            ("typing in a multi-select", dialog(two, &typed)),
            ("a note", dialog(preview, &[Key::Char('n'), Key::Char('x')])),
            (
                "the global note",
                dialog(two, &[Key::BackTab, Key::Char('n'), Key::Char('x')]),
            ),
        ]
    }

    #[test]
    fn every_key_the_footer_names_does_something_where_it_is_named() {
        for (state, dialog) in dialogs() {
            let mut named = 0;
            for binding in dialog.keymap() {
                let Some(hint) = dialog.hint_now(binding) else {
                    continue;
                };
                named += 1;
                let acts = binding
                    .keys
                    .iter()
                    .any(|key| dialog.clone().handle(Input::Key(*key)) != Response::Unchanged);
                assert!(acts, "{state}: {hint:?} names keys that do nothing");
            }
            assert_eq!(named, dialog.hints().len(), "{state}");
        }
    }

    #[test]
    fn the_footer_words_each_key_for_what_it_does_now() {
        let hints = |dialog: &Dialog| -> Vec<String> {
            dialog
                .hints()
                .iter()
                .map(|h| format!("{} {}", h.keys, h.action))
                .collect()
        };
        let cases = [
            (
                "a question with a preview",
                "Enter select|↑/↓ move|n note|PgUp/PgDn scroll|Esc cancel|h history",
            ),
            (
                "a multi-select question",
                "Enter select|↑/↓ move|Space toggle|n note|Tab switch|Esc cancel|h history",
            ),
            (
                "the Submit tab",
                "Enter select|↑/↓ move|n note|Tab switch|Esc cancel|h history",
            ),
            (
                "typing an answer",
                "Enter submit|Alt+Enter newline|Ctrl+U clear|↑/↓ leave|Esc stop typing",
            ),
            (
                "typing in a multi-select",
                "Enter confirm|Alt+Enter newline|Ctrl+U clear|↑/↓ leave|Esc stop typing",
            ),
            (
                "a note",
                "Enter save note|Alt+Enter newline|Ctrl+U clear|Esc close",
            ),
        ];
        let dialogs = dialogs();
        for (state, expected) in cases {
            let (_, dialog) = dialogs.iter().find(|(s, _)| *s == state).expect("a state");
            assert_eq!(hints(dialog).join("|"), expected, "{state}");
        }
        // A saved note is edited, not added.
        let (_, mut noted) = dialogs.into_iter().nth(5).expect("the note");
        noted.handle(Input::Key(Key::Enter));
        assert!(hints(&noted).contains(&"n edit note".to_owned()));
    }
}
