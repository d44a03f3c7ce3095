//! The Zellij plugin: the only file that talks to Zellij. It reads what Zellij writes to the
//! plugin's stdin, hands it to the library's `Instance` (which decides everything and returns
//! the commands to send, as data), and sends those commands; everything else is the library's,
//! tested on the host. zellij-tile is a wasm-only dependency, so all of this is compiled for
//! `wasm32-wasip1` only.

/// The plugin's exports, as zellij-tile's `register_plugin!` writes them, except that what
/// Zellij writes to the plugin's stdin is read with `ask_popup_plugin::wire` rather than
/// zellij-tile's serde_json and anyhow: `pipe` its message, in memory bounded by the payload
/// limit rather than by whatever a caller sends, `update` its event, which
/// `ask_popup_plugin::incoming` reads (only the events and fields the plugin uses), and `load`
/// its options (see each why that matters).
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
        STATE.with(|state| state.borrow_mut().event(&bytes))
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
    use ask_popup_plugin::instance::{Instance, Response};
    use ask_popup_plugin::wire::WireMessage;
    use ask_popup_plugin::zellij_command::{self, Command, PluginIds};
    use std::collections::BTreeMap;
    use std::time::Instant;
    use zellij_tile::prelude::ZellijPlugin;

    #[derive(Default)]
    pub struct State {
        instance: Instance,
        /// When the plugin loaded: the instance's clock counts from there.
        started: Option<Instant>,
    }

    impl ZellijPlugin for State {
        fn load(&mut self, configuration: BTreeMap<String, String>) {
            let ids = plugin_ids();
            let epoch = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            self.started = Some(Instant::now());
            for command in self.instance.load(&configuration, ids, epoch) {
                send(command);
            }
        }

        fn render(&mut self, rows: usize, cols: usize) {
            let now = self.now_ms();
            let text = self.instance.render(rows, cols, now);
            write_out(&text);
        }
    }

    impl State {
        /// An event as the `update` export read it (see `Instance::event_wire`); returns
        /// whether to render.
        pub fn event(&mut self, bytes: &[u8]) -> bool {
            let now = self.now_ms();
            perform(self.instance.event_wire(bytes, now))
        }

        /// A pipe message read by the `pipe` export; returns whether to render.
        pub fn pipe_wire(&mut self, msg: WireMessage) -> bool {
            let now = self.now_ms();
            perform(self.instance.pipe_wire(msg, now))
        }

        /// Milliseconds since the plugin loaded.
        fn now_ms(&self) -> u64 {
            self.started.map_or(0, |started| {
                u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
            })
        }
    }

    /// Sends what the instance decided; whether to render.
    fn perform(response: Response) -> bool {
        for command in response.commands {
            send(command);
        }
        response.render
    }

    #[link(wasm_import_module = "zellij")]
    extern "C" {
        fn host_run_plugin_command();
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
}
