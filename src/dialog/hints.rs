//! What the keys do right now, as the footer names them. The dialog lists them beside its key
//! handling, from the same state, so a hint never names a key the dialog would ignore.

use super::{Dialog, Mode};

/// A key (or keys) and what it does now: `Enter` `select`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hint {
    pub keys: &'static str,
    pub action: &'static str,
}

const fn hint(keys: &'static str, action: &'static str) -> Hint {
    Hint { keys, action }
}

/// The editors' keys (see `Dialog::edit`).
const NEWLINE: Hint = hint("Alt+Enter", "newline");
const CLEAR: Hint = hint("Ctrl+U", "clear");

impl Dialog {
    /// The keys of the current mode, most used first. The hide key is the host's: the view
    /// adds it.
    pub fn hints(&self) -> Vec<Hint> {
        let question = self.questionnaire.questions.get(self.tab);
        let multi = question.is_some_and(|question| question.multi_select);
        match self.mode {
            Mode::Note => vec![
                hint("Enter", "save note"),
                NEWLINE,
                CLEAR,
                hint("Esc", "close"),
            ],
            Mode::Typing => vec![
                if multi || self.has_submit_tab() {
                    hint("Enter", "confirm")
                } else {
                    hint("Enter", "submit")
                },
                NEWLINE,
                CLEAR,
                hint("↑/↓", "leave"),
                hint("Esc", "stop typing"),
            ],
            Mode::Browse => {
                let mut hints = vec![hint("Enter", "select"), hint("↑/↓", "move")];
                if multi {
                    hints.push(hint("Space", "toggle"));
                }
                let noted = self
                    .tabs
                    .get(self.tab)
                    .map_or(!self.global_note.is_blank(), |tab| !tab.note.is_blank());
                hints.push(if noted {
                    hint("n", "edit note")
                } else {
                    hint("n", "note")
                });
                if question.is_some_and(|question| question.has_preview() && !multi) {
                    hints.push(hint("PgUp/PgDn", "scroll"));
                }
                if self.tab_count() > 1 {
                    hints.push(hint("Tab", "switch"));
                }
                hints.push(hint("Esc", "cancel"));
                hints
            }
        }
    }
}
