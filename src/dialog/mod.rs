//! The dialog for one questionnaire: its state, and what each key does to it.
//!
//! A state machine with no Zellij types: `handle(input) -> Response`, `tick(ms) -> Response`.
//! Rendering (in `view`) only reads this state.

pub mod editor;

use crate::envelope::{Answer, Outcome, Responses};
use crate::request::Questionnaire;
pub use editor::{Edit, Editor};
use std::rc::Rc;

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

/// What an input did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// Nothing changed: no new frame needed.
    Unchanged,
    /// Draw a new frame.
    Render,
    /// Hide the popup; the request stays pending.
    Hide,
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
    /// Shared, not copied, when the dialog is (to measure another tab, or carried over to a
    /// request that supersedes this one): previews can be large.
    questionnaire: Rc<Questionnaire>,
    tab: usize,
    tabs: Vec<TabState>,
    submit_focus: usize,
    global_note: Editor,
    mode: Mode,
    esc_armed: bool,
    countdown: Option<Countdown>,
    context_expanded: bool,
}

/// The Submit tab's choices.
pub const SUBMIT_CHOICES: [&str; 2] = ["Submit answers", "Cancel"];

impl Dialog {
    pub fn new(questionnaire: Questionnaire) -> Self {
        let tabs = questionnaire
            .questions
            .iter()
            .map(|q| TabState {
                ticks: vec![false; q.options.len()],
                ..TabState::default()
            })
            .collect();
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
            || self.questionnaire.questions.iter().any(|q| q.multi_select)
    }

    pub fn tab_count(&self) -> usize {
        self.question_count() + usize::from(self.has_submit_tab())
    }

    pub fn on_submit_tab(&self) -> bool {
        self.tab >= self.question_count()
    }

    /// The rows of question `q`, in display order.
    pub fn rows(&self, q: usize) -> Vec<Row> {
        let Some(question) = self.questionnaire.questions.get(q) else {
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

    /// The answer question `q` would be submitted with now. A draft that was never committed
    /// still counts when nothing else was chosen: typed text is never lost.
    pub fn answer(&self, q: usize) -> Option<Answer> {
        let state = self.tabs.get(q)?;
        let question = self.questionnaire.questions.get(q)?;
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

    pub fn is_answered(&self, q: usize) -> bool {
        self.answer(q).is_some()
    }

    /// Everything the user has left so far.
    pub fn responses(&self) -> Responses {
        let n = self.question_count();
        Responses {
            answers: (0..n).map(|q| self.answer(q)).collect(),
            notes: self
                .tabs
                .iter()
                .map(|t| t.note.text().trim().to_owned())
                .collect(),
            global_note: self.global_note.text().trim().to_owned(),
        }
    }

    /// Whether a cancel would throw away something the user gave.
    fn has_something_to_lose(&self) -> bool {
        !self.responses().is_empty() || self.tabs.iter().any(|t| !t.draft.is_blank())
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

    /// Handles one input.
    pub fn handle(&mut self, input: Input) -> Response {
        // Any input stops the countdown for good: the user is here.
        let stopped = self.countdown.take().is_some();
        let response = match input {
            Input::Key(Key::Hide) => Response::Hide,
            Input::Key(key) => self.key(key),
            Input::Paste(text) => self.paste(&text),
            Input::Click(target) => {
                self.esc_armed = false;
                self.click(target)
            }
            Input::Wheel { lines } => self.wheel(lines),
        };
        if stopped && response == Response::Unchanged {
            Response::Render
        } else {
            response
        }
    }

    fn key(&mut self, key: Key) -> Response {
        if key == Key::Esc {
            return self.escape();
        }
        let was_armed = std::mem::replace(&mut self.esc_armed, false);
        let response = match self.mode {
            Mode::Note => self.note_key(key),
            Mode::Typing => self.typing_key(key),
            Mode::Browse if self.on_submit_tab() => self.submit_key(key),
            Mode::Browse => self.question_key(key),
        };
        if was_armed && response == Response::Unchanged {
            Response::Render
        } else {
            response
        }
    }

    /// Esc leaves an editor (keeping the text); otherwise it cancels, asking once more when
    /// there is something to lose.
    fn escape(&mut self) -> Response {
        match self.mode {
            Mode::Note | Mode::Typing => {
                self.mode = Mode::Browse;
                Response::Render
            }
            Mode::Browse => {
                if self.esc_armed || !self.has_something_to_lose() {
                    Response::Finished(Outcome::Declined(self.responses()))
                } else {
                    self.esc_armed = true;
                    Response::Render
                }
            }
        }
    }

    fn paste(&mut self, text: &str) -> Response {
        self.esc_armed = false;
        let edited = match self.mode {
            Mode::Note => self.note_editor().insert(text),
            Mode::Typing => self.draft_editor().insert(text),
            Mode::Browse => {
                // Pasting on the free-form row starts typing there.
                if self.focused_row() == Some(Row::Freeform) {
                    self.mode = Mode::Typing;
                    self.draft_editor().insert(text);
                    Edit::Changed
                } else {
                    Edit::Nothing
                }
            }
        };
        if edited == Edit::Nothing {
            Response::Unchanged
        } else {
            Response::Render
        }
    }

    fn note_editor(&mut self) -> &mut Editor {
        let tab = self.tab;
        match self.tabs.get_mut(tab) {
            Some(state) => &mut state.note,
            None => &mut self.global_note,
        }
    }

    fn draft_editor(&mut self) -> &mut Editor {
        let tab = self.tab;
        match self.tabs.get_mut(tab) {
            Some(state) => &mut state.draft,
            // The Submit tab has no draft; typing never starts there.
            None => &mut self.global_note,
        }
    }

    /// Keys shared by both editors. Returns None for keys the editor does not handle.
    fn edit(editor: &mut Editor, key: Key) -> Option<Edit> {
        Some(match key {
            Key::Char(c) => editor.insert_char(c),
            Key::AltEnter => editor.insert_char('\n'),
            Key::Backspace => editor.backspace(),
            Key::Delete => editor.delete(),
            Key::Left => editor.left(),
            Key::Right => editor.right(),
            Key::Home => editor.home(),
            Key::End => editor.end(),
            Key::ClearLine => editor.clear(),
            _ => return None,
        })
    }

    fn note_key(&mut self, key: Key) -> Response {
        if key == Key::Enter {
            self.mode = Mode::Browse;
            return Response::Render;
        }
        match Self::edit(self.note_editor(), key) {
            Some(Edit::Nothing) | None => Response::Unchanged,
            Some(_) => Response::Render,
        }
    }

    fn typing_key(&mut self, key: Key) -> Response {
        match key {
            Key::Enter => self.confirm(),
            Key::Up | Key::Down => {
                self.mode = Mode::Browse;
                self.question_key(key)
            }
            Key::ToggleContext => self.question_key(key),
            _ => match Self::edit(self.draft_editor(), key) {
                Some(Edit::Nothing) | None => Response::Unchanged,
                Some(_) => Response::Render,
            },
        }
    }

    fn question_key(&mut self, key: Key) -> Response {
        let rows = self.rows(self.tab);
        let count = rows.len();
        match key {
            Key::Up => self.focus(self.current_focus().checked_sub(1).unwrap_or(count - 1)),
            Key::Down => self.focus((self.current_focus() + 1) % count),
            Key::Char(c @ '1'..='9') => {
                // Numbered rows: the options, `Type something.`, and `Chat about this`.
                let n = c as usize - '0' as usize;
                match numbered_row(&rows, n) {
                    Some(row) => self.focus(row),
                    None => Response::Unchanged,
                }
            }
            Key::Enter => self.confirm(),
            Key::Char(' ') => self.toggle(),
            Key::Tab | Key::Right => self.switch_tab(1),
            Key::BackTab | Key::Left => self.switch_tab(-1),
            Key::Char('n') => {
                self.mode = Mode::Note;
                Response::Render
            }
            Key::PageDown => self.scroll_preview(8),
            Key::PageUp => self.scroll_preview(-8),
            Key::ToggleContext => self.toggle_context(),
            Key::Char('c') if self.current_question_has_context() => self.toggle_context(),
            Key::Char(c) if self.focused_row() == Some(Row::Freeform) => {
                // Back on the free-form row after Esc: typing resumes.
                self.mode = Mode::Typing;
                self.draft_editor().insert_char(c);
                Response::Render
            }
            _ => Response::Unchanged,
        }
    }

    fn current_question_has_context(&self) -> bool {
        self.questionnaire
            .questions
            .get(self.tab)
            .is_some_and(|q| q.context.is_some())
    }

    fn toggle_context(&mut self) -> Response {
        if !self.current_question_has_context() {
            return Response::Unchanged;
        }
        self.context_expanded = !self.context_expanded;
        Response::Render
    }

    fn submit_key(&mut self, key: Key) -> Response {
        match key {
            Key::Up | Key::Down => {
                self.submit_focus = 1 - self.submit_focus.min(1);
                Response::Render
            }
            Key::Char('1') => self.set_submit_focus(0),
            Key::Char('2') => self.set_submit_focus(1),
            Key::Enter => self.confirm_submit(),
            Key::Tab | Key::Right => self.switch_tab(1),
            Key::BackTab | Key::Left => self.switch_tab(-1),
            Key::Char('n') => {
                self.mode = Mode::Note;
                Response::Render
            }
            _ => Response::Unchanged,
        }
    }

    fn set_submit_focus(&mut self, i: usize) -> Response {
        if self.submit_focus == i {
            Response::Unchanged
        } else {
            self.submit_focus = i;
            Response::Render
        }
    }

    fn confirm_submit(&mut self) -> Response {
        if self.submit_focus == 0 {
            Response::Finished(Outcome::Submitted(self.responses()))
        } else {
            Response::Finished(Outcome::Declined(self.responses()))
        }
    }

    fn current_focus(&self) -> usize {
        self.tabs.get(self.tab).map_or(0, |t| t.focus)
    }

    /// Moves the focus of the current question to row `index`. Focusing the free-form row starts
    /// typing at once.
    fn focus(&mut self, index: usize) -> Response {
        let rows = self.rows(self.tab);
        let Some(row) = rows.get(index).copied() else {
            return Response::Unchanged;
        };
        let Some(state) = self.tabs.get_mut(self.tab) else {
            return Response::Unchanged;
        };
        if state.focus != index {
            state.focus = index;
            state.preview_scroll = 0;
        }
        self.mode = if row == Row::Freeform {
            Mode::Typing
        } else {
            Mode::Browse
        };
        Response::Render
    }

    /// Enter on the focused row.
    fn confirm(&mut self) -> Response {
        let Some(row) = self.focused_row() else {
            return Response::Unchanged;
        };
        let multi = self.current_is_multi();
        let tab = self.tab;
        match row {
            Row::Chat => {
                // The question the user wants to talk about gains no answer: not an earlier
                // pick, not a draft. What they gave elsewhere stays.
                let mut responses = self.responses();
                if let Some(answer) = responses.answers.get_mut(tab) {
                    *answer = None;
                }
                Response::Finished(Outcome::ChatRequested {
                    question: tab,
                    responses,
                })
            }
            Row::Option(_) if multi => self.toggle(),
            Row::Option(i) => {
                if let Some(state) = self.tabs.get_mut(tab) {
                    state.choice = Some(Choice::Option(i));
                }
                self.advance()
            }
            Row::Freeform if multi => {
                // The typed text is already part of the answer; go to `Next`.
                let next = self.rows(tab).iter().position(|r| *r == Row::Next);
                match next {
                    Some(i) => self.focus(i),
                    None => Response::Unchanged,
                }
            }
            Row::Freeform => {
                if let Some(state) = self.tabs.get_mut(tab) {
                    state.choice = Some(Choice::Freeform);
                }
                self.mode = Mode::Browse;
                self.advance()
            }
            Row::Next => self.advance(),
        }
    }

    /// Whether the current tab is a multi-select question.
    fn current_is_multi(&self) -> bool {
        self.questionnaire
            .questions
            .get(self.tab)
            .is_some_and(|q| q.multi_select)
    }

    /// After a question is answered: the next tab, or the end of a one-question dialog.
    fn advance(&mut self) -> Response {
        if !self.has_submit_tab() {
            return Response::Finished(Outcome::Submitted(self.responses()));
        }
        self.go_to_tab(self.tab + 1);
        Response::Render
    }

    fn toggle(&mut self) -> Response {
        let Some(Row::Option(i)) = self.focused_row() else {
            return Response::Unchanged;
        };
        if !self.current_is_multi() {
            return Response::Unchanged;
        }
        match self.tabs.get_mut(self.tab).and_then(|t| t.ticks.get_mut(i)) {
            Some(tick) => {
                *tick = !*tick;
                Response::Render
            }
            None => Response::Unchanged,
        }
    }

    fn switch_tab(&mut self, delta: isize) -> Response {
        let count = self.tab_count();
        if count < 2 {
            return Response::Unchanged;
        }
        let next = (self.tab as isize + delta).rem_euclid(count as isize) as usize;
        self.go_to_tab(next);
        Response::Render
    }

    /// A copy of the dialog showing tab `tab`, for measuring how tall each tab is (the
    /// questionnaire is shared, not copied).
    pub fn on_tab(&self, tab: usize) -> Dialog {
        let mut copy = self.clone();
        copy.go_to_tab(tab);
        copy
    }

    /// Arriving on a tab never starts typing, even when its focus was left on the free-form
    /// row: Tab and Shift+Tab must keep switching tabs. A printable key there resumes typing.
    fn go_to_tab(&mut self, tab: usize) {
        self.tab = tab.min(self.tab_count().saturating_sub(1));
        self.mode = Mode::Browse;
        if self.on_submit_tab() {
            self.submit_focus = 0;
        }
    }

    fn scroll_preview(&mut self, lines: isize) -> Response {
        let Some(state) = self.tabs.get_mut(self.tab) else {
            return Response::Unchanged;
        };
        let before = state.preview_scroll;
        state.preview_scroll = before.saturating_add_signed(lines);
        // The renderer clamps to the preview's length; a scroll past the end is undone there
        // via `clamp_preview_scroll`.
        if state.preview_scroll == before {
            Response::Unchanged
        } else {
            Response::Render
        }
    }

    /// Keeps the preview scroll within `max` (the renderer knows the preview's height).
    pub fn clamp_preview_scroll(&mut self, max: usize) {
        if let Some(state) = self.tabs.get_mut(self.tab) {
            state.preview_scroll = state.preview_scroll.min(max);
        }
    }

    fn click(&mut self, target: Target) -> Response {
        match target {
            Target::Tab(i) if i < self.tab_count() => {
                if i == self.tab {
                    return Response::Unchanged;
                }
                self.go_to_tab(i);
                Response::Render
            }
            Target::Row(i) if !self.on_submit_tab() => {
                // A click picks an option (or ticks it) at once; `Chat about this`, which
                // ends the dialog, takes a second click, and the free-form row starts typing.
                let already = self.current_focus() == i;
                let response = self.focus(i);
                match self.focused_row() {
                    Some(Row::Option(_) | Row::Next) => self.confirm(),
                    Some(Row::Chat) if already => self.confirm(),
                    _ => response,
                }
            }
            Target::SubmitChoice(i) if self.on_submit_tab() && i < 2 => {
                self.submit_focus = i;
                self.confirm_submit()
            }
            _ => Response::Unchanged,
        }
    }

    fn wheel(&mut self, lines: i32) -> Response {
        if self.on_submit_tab() {
            return Response::Unchanged;
        }
        self.scroll_preview(lines as isize)
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
