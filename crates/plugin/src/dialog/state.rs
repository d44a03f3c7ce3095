//! The dialog's state: the questionnaire, its tabs and their answers, the mode, the countdown;
//! and what it tells the broker after each input (`Response`).

use super::editor::Editor;
use super::user_input::*;
use ask_popup_protocol::envelope::{Answer, Outcome, Responses};
use ask_popup_protocol::request::Questionnaire;
use std::rc::Rc;

/// What an input did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// Nothing changed: no new frame needed.
    Unchanged,
    /// Draw a new frame.
    Render,
    /// Hide the popup; the request stays pending.
    Hide,
    /// Show the list of the questionnaires asked before (the request stays pending).
    History,
    /// The questionnaire is over.
    Finished(Outcome),
}

/// A row of a question tab, in display order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    Option(usize),
    /// `Type something.`: the inline free-form editor.
    Freeform,
    /// Multi-select only: commit the ticks and go on (`Next`, or `Submit` on the last question).
    Next,
    /// `Chat about this`.
    Chat,
}

/// A single-select question's committed choice. Typed text lives in the draft, so the choice
/// `Freeform` always means "whatever the draft says now".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Option(usize),
    Freeform,
}

/// Per-question state: kept while the user moves between tabs.
#[derive(Clone, Debug, Default)]
pub struct TabState {
    pub focus: usize,
    pub choice: Option<Choice>,
    pub ticks: Vec<bool>,
    pub draft: Editor,
    pub note: Editor,
    pub preview_scroll: usize,
    /// A form's field only: the person tried to go on while its value did not fit, so why is
    /// shown (also when it is only empty).
    pub tried: bool,
}

/// Where typed keys go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Moving between rows and tabs.
    Browse,
    /// Typing into the free-form row of the current question.
    Typing,
    /// Typing a note (on the Submit tab: the global note).
    Note,
}

/// The countdown of a request with a timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Countdown {
    pub remaining_ms: u64,
}

/// The whole dialog of one questionnaire.
#[derive(Clone, Debug)]
pub struct Dialog {
    /// Shared, not copied, when the dialog is (carried over to a request that supersedes
    /// this one): previews can be large.
    pub(super) questionnaire: Rc<Questionnaire>,
    pub(super) tab: usize,
    pub(super) tabs: Vec<TabState>,
    pub(super) submit_focus: usize,
    pub(super) global_note: Editor,
    pub(super) mode: Mode,
    pub(super) esc_armed: bool,
    pub(super) countdown: Option<Countdown>,
    pub(super) context_expanded: bool,
}

/// The Submit tab's choices.
pub const SUBMIT_CHOICES: [&str; 2] = ["Submit answers", "Cancel"];

impl Dialog {
    pub fn new(questionnaire: Questionnaire) -> Self {
        let approval = questionnaire.approval;
        let mut tabs: Vec<TabState> = questionnaire
            .questions
            .iter()
            .map(|question| TabState {
                // The option the agent recommends holds the focus when the question first shows;
                // an approval's focus starts on its last option, the agent's Deny (the popup
                // never allows anything by itself).
                focus: if approval {
                    question.options.len().saturating_sub(1)
                } else {
                    question.recommended().unwrap_or(0)
                },
                ticks: vec![false; question.options.len()],
                ..TabState::default()
            })
            .collect();
        if let Some(form) = &questionnaire.form {
            for (index, state) in tabs.iter_mut().enumerate() {
                Dialog::prefill(form, index, state);
            }
        }
        let countdown = questionnaire
            .timeout_ms
            .map(|remaining_ms| Countdown { remaining_ms });
        Dialog {
            questionnaire: Rc::new(questionnaire),
            tab: 0,
            tabs,
            submit_focus: 0,
            global_note: Editor::new(),
            mode: Mode::Browse,
            esc_armed: false,
            countdown,
            context_expanded: false,
        }
    }

    pub fn questionnaire(&self) -> &Questionnaire {
        &self.questionnaire
    }
    pub fn tab(&self) -> usize {
        self.tab
    }
    pub fn tab_state(&self, i: usize) -> Option<&TabState> {
        self.tabs.get(i)
    }
    pub fn mode(&self) -> Mode {
        self.mode
    }
    pub fn esc_armed(&self) -> bool {
        self.esc_armed
    }
    pub fn countdown(&self) -> Option<Countdown> {
        self.countdown
    }
    pub fn context_expanded(&self) -> bool {
        self.context_expanded
    }
    pub fn submit_focus(&self) -> usize {
        self.submit_focus
    }
    pub fn global_note(&self) -> &Editor {
        &self.global_note
    }
    pub fn question_count(&self) -> usize {
        self.questionnaire.questions.len()
    }

    /// The Submit tab exists when there is more than one question or any multi-select one;
    /// a lone single-select question submits on Enter.
    pub fn has_submit_tab(&self) -> bool {
        self.questionnaire.questions.len() > 1
            || self
                .questionnaire
                .questions
                .iter()
                .any(|question| question.multi_select)
    }

    pub fn tab_count(&self) -> usize {
        self.question_count() + usize::from(self.has_submit_tab())
    }

    pub fn on_submit_tab(&self) -> bool {
        self.tab >= self.question_count()
    }

    /// The rows of question `index`, in display order.
    pub fn rows(&self, index: usize) -> Vec<Row> {
        if self.questionnaire.form.is_some() {
            return self.form_rows(index);
        }
        let Some(question) = self.questionnaire.questions.get(index) else {
            return Vec::new();
        };
        let mut rows: Vec<Row> = (0..question.options.len()).map(Row::Option).collect();
        rows.push(Row::Freeform);
        if question.multi_select {
            rows.push(Row::Next);
        }
        rows.push(Row::Chat);
        rows
    }

    /// The focused row of the current question tab.
    pub fn focused_row(&self) -> Option<Row> {
        let state = self.tabs.get(self.tab)?;
        self.rows(self.tab).get(state.focus).copied()
    }

    /// The answer question `index` would be submitted with now. A draft that was never committed
    /// still counts when nothing else was chosen: typed text is never lost.
    pub fn answer(&self, index: usize) -> Option<Answer> {
        let state = self.tabs.get(index)?;
        let question = self.questionnaire.questions.get(index)?;
        let draft = state.draft.text();
        if question.multi_select {
            let ticked: Vec<usize> = state
                .ticks
                .iter()
                .enumerate()
                .filter(|(_, t)| **t)
                .map(|(i, _)| i)
                .collect();
            let text = (!state.draft.is_blank()).then(|| draft.trim().to_owned());
            if ticked.is_empty() && text.is_none() {
                return None;
            }
            return Some(Answer::Multi { ticked, text });
        }
        match state.choice {
            Some(Choice::Option(i)) => Some(Answer::Option(i)),
            Some(Choice::Freeform) => Some(Answer::Custom(draft.trim().to_owned())),
            None if !state.draft.is_blank() => Some(Answer::Custom(draft.trim().to_owned())),
            None => None,
        }
    }

    /// Whether question `index` has an answer (a form's field: one that fits).
    pub fn is_answered(&self, index: usize) -> bool {
        self.answer(index).is_some() && self.misfit(index).is_none()
    }

    /// The questions not answered yet that have an option marked `(Recommended)`.
    pub fn unanswered_with_recommendation(&self) -> Vec<usize> {
        (0..self.question_count())
            .filter(|i| !self.is_answered(*i))
            .filter(|i| {
                self.questionnaire
                    .questions
                    .get(*i)
                    .is_some_and(|q| q.recommended().is_some())
            })
            .collect()
    }

    /// Answers every question not answered yet with its recommended option (a multi-select
    /// question: every option marked so, ticked).
    pub fn accept_recommended(&mut self) -> Response {
        let questions = self.unanswered_with_recommendation();
        if questions.is_empty() {
            return Response::Unchanged;
        }
        for i in questions {
            let (Some(question), Some(state)) =
                (self.questionnaire.questions.get(i), self.tabs.get_mut(i))
            else {
                continue;
            };
            if question.multi_select {
                for (tick, option) in state.ticks.iter_mut().zip(&question.options) {
                    *tick |= option.is_recommended();
                }
            } else {
                state.choice = question.recommended().map(Choice::Option);
            }
        }
        Response::Render
    }

    /// Everything the user has left so far.
    pub fn responses(&self) -> Responses {
        let n = self.question_count();
        Responses {
            answers: (0..n).map(|index| self.answer(index)).collect(),
            notes: self
                .tabs
                .iter()
                .map(|t| t.note.text().trim().to_owned())
                .collect(),
            global_note: self.global_note.text().trim().to_owned(),
        }
    }

    /// Whether a cancel would throw away something the user gave.
    pub(super) fn has_something_to_lose(&self) -> bool {
        if self.questionnaire.form.is_some() {
            return self.form_changed();
        }
        !self.responses().is_empty() || self.tabs.iter().any(|t| !t.draft.is_blank())
    }

    /// The countdown as another instance has it: `remaining_ms` left, or none (stopped, or no
    /// timeout).
    pub fn set_countdown(&mut self, remaining_ms: Option<u64>) {
        self.countdown = remaining_ms.map(|remaining_ms| Countdown { remaining_ms });
    }

    /// Stops the countdown for good: the user is here (in another client's popup).
    pub fn stop_countdown(&mut self) {
        self.countdown = None;
    }

    /// Advances the countdown; at zero the request resolves as timed out.
    pub fn tick(&mut self, elapsed_ms: u64) -> Response {
        let Some(countdown) = self.countdown.as_mut() else {
            return Response::Unchanged;
        };
        let before = countdown.remaining_ms.div_ceil(1000);
        countdown.remaining_ms = countdown.remaining_ms.saturating_sub(elapsed_ms);
        if countdown.remaining_ms == 0 {
            self.countdown = None;
            return Response::Finished(Outcome::TimedOut(self.responses()));
        }
        if countdown.remaining_ms.div_ceil(1000) == before {
            Response::Unchanged
        } else {
            Response::Render
        }
    }
}

/// What keeps an approval's `Allow` from being picked by keys that are not the person's: the
/// options that allow, and whether an input would pick one. (Zellij gives a key no sign of
/// where it came from: `zellij action write-chars` from any process, and keys typed ahead
/// into another pane, reach the popup as the person's own do. The broker drops an input that
/// would allow unless a pause came before it: see `Broker::input`.)
impl Dialog {
    /// Whether option `option` of the question allows: on an approval, every option but
    /// `Deny` (an approval asked with other labels has each of them guarded alike); on any
    /// other questionnaire, none.
    pub fn allows(&self, option: usize) -> bool {
        self.questionnaire.approval
            && self
                .questionnaire
                .questions
                .get(self.tab)
                .and_then(|question| question.options.get(option))
                .is_some_and(|o| o.label != ask_popup_protocol::approval::DENY)
    }

    /// Whether the focus rests on an option that allows, where Enter would pick it.
    pub fn focus_allows(&self) -> bool {
        self.mode == Mode::Browse
            && matches!(self.focused_row(), Some(Row::Option(i)) if self.allows(i))
    }

    /// Whether `input` would answer this approval with an option that allows.
    pub fn would_allow(&self, input: &Input) -> bool {
        if !self.questionnaire.approval {
            return false;
        }
        let mut tried = self.clone();
        match tried.handle(input.clone()) {
            Response::Finished(Outcome::Submitted(responses)) => {
                matches!(responses.answers.first(), Some(Some(Answer::Option(i))) if self.allows(*i))
            }
            _ => false,
        }
    }

    /// Whether the rows carry numbers that a digit focuses. An approval's do not: a digit
    /// there is no way to an `Allow` (a `1` then Enter from another process, or typed for
    /// another pane, would pick `Allow once`), and a numbering with gaps would promise keys
    /// that do nothing; its few rows are reached with the arrows.
    pub fn numbers_rows(&self) -> bool {
        !self.questionnaire.approval
    }
}

/// The row that carries number `n` (1-based): the options and `Type something.` are numbered
/// in order, then `Chat about this`; `Next` has no number.
pub fn numbered_row(rows: &[Row], n: usize) -> Option<usize> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| **r != Row::Next)
        .nth(n.checked_sub(1)?)
        .map(|(i, _)| i)
}

/// The number shown before row `index`, if it has one.
pub fn row_number(rows: &[Row], index: usize) -> Option<usize> {
    if rows.get(index) == Some(&Row::Next) {
        return None;
    }
    Some(
        rows[..index.min(rows.len())]
            .iter()
            .filter(|r| **r != Row::Next)
            .count()
            + 1,
    )
}
