//! The Zellij plugin: wires Zellij's events and CLI pipes to the `ask_popup` core. This is the
//! only file that talks to Zellij (zellij-tile is a wasm-only dependency), so everything here is
//! compiled for `wasm32-wasip1` only; the host build gets a `main` that says so.
//!
//! Decisions live in the library's `Broker`, which turns each host event into effects; this file
//! translates Zellij's types into the core's and executes the effects.

#[cfg(target_family = "wasm")]
use plugin::State;
#[cfg(target_family = "wasm")]
use zellij_tile::prelude::*;

#[cfg(target_family = "wasm")]
register_plugin!(State);

#[cfg(not(target_family = "wasm"))]
fn main() {
    eprintln!(
        "ask-popup is a Zellij plugin: build it with `cargo build --release --target wasm32-wasip1` \
         and load target/wasm32-wasip1/release/ask-popup.wasm in Zellij (see plugin.kdl)."
    );
    std::process::exit(2);
}

#[cfg(target_family = "wasm")]
mod plugin {
    use ask_popup::broker::{Broker, Config, Effect, PipeIn, Source};
    use ask_popup::dialog::{Input, Key};
    use ask_popup::view::{Color, Theme};
    use std::collections::BTreeMap;
    use std::str::FromStr;
    use zellij_tile::prelude::*;

    /// Whether the user granted the permissions yet.
    #[derive(Default, PartialEq, Eq)]
    enum Permission {
        #[default]
        Asked,
        Granted,
        Denied,
    }

    #[derive(Default)]
    pub struct State {
        broker: Broker,
        permission: Permission,
        /// Pipe messages that arrived before the permission answer.
        held: Vec<PipeMessage>,
        hide_key: Option<KeyWithModifier>,
        width: String,
        height: String,
        theme: Theme,
        plugin_id: u32,
    }

    impl ZellijPlugin for State {
        fn load(&mut self, configuration: BTreeMap<String, String>) {
            let get = |k: &str| configuration.get(k).map(|v| v.trim().to_owned());
            let hide = get("hide_key").unwrap_or_else(|| "Ctrl ]".to_owned());
            self.hide_key = match hide.to_ascii_lowercase().as_str() {
                "off" | "none" | "disabled" | "" => None,
                _ => KeyWithModifier::from_str(&hide).ok(),
            };
            let flag = |k: &str, default: bool| {
                get(k).map_or(default, |v| {
                    matches!(v.as_str(), "true" | "on" | "yes" | "1")
                })
            };
            let config = Config {
                hide_key_label: self.hide_key.as_ref().map(key_label),
                default_timeout_ms: get("default_timeout")
                    .and_then(|t| t.parse::<u64>().ok())
                    .filter(|t| *t >= ask_popup::request::MIN_TIMEOUT_MS),
                indicator: flag("indicator", true),
                full_events: flag("full_events", false),
                zjstatus: flag("zjstatus", false),
            };
            self.broker = Broker::new(config);
            self.width = get("popup_width").unwrap_or_else(|| "80%".to_owned());
            self.height = get("popup_height").unwrap_or_else(|| "80%".to_owned());
            self.plugin_id = get_plugin_ids().plugin_id;
            request_permission(&[
                PermissionType::ReadCliPipes,
                PermissionType::ChangeApplicationState,
                PermissionType::MessageAndLaunchOtherPlugins,
                PermissionType::ReadApplicationState,
            ]);
            subscribe(&[
                EventType::PermissionRequestResult,
                EventType::BeforeClose,
                EventType::Key,
                EventType::Mouse,
                EventType::PastedText,
                EventType::Timer,
                EventType::ModeUpdate,
                EventType::PaneUpdate,
                EventType::PaneClosed,
            ]);
        }

        fn update(&mut self, event: Event) -> bool {
            let effects = match event {
                Event::PermissionRequestResult(status) => {
                    self.permission = match status {
                        PermissionStatus::Granted => Permission::Granted,
                        PermissionStatus::Denied => Permission::Denied,
                    };
                    rename_plugin_pane(self.plugin_id, "ask-popup");
                    let held = std::mem::take(&mut self.held);
                    let mut render = true;
                    for msg in held {
                        render |= self.pipe(msg);
                    }
                    return render;
                }
                Event::Key(key) => self.broker.input(Input::Key(self.map_key(&key))),
                Event::PastedText(text) => self.broker.input(Input::Paste(text)),
                Event::Mouse(mouse) => match mouse {
                    Mouse::LeftClick(line, col) => {
                        self.broker.click(usize::try_from(line).unwrap_or(0), col)
                    }
                    Mouse::ScrollUp(n) => self.broker.wheel(None, -(n.min(50) as i32)),
                    Mouse::ScrollDown(n) => self.broker.wheel(None, n.min(50) as i32),
                    _ => Vec::new(),
                },
                Event::Timer(elapsed) => self.broker.timer(elapsed),
                Event::BeforeClose => self.broker.before_close(),
                Event::ModeUpdate(mode) => {
                    self.theme = theme_from(&mode.style.colors);
                    return true;
                }
                Event::PaneUpdate(manifest) => {
                    let titles = manifest
                        .panes
                        .values()
                        .flatten()
                        .filter(|p| !p.is_plugin)
                        .map(|p| (p.id, p.title.clone()))
                        .collect::<Vec<_>>();
                    self.broker.pane_titles(titles)
                }
                Event::PaneClosed(PaneId::Terminal(id)) => self.broker.pane_closed(id),
                _ => Vec::new(),
            };
            self.run(effects)
        }

        fn pipe(&mut self, msg: PipeMessage) -> bool {
            if self.permission == Permission::Asked {
                // Answer once we may: hold the CLI open meanwhile.
                if let PipeSource::Cli(id) = &msg.source {
                    block_cli_pipe_input(id);
                }
                self.held.push(msg);
                return false;
            }
            let source = match &msg.source {
                PipeSource::Cli(id) => Source::Cli(id.clone()),
                PipeSource::Plugin(_) => Source::Plugin,
                PipeSource::Keybind => Source::Keybind,
            };
            let effects = self.broker.pipe(PipeIn {
                source,
                name: msg.name,
                payload: msg.payload,
                args: msg.args,
            });
            self.run(effects)
        }

        fn render(&mut self, rows: usize, cols: usize) {
            if self.permission == Permission::Denied {
                println!(
                    "ask-popup needs its permissions to answer agents: reload it and press y."
                );
                return;
            }
            if self.broker.pending_count() == 0 {
                println!("ask-popup: no questions waiting.");
                return;
            }
            let frame = self.broker.render(rows, cols);
            print!("{}", frame.to_ansi(&self.theme));
        }
    }

    impl State {
        /// Executes the broker's effects; returns whether to render.
        fn run(&mut self, effects: Vec<Effect>) -> bool {
            let mut render = false;
            for effect in effects {
                match effect {
                    Effect::Block(pipe) => block_cli_pipe_input(&pipe),
                    Effect::Reply { pipe, output } => {
                        if !output.is_empty() {
                            cli_pipe_output(&pipe, &output);
                        }
                        unblock_cli_pipe_input(&pipe);
                    }
                    Effect::Broadcast { name, payload } => {
                        pipe_message_to_plugin(MessageToPlugin::new(name).with_payload(payload));
                    }
                    Effect::RenamePane { pane, title } => rename_terminal_pane(pane, title),
                    Effect::SetOwnTitle(title) => rename_plugin_pane(self.plugin_id, title),
                    Effect::Show => {
                        show_self(true);
                        self.resize();
                        render = true;
                    }
                    Effect::Hide => hide_self(),
                    Effect::SetTimer(seconds) => set_timeout(seconds),
                    Effect::Render => render = true,
                }
            }
            render
        }

        /// Sizes the floating popup from the configuration, centred when given in percent.
        fn resize(&self) {
            let centre = |size: &str| {
                size.strip_suffix('%')
                    .and_then(|p| p.trim().parse::<u32>().ok())
                    .filter(|p| *p <= 100)
                    .map(|p| format!("{}%", (100 - p) / 2))
            };
            if let Some(coordinates) = FloatingPaneCoordinates::new(
                centre(&self.width),
                centre(&self.height),
                Some(self.width.clone()),
                Some(self.height.clone()),
                None,
                None,
            ) {
                change_floating_panes_coordinates(vec![(
                    PaneId::Plugin(self.plugin_id),
                    coordinates,
                )]);
            }
        }

        fn map_key(&self, key: &KeyWithModifier) -> Key {
            if self.hide_key.as_ref() == Some(key) {
                return Key::Hide;
            }
            let ctrl = key.key_modifiers.contains(&KeyModifier::Ctrl);
            let alt = key.key_modifiers.contains(&KeyModifier::Alt);
            let shift = key.key_modifiers.contains(&KeyModifier::Shift);
            match key.bare_key {
                BareKey::Enter if alt || shift => Key::AltEnter,
                BareKey::Enter if !ctrl => Key::Enter,
                BareKey::Esc => Key::Esc,
                BareKey::Tab if shift => Key::BackTab,
                BareKey::Tab if !ctrl && !alt => Key::Tab,
                BareKey::Up => Key::Up,
                BareKey::Down => Key::Down,
                BareKey::Left => Key::Left,
                BareKey::Right => Key::Right,
                BareKey::Home => Key::Home,
                BareKey::End => Key::End,
                BareKey::PageUp => Key::PageUp,
                BareKey::PageDown => Key::PageDown,
                BareKey::Backspace => Key::Backspace,
                BareKey::Delete => Key::Delete,
                BareKey::Char('u') if ctrl => Key::ClearLine,
                BareKey::Char('e') if ctrl => Key::ToggleContext,
                BareKey::Char(c) if !ctrl && !alt => {
                    if shift {
                        Key::Char(c.to_uppercase().next().unwrap_or(c))
                    } else {
                        Key::Char(c)
                    }
                }
                _ => Key::Other,
            }
        }
    }

    /// `Ctrl ]` → `Ctrl+]`, as the footer shows it.
    fn key_label(key: &KeyWithModifier) -> String {
        key.to_string().replace(' ', "+")
    }

    fn color(c: PaletteColor) -> Color {
        match c {
            PaletteColor::Rgb((r, g, b)) => Color::Rgb(r, g, b),
            PaletteColor::EightBit(i) => Color::Indexed(i),
        }
    }

    /// The dialog's colours from the session theme.
    fn theme_from(s: &Styling) -> Theme {
        let text = &s.text_unselected;
        Theme {
            accent: color(text.emphasis_1),
            success: color(text.emphasis_2),
            warning: color(text.emphasis_0),
            error: color(s.exit_code_error.base),
            selected_fg: color(s.ribbon_selected.base),
            selected_bg: color(s.ribbon_selected.background),
            code: color(text.emphasis_3),
            heading: color(text.emphasis_0),
            link: color(text.emphasis_1),
            ..Theme::default()
        }
    }
}
