//! What each input does to the dialog: the commands keys are bound to (`keymap.rs`), pasted
//! text, clicks and the wheel.

use super::editor::*;
use super::keymap::Command;
use super::state::*;
use super::user_input::*;
use ask_popup_protocol::envelope::Outcome;

impl Dialog {
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

    /// A key runs the command the current mode's keymap binds it to; an unbound printable key
    /// is typed where typing goes.
    fn key(&mut self, key: Key) -> Response {
        let command = if self.types_into_field(key) {
            None
        } else {
            self.command_for(key)
        };
        if command == Some(Command::Escape) {
            return self.escape();
        }
        let was_armed = std::mem::replace(&mut self.esc_armed, false);
        let response = match command {
            Some(command) => self.run(command, key),
            None => self.unbound(key),
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

    /// What a bound key does, in the current mode (each mode's keymap holds only its own
    /// commands).
    fn run(&mut self, command: Command, key: Key) -> Response {
        let submit = self.on_submit_tab();
        match command {
            Command::Escape => self.escape(),
            Command::Confirm if submit => self.confirm_submit(),
            Command::Confirm => self.confirm(),
            Command::SaveNote => {
                self.mode = Mode::Browse;
                Response::Render
            }
            Command::Move if submit => {
                self.submit_focus = 1 - self.submit_focus.min(1);
                Response::Render
            }
            Command::Move => self.move_focus(key),
            Command::LeaveTyping => {
                self.mode = Mode::Browse;
                self.move_focus(key)
            }
            Command::Jump => match key {
                Key::Char(c @ '1'..='9') => {
                    let n = c as usize - '0' as usize;
                    if submit {
                        self.set_submit_focus(n - 1)
                    } else {
                        // Numbered rows: the options, `Type something.`, and `Chat about this`.
                        match numbered_row(&self.rows(self.tab), n) {
                            Some(row) => self.focus(row),
                            None => Response::Unchanged,
                        }
                    }
                }
                _ => Response::Unchanged,
            },
            Command::Toggle => self.toggle(),
            Command::OpenNote => {
                self.mode = Mode::Note;
                Response::Render
            }
            Command::History => Response::History,
            Command::AcceptRecommended => self.accept_recommended(),
            Command::Scroll => match key {
                Key::PageDown => self.scroll_preview(8),
                _ => self.scroll_preview(-8),
            },
            Command::SwitchTab => match key {
                Key::Tab | Key::Right => self.switch_tab(1),
                _ => self.switch_tab(-1),
            },
            Command::ToggleContext => self.toggle_context(),
            Command::ContextLetter if self.current_question_has_context() => self.toggle_context(),
            Command::ContextLetter => self.unbound(key),
            Command::Edit => self.edit_open_editor(key),
        }
    }

    /// ↑ or ↓ on a question's rows, wrapping around.
    fn move_focus(&mut self, key: Key) -> Response {
        let count = self.rows(self.tab).len();
        match key {
            Key::Up => self.focus(self.current_focus().checked_sub(1).unwrap_or(count - 1)),
            _ => self.focus((self.current_focus() + 1) % count),
        }
    }

    /// A key no binding takes: typed into the open editor, or, back on the free-form row after
    /// Esc, typing resumes there; anything else does nothing.
    fn unbound(&mut self, key: Key) -> Response {
        match self.mode {
            Mode::Note | Mode::Typing => self.edit_open_editor(key),
            Mode::Browse => match key {
                Key::Char(c)
                    if !self.on_submit_tab() && self.focused_row() == Some(Row::Freeform) =>
                {
                    self.mode = Mode::Typing;
                    self.draft_editor().insert_char(c);
                    Response::Render
                }
                _ => Response::Unchanged,
            },
        }
    }

    /// An editor key in the note or the draft, whichever is open.
    fn edit_open_editor(&mut self, key: Key) -> Response {
        let editor = match self.mode {
            Mode::Note => self.note_editor(),
            Mode::Typing => self.draft_editor(),
            Mode::Browse => return Response::Unchanged,
        };
        match Self::edit(editor, key) {
            Some(Edit::Nothing) | None => Response::Unchanged,
            Some(_) => Response::Render,
        }
    }

    fn current_question_has_context(&self) -> bool {
        self.questionnaire
            .questions
            .get(self.tab)
            .is_some_and(|question| question.context.is_some())
    }

    fn toggle_context(&mut self) -> Response {
        if !self.current_question_has_context() {
            return Response::Unchanged;
        }
        self.context_expanded = !self.context_expanded;
        Response::Render
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
        if self.submit_focus == 0 && self.refuses_to_submit() {
            Response::Render
        } else if self.submit_focus == 0 {
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
            Row::Freeform | Row::Next if self.refuses_to_leave(tab) => Response::Render,
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
            .is_some_and(|question| question.multi_select)
    }

    /// After a question is answered: the next tab, or the end of a one-question dialog.
    fn advance(&mut self) -> Response {
        if !self.has_submit_tab() && self.refuses_to_submit() {
            return Response::Render;
        }
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

    /// The largest `measure` of the dialog showing each of its tabs in turn, as arriving there
    /// shows it; the dialog is then put back exactly as it was. Measuring this way copies
    /// nothing (a copy per tab would copy its editors, for every fit of the popup).
    pub fn measure_tabs(&mut self, mut measure: impl FnMut(&Dialog) -> usize) -> usize {
        self.put_back_after(|dialog| {
            let mut tallest = 0;
            for shown in 0..dialog.tab_count() {
                dialog.go_to_tab(shown);
                tallest = tallest.max(measure(dialog));
            }
            tallest
        })
    }

    /// `f` of the dialog showing tab `tab` with the focus on its row `row`, as moving there
    /// shows it (browsing, the preview scrolled as that tab left it); the dialog is then put
    /// back exactly as it was. For laying out ahead of time what a key could show next.
    pub fn with_focus<R>(&mut self, tab: usize, row: usize, f: impl FnOnce(&Dialog) -> R) -> R {
        self.put_back_after(|dialog| {
            dialog.go_to_tab(tab);
            let shown = dialog.tab;
            let focus = dialog
                .tabs
                .get_mut(shown)
                .map(|state| std::mem::replace(&mut state.focus, row));
            let out = f(dialog);
            if let (Some(was), Some(state)) = (focus, dialog.tabs.get_mut(shown)) {
                state.focus = was;
            }
            out
        })
    }

    /// `f` of this dialog, which is then put back on the tab, in the mode and with the Submit
    /// tab's focus it had (what showing another tab changes).
    fn put_back_after<R>(&mut self, f: impl FnOnce(&mut Dialog) -> R) -> R {
        let (tab, mode, submit_focus) = (self.tab, self.mode, self.submit_focus);
        let out = f(self);
        self.tab = tab;
        self.mode = mode;
        self.submit_focus = submit_focus;
        out
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
