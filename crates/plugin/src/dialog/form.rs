//! An MCP server's form asked as a questionnaire (`Questionnaire::form`): each tab a field,
//! its value checked against the field's rules as the person types, and nothing sent that a
//! rule refuses.

use super::editor::Editor;
use super::state::*;
use super::user_input::Key;
use ask_popup_protocol::elicitation::page::FormPage;
use ask_popup_protocol::elicitation::{Kind, Misfit};

impl Dialog {
    /// The form this dialog asks, if it asks one.
    pub fn form(&self) -> Option<&FormPage> {
        self.questionnaire.form.as_ref()
    }

    /// Whether tab `index` is a typed field (text or number): a row to type in, no options.
    pub fn is_typed_field(&self, index: usize) -> bool {
        self.form()
            .and_then(|form| form.form.fields.get(index))
            .is_some_and(|field| matches!(field.kind, Kind::Text { .. } | Kind::Number { .. }))
    }

    /// Why the value of field `index` does not fit, if it does not.
    pub fn misfit(&self, index: usize) -> Option<Misfit> {
        let form = self.form()?;
        form.value(index, self.answer(index).as_ref()).err()
    }

    /// The message shown under field `index`: why its value does not fit, once there is a
    /// value (or once the person tried to go on without one).
    pub fn shown_misfit(&self, index: usize) -> Option<Misfit> {
        let misfit = self.misfit(index)?;
        let tried = self.tabs.get(index).is_some_and(|t| t.tried);
        (tried || misfit != Misfit::Required).then_some(misfit)
    }

    /// Whether the person changed anything the form started with (its defaults are not
    /// theirs to lose).
    pub(super) fn form_changed(&self) -> bool {
        let fresh = Dialog::new((*self.questionnaire).clone());
        fresh.responses() != self.responses()
            || fresh
                .tabs
                .iter()
                .zip(&self.tabs)
                .any(|(a, b)| a.draft.text() != b.draft.text())
    }

    /// A field's starting state: its default, picked or typed.
    pub(super) fn prefill(form: &FormPage, index: usize, state: &mut TabState) {
        let Some(field) = form.form.fields.get(index) else {
            return;
        };
        let Some(default) = field.default_value() else {
            return;
        };
        match &field.kind {
            Kind::Text { .. } | Kind::Number { .. } => {
                let text = default
                    .as_str()
                    .map_or_else(|| default.to_string(), str::to_owned);
                let mut draft = Editor::new();
                draft.insert(&text);
                state.draft = draft;
            }
            Kind::Boolean { .. } => {
                let i = usize::from(default != true);
                state.choice = Some(Choice::Option(i));
                state.focus = i;
            }
            Kind::Choice { choices, .. } => {
                if let Some(i) = choices
                    .iter()
                    .position(|c| default.as_str() == Some(&c.value))
                {
                    state.choice = Some(Choice::Option(i));
                    state.focus = i;
                }
            }
            Kind::Choices { choices, .. } => {
                for (tick, choice) in state.ticks.iter_mut().zip(choices) {
                    *tick = default.as_array().is_some_and(|d| {
                        d.iter().any(|v| v.as_str() == Some(choice.value.as_str()))
                    });
                }
            }
        }
    }

    /// The rows of a form's field: its options (none for a typed field, which has the row to
    /// type in), `Next` on a multi-select field, and `Decline` where `Chat about this` is.
    pub(super) fn form_rows(&self, index: usize) -> Vec<Row> {
        let Some(question) = self.questionnaire.questions.get(index) else {
            return Vec::new();
        };
        let mut rows: Vec<Row> = if self.is_typed_field(index) {
            vec![Row::Freeform]
        } else {
            (0..question.options.len()).map(Row::Option).collect()
        };
        if question.multi_select {
            rows.push(Row::Next);
        }
        rows.push(Row::Chat);
        rows
    }

    /// Whether a key is typed into the field rather than run as a command: any printable key
    /// on a typed field's row (a digit is part of a number, not a jump to a row).
    pub(super) fn types_into_field(&self, key: Key) -> bool {
        matches!(key, Key::Char(_))
            && self.mode == Mode::Browse
            && self.is_typed_field(self.tab)
            && self.focused_row() == Some(Row::Freeform)
    }

    /// Going on from field `index` (Enter, `Next`): refused, with the message shown, while
    /// its value does not fit.
    pub(super) fn refuses_to_leave(&mut self, index: usize) -> bool {
        if self.misfit(index).is_none() {
            return false;
        }
        if let Some(state) = self.tabs.get_mut(index) {
            state.tried = true;
        }
        true
    }

    /// Submitting the form: refused while any field's value does not fit; the first such
    /// field is shown, with its message.
    pub(super) fn refuses_to_submit(&mut self) -> bool {
        let unfit: Vec<usize> = (0..self.question_count())
            .filter(|i| self.misfit(*i).is_some())
            .collect();
        let Some(&first) = unfit.first() else {
            return false;
        };
        for i in unfit {
            if let Some(state) = self.tabs.get_mut(i) {
                state.tried = true;
            }
        }
        self.tab = first;
        self.mode = Mode::Browse;
        true
    }
}
