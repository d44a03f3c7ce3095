//! The popup on screen: which request shows, its countdown and key guard, input, and the
//! frames drawn for it.

use crate::broker::{config::*, pipes::*, request::*, screen::OnScreen, state::Broker};
use crate::dialog::{key_of, Input, Key, KeyPress, Mode, Response};
use crate::effect::Effect;
use crate::outgoing::PeerKind;
use crate::view::{lay_out_ahead, natural_height, render, Chrome, Frame, Theme};
use ask_popup_protocol::envelope::{ErrorCode, Outcome};

impl Broker {
    /// The bring-back binding (the `show` pipe): the questions that wait, or with none the list
    /// of those asked before.
    pub(super) fn show_or_list(&mut self, effects: &mut Vec<Effect>) {
        if self.queue.is_empty() && self.config.history {
            effects.push(Effect::OpenHistory);
        } else {
            self.show(effects);
        }
    }

    pub(super) fn show(&mut self, effects: &mut Vec<Effect>) {
        if self.queue.is_empty() {
            return;
        }
        // A question to answer comes before the list of those answered.
        self.history = None;
        self.visible = true;
        effects.push(Effect::SetOwnTitle(self.own_title()));
        let placed_elsewhere = self.gate.hears_hellos() && !self.peers.first_seen();
        effects.push(if placed_elsewhere {
            Effect::ShowAsPlaced
        } else {
            Effect::Show
        });
        effects.push(Effect::Render);
        self.on_screen_changed(true, effects);
    }

    /// What is on screen may have changed (shown, hidden, switched, resolved, covered by the
    /// list): `shown` when the popup shows, which takes the focus. The one place that puts a
    /// request on screen: anew, with a key guard of its own, each time the popup shows, or
    /// another request comes on screen, or the one that was on screen comes back. And only
    /// the one on screen counts down, from when it came on screen.
    pub(super) fn on_screen_changed(&mut self, shown: bool, effects: &mut Vec<Effect>) {
        let now = self.now_ms;
        // The list of questionnaires covers the question: it is not on screen.
        let (current, visible) = (
            self.queue.current_index(),
            self.visible && self.history.is_none(),
        );
        let on_screen = self.queue.get(current).filter(|_| visible);
        self.on_screen = OnScreen::after(self.on_screen.take(), on_screen, shown, now);
        for (i, r) in self.queue.iter_mut().enumerate() {
            if i == current && visible {
                r.counted_to_ms.get_or_insert(now);
            } else {
                r.counted_to_ms = None;
            }
        }
        self.wake_when_settled(effects);
    }

    /// Whether the popup shows request `index` now.
    pub(super) fn is_shown(&self, index: usize) -> bool {
        index == self.queue.current_index() && self.shown().is_some()
    }

    /// The request on screen, as it came there, if the popup shows it.
    fn shown(&self) -> Option<&OnScreen> {
        let r = self.queue.current()?;
        self.on_screen
            .as_ref()
            .filter(|s| s.is_of(r) && self.visible)
    }

    /// Whether keys reach the request on screen (see `KEY_GUARD_MS`): none reach one that is
    /// not.
    pub(super) fn keys_count(&self) -> bool {
        self.shown()
            .is_some_and(|s| self.now_ms >= s.keys_from_ms())
    }

    /// When the popup settles, if it is settling now: keys do not count yet (see
    /// `KEY_GUARD_MS`), or the focus rests on an approval's `Allow` too soon after the latest
    /// input for Enter to pick it. Meanwhile the footer says `…`.
    pub(super) fn settled_at_ms(&self) -> Option<u64> {
        let r = self.queue.current()?;
        let mut at = self.shown()?.keys_from_ms();
        if r.dialog.focus_allows() {
            let paused = self
                .last_input_ms
                .map_or(0, |last| last.saturating_add(KEY_GUARD_MS));
            at = at.max(paused);
        }
        (at > self.now_ms).then_some(at)
    }

    /// While the popup settles, a timer wakes it when it has, to draw the footer's hints (one
    /// timer at a time: one that fires early, or finds the popup settling for longer, sets the
    /// next).
    pub(super) fn wake_when_settled(&mut self, effects: &mut Vec<Effect>) {
        let Some(at) = self.settled_at_ms() else {
            return;
        };
        if let Some(s) = self.on_screen.as_mut() {
            s.set_drawn_ready(false);
        }
        let now = self.now_ms;
        if self
            .settle_timer_ms
            .is_some_and(|due| due > now && due <= at)
        {
            return;
        }
        self.settle_timer_ms = Some(at);
        effects.push(Effect::SetTimer(at.saturating_sub(now) as f64 / 1000.0));
    }

    pub(super) fn own_title(&self) -> String {
        match self.queue.current() {
            Some(r) => format!(
                "ask-popup · {} · {} of {}",
                self.agent_name(r),
                self.queue.current_index() + 1,
                self.queue.len()
            ),
            None => "ask-popup".to_owned(),
        }
    }

    /// A one-second tick runs while anything is pending: it drives the countdowns and the
    /// status line's clock. (What is remembered too long is forgotten on any event: memory
    /// only grows when messages come.) Armed once per event, in `done`.
    pub(super) fn arm_tick(&mut self, effects: &mut Vec<Effect>) {
        if self.tick_due_ms.is_none() && !self.queue.is_empty() {
            self.tick_due_ms = Some(self.now_ms.saturating_add(TICK_MS));
            effects.push(Effect::SetTimer(TICK_MS as f64 / 1000.0));
        }
    }

    /// A timer fired (the clock was set before).
    pub fn timer(&mut self) -> Vec<Effect> {
        let granted = self.grant_unanswered(50);
        if !granted.is_empty() {
            // Granted now: the hellos' window opens.
            return self.done(granted);
        }
        let mut effects = Vec::new();
        if self.gate.hellos_over(self.now_ms) {
            effects.extend(self.release(true));
        }
        if std::mem::take(&mut self.ahead_armed) && self.lay_out_ahead() {
            self.ahead_armed = true;
            effects.push(Effect::SetTimer(AHEAD_STEP_MS as f64 / 1000.0));
        }
        let now = self.now_ms;
        // The tick, or another timer (the key guard's) that fired first.
        if self
            .tick_due_ms
            .is_some_and(|due| now.saturating_add(50) >= due)
        {
            self.tick_due_ms = None;
        }
        self.forget_old(&mut effects);
        let leads = self.leads();
        if let Some(r) = self.queue.current_mut().filter(|r| !r.provisional) {
            if let Some(from) = r.counted_to_ms {
                r.counted_to_ms = Some(now);
                match r.dialog.tick(now.saturating_sub(from)) {
                    // The leader decides timeouts; the others only show the countdown.
                    Response::Finished(outcome) if leads => {
                        let i = self.queue.current_index();
                        self.resolve(i, outcome, Decided::Here, &mut effects);
                    }
                    Response::Finished(_) | Response::Render => effects.push(Effect::Render),
                    _ => {}
                }
            }
        }
        if self
            .settle_timer_ms
            .is_some_and(|due| now.saturating_add(50) >= due)
        {
            self.settle_timer_ms = None;
        }
        let settled = self.settled_at_ms().is_none();
        if let Some(s) = self
            .on_screen
            .as_mut()
            .filter(|s| settled && !s.drawn_ready())
        {
            // The footer's hints replace its `…`.
            s.set_drawn_ready(true);
            effects.push(Effect::Render);
        }
        self.wake_when_settled(&mut effects);
        self.done(effects)
    }

    /// User input in the popup.
    pub fn input(&mut self, input: Input) -> Vec<Effect> {
        let now = self.now_ms;
        // The input before this one, whatever became of it.
        let before = self.last_input_ms.replace(now);
        let mut effects = Vec::new();
        if self.hold_input_in_doubt(&input, &mut effects) {
            // The user acts now: first make sure that this instance may answer.
            return effects;
        }
        if self.showing_history() {
            self.history_input(&input, &mut effects);
            return self.done(effects);
        }
        let keys_count = self.keys_count();
        let leads = self.leads();
        let Some(request) = self.queue.current_mut() else {
            return effects;
        };
        if input != Input::Key(Key::Hide) {
            if !keys_count {
                // A stray key, typed for another pane as the popup appeared: the guard holds
                // until keys stop coming for a moment (a stream typed ahead, or sent by a
                // program, is dropped whole).
                if let Some(s) = self.on_screen.as_mut() {
                    s.guard_from(now);
                }
                self.wake_when_settled(&mut effects);
                return effects;
            }
            if request.provisional {
                // A key for a request not asked yet (only shown while the hellos come in).
                return effects;
            }
            let hasty = before.is_some_and(|before| now < before.saturating_add(KEY_GUARD_MS));
            if hasty && request.dialog.would_allow(&input) {
                // An approval's `Allow` is picked only by an input that comes after a pause:
                // never by the rest of a burst a program sent, nor by a stream typed ahead
                // for another pane (↑ then Enter, to run a shell's last command again). The
                // footer says `…` until the pause has passed.
                effects.push(Effect::Render);
                self.wake_when_settled(&mut effects);
                return effects;
            }
        }
        let browsing = request.dialog.mode() == Mode::Browse;
        if let Input::Key(Key::Char(c @ ('[' | ']'))) = input {
            if browsing {
                if self.queue.switch(c == ']') {
                    effects.push(Effect::SetOwnTitle(self.own_title()));
                    effects.push(Effect::FitAnew);
                    effects.push(Effect::Render);
                    self.on_screen_changed(false, &mut effects);
                }
                return self.done(effects);
            }
        }
        let counting = request.dialog.countdown().is_some();
        let before = (request.dialog.tab(), request.dialog.mode());
        let response = request.dialog.handle(input);
        // The user is here: the leader's countdown stops too.
        let touched = (counting && request.dialog.countdown().is_none() && !leads).then(|| {
            PeerKind::Touched {
                pipe: request.pipe.clone(),
            }
        });
        match response {
            Response::Unchanged => {}
            Response::Render => {
                effects.push(Effect::Render);
                if (request.dialog.tab(), request.dialog.mode()) != before {
                    effects.push(Effect::Fit);
                }
            }
            Response::Hide => {
                self.visible = false;
                effects.push(Effect::Hide);
                self.on_screen_changed(false, &mut effects);
            }
            Response::History => effects.push(Effect::OpenHistory),
            Response::Finished(outcome) => {
                let i = self.queue.current_index();
                self.resolve(i, outcome, Decided::Here, &mut effects);
            }
        }
        if let Some(touched) = touched {
            effects.push(self.peers.message(touched));
        }
        // The focus that came to rest on an approval's `Allow` settles first.
        self.wake_when_settled(&mut effects);
        self.done(effects)
    }

    /// A key pressed in the popup, as the terminal sent it.
    pub fn key(&mut self, press: KeyPress) -> Vec<Effect> {
        if let Some(effects) = self.go_to_asking_session(press) {
            return effects;
        }
        let key = key_of(press, self.config.hide_key.as_ref());
        self.input(Input::Key(key))
    }

    /// A click at a cell of the popup.
    pub fn click(&mut self, line: usize, col: usize) -> Vec<Effect> {
        match self
            .last_frame
            .as_ref()
            .and_then(|f| f.target_at(line, col))
        {
            Some(target) => self.input(Input::Click(target)),
            None => Vec::new(),
        }
    }

    /// The mouse wheel: negative lines scroll up.
    pub fn wheel(&mut self, lines: i32) -> Vec<Effect> {
        self.input(Input::Wheel { lines })
    }

    /// How many rows the current dialog needs at `cols` columns to show all of its tallest tab
    /// (0 when nothing is pending), so the popup can be no taller than that; at most `limit`
    /// (the most the popup can give it: see `view::natural_height`).
    pub fn natural_height(&mut self, cols: usize, limit: usize) -> usize {
        if self.showing_history() {
            return limit;
        }
        let chrome = self.chrome();
        match self.queue.current_mut() {
            Some(r) => natural_height(&mut r.dialog, &mut r.cache, &chrome, cols, limit),
            None => 0,
        }
    }

    /// An event asked for a frame, drawn next: while the user reads it, what a key could show
    /// next is laid out ahead, a step per timer of `AHEAD_STEP_MS` (see `view::lay_out_ahead`),
    /// at the size of the frames drawn, so the key draws from the cache.
    pub fn frame_coming(&mut self) -> Vec<Effect> {
        // Not while the gate holds messages: a request only shown then is not laid out ahead
        // (the one asked from its message takes over its layouts, and lays out the rest).
        if self.ahead_armed || !self.gate.is_open() || self.showing_history() {
            return Vec::new();
        }
        match self.queue.current() {
            Some(r) if !r.provisional && r.cache.ahead_left(&r.dialog) => {
                self.ahead_armed = true;
                vec![Effect::SetTimer(AHEAD_STEP_MS as f64 / 1000.0)]
            }
            _ => Vec::new(),
        }
    }

    /// How many texts the request on screen has laid out so far (each once per width).
    pub fn layouts(&self) -> usize {
        self.queue.current().map_or(0, |r| r.cache.layouts())
    }

    /// One step of laying out ahead for the request on screen; whether any is left.
    fn lay_out_ahead(&mut self) -> bool {
        let Some((rows, cols)) = self.drawn_size.filter(|_| !self.showing_history()) else {
            return false;
        };
        let chrome = self.chrome();
        match self.queue.current_mut() {
            Some(r) => lay_out_ahead(&mut r.dialog, &mut r.cache, &chrome, cols, rows),
            None => false,
        }
    }

    /// Draws the current dialog in `rows` × `cols` cells. The frame is kept to find what a
    /// click lands on.
    pub fn render(&mut self, rows: usize, cols: usize) -> &Frame {
        self.drawn_size = Some((rows, cols));
        let chrome = self.chrome();
        // Only the request on screen holds layouts: eight waiting questionnaires with long
        // previews would not fit in the plugin's memory laid out.
        let current = self.queue.current_index();
        for (i, r) in self.queue.iter_mut().enumerate() {
            if i != current {
                r.cache.forget();
            }
        }
        let frame = match self.queue.current_mut() {
            Some(r) => {
                let frame = render(&r.dialog, &mut r.cache, &chrome, cols, rows);
                r.dialog
                    .clamp_preview_scroll(frame.preview_max_scroll.unwrap_or(0));
                frame
            }
            None => Frame::default(),
        };
        self.last_frame.insert(frame)
    }

    /// What the popup's pane shows: the current question's frame in `rows` × `cols` cells
    /// with `theme`'s colours, or a line that says why there is none (and what the
    /// configuration got wrong, `config_errors`).
    pub fn screen_text(
        &mut self,
        rows: usize,
        cols: usize,
        theme: &Theme,
        config_errors: &[String],
    ) -> String {
        if self.permission_denied() {
            return "ask-popup needs its permissions to answer agents: reload it and press y.\n"
                .to_owned();
        }
        if self.showing_history() {
            return self.history_text(rows, cols, theme);
        }
        if self.queue.is_empty() {
            // Before its grant an instance knows nothing yet: one that starts later (another
            // client's) shows this while the question it may hold waits for the grant.
            let mut text = String::from(if self.awaits_permission() {
                "ask-popup: starting…\n"
            } else {
                "ask-popup: no questions waiting.\n"
            });
            for error in config_errors {
                text.push_str(error);
                text.push('\n');
            }
            return text;
        }
        self.render(rows, cols).to_ansi(theme)
    }

    pub(super) fn chrome(&self) -> Chrome {
        Chrome {
            banner: self.banner(),
            hide_key: self.config.hide_key_label.clone(),
            settling: self.settled_at_ms().is_some(),
        }
    }

    pub(super) fn banner(&self) -> Option<String> {
        let r = self.queue.current()?;
        let agent = self.agent_name(r);
        let mut banner = match self.queue.len() {
            1 => format!("{agent} asks"),
            n => format!(
                "{agent} asks · {} of {n} waiting · [ ] switch",
                self.queue.current_index() + 1
            ),
        };
        if let Some(session) = &r.from_session {
            banner.push_str(&format!(" · {GO_KEY_LABEL} go to {session}"));
        }
        Some(banner)
    }

    /// The go key on a question asked in another session: this client goes there, where the
    /// question is asked too, and it leaves this session (its caller is told `dismissed` here,
    /// which ends nothing but this copy: see the command's `copies`).
    pub(super) fn go_to_asking_session(&mut self, press: KeyPress) -> Option<Vec<Effect>> {
        let go: KeyPress = GO_KEY.parse().ok()?;
        if press.with_control_named() != go.with_control_named()
            || !self.visible
            || self.showing_history()
            || !self.keys_count()
        {
            return None;
        }
        let request = self.queue.current()?;
        let session = request.from_session.clone()?;
        let outcome = Outcome::Host {
            code: ErrorCode::Dismissed,
            responses: request.dialog.responses(),
        };
        let mut effects = Vec::new();
        self.resolve(
            self.queue.current_index(),
            outcome,
            Decided::Here,
            &mut effects,
        );
        effects.push(Effect::SwitchSession(session));
        Some(self.done(effects))
    }
}
