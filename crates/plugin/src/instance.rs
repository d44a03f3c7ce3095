//! One instance of the plugin (Zellij runs one per attached client): what Zellij tells it (its
//! options and ids as it loads, each event, each pipe message), turned into the broker's calls,
//! and the broker's effects turned into the commands to Zellij, as data. `main.rs` reads
//! Zellij's input, hands it here, and sends the commands that come back; it decides nothing.
//!
//! What the effects leave to the instance rather than to the broker lives here too: where the
//! popup is placed and how large (`popup::popup_rect`), whether it is on screen
//! (`PopupSighting`), the name of its pane, the messages held back while it shows, the trace,
//! and the marks on tab names (`tab_marks`), which follow the broker's waits.

use crate::broker::{Broker, Effect, PipeIn, Source, PEER_PIPE};
use crate::config::Settings;
use crate::dialog::Input;
use crate::incoming::{other_clients, ClosedPane, MouseEvent, PopupSighting, ZellijEvent};
use crate::log_line;
use crate::popup::PopupSize;
use crate::shared_folder::{FolderLooks, SharedFolder};
use crate::tab_marks::TabMarks;
use crate::trace;
use crate::view::Theme;
use crate::wire::{WireMessage, WirePayload, WireSource};
use crate::zellij_command::{self, Command, PluginIds, PluginMessage, PERMISSIONS};
use ask_popup_protocol::request::RequestError;
use std::collections::BTreeMap;

mod folder;
mod pane;

/// At most this many pipe messages wait for an instance that starts later to start; more go
/// to its broker at once, as before it waited (the broker bounds what it holds).
const HELD_PIPES: usize = 64;

/// What the instance makes of one thing Zellij told it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Response {
    /// The commands to send Zellij, in order.
    pub commands: Vec<Command>,
    /// Whether to draw a frame.
    pub render: bool,
}

/// One instance of the plugin.
#[derive(Default)]
pub struct Instance {
    broker: Broker,
    /// The waiting marks on tab names, as the broker's waits stand after each event.
    tab_marks: TabMarks,
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
    /// The fullscreen pane toggled last to uncover the popup (see `uncover`).
    uncovered: Option<pane::Uncovering>,
    /// Messages to the other instances and the pane's name held back from an event that
    /// showed the popup, sent `pane::DEFERRED_MS` later (see `run`).
    deferred: Vec<Effect>,
    /// When they go, at the first event from then (a timer set for it).
    deferred_until: u64,
    /// Loaded for a client other than the first, it has not asked for its permissions
    /// yet (see `zellij_command::start`).
    starts_later: bool,
    /// Pipe messages that came before an instance that starts later started: read by the
    /// broker once it starts, not while the first client's instance draws the first frame.
    held_pipes: Vec<WireMessage>,
    /// Whether the folder is still to be looked at for the record (`SharedFolder::
    /// is_private`, which leaves a notice where it is not): with the first event after the
    /// grant, not before the first question's first frame.
    folder_unseen: bool,
    /// Where kept replies and the record are written.
    folder: SharedFolder,
    /// While entries of the record wait for the folder to be made private: when the instance
    /// looks again, and until when (see `look_at_folder`).
    folder_looks: FolderLooks,
    /// The commands made so far for what Zellij told the instance last.
    commands: Vec<Command>,
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

impl Instance {
    /// An instance that keeps its files in `folder` (Zellij's `/cache` is the default).
    pub fn with_folder(folder: SharedFolder) -> Instance {
        Instance {
            folder,
            ..Instance::default()
        }
    }

    /// The plugin loaded with these options; Zellij said its ids (None: they could not be
    /// read); the wall clock reads `epoch_ms`. The commands that start it.
    pub fn load(
        &mut self,
        configuration: &BTreeMap<String, String>,
        ids: Option<PluginIds>,
        epoch_ms: u64,
    ) -> Vec<Command> {
        let (settings, errors) = Settings::from_map(configuration);
        for error in &errors {
            log_line::write(format_args!("{error}"));
        }
        self.config_errors = errors.iter().map(ToString::to_string).collect();
        self.popup = settings.popup;
        self.trace = settings.trace;
        self.tab_marks = TabMarks::new(settings.broker.indicator && settings.tab_marks);
        let history = settings.broker.history;
        self.broker = Broker::new(settings.broker);
        self.broker.await_permission();
        match ids {
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
        // Where Zellij made the folder as the plugin loaded, the command finds it by the
        // notice left soon (`folder_unseen`), and makes it private before the first entry.
        self.folder_unseen = history;
        self.broker.set_epoch(epoch_ms);
        // The first question loads the plugin, and Zellij holds it back until the user
        // answers the permission request, which it draws in this pane: a pane that a pipe
        // opens hidden. Show it, so the user sees the request; it hides again once answered
        // if nothing is waiting. (Before the request: once it is made, Zellij refuses the
        // show until it is answered, and every event, a timer too, waits with Zellij.) The
        // instance of a client other than the first does so a moment later (see `start`).
        self.starts_later = zellij_command::starts_later(self.client_id);
        // Zellij loads every client's instance before it hands the first question to any:
        // one that starts later reads the replies kept across a reload when it starts.
        if !self.starts_later {
            self.recall_kept();
        }
        self.commands.extend(zellij_command::start(self.client_id));
        std::mem::take(&mut self.commands)
    }

    /// What the popup's pane shows, `rows` by `cols`, at `now_ms` since the plugin loaded.
    pub fn render(&mut self, rows: usize, cols: usize, now_ms: u64) -> String {
        self.broker.set_clock(now_ms);
        self.broker
            .screen_text(rows, cols, &self.theme, &self.config_errors)
    }

    /// An event, `now_ms` after the plugin loaded.
    pub fn event(&mut self, event: ZellijEvent, now_ms: u64) -> Response {
        let render = self.hear(event, now_ms);
        self.respond(render)
    }

    /// An event as Zellij wrote it, `now_ms` after the plugin loaded (one that cannot be
    /// read is nothing).
    pub fn event_wire(&mut self, bytes: &[u8], now_ms: u64) -> Response {
        let render = match crate::incoming::read_event(bytes) {
            Ok(event) => self.hear(event, now_ms),
            Err(_) => false,
        };
        self.respond(render)
    }

    /// A pipe message as Zellij wrote it, `now_ms` after the plugin loaded.
    pub fn pipe_wire(&mut self, msg: WireMessage, now_ms: u64) -> Response {
        if self.starts_later && self.held_pipes.len() < HELD_PIPES {
            self.held_pipes.push(msg);
            return self.respond(false);
        }
        let render = self.read_pipe(msg, now_ms);
        self.respond(render)
    }

    /// The broker, to look at (the tests do).
    pub fn broker(&self) -> &Broker {
        &self.broker
    }

    fn respond(&mut self, render: bool) -> Response {
        Response {
            commands: std::mem::take(&mut self.commands),
            render,
        }
    }

    fn send(&mut self, command: Command) {
        self.commands.push(command);
    }

    /// An event; whether to render.
    fn hear(&mut self, event: ZellijEvent, now_ms: u64) -> bool {
        if self.starts_later {
            // It heard its timer alone: it starts now. (What pipes brought meanwhile waits
            // in the broker for the grant.)
            if matches!(event, ZellijEvent::Timer) {
                self.starts_later = false;
                self.recall_kept();
                self.commands.extend(zellij_command::start_now());
                let mut render = false;
                for msg in std::mem::take(&mut self.held_pipes) {
                    render |= self.read_pipe(msg, now_ms);
                }
                return render;
            }
            return false;
        }
        self.broker.set_clock(now_ms);
        self.send_deferred(matches!(event, ZellijEvent::BeforeClose));
        if self.folder_unseen && !self.broker.awaits_permission() {
            // The first event after the grant's: the first question's frame is drawn.
            self.folder_unseen = false;
            self.folder.is_private();
        }
        if self.trace {
            if let Some(said) = trace::event(&event, self.plugin_id) {
                self.log(format_args!("{said}"));
            }
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
            ZellijEvent::Timer => {
                self.look_at_folder(now_ms);
                self.uncover(now_ms, false);
                self.broker.timer()
            }
            ZellijEvent::BeforeClose => self.broker.before_close(),
            ZellijEvent::ModeUpdate(mode) => {
                if let Some(session) = &mode.session_name {
                    self.broker.set_session(session);
                }
                // Zellij tells of every mode a key or a focus moves to: drawn again only
                // when the colours changed.
                let theme = Theme::from(&mode.colors);
                let changed = theme != self.theme;
                self.theme = theme;
                return changed;
            }
            ZellijEvent::PaneUpdate(panes) => {
                if let Some(id) = self.plugin_id {
                    self.sighting.panes(&panes, id);
                }
                self.tab_marks.panes(&panes);
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
                self.uncover(now_ms, true);
                self.tab_marks.tabs(&tabs);
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
        self.mark_tabs(&mut by_state);
        if awaited && !self.broker.awaits_permission() {
            // Granted without an answer (see `Broker::application_state_heard`): what an
            // instance that closed as this one loaded kept, as on an answer.
            self.recall_kept();
        }
        self.run(by_state)
    }

    /// A pipe message; whether to render.
    fn read_pipe(&mut self, msg: WireMessage, now_ms: u64) -> bool {
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
                let error = RequestError::PayloadTooLarge { bytes };
                return self.unreadable(source, msg.args, error, now_ms);
            }
            WirePayload::InvalidUtf8(offset) => {
                let error = RequestError::InvalidUtf8 { offset };
                return self.unreadable(source, msg.args, error, now_ms);
            }
        };
        self.receive(
            PipeIn {
                source,
                name: msg.name,
                payload,
                args: msg.args,
            },
            now_ms,
        )
    }

    fn unreadable(
        &mut self,
        source: Source,
        args: BTreeMap<String, String>,
        error: RequestError,
        now_ms: u64,
    ) -> bool {
        match source {
            Source::Cli(pipe) => {
                self.broker.set_clock(now_ms);
                self.send_deferred(false);
                let mut effects = self.broker.pipe_unreadable(&pipe, &args, &error);
                self.mark_tabs(&mut effects);
                self.run(effects)
            }
            // Nobody waits for an answer to another plugin's broadcast.
            Source::Plugin(_) | Source::Keybind => false,
        }
    }

    fn receive(&mut self, msg: PipeIn, now_ms: u64) -> bool {
        self.broker.set_clock(now_ms);
        self.send_deferred(false);
        if self.trace {
            self.log(format_args!("{}", trace::pipe(&msg)));
        }
        let mut effects = self.broker.pipe(msg);
        self.mark_tabs(&mut effects);
        self.run(effects)
    }

    /// The tabs' marks, as the waits stand once the broker did what it was told.
    fn mark_tabs(&mut self, effects: &mut Vec<Effect>) {
        self.tab_marks.settle(&self.broker.waiting_panes(), effects);
    }

    /// One line of the trace, with this instance's client and the broker's clock.
    fn log(&self, what: std::fmt::Arguments) {
        log_line::write(format_args!(
            "ask-popup trace: client {} at {} ms: {what}",
            self.client_id,
            self.broker.now_ms()
        ));
    }

    /// What `run` held back, in the order it came, once its time came (or as the plugin
    /// closes).
    fn send_deferred(&mut self, closing: bool) {
        if closing || self.broker.now_ms() >= self.deferred_until {
            for effect in std::mem::take(&mut self.deferred) {
                self.execute(effect);
            }
        }
    }

    /// Executes the broker's effects; returns whether to render.
    fn run(&mut self, effects: Vec<Effect>) -> bool {
        if self.trace {
            for effect in effects.iter().filter(|e| trace::says_effect(e)) {
                self.log(format_args!("does {}", trace::effect(effect)));
            }
        }
        let mut redraw = Redraw::default();
        // The messages to the other instances and the pane's name go after the popup is
        // shown and placed, and when it has just shown, `pane::DEFERRED_MS` later (a timer
        // set for them): each sets Zellij to work for every instance (a pipe message, a pane
        // update for every plugin) that would otherwise share the machine with the question's
        // first frame on its way to the screen.
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
        // (Behind those already waiting, in their order.)
        if (showing || !self.deferred.is_empty()) && !later.is_empty() {
            if self.deferred.is_empty() {
                self.deferred_until = self.broker.now_ms().saturating_add(pane::DEFERRED_MS);
                self.send(Command::SetTimeout(pane::DEFERRED_MS as f64 / 1000.0));
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
    /// one arm per effect, each a command or two: a table, read by its arms.)
    fn execute(&mut self, effect: Effect) -> Redraw {
        let done = Redraw::default();
        match effect {
            Effect::Block(pipe) => self.send(Command::BlockCliPipe(pipe)),
            Effect::Reply { pipe, output } => {
                if !output.is_empty() {
                    self.send(Command::CliPipeOutput {
                        pipe: pipe.clone(),
                        output,
                    });
                }
                self.send(Command::UnblockCliPipe(pipe));
            }
            Effect::Broadcast { name, payload } => {
                self.send(Command::MessageToPlugin(PluginMessage {
                    name,
                    payload: Some(payload),
                    ..PluginMessage::default()
                }));
            }
            Effect::Peer(payload) => {
                if let Some(id) = self.plugin_id {
                    self.send(Command::MessageToPlugin(PluginMessage {
                        name: PEER_PIPE.to_string(),
                        payload: Some(payload),
                        destination: Some(id),
                        ..PluginMessage::default()
                    }));
                }
            }
            Effect::RenamePane { pane, title } => {
                self.send(Command::RenameTerminalPane { pane, title });
            }
            Effect::RenameTab { tab, name } => {
                // Every instance keeps the marks alike; the leader renames.
                if self.broker.leads() {
                    self.send(Command::RenameTab { tab, name });
                }
            }
            Effect::SetOwnTitle(title) => self.set_own_title(title),
            Effect::Show => {
                self.send(Command::ShowSelf);
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
                    self.send(Command::ShowSelf);
                }
                return Redraw {
                    frame: true,
                    ..done
                };
            }
            Effect::Hide => {
                self.send(Command::HideSelf);
                // A show that follows (in this batch, or before Zellij tells of the hide)
                // must show it again.
                self.sighting.hidden_here();
            }
            Effect::RequestPermission => {
                self.send(Command::RequestPermissions(PERMISSIONS.to_vec()));
            }
            Effect::SetTimer(seconds) => self.send(Command::SetTimeout(seconds)),
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
            Effect::KeepAcrossReload(kept) => self.folder.keep(self.zellij_pid, &kept),
            Effect::ForgetKeptAcrossReload => self.folder.forget(self.zellij_pid),
            Effect::SwitchSession(name) => self.send(Command::SwitchSession(name)),
            Effect::OpenHistory => {
                let entries = self.folder.recent_history();
                let effects = self.broker.history_loaded(entries);
                return Redraw {
                    frame: self.run(effects),
                    ..done
                };
            }
            Effect::Record(line) => {
                if self.folder.record(&line) {
                    self.wait_for_folder();
                }
            }
            Effect::IgnoredPeerMessage { from_plugin } => {
                if self.trace {
                    self.log(format_args!("{}", trace::ignored(from_plugin)));
                }
            }
        }
        done
    }
}
