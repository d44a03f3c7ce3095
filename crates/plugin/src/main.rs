//! The Zellij plugin: wires Zellij's events and CLI pipes to the `ask_popup_plugin` core. This is
//! the only file that talks to Zellij (zellij-tile is a wasm-only dependency), so everything here
//! is compiled for `wasm32-wasip1` only.
//!
//! Decisions live in the library's `Broker`, which turns each host event into effects; this file
//! translates Zellij's types into the core's and executes the effects.

/// The plugin's exports, as zellij-tile's `register_plugin!` writes them, except that what
/// Zellij writes to the plugin's stdin is read with `ask_popup_plugin::wire` rather than zellij-tile's
/// serde_json and anyhow: `pipe` its message, in memory bounded by the payload limit rather than
/// by whatever a caller sends, `update` its event, which `ask_popup_plugin::zellij_event` reads (only
/// the events and fields the plugin uses), and `load` its options (see each why that matters).
#[cfg(target_family = "wasm")]
mod exports {
    use super::plugin::State;
    use std::cell::RefCell;
    use zellij_tile::prelude::{ZellijPlugin, VERSION};

    thread_local! {
        static STATE: RefCell<State> = RefCell::new(State::default());
    }

    #[no_mangle]
    fn load() {
        let bytes = ask_popup_plugin::wire::read_bytes(std::io::stdin().lock());
        let configuration = ask_popup_plugin::zellij_command::read_configuration(&bytes);
        STATE.with(|state| state.borrow_mut().load(configuration));
    }

    #[no_mangle]
    pub fn update() -> bool {
        let bytes = ask_popup_plugin::wire::read_bytes(std::io::stdin().lock());
        match ask_popup_plugin::zellij_event::read_event(&bytes) {
            Ok(event) => STATE.with(|state| state.borrow_mut().event(event)),
            Err(_) => false,
        }
    }

    #[no_mangle]
    pub fn pipe() -> bool {
        let message = ask_popup_plugin::wire::read_message(
            std::io::stdin().lock(),
            ask_popup_protocol::request::MAX_PAYLOAD_BYTES,
        );
        match message {
            Ok(message) => STATE.with(|state| state.borrow_mut().pipe_wire(message)),
            Err(_) => false,
        }
    }

    #[no_mangle]
    pub fn render(rows: i32, cols: i32) {
        let (rows, cols) = (rows.max(0) as usize, cols.max(0) as usize);
        STATE.with(|state| state.borrow_mut().render(rows, cols));
    }

    #[no_mangle]
    pub fn plugin_version() {
        super::plugin::write_out(&format!("{VERSION}\n"));
    }
}

#[cfg(target_family = "wasm")]
fn main() {
    std::panic::set_hook(Box::new(plugin::report_panic));
}

/// Built for the host there is no plugin to run (the host build exists for the tests of the
/// library beside it): it says how to build it.
#[cfg(not(target_family = "wasm"))]
fn main() {
    use std::io::Write;
    let said = b"ask-popup's plugin runs inside Zellij: build it with scripts/build-plugin.sh\n";
    let _ = std::io::stderr().write_all(said);
    std::process::exit(2);
}

#[cfg(target_family = "wasm")]
mod plugin {
    use ask_popup_plugin::broker::{Broker, Effect, PipeIn, Source, PEER_PIPE};
    use ask_popup_plugin::config::Settings;
    use ask_popup_plugin::dialog::Input;
    use ask_popup_plugin::log_line;
    use ask_popup_plugin::popup::{popup_rect, Placement, PopupSize};
    use ask_popup_plugin::view::Theme;
    use ask_popup_plugin::wire::{WireMessage, WirePayload, WireSource};
    use ask_popup_plugin::zellij_command::{self, Command, PluginIds, PluginMessage, PERMISSIONS};
    use ask_popup_plugin::zellij_event::{
        floating_shown, ClosedPane, MouseEvent, PopupSighting, TabState, ZellijEvent,
    };
    use ask_popup_protocol::request::RequestError;
    use std::collections::BTreeMap;
    use zellij_tile::prelude::ZellijPlugin;

    #[derive(Default)]
    pub struct State {
        broker: Broker,
        popup: PopupSize,
        /// What the configuration got wrong, shown while nothing is asked.
        config_errors: Vec<String>,
        theme: Theme,
        /// This plugin's id in the session, once Zellij has said (the popup's pane is it).
        plugin_id: Option<u32>,
        /// The client this instance draws for.
        client_id: u16,
        /// The Zellij server's process id: what tells this session's kept replies from another's.
        zellij_pid: u32,
        /// When the plugin loaded: the broker's clock counts from there.
        started: Option<std::time::Instant>,
        /// The screen's rows and columns, once Zellij has said.
        screen: Option<(usize, usize)>,
        /// The popup's height in rows, when fitted to the dialog.
        fitted_height: Option<usize>,
        /// The `trace` option: what this instance hears and does goes to Zellij's log.
        trace: bool,
        /// The name this instance gave the popup's pane last.
        own_title: Option<String>,
        /// Whether the popup's pane is on screen, as Zellij's latest updates have it.
        sighting: PopupSighting,
        /// Messages to the other instances and the pane's name held back from an event that
        /// showed the popup, sent at the start of the next event (see `run`).
        deferred: Vec<Effect>,
        /// Loaded for a client other than the first, it has not asked for its permissions
        /// yet (see `zellij_command::start`).
        starts_later: bool,
    }

    impl ZellijPlugin for State {
        fn load(&mut self, configuration: BTreeMap<String, String>) {
            let (settings, errors) = Settings::from_map(&configuration);
            for error in &errors {
                log_line::write(format_args!("{error}"));
            }
            self.config_errors = errors.iter().map(ToString::to_string).collect();
            let config = settings.broker;
            self.popup = settings.popup;
            self.trace = settings.trace;
            self.broker = Broker::new(config);
            self.broker.await_permission();
            match plugin_ids() {
                Some(ids) => {
                    self.plugin_id = Some(ids.plugin_id);
                    self.broker.set_plugin_id(ids.plugin_id);
                    self.client_id = ids.client_id;
                    self.zellij_pid = ids.zellij_pid;
                }
                // Nothing to address its pane or its other instances by: it serves its own
                // client alone.
                None => log_line::write(format_args!("ask-popup: Zellij did not say its ids")),
            }
            self.recall_kept();
            self.started = Some(std::time::Instant::now());
            let epoch = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            self.broker.set_epoch(epoch);
            // The first question loads the plugin, and Zellij holds it back until the user
            // answers the permission request, which it draws in this pane: a pane that a pipe
            // opens hidden. Show it, so the user sees the request; it hides again once answered
            // if nothing is waiting. (Before the request: once it is made, Zellij refuses the
            // show until it is answered, and every event, a timer too, waits with Zellij.) The
            // instance of a client other than the first does so a moment later (see `start`).
            self.starts_later = zellij_command::starts_later(self.client_id);
            for command in zellij_command::start(self.client_id) {
                send(command);
            }
        }

        fn render(&mut self, rows: usize, cols: usize) {
            self.tell_time();
            let text = self
                .broker
                .screen_text(rows, cols, &self.theme, &self.config_errors);
            write_out(&text);
        }
    }

    impl State {
        /// An event read by the `update` export; returns whether to render.
        pub fn event(&mut self, event: ZellijEvent) -> bool {
            if self.starts_later {
                // It heard its timer alone: it starts now. (What pipes brought meanwhile waits
                // in the broker for the grant.)
                if matches!(event, ZellijEvent::Timer) {
                    self.starts_later = false;
                    for command in zellij_command::start_now() {
                        send(command);
                    }
                }
                return false;
            }
            self.tell_time();
            self.send_deferred();
            if self.trace {
                self.trace_event(&event);
            }
            let awaited = self.broker.awaits_permission();
            let mut by_state = Vec::new();
            if matches!(
                event,
                ZellijEvent::TabUpdate(_) | ZellijEvent::PaneUpdate(_) | ZellijEvent::ModeUpdate(_)
            ) {
                by_state = self.broker.application_state_heard(self.client_id);
            }
            let effects = match event {
                ZellijEvent::PermissionRequestResult(granted) => {
                    if granted {
                        // What an instance that closed as this one loaded kept since: a caller
                        // it answered into the void may be what loaded this one.
                        self.recall_kept();
                    }
                    self.broker.permission(granted, self.client_id)
                }
                ZellijEvent::Key(press) => self.broker.key(press),
                ZellijEvent::PastedText(text) => self.broker.input(Input::Paste(text)),
                ZellijEvent::Mouse(mouse) => match mouse {
                    MouseEvent::LeftClick { line, column } => self
                        .broker
                        .click(usize::try_from(line as isize).unwrap_or(0), column as usize),
                    MouseEvent::ScrollUp(n) => self.broker.wheel(-(n.min(50) as i32)),
                    MouseEvent::ScrollDown(n) => self.broker.wheel(n.min(50) as i32),
                    MouseEvent::Other => Vec::new(),
                },
                ZellijEvent::Timer => self.broker.timer(),
                ZellijEvent::BeforeClose => self.broker.before_close(),
                ZellijEvent::ModeUpdate(mode) => {
                    self.theme = Theme::from(&mode.colors);
                    if let Some(session) = &mode.session_name {
                        self.broker.set_session(session);
                    }
                    return true;
                }
                ZellijEvent::PaneUpdate(panes) => {
                    if let Some(id) = self.plugin_id {
                        self.sighting.panes(&panes, id);
                    }
                    let mut effects = self.broker.popup_seen(self.sighting.on_screen());
                    let titles = panes
                        .into_iter()
                        .filter(|p| !p.is_plugin)
                        .map(|p| (p.id, p.title))
                        .collect::<Vec<_>>();
                    effects.extend(self.broker.pane_titles(titles));
                    effects
                }
                ZellijEvent::PaneClosed(ClosedPane::Terminal(id)) => self.broker.pane_closed(id),
                ZellijEvent::TabUpdate(tabs) => {
                    if let Some(tab) = tabs.iter().find(|t| t.active) {
                        self.screen = Some((tab.display_area_rows, tab.display_area_columns));
                    }
                    self.sighting.tabs(&tabs);
                    // Who is attached: a client may have come or gone.
                    let mut effects = self.broker.attached(&other_clients(&tabs));
                    if !effects
                        .iter()
                        .any(|e| matches!(e, Effect::Show | Effect::ShowAsPlaced))
                    {
                        effects.extend(self.broker.popup_seen(self.sighting.on_screen()));
                    }
                    effects
                }
                ZellijEvent::PaneClosed(ClosedPane::Plugin(_)) | ZellijEvent::Other => Vec::new(),
            };
            by_state.extend(effects);
            if awaited && !self.broker.awaits_permission() {
                // Granted without an answer (see `Broker::application_state_heard`): what an
                // instance that closed as this one loaded kept, as on an answer.
                self.recall_kept();
            }
            self.run(by_state)
        }

        /// A pipe message read by the `pipe` export.
        pub fn pipe_wire(&mut self, msg: WireMessage) -> bool {
            // Without its CLI's or plugin's id a message is unreadable, as zellij-tile has it.
            let source = match (msg.source, msg.cli_source_id, msg.plugin_source_id) {
                (WireSource::Cli, Some(id), _) => Source::Cli(id),
                (WireSource::Plugin, _, Some(id)) => Source::Plugin(id),
                (WireSource::Keybind, _, _) => Source::Keybind,
                (WireSource::Cli | WireSource::Plugin, _, _) => return false,
            };
            let payload = match msg.payload {
                WirePayload::Absent => None,
                WirePayload::Text(text) => Some(text),
                WirePayload::TooLarge(bytes) => {
                    return self.unreadable(
                        source,
                        msg.args,
                        RequestError::PayloadTooLarge { bytes },
                    )
                }
                WirePayload::InvalidUtf8(offset) => {
                    return self.unreadable(source, msg.args, RequestError::InvalidUtf8 { offset })
                }
            };
            self.receive(PipeIn {
                source,
                name: msg.name,
                payload,
                args: msg.args,
            })
        }

        fn unreadable(
            &mut self,
            source: Source,
            args: BTreeMap<String, String>,
            error: RequestError,
        ) -> bool {
            match source {
                Source::Cli(pipe) => {
                    self.tell_time();
                    self.send_deferred();
                    let effects = self.broker.pipe_unreadable(&pipe, &args, &error);
                    self.run(effects)
                }
                // Nobody waits for an answer to another plugin's broadcast.
                Source::Plugin(_) | Source::Keybind => false,
            }
        }

        /// Takes back the replies this session's earlier instances kept as they closed.
        fn recall_kept(&mut self) {
            if let Some(kept) = across_reload::take(self.zellij_pid) {
                self.broker.recall(&kept);
            }
        }

        /// One line of the trace, with this instance's client and the broker's clock.
        fn log(&self, what: std::fmt::Arguments) {
            log_line::write(format_args!(
                "ask-popup trace: client {} at {} ms: {what}",
                self.client_id,
                self.broker.now_ms()
            ));
        }

        /// What the trace says of an event: its kind, and who is attached for a tab update
        /// (never the keys the user typed).
        fn trace_event(&self, event: &ZellijEvent) {
            match event {
                ZellijEvent::TabUpdate(tabs) => {
                    let others = other_clients(tabs);
                    let floating = floating_shown(tabs);
                    self.log(format_args!(
                        "tab update, other clients {others:?}, floating panes shown on tabs {floating:?}"
                    ));
                }
                ZellijEvent::PaneUpdate(panes) => {
                    if let Some(popup) = panes
                        .iter()
                        .find(|p| p.is_plugin && Some(p.id) == self.plugin_id)
                    {
                        self.log(format_args!(
                            "pane update, popup on tab {}, floating {}, hidden {}",
                            popup.tab, popup.is_floating, popup.is_suppressed
                        ));
                    }
                }
                ZellijEvent::PermissionRequestResult(granted) => {
                    self.log(format_args!("permission granted: {granted}"));
                }
                ZellijEvent::Key(_) => self.log(format_args!("key")),
                ZellijEvent::Mouse(_) => self.log(format_args!("mouse")),
                ZellijEvent::PastedText(_) => self.log(format_args!("paste")),
                ZellijEvent::Timer => self.log(format_args!("timer")),
                ZellijEvent::BeforeClose => self.log(format_args!("before close")),
                ZellijEvent::PaneClosed(pane) => self.log(format_args!("pane closed {pane:?}")),
                ZellijEvent::ModeUpdate(_) | ZellijEvent::Other => {}
            }
        }

        /// What `run` held back from the event before, in the order it came.
        fn send_deferred(&mut self) {
            for effect in std::mem::take(&mut self.deferred) {
                self.execute(effect);
            }
        }

        /// Tells the broker what time it is.
        fn tell_time(&mut self) {
            if let Some(started) = self.started {
                let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                self.broker.set_clock(ms);
            }
        }

        fn receive(&mut self, msg: PipeIn) -> bool {
            self.tell_time();
            self.send_deferred();
            if self.trace {
                let payload = msg.payload.as_deref().unwrap_or("");
                let shown = if msg.name == PEER_PIPE { payload } else { "" };
                self.log(format_args!(
                    "pipe {:?} {:?} args {:?}, {} bytes {}",
                    msg.name,
                    msg.source,
                    msg.args,
                    payload.len(),
                    shown
                ));
            }
            let effects = self.broker.pipe(msg);
            self.run(effects)
        }

        /// Executes the broker's effects; returns whether to render.
        fn run(&mut self, effects: Vec<Effect>) -> bool {
            if self.trace {
                let traced =
                    |e: &&Effect| !matches!(e, Effect::Render | Effect::IgnoredPeerMessage { .. });
                for effect in effects.iter().filter(traced) {
                    self.log(format_args!("does {effect:?}"));
                }
            }
            let mut redraw = Redraw::default();
            // The messages to the other instances and the pane's name go after the popup is
            // shown and placed, and when it has just shown, with the next event (a timer set
            // for it at once): each sets Zellij to work for every instance (a pipe message, a
            // pane update for every plugin) that would otherwise come before the question's
            // first frame.
            let showing = effects
                .iter()
                .any(|e| matches!(e, Effect::Show | Effect::ShowAsPlaced));
            let (later, now): (Vec<Effect>, Vec<Effect>) = effects
                .into_iter()
                .partition(|e| matches!(e, Effect::Peer(_) | Effect::SetOwnTitle(_)));
            if now.contains(&Effect::Show) {
                // Placed before it shows: drawn at its size from the first frame, rather than
                // drawn, resized and drawn again (the second frame waiting for whatever Zellij
                // has for the plugin meanwhile).
                self.fitted_height = None;
                self.resize();
            }
            for effect in now {
                redraw = redraw.and(self.execute(effect));
            }
            // Once, after the effects: the size depends on the request now shown.
            if redraw.fit_anew {
                self.fitted_height = None;
                self.resize();
            } else if redraw.grow {
                self.resize();
            }
            if showing && !later.is_empty() {
                if self.deferred.is_empty() {
                    send(Command::SetTimeout(0.0));
                }
                self.deferred.extend(later);
            } else {
                for effect in later {
                    redraw = redraw.and(self.execute(effect));
                }
            }
            if redraw.frame {
                // While the user reads the frame: what a key could show next, laid out ahead
                // on a timer. (Not from `render`: a host call there spoils the frame.)
                for effect in self.broker.frame_coming() {
                    self.execute(effect);
                }
            }
            redraw.frame
        }

        /// Executes one effect; what it leaves to do once every effect ran. (Long because it is
        /// one arm per effect, each a host call or two: a table, read by its arms.)
        fn execute(&mut self, effect: Effect) -> Redraw {
            let done = Redraw::default();
            match effect {
                Effect::Block(pipe) => {
                    send(Command::BlockCliPipe(pipe));
                }
                Effect::Reply { pipe, output } => {
                    if !output.is_empty() {
                        send(Command::CliPipeOutput {
                            pipe: pipe.clone(),
                            output,
                        });
                    }
                    send(Command::UnblockCliPipe(pipe));
                }
                Effect::Broadcast { name, payload } => {
                    send(Command::MessageToPlugin(PluginMessage {
                        name,
                        payload: Some(payload),
                        ..PluginMessage::default()
                    }));
                }
                Effect::Peer(payload) => {
                    if let Some(id) = self.plugin_id {
                        send(Command::MessageToPlugin(PluginMessage {
                            name: PEER_PIPE.to_string(),
                            payload: Some(payload),
                            destination: Some(id),
                            ..PluginMessage::default()
                        }));
                    }
                }
                Effect::RenamePane { pane, title } => {
                    send(Command::RenameTerminalPane { pane, title });
                }
                Effect::SetOwnTitle(title) => self.set_own_title(title),
                Effect::Show => {
                    send(Command::ShowSelf);
                    // Fitted already (see `run`); fitted again if another effect asks.
                    return Redraw {
                        frame: true,
                        ..done
                    };
                }
                Effect::ShowAsPlaced => {
                    // Shown by the instance that placed it already (each show sets Zellij to
                    // tell every plugin of every client): only drawn here.
                    if !self.sighting.on_screen() {
                        send(Command::ShowSelf);
                    }
                    return Redraw {
                        frame: true,
                        ..done
                    };
                }
                Effect::Hide => {
                    send(Command::HideSelf);
                    // A show that follows (in this batch, or before Zellij tells of the hide)
                    // must show it again.
                    self.sighting.hidden_here();
                }
                Effect::RequestPermission => {
                    send(Command::RequestPermissions(PERMISSIONS.to_vec()));
                }
                Effect::SetTimer(seconds) => {
                    send(Command::SetTimeout(seconds));
                }
                Effect::Render => {
                    return Redraw {
                        frame: true,
                        ..done
                    }
                }
                Effect::FitAnew => {
                    return Redraw {
                        fit_anew: true,
                        ..done
                    }
                }
                Effect::Fit => return Redraw { grow: true, ..done },
                Effect::KeepAcrossReload(kept) => across_reload::keep(self.zellij_pid, &kept),
                Effect::ForgetKeptAcrossReload => across_reload::forget(self.zellij_pid),
                Effect::SwitchSession(name) => {
                    send(Command::SwitchSession(name));
                }
                Effect::OpenHistory => {
                    let entries = across_reload::recent_history();
                    let effects = self.broker.history_loaded(entries);
                    return Redraw {
                        frame: self.run(effects),
                        ..done
                    };
                }
                Effect::Record(line) => {
                    let path = format!("/cache/{}", ask_popup_protocol::history::FILE_NAME);
                    if let Err(e) =
                        ask_popup_protocol::history::append(std::path::Path::new(&path), &line)
                    {
                        log_line::write(format_args!(
                            "ask-popup: cannot write the record ({path}): {e}"
                        ));
                    }
                }
                Effect::IgnoredPeerMessage { from_plugin } => match from_plugin {
                    Some(id) if self.trace => self.log(format_args!(
                        "ignored {PEER_PIPE:?} from plugin {id}, not this one"
                    )),
                    None if self.trace => {
                        self.log(format_args!("ignored {PEER_PIPE:?} from a keybinding"))
                    }
                    _ => {}
                },
            }
            done
        }

        /// Sizes the popup (see `ask_popup_plugin::popup::popup_rect`). Before Zellij has said how
        /// large the screen is, just the configured size.
        fn resize(&mut self) {
            let Some(screen) = self.screen else {
                if let Some(placement) = self.popup.unmeasured_placement() {
                    self.place(placement);
                }
                return;
            };
            let broker = &mut self.broker;
            let rect = popup_rect(
                self.popup,
                screen,
                |cols, rows| broker.natural_height(cols, rows),
                self.fitted_height,
            );
            if self.fitted_height == Some(rect.height) {
                return;
            }
            self.fitted_height = Some(rect.height);
            self.place(Placement::from(rect));
        }

        /// Moves and sizes the popup's pane.
        fn place(&self, placement: Placement) {
            if let Some(plugin) = self.plugin_id {
                send(Command::PlacePluginPane { plugin, placement });
            }
        }

        /// Names the popup's pane (each rename has Zellij tell every plugin of every client:
        /// a name it has already is not sent again).
        fn set_own_title(&mut self, title: String) {
            if self.own_title.as_ref() == Some(&title) {
                return;
            }
            if let Some(id) = self.plugin_id {
                send(Command::RenamePluginPane {
                    plugin: id,
                    title: title.clone(),
                });
                self.own_title = Some(title);
            }
        }
    }

    /// What the effects of one event leave to do once they all ran.
    #[derive(Clone, Copy, Default)]
    struct Redraw {
        /// Draw a frame.
        frame: bool,
        /// Fit the popup to the request shown, which may have changed (it may shrink).
        fit_anew: bool,
        /// Fit the popup to the dialog, which may have grown.
        grow: bool,
    }

    impl Redraw {
        fn and(self, other: Redraw) -> Redraw {
            Redraw {
                frame: self.frame || other.frame,
                fit_anew: self.fit_anew || other.fit_anew,
                grow: self.grow || other.grow,
            }
        }
    }

    #[link(wasm_import_module = "zellij")]
    extern "C" {
        fn host_run_plugin_command();
    }

    /// The clients attached besides this instance's, as a tab update lists them (on any tab).
    fn other_clients(tabs: &[TabState]) -> Vec<u16> {
        tabs.iter()
            .flat_map(|t| t.other_focused_clients.iter().copied())
            .collect()
    }

    /// Sends a command to Zellij the way zellij-tile's shim does (its protobuf encoding, written
    /// to stdout as a JSON list of byte values), but encodes it with `zellij_command` (the
    /// shim's conversion knows every command Zellij has), writes the list from a table instead
    /// of through serde_json, and never panics: the shim's helpers unwrap the encoding and
    /// write with `println!`, which panics on a failed write, and a panicking plugin strands
    /// every agent waiting on it. Every host call goes through here. A reply carries the whole
    /// envelope, previews included, and in Zellij's interpreter the generic serialiser was
    /// most of the time an answer took. Whether the command went out.
    fn send(command: Command) -> bool {
        use std::io::Write;
        let bytes = zellij_command::encode(command);
        let mut line = Vec::with_capacity(bytes.len() * 4 + 3);
        line.push(b'[');
        for (i, &b) in bytes.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            if b >= 100 {
                line.push(b'0' + b / 100);
            }
            if b >= 10 {
                line.push(b'0' + (b / 10) % 10);
            }
            line.push(b'0' + b % 10);
        }
        line.extend_from_slice(b"]\n");
        let mut out = std::io::stdout().lock();
        let written = out.write_all(&line).and_then(|()| out.flush()).is_ok();
        if written {
            // Safety: the host call takes no arguments; it reads the command just written.
            unsafe { host_run_plugin_command() };
        }
        written
    }

    /// This plugin's ids (its own, its client's, the Zellij server's), asked as zellij-tile's
    /// `get_plugin_ids` asks, whose every step unwraps; None when the answer cannot be read.
    fn plugin_ids() -> Option<PluginIds> {
        if !send(Command::GetPluginIds) {
            return None;
        }
        let bytes = ask_popup_plugin::wire::read_bytes(std::io::stdin().lock());
        zellij_command::read_plugin_ids(&bytes)
    }

    /// Writes what the pane shows (or the version Zellij asked for) to stdout, where Zellij
    /// reads it once the call returns; a failed write loses a frame, not the plugin.
    pub fn write_out(text: &str) {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    }

    /// Tells Zellij of a panic, as zellij-tile's `report_panic` does (the same text), through
    /// `send`: a panic while reporting one would abort before anything is said.
    pub fn report_panic(info: &std::panic::PanicHookInfo) {
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .unwrap_or(&"<NO PAYLOAD>");
        let text = format!("{payload}\n\r{info:#?}").replace('\n', "\r\n");
        send(Command::ReportPanic(text));
    }

    /// What one instance keeps for the next when the popup closes (`Effect::KeepAcrossReload`):
    /// a file in the plugin's `/cache` folder, which Zellij shares between every instance of the
    /// plugin's URL (`/data` is the instance's own), one per session (named after its server),
    /// written whole (`atomic_file`), and read by the instances that load in the minute after;
    /// deleted once the instance that leads then has read it, or found stale.
    /// Loading reads that one file: a folder's listing costs a loading instance several
    /// milliseconds in Zellij's interpreter, and the first question waits for every instance
    /// to load. The files of sessions gone are deleted when the next popup closes.
    mod across_reload {
        use ask_popup_plugin::log_line;
        use std::path::Path;
        use std::time::{Duration, SystemTime};

        const DIR: &str = "/cache";
        const PREFIX: &str = "ask-popup-closed-";
        /// How long kept replies count: as long as the broker remembers replies.
        const FRESH: Duration = Duration::from_millis(ask_popup_plugin::broker::FORGET_AFTER_MS);

        fn path(zellij_pid: u32) -> String {
            format!("{DIR}/{PREFIX}{zellij_pid}.json")
        }

        /// Whether the file at `path` was written within `FRESH` (unknown: not).
        fn is_fresh(path: &Path) -> bool {
            std::fs::metadata(path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|written| SystemTime::now().duration_since(written).ok())
                .is_some_and(|age| age < FRESH)
        }

        pub fn keep(zellij_pid: u32, kept: &str) {
            let path = path(zellij_pid);
            // Whole or not at all: the next instance may load while this one writes.
            let written = ask_popup_protocol::atomic_file::write(
                Path::new(&path),
                kept.as_bytes(),
                ask_popup_protocol::atomic_file::OWNER_ONLY,
            );
            if let Err(e) = written {
                log_line::write(format_args!(
                    "ask-popup: cannot keep the replies across the reload ({path}): {e}"
                ));
            }
            // Other sessions' files, once stale.
            for entry in std::fs::read_dir(DIR).into_iter().flatten().flatten() {
                let stale = entry.file_name().to_string_lossy().starts_with(PREFIX)
                    && !is_fresh(&entry.path());
                if stale {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }

        /// The newest entries of the record of questionnaires (its last 512 KiB: older ones
        /// are not listed, and reading the whole record costs the interpreter).
        pub fn recent_history() -> Vec<ask_popup_protocol::history::Entry> {
            use std::io::{Read, Seek, SeekFrom};
            const TAIL: u64 = 512 * 1024;
            let path = format!("{DIR}/{}", ask_popup_protocol::history::FILE_NAME);
            let Ok(mut file) = std::fs::File::open(&path) else {
                return Vec::new();
            };
            let size = file.metadata().map(|m| m.len()).unwrap_or(0);
            let _ = file.seek(SeekFrom::Start(size.saturating_sub(TAIL)));
            let mut bytes = Vec::new();
            let _ = file.take(TAIL).read_to_end(&mut bytes);
            // The first line may be cut: it is not an entry, and is skipped.
            ask_popup_protocol::history::read(&String::from_utf8_lossy(&bytes))
        }

        /// What this session's latest closing instance kept, if it closed in the last minute
        /// (older, it is deleted).
        pub fn take(zellij_pid: u32) -> Option<String> {
            let path = path(zellij_pid);
            let path = Path::new(&path);
            if !is_fresh(path) {
                let _ = std::fs::remove_file(path);
                return None;
            }
            std::fs::read_to_string(path).ok()
        }

        /// Deletes what this session's closing instance kept: it holds answers, and has been
        /// read back.
        pub fn forget(zellij_pid: u32) {
            let _ = std::fs::remove_file(path(zellij_pid));
        }
    }
}
