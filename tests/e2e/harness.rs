//! A real Zellij 0.45.1 in a real terminal (tmux), isolated in a temp dir, driven only the way
//! users and agents drive it: `zellij pipe`, `zellij action`, and what the terminal shows.
//!
//! Every wait has a deadline and every failure panics with what was seen, so no test can hang
//! and a red test says why. `Drop` tears the world down even when the test panics.

#![allow(dead_code)] // Not every test file uses every helper.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

/// The Zellij version the plugin is built against.
pub const ZELLIJ_VERSION: &str = "0.45.1";
/// The permissions the plugin asks for; pre-granted so no prompt appears.
pub const PERMISSIONS: [&str; 4] = [
    "ReadCliPipes",
    "ChangeApplicationState",
    "MessageAndLaunchOtherPlugins",
    "ReadApplicationState",
];
/// The terminal size tmux gives the Zellij client.
pub const COLS: u16 = 160;
pub const ROWS: u16 = 45;
/// How long any single CLI call (`zellij action …`, `tmux …`) may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a whole test may take by default, start-up included.
pub const TEST_DEADLINE: Duration = Duration::from_secs(120);

/// Two Zellij servers on a small machine make each other flaky: one world at a time.
static SERIAL: Mutex<()> = Mutex::new(());
static WORLDS: AtomicUsize = AtomicUsize::new(0);

/// The wasm the tests load: `target/wasm32-wasip1/plugin/ask-popup.wasm` of this crate (the
/// `plugin` profile, or of `$CARGO_TARGET_DIR`).
pub fn wasm_path() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => manifest.join(dir),
        None => manifest.join("target"),
    };
    target
        .join("wasm32-wasip1")
        .join("plugin")
        .join("ask-popup.wasm")
}

/// The listener test plugin (`tests/listener`), built by `cargo build --release --target
/// wasm32-wasip1 --manifest-path tests/listener/Cargo.toml` into its own target dir (or
/// `$CARGO_TARGET_DIR`).
pub fn listener_wasm_path() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => manifest.join(dir),
        None => manifest.join("tests").join("listener").join("target"),
    };
    target
        .join("wasm32-wasip1")
        .join("release")
        .join("e2e-listener.wasm")
}

/// The `zellij` to run: the first of `zellij` on PATH and cargo's bin dir (where
/// `scripts/ensure-tools.sh` installs it) that is exactly `ZELLIJ_VERSION`.
pub fn zellij_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
        // `zellij` on PATH, by its full path (its dir goes on the PATH of a world's setup).
        let on_path = std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("zellij"))
                .find(|bin| bin.is_file())
        });
        let mut candidates: Vec<PathBuf> = on_path.into_iter().collect();
        candidates.extend(cargo_home.map(|c| c.join("bin").join("zellij")));
        let mut found = Vec::new();
        for bin in candidates {
            let version = match Command::new(&bin).arg("--version").output() {
                Ok(out) => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
                Err(_) => "not found".to_owned(),
            };
            if version == format!("zellij {ZELLIJ_VERSION}") {
                return bin;
            }
            found.push(format!("{}: {version}", bin.display()));
        }
        panic!(
            "e2e tests need zellij {ZELLIJ_VERSION} (found {}): run `bash scripts/ensure-tools.sh`",
            found.join(", ")
        )
    })
}

/// Panics with how to get what is missing unless zellij 0.45.1, tmux and a fresh wasm exist.
fn check_prerequisites() {
    const TOOLS: &str = "run `bash scripts/ensure-tools.sh`";
    zellij_bin();
    if let Err(e) = Command::new("tmux").arg("-V").output() {
        panic!("e2e tests need tmux on PATH ({e}): {TOOLS}");
    }
    // (cargo's dep-info is named after the plugin crate's bin.)
    check_wasm(
        &wasm_path(),
        &wasm_path().with_file_name("ask-popup-plugin.d"),
        "run `bash scripts/build-plugin.sh` (or `bash scripts/test.sh`)",
    );
}

/// This process's `PATH` with `dir` in front.
pub fn path_with(dir: &Path) -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let paths = std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&path));
    std::env::join_paths(paths).expect("PATH with the dir in front")
}

/// Panics with `build` unless `wasm` exists and is newer than every source it was built from
/// (per cargo's `dep_info`).
fn check_wasm(wasm: &Path, dep_info: &Path, build: &str) {
    let built = std::fs::metadata(wasm)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| {
            panic!(
                "e2e tests need the plugin at {} ({e}): {build}",
                wasm.display()
            )
        });
    if let Some(newer) = newer_source(dep_info, built) {
        panic!(
            "the plugin at {} is older than {}: {build}",
            wasm.display(),
            newer.display()
        );
    }
}

/// A source file of a wasm modified after it was built, per the dep-info file cargo writes
/// beside it (`out: dep dep …`), so files outside the crate's module tree do not count.
fn newer_source(dep_info: &Path, built: SystemTime) -> Option<PathBuf> {
    let dep_info = std::fs::read_to_string(dep_info).ok()?;
    let (_, deps) = dep_info.lines().next()?.split_once(": ")?;
    // Spaces inside paths are escaped as `\ `.
    let deps = deps.replace("\\ ", "\u{0}");
    deps.split_whitespace()
        .map(|dep| PathBuf::from(dep.replace('\u{0}', " ")))
        .find(|dep| {
            std::fs::metadata(dep)
                .and_then(|m| m.modified())
                .is_ok_and(|modified| modified > built)
        })
}

/// A directory with a short path (Unix socket paths must stay under 108 bytes), created for
/// this session alone; the session removes it when it ends (`Drop for Zellij`).
fn short_temp_dir() -> PathBuf {
    let base = if Path::new("/tmp").is_dir() {
        PathBuf::from("/tmp")
    } else {
        std::env::temp_dir()
    };
    tempfile::Builder::new()
        .prefix("apz-")
        .rand_bytes(6)
        .tempdir_in(&base)
        .unwrap_or_else(|e| panic!("could not create a temp dir under {}: {e}", base.display()))
        .keep()
}

/// Another plugin the session knows by an alias, with its permissions pre-granted.
#[derive(Clone, Debug)]
pub struct ExtraPlugin {
    pub alias: String,
    pub wasm: PathBuf,
    pub permissions: Vec<String>,
    /// The plugin's options, in its alias block.
    pub options: Vec<(String, String)>,
}

/// How to start a world beyond the defaults of `Zellij::start`.
#[derive(Clone, Debug)]
pub struct Options {
    /// Every later wait of the test ends by this long from the start.
    pub deadline: Duration,
    /// More plugin aliases besides `ask-popup`.
    pub plugins: Vec<ExtraPlugin>,
    /// A layout for the session (`zellij --new-session-with-layout FILE`); it must show the
    /// tab bar.
    pub layout: Option<PathBuf>,
    /// Zellij as a new user has it after running this setup in an empty HOME: the config
    /// that setup wrote, found where Zellij looks, and no permission granted yet.
    pub installed: Option<Setup>,
    /// Zellij's web server on this loopback port, started with the session (`web_server
    /// true`), and the session shared with web clients (`web_sharing "on"`).
    pub web_port: Option<u16>,
}

/// How a test world is set up as a user does it: `command ARGS`, with these dirs (and Zellij's)
/// on `PATH`, in the world's empty HOME.
#[derive(Clone, Debug)]
pub struct Setup {
    pub command: PathBuf,
    pub args: Vec<String>,
    pub path: Vec<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            deadline: TEST_DEADLINE,
            plugins: Vec::new(),
            layout: None,
            installed: None,
            web_port: None,
        }
    }
}

impl Options {
    /// Adds the listener test plugin (`tests/listener`) as the alias `listener`: it records the
    /// `ask-popup:*` and `herdr:*` broadcasts it hears and tells them to a pipe named `heard`.
    pub fn with_listener(mut self) -> Options {
        check_wasm(
            &listener_wasm_path(),
            &listener_wasm_path().with_extension("d"),
            "run `cargo build --release --target wasm32-wasip1 --manifest-path \
             tests/listener/Cargo.toml` (or `bash scripts/test.sh`)",
        );
        self.plugins.push(ExtraPlugin {
            alias: LISTENER.to_owned(),
            wasm: listener_wasm_path(),
            permissions: vec!["ReadCliPipes".to_owned()],
            options: Vec::new(),
        });
        self
    }

    /// Adds the listener test plugin as a forger, the alias `forger`: a CLI pipe named `forge`
    /// has it broadcast the payload as a message of ask-popup's instances (`ask-popup-peer`).
    pub fn with_forger(mut self) -> Options {
        check_wasm(
            &listener_wasm_path(),
            &listener_wasm_path().with_extension("d"),
            "run `cargo build --release --target wasm32-wasip1 --manifest-path \
             tests/listener/Cargo.toml` (or `bash scripts/test.sh`)",
        );
        // A file of its own: Zellij keeps a plugin's permissions by its location.
        let wasm = listener_wasm_path().with_file_name("forger.wasm");
        std::fs::copy(listener_wasm_path(), &wasm).expect("copy the listener as the forger");
        self.plugins.push(ExtraPlugin {
            alias: FORGER.to_owned(),
            wasm,
            permissions: vec![
                "ReadCliPipes".to_owned(),
                "MessageAndLaunchOtherPlugins".to_owned(),
            ],
            options: vec![("forge".to_owned(), "true".to_owned())],
        });
        self
    }

    /// Set up by `ask-popup setup zellij --write` (the command of this build): see
    /// `installed`.
    pub fn installed_by_setup(self) -> Options {
        self.installed_by(Setup {
            command: PathBuf::from(env!("CARGO_BIN_EXE_ask-popup")),
            args: ["setup", "zellij", "--write"].map(str::to_owned).to_vec(),
            path: Vec::new(),
        })
    }

    /// Set up by `setup`: see `installed`.
    pub fn installed_by(mut self, setup: Setup) -> Options {
        self.installed = Some(setup);
        self
    }

    pub fn with_layout(mut self, layout: impl Into<PathBuf>) -> Options {
        self.layout = Some(layout.into());
        self
    }

    /// Shares the session with web clients, through a web server on a free loopback port that
    /// starts with the session (see `Zellij::web_url`, `Zellij::web_token`).
    pub fn with_web(self) -> Options {
        self.with_web_port(free_port())
    }

    /// `with_web` on `port`; for a world `installed`, only the server to stop at the end (its
    /// setup configures the rest).
    pub fn with_web_port(mut self, port: u16) -> Options {
        self.web_port = Some(port);
        self
    }

    pub fn with_deadline(mut self, deadline: Duration) -> Options {
        self.deadline = deadline;
        self
    }
}

/// The listener plugin's alias (see `Options::with_listener`).
pub const LISTENER: &str = "listener";
/// The forger's alias (`Options::with_forger`).
pub const FORGER: &str = "forger";
/// The tmux session of the first client is `apz`; a second client's (`attach_second_client`).
pub const FIRST: &str = "apz";
pub const SECOND: &str = "apz2";

/// One isolated Zellij session with a client attached in tmux.
pub struct Zellij {
    root: PathBuf,
    session: String,
    tmux_socket: String,
    env: Vec<(&'static str, OsString)>,
    deadline: Instant,
    /// The config the client starts with (`--config`); None: where Zellij finds it itself.
    config: Option<PathBuf>,
    layout: Option<PathBuf>,
    web_port: Option<u16>,
    attaches_lost: AtomicUsize,
    // Last: released only after `drop` has torn the world down.
    _serial: MutexGuard<'static, ()>,
}

impl Zellij {
    /// Starts a session whose tests must finish within `TEST_DEADLINE`.
    pub fn start() -> Zellij {
        Zellij::start_with_deadline(TEST_DEADLINE)
    }

    /// Starts a session; every later wait of this test ends by `budget` from now.
    pub fn start_with_deadline(budget: Duration) -> Zellij {
        Zellij::start_with(Options::default().with_deadline(budget))
    }

    /// Starts a session as `options` say.
    pub fn start_with(options: Options) -> Zellij {
        let budget = options.deadline;
        let serial = SERIAL
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        check_prerequisites();
        let deadline = Instant::now() + budget;
        let n = WORLDS.fetch_add(1, Ordering::Relaxed);
        let root = short_temp_dir();
        let tag = format!("{}{n}", std::process::id());
        let dirs = ["home", "config", "cache", "data", "s", "tmp", "run"];
        for d in dirs {
            std::fs::create_dir_all(root.join(d)).expect("create world dirs");
        }
        // The runtime dir is the user's alone, as the XDG spec wants it.
        std::fs::set_permissions(
            root.join("run"),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .expect("make the runtime dir private");
        let env: Vec<(&'static str, OsString)> = vec![
            ("HOME", root.join("home").into()),
            ("XDG_CONFIG_HOME", root.join("config").into()),
            ("XDG_CACHE_HOME", root.join("cache").into()),
            ("XDG_DATA_HOME", root.join("data").into()),
            ("ZELLIJ_SOCKET_DIR", root.join("s").into()),
            ("XDG_RUNTIME_DIR", root.join("run").into()),
            ("TMPDIR", root.join("tmp").into()),
            ("TMUX_TMPDIR", root.clone().into()),
            ("SHELL", "/bin/sh".into()),
        ];

        let wasm = wasm_path();
        let wasm = wasm.to_str().expect("wasm path is UTF-8");
        // ask-popup traces what it hears and does into the log a failed test shows.
        let mut plugins = vec![(
            "ask-popup".to_owned(),
            wasm.to_owned(),
            PERMISSIONS.map(str::to_owned).to_vec(),
            vec![("trace".to_owned(), "true".to_owned())],
        )];
        for extra in &options.plugins {
            let path = extra.wasm.to_str().expect("wasm path is UTF-8").to_owned();
            plugins.push((
                extra.alias.clone(),
                path,
                extra.permissions.clone(),
                extra.options.clone(),
            ));
        }
        let aliases: String = plugins
            .iter()
            .map(|(alias, path, _, options)| {
                let options: String = options
                    .iter()
                    .map(|(k, v)| format!("        {k} {v:?}\n"))
                    .collect();
                format!("    {alias} location=\"file:{path}\" {{\n{options}    }}\n")
            })
            .collect();
        // Zellij 0.45.1's server resolves a layout file against the layout dir, and without
        // one (no config dir) silently falls back to the default layout.
        let layout_dir = match options.layout.as_ref().and_then(|l| l.parent()) {
            Some(dir) => format!("layout_dir {:?}\n", dir.to_str().expect("UTF-8 path")),
            None => String::new(),
        };
        let config = if let Some(setup) = &options.installed {
            // What a new user runs, with this world's HOME and XDG dirs.
            let mut command = Command::new(&setup.command);
            command.args(&setup.args).env_clear();
            let mut dirs = setup.path.clone();
            dirs.extend(zellij_bin().parent().map(Path::to_path_buf));
            let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            command.env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", dirs.join(":")),
            );
            for (k, v) in &env {
                command.env(k, v);
            }
            let out = run(command, COMMAND_TIMEOUT);
            assert!(out.status.success(), "{setup:?}: {out:?}");
            None
        } else {
            let config = root.join("config.kdl");
            let web = match options.web_port {
                Some(port) => {
                    format!("web_sharing \"on\"\nweb_server true\nweb_server_port {port}\n")
                }
                None => String::new(),
            };
            std::fs::write(
                &config,
                format!(
                    "show_startup_tips false\n\
                     show_release_notes false\n\
                     session_serialization false\n\
                     {web}\
                     {layout_dir}\
                     plugins {{\n{aliases}}}\n"
                ),
            )
            .expect("write config");
            let cache = root.join("cache").join("zellij");
            std::fs::create_dir_all(&cache).expect("create zellij cache");
            let grants: String = plugins
                .iter()
                .map(|(_, path, permissions, _)| {
                    let lines: String = permissions.iter().map(|p| format!("    {p}\n")).collect();
                    format!("{path:?} {{\n{lines}}}\n")
                })
                .collect();
            let permissions = cache.join("permissions.kdl");
            std::fs::write(&permissions, grants).expect("write permissions");
            hold_still(&permissions, true);
            Some(config)
        };
        let mut env = env;
        if let (Some(_), Some(config)) = (options.web_port, &config) {
            // Where `zellij web` finds the web server's port when run in the session (the
            // notify command's URL), as a user's config file in its usual place.
            env.push(("ZELLIJ_CONFIG_FILE", config.clone().into()));
        }

        let zellij = Zellij {
            session: format!("apz{tag}"),
            tmux_socket: format!("apz{tag}"),
            root,
            env,
            deadline,
            config,
            layout: options.layout,
            web_port: options.web_port,
            attaches_lost: AtomicUsize::new(0),
            _serial: serial,
        };
        zellij.attach_client();
        zellij.wait_until_ready();
        zellij
    }

    /// The session's name.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Starts another session of this world, `name`, with this world's config, and leaves it
    /// as a person who switched away does: a client attached in a tmux session of its own,
    /// then gone (that tmux session killed). Nobody is attached to it then. (Zellij 0.45.1's
    /// `attach --create-background` can leave the creating client counted as attached.)
    pub fn start_background_session(&self, name: &str) {
        let client = self.start_attached_session(name);
        let out = self.tmux_run(&["kill-session", "-t", &client]);
        assert!(out.status.success(), "tmux kill-session {client}: {out:?}");
    }

    /// Starts another session of this world, `name`, with this world's config, a client
    /// attached to it in a tmux session of its own; returns that tmux session's name (its
    /// screen: `screen_of`, its keys: `tmux send-keys -t NAME`).
    pub fn start_attached_session(&self, name: &str) -> String {
        let client = format!("{name}-client");
        let mut tmux = self.tmux();
        tmux.args(["new-session", "-d", "-s", &client, "-x"])
            .arg(COLS.to_string())
            .arg("-y")
            .arg(ROWS.to_string())
            .arg(format!(
                "{} -s {}",
                self.client_command(),
                shell_quote(name)
            ));
        let out = run(tmux, COMMAND_TIMEOUT);
        assert!(out.status.success(), "tmux new-session {client}: {out:?}");
        // Zellij wrote the session's metadata with the client attached (the session is up,
        // and leaving it now is leaving a session, not a server still starting). Not by
        // connecting to its socket: a connection that ends while the server starts makes
        // Zellij 0.45.1's server panic (it removes a client before it has a session).
        let metadata = self
            .cache_home()
            .join("zellij/contract_version_1/session_info")
            .join(name)
            .join("session-metadata.kdl");
        let until = self.until(COMMAND_TIMEOUT);
        loop {
            let text = std::fs::read_to_string(&metadata).unwrap_or_default();
            if text.lines().any(|l| l == "connected_clients 1") {
                break;
            }
            assert!(
                Instant::now() < until,
                "session {name} never had its client: {text:?}; its terminal: {:?}",
                self.tmux_run(&["capture-pane", "-p", "-t", &client])
            );
            thread::sleep(Duration::from_millis(100));
        }
        client
    }

    /// Starts another session of this world, `name`, as scripts start agent sessions: `zellij
    /// --layout LAYOUT attach --create-background NAME`, with this world's config and the
    /// layout's folder as its layout dir (Zellij 0.45.1's server finds a layout there only).
    /// No client ever attaches to it, and no CLI connects to it here.
    pub fn start_session_in_background_with_layout(&self, name: &str, layout: &Path) {
        let config = self
            .config
            .as_ref()
            .expect("a world with a config of its own");
        let dir = layout.parent().expect("the layout's folder");
        let with_dir = self.root.join(format!("config-{name}.kdl"));
        let text = std::fs::read_to_string(config).expect("read the config");
        std::fs::write(
            &with_dir,
            format!("{text}layout_dir {:?}\n", dir.to_str().expect("UTF-8 path")),
        )
        .expect("write the session's config");
        let mut zellij = Command::new(zellij_bin());
        zellij
            .arg("--config")
            .arg(&with_dir)
            .arg("--layout")
            .arg(layout)
            .args(["attach", "--create-background", name]);
        self.isolate(&mut zellij);
        let out = run(zellij, COMMAND_TIMEOUT);
        assert!(
            out.status.success(),
            "zellij attach --create-background: {out:?}"
        );
    }

    /// Starts the Zellij client inside a fresh tmux server: a plugin pane only appears once a
    /// real client is attached.
    fn attach_client(&self) {
        let mut line = self.client_command();
        line.push_str(&format!(" -s {}", shell_quote(&self.session)));
        if let Some(layout) = &self.layout {
            // `--layout` with `-s` would add a tab to a running session named so.
            line.push_str(&format!(
                " --new-session-with-layout {}",
                shell_quote(&layout.to_string_lossy())
            ));
        }
        let mut tmux = self.tmux();
        tmux.args(["new-session", "-d", "-s", "apz", "-x"])
            .arg(COLS.to_string())
            .arg("-y")
            .arg(ROWS.to_string())
            .arg(line);
        let out = run(tmux, COMMAND_TIMEOUT);
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `exec env … zellij --config CONFIG`: a Zellij client of this world, for tmux to run.
    fn client_command(&self) -> String {
        let mut line = String::from("exec env");
        for (k, v) in &self.env {
            line.push_str(&format!(" {k}={}", shell_quote(&v.to_string_lossy())));
        }
        line.push_str(&format!(
            " {}",
            shell_quote(&zellij_bin().to_string_lossy())
        ));
        if let Some(config) = &self.config {
            line.push_str(&format!(
                " --config {}",
                shell_quote(&config.to_string_lossy())
            ));
        }
        line
    }

    /// Attaches a second client to the session, in a second tmux session (`SECOND`) of the
    /// same tmux server, and waits until it shows the session. A `zellij attach` that ends
    /// without showing it (seen once in ten runs: its terminal stayed blank) is attached again,
    /// as a person would; its exit status is shown in its terminal and said if all tries fail.
    pub fn attach_second_client(&self) {
        self.attach_client_as(SECOND);
    }

    /// How many attaches of a client lost their connection before showing the session (and
    /// were attached again): see `attach_client_as`.
    pub fn attaches_lost(&self) -> usize {
        self.attaches_lost.load(Ordering::Relaxed)
    }

    /// The first client leaves (its terminal closed) and a new one attaches in its place, in
    /// the tmux session `FIRST`: a client with a new id, come after every other.
    pub fn reattach_first_client(&self) {
        let _ = self.tmux_run(&["kill-session", "-t", FIRST]);
        self.attach_client_as(FIRST);
    }

    /// `attach_second_client`, in the tmux session `name`.
    fn attach_client_as(&self, name: &str) {
        const ENDED: &str = "zellij attach ended with status";
        let line = format!(
            "{} attach {}; echo \"{ENDED} $?\"; exec sleep 1000",
            self.client_command().trim_start_matches("exec "),
            shell_quote(&self.session)
        );
        let tab_bar = format!("Zellij ({})", self.session);
        for attempt in 1..=3 {
            let _ = self.tmux_run(&["kill-session", "-t", name]);
            let out = self.tmux_run(&[
                "new-session",
                "-d",
                "-s",
                name,
                "-x",
                &COLS.to_string(),
                "-y",
                &ROWS.to_string(),
                &line,
            ]);
            assert!(
                out.status.success(),
                "tmux new-session for the client {name} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            // Blank for half a minute, or ended: a person would attach again.
            let until = self.until(Duration::from_secs(30));
            let screen = loop {
                let screen = self.screen_of(name);
                // The session on screen: its tab bar, or its first pane when the tab bar is not
                // drawn yet. (Zellij 0.45.1 starts the bars' instances for the new client and
                // may send them the tabs before they listen: they stay blank until the tabs
                // change. Seen in the soak, with many requests pending.)
                if screen.contains(&tab_bar) || screen.contains("Pane #1") {
                    return;
                }
                if screen.contains(ENDED) || Instant::now() >= until {
                    break screen;
                }
                thread::sleep(Duration::from_millis(100));
            };
            self.attaches_lost.fetch_add(1, Ordering::Relaxed);
            eprintln!("{name}'s attach {attempt} showed no session:\n{screen}");
        }
        panic!(
            "the client {name} never attached; last screen:\n{}\nlog tail:\n{}",
            self.screen_of(name),
            self.log_tail(40)
        );
    }

    /// What the terminal of tmux session `client` (`apz`, or `SECOND`) shows.
    pub fn screen_of(&self, client: &str) -> String {
        let out = self.tmux_run(&["capture-pane", "-p", "-t", client]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `wait_for_screen` for the terminal of tmux session `client`.
    pub fn wait_for_screen_of(
        &self,
        client: &str,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> String {
        let until = self.until(timeout);
        loop {
            let screen = self.screen_of(client);
            if pred(&screen) {
                return screen;
            }
            if Instant::now() >= until {
                panic!(
                    "{client}'s screen never showed {what} within {timeout:?}; last screen:\n{screen}\nlog tail:\n{}",
                    self.log_tail(40)
                );
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// Types keys into the terminal of tmux session `client`, as its user would.
    pub fn type_into(&self, client: &str, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", client];
        args.extend_from_slice(keys);
        let out = self.tmux_run(&args);
        assert!(
            out.status.success(),
            "tmux send-keys {keys:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Waits until the session is up: first its tab bar on screen, then CLI actions answered.
    ///
    /// The screen comes first because Zellij 0.45.1's server panics (`lib.rs:1462`, unwrap of
    /// the session data in `RemoveClient`) when a CLI client disconnects before the first real
    /// client has initialised the session, and a pipe sent in that window can lose its reply.
    fn wait_until_ready(&self) {
        let tab_bar = format!("Zellij ({})", self.session);
        self.wait_for_screen("the tab bar", Duration::from_secs(60), |screen| {
            screen.contains(&tab_bar)
        });
        let start = Instant::now();
        loop {
            let out = self.action(&["list-panes", "--json", "--all"]);
            if out.status.success() {
                let listed: serde_json::Value =
                    serde_json::from_slice(&out.stdout).unwrap_or_default();
                if listed.as_array().is_some_and(|panes| !panes.is_empty()) {
                    return;
                }
            }
            if Instant::now() >= self.deadline || start.elapsed() > Duration::from_secs(60) {
                panic!(
                    "zellij session {} did not come up: list-panes said {:?} / {:?}\n\
                     screen:\n{}\nlog tail:\n{}",
                    self.session,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr),
                    self.screen(),
                    self.log_tail(40)
                );
            }
            thread::sleep(Duration::from_millis(200));
        }
    }

    fn tmux(&self) -> Command {
        let mut tmux = Command::new("tmux");
        tmux.args(["-L", &self.tmux_socket, "-f", "/dev/null"]);
        self.isolate(&mut tmux);
        tmux
    }

    /// `zellij -s SESSION` with this world's environment.
    pub fn zellij(&self) -> Command {
        self.zellij_for(&self.session)
    }

    /// `zellij`, for session `session` of this world (another one it started, say).
    fn zellij_for(&self, session: &str) -> Command {
        let mut zellij = Command::new(zellij_bin());
        zellij.args(["-s", session]);
        self.isolate(&mut zellij);
        zellij
    }

    /// `program`, run as if from a pane of this session without being one: isolated like
    /// `zellij`, with the session's name set and `zellij` on `PATH`.
    pub fn in_session(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        self.isolate(&mut cmd);
        cmd.env("ZELLIJ_SESSION_NAME", &self.session);
        if let Some(dir) = zellij_bin().parent() {
            cmd.env("PATH", path_with(dir));
        }
        cmd
    }

    fn isolate(&self, cmd: &mut Command) {
        // A test run from inside Zellij must not talk to that session, nor run the notify
        // command its user set (the world's own HOME and XDG dirs hide their config file), nor
        // show its questions on its user's desktop (a test brings a bus of its own).
        for var in [
            "ZELLIJ",
            "ZELLIJ_SESSION_NAME",
            "ZELLIJ_PANE_ID",
            "TMUX",
            "TMUX_PANE",
            ask_popup::notify::COMMAND_VAR,
            ask_popup::notify::DELAY_VAR,
            ask_popup::notify::desktop::BUS_VAR,
        ] {
            cmd.env_remove(var);
        }
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd.stdin(Stdio::null());
    }

    /// The processes of this world (told by its socket dir in their environment), each as its
    /// pid and its arguments.
    pub fn processes(&self) -> Vec<(u32, Vec<String>)> {
        let socket_dir = self
            .env
            .iter()
            .find(|(k, _)| *k == "ZELLIJ_SOCKET_DIR")
            .map(|(_, v)| v.to_string_lossy().into_owned())
            .expect("every world has a socket dir");
        let ours = format!("ZELLIJ_SOCKET_DIR={socket_dir}");
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            let path = entry.path();
            let Ok(environ) = std::fs::read(path.join("environ")) else {
                continue;
            };
            if !environ.split(|b| *b == 0).any(|var| var == ours.as_bytes()) {
                continue;
            }
            let cmdline = std::fs::read(path.join("cmdline")).unwrap_or_default();
            let args = cmdline
                .split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            found.push((pid, args));
        }
        found
    }

    /// The `ask-popup ask` and `zellij pipe` processes of this world still running.
    pub fn left_running(&self) -> Vec<String> {
        self.processes()
            .into_iter()
            .filter(|(_, args)| {
                let asking = args.iter().any(|a| a.ends_with("ask-popup"))
                    && args.iter().any(|a| a == "ask");
                let piping =
                    args.iter().any(|a| a.ends_with("zellij")) && args.iter().any(|a| a == "pipe");
                asking || piping
            })
            .map(|(_, args)| args.join(" "))
            .collect()
    }

    /// The pid of this world's Zellij server (`zellij --server SOCKET`).
    pub fn server_pid(&self) -> Option<u32> {
        self.processes()
            .into_iter()
            .find(|(_, args)| args.iter().any(|a| a == "--server"))
            .map(|(pid, _)| pid)
    }

    /// Runs `zellij -s SESSION action ARGS…` and returns its output (never panics on failure).
    pub fn action(&self, args: &[&str]) -> Output {
        self.action_in(&self.session, args)
    }

    /// `action` in session `session` of this world (another one it started, say).
    pub fn action_in(&self, session: &str, args: &[&str]) -> Output {
        let mut zellij = self.zellij_for(session);
        zellij.arg("action").args(args);
        let mut out = run(
            clone_command(&zellij),
            self.remaining().min(COMMAND_TIMEOUT),
        );
        for _ in 0..2 {
            if !missed_session(&out) {
                break;
            }
            thread::sleep(Duration::from_millis(100));
            out = run(
                clone_command(&zellij),
                self.remaining().min(COMMAND_TIMEOUT),
            );
        }
        out
    }

    /// `zellij pipe --plugin ask-popup --name ask [--args ARGS] -- PAYLOAD`, stdin /dev/null:
    /// the way the SPEC tells agents to call.
    ///
    /// A question with an `id` is asked again by `wait` if Zellij dropped its CLI, as an agent
    /// does: the plugin answers the repeat with the reply the request ended with, or lets it
    /// take over the request still pending.
    pub fn pipe(&self, payload: &str, args: &[(&str, &str)]) -> PipeCall {
        let mut zellij = self.pipe_command(args);
        zellij.arg("--").arg(payload);
        PipeCall::spawn(zellij, None).asked_again_if_dropped(args)
    }

    /// The same pipe with the payload written to the CLI's stdin, which is then closed.
    pub fn pipe_stdin(&self, payload: &str, args: &[(&str, &str)]) -> PipeCall {
        PipeCall::spawn(self.pipe_command(args), Some(payload.to_owned()))
            .asked_again_if_dropped(args)
    }

    /// `zellij pipe --plugin PLUGIN --name NAME [--args ARGS] -- PAYLOAD`, stdin /dev/null, for
    /// a request that is harmless to send twice (the `status` pipe, another plugin, a payload
    /// that is rejected at once): `wait` sends it again if Zellij dropped the CLI (`dropped`).
    pub fn pipe_to(
        &self,
        plugin: &str,
        name: &str,
        args: &[(&str, &str)],
        payload: &str,
    ) -> PipeCall {
        let mut zellij = self.named_pipe_command(plugin, name, args);
        zellij.arg("--").arg(payload);
        let mut call = PipeCall::spawn(zellij, None);
        call.idempotent = true;
        call
    }

    /// Makes sure Zellij did not drop `call`'s CLI as it connected (`dropped`); if it did, asks
    /// again as an agent would, which is only right for a question with an `id` (the new one
    /// replaces the orphaned one in place, keeping what the user did) or one answered at once.
    /// Whether it asked again. Call it once the question arrived (e.g. is on screen).
    ///
    /// The drop happens when the server handles a client removal queued before the CLI
    /// connected, so a `status` round trip, queued behind it, tells: a dropped CLI exits
    /// moments later.
    pub fn confirm_asked(&self, call: &mut PipeCall) -> bool {
        let mut again = false;
        loop {
            let status = self
                .pipe_to("ask-popup", "status", &[], "x")
                .wait(COMMAND_TIMEOUT);
            assert!(status.status.success(), "status pipe: {status:?}");
            let until = Instant::now() + Duration::from_millis(300);
            while Instant::now() < until && call.is_running() {
                thread::sleep(Duration::from_millis(20));
            }
            if !call.retry_if_dropped() {
                return again;
            }
            eprintln!("Zellij dropped an asking CLI (harness::dropped): asked again");
            again = true;
        }
    }

    /// `zellij --config CONFIG web`, with this world's environment.
    fn web_command(&self) -> Command {
        let mut zellij = Command::new(zellij_bin());
        self.isolate(&mut zellij);
        if let Some(config) = &self.config {
            zellij.arg("--config").arg(config);
        }
        zellij.arg("web");
        zellij
    }

    /// The session's page on the web server (`Options::with_web`), once the server answers.
    pub fn web_url(&self) -> String {
        let port = self
            .web_port
            .expect("a world started with Options::with_web");
        let until = self.until(Duration::from_secs(30));
        loop {
            let mut status = self.web_command();
            status.args(["--status", "--timeout", "2"]);
            let out = run(status, COMMAND_TIMEOUT);
            let said = String::from_utf8_lossy(&out.stdout).into_owned();
            if said.contains("Web server online") {
                return format!("http://127.0.0.1:{port}/{}", self.session);
            }
            if Instant::now() >= until {
                panic!(
                    "Zellij's web server never came up on port {port}: `zellij web --status` said \
                     {said:?} {:?}\nlog tail:\n{}",
                    String::from_utf8_lossy(&out.stderr),
                    self.log_tail(40)
                );
            }
            thread::sleep(Duration::from_millis(200));
        }
    }

    /// A new login token for the web client (`zellij web --create-token`).
    pub fn web_token(&self) -> String {
        let mut create = self.web_command();
        create.arg("--create-token");
        let out = run(create, COMMAND_TIMEOUT);
        let said = String::from_utf8_lossy(&out.stdout);
        // `token_1: <token>`
        said.lines()
            .find_map(|l| l.split_once(": ").map(|(_, token)| token.trim().to_owned()))
            .filter(|token| !token.is_empty() && !token.contains(' '))
            .unwrap_or_else(|| {
                panic!(
                    "zellij web --create-token printed no token: {said:?} {:?}",
                    String::from_utf8_lossy(&out.stderr)
                )
            })
    }

    /// This world's HOME.
    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// This world's `$XDG_RUNTIME_DIR` (where `ask-popup serve` listens by default).
    pub fn runtime_dir(&self) -> PathBuf {
        self.root.join("run")
    }

    /// This world's `$XDG_CACHE_HOME` (Zellij's cache folder is `zellij` in it).
    pub fn cache_home(&self) -> PathBuf {
        self.root.join("cache")
    }

    /// A directory of this world for a test's own files; removed with the world.
    pub fn scratch(&self) -> PathBuf {
        let dir = self.root.join("scratch");
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        dir
    }

    fn pipe_command(&self, args: &[(&str, &str)]) -> Command {
        self.named_pipe_command("ask-popup", "ask", args)
    }

    fn named_pipe_command(&self, plugin: &str, name: &str, args: &[(&str, &str)]) -> Command {
        let mut zellij = self.zellij();
        zellij.args(["pipe", "--plugin", plugin, "--name", name]);
        if !args.is_empty() {
            let joined: Vec<String> = args.iter().map(|(k, v)| format!("{k}={v}")).collect();
            zellij.arg("--args").arg(joined.join(","));
        }
        zellij
    }

    /// Every pane as `zellij action list-panes --json --all` reports it.
    ///
    /// Retried: a CLI action can exit 0 having printed nothing when Zellij broadcasts an
    /// `UnblockInputThread` to every client (e.g. a pane closing) while it runs.
    /// On a busy machine such exits can come several times in a row: listing being harmless, it
    /// is asked again for up to 10 s (or what is left of the test's time) until it answers.
    pub fn panes(&self) -> Vec<serde_json::Value> {
        let until = Instant::now() + self.remaining().min(Duration::from_secs(10));
        let out = loop {
            let out = self.action(&["list-panes", "--json", "--all"]);
            if let Ok(serde_json::Value::Array(panes)) = serde_json::from_slice(&out.stdout) {
                return panes;
            }
            if Instant::now() >= until {
                break out;
            }
            thread::sleep(Duration::from_millis(100));
        };
        panic!(
            "list-panes --json printed no JSON array ({}): {:?}, stderr {:?}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    }

    /// Runs `tmux ARGS…` on this world's tmux server (whose session is `apz`).
    pub fn tmux_run(&self, args: &[&str]) -> Output {
        let mut tmux = self.tmux();
        tmux.args(args);
        run(tmux, self.remaining().min(COMMAND_TIMEOUT))
    }

    /// The plugin pane's id (the N of `plugin_N`), if the plugin is loaded.
    pub fn plugin_pane_id(&self) -> Option<u64> {
        self.panes().iter().find_map(|pane| {
            let is_plugin = pane.get("is_plugin")?.as_bool()?;
            let url = pane.get("plugin_url")?.as_str()?;
            (is_plugin && url.contains("ask-popup")).then(|| pane.get("id")?.as_u64())?
        })
    }

    /// Waits for the plugin pane and returns `plugin_N`.
    pub fn plugin_pane(&self, timeout: Duration) -> String {
        let until = self.until(timeout);
        loop {
            if let Some(id) = self.plugin_pane_id() {
                return format!("plugin_{id}");
            }
            if Instant::now() >= until {
                panic!(
                    "no ask-popup plugin pane after {timeout:?}; panes: {:#?}\nlog tail:\n{}",
                    self.panes(),
                    self.log_tail(40)
                );
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// Sends keys (`Enter`, `Tab`, `Ctrl c`, `a`, …) to the plugin pane, focused or not, once
    /// keys count (a request that just appeared ignores them for a moment: see `settling`).
    pub fn send_keys(&self, keys: &[&str]) {
        self.wait_until_keys_count();
        self.send_keys_at_once(keys);
    }

    /// Waits while the popup's footer says `…`: the request on screen just appeared and keys
    /// typed now would be dropped as stray.
    ///
    /// Two captures a moment apart must agree: one taken while Zellij repaints can show a new
    /// question above the previous one's footer.
    pub fn wait_until_keys_count(&self) {
        let until = self.until(Duration::from_secs(10));
        loop {
            if !settling(&self.screen()) {
                thread::sleep(Duration::from_millis(100));
                if !settling(&self.screen()) {
                    return;
                }
            }
            if Instant::now() >= until {
                panic!(
                    "the footer never showed its hints; screen:\n{}",
                    self.screen()
                );
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// `send_keys` without waiting for keys to count.
    pub fn send_keys_at_once(&self, keys: &[&str]) {
        let pane = self.plugin_pane(Duration::from_secs(10));
        self.send_keys_to(&pane, keys);
    }

    /// Sends keys to a pane (`terminal_3`, `plugin_2`), focused or not.
    pub fn send_keys_to(&self, pane: &str, keys: &[&str]) {
        let mut args = vec!["send-keys", "--pane-id", pane];
        args.extend_from_slice(keys);
        let out = self.action(&args);
        assert!(
            out.status.success(),
            "send-keys {keys:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Types text into the plugin pane, focused or not, once keys count.
    pub fn write_chars(&self, text: &str) {
        self.wait_until_keys_count();
        let pane = self.plugin_pane(Duration::from_secs(10));
        let out = self.action(&["write-chars", "--pane-id", &pane, text]);
        assert!(
            out.status.success(),
            "write-chars {text:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// What the terminal shows right now, frames included.
    pub fn screen(&self) -> String {
        let mut tmux = self.tmux();
        tmux.args(["capture-pane", "-p", "-t", "apz"]);
        let out = run(tmux, COMMAND_TIMEOUT);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen, or nothing if tmux does not answer (for teardown, which must not panic).
    fn screen_quietly(&self) -> String {
        let mut tmux = self.tmux();
        tmux.args(["capture-pane", "-p", "-t", "apz"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let Ok(mut child) = tmux.spawn() else {
            return String::new();
        };
        let stdout = child.stdout.take().map(drain);
        match wait_child(&mut child, Duration::from_secs(5)) {
            Some(_) => String::from_utf8_lossy(&stdout.map(join).unwrap_or_default()).into_owned(),
            None => String::new(),
        }
    }

    /// Polls the screen until `pred` holds; on timeout panics showing the last screen.
    pub fn wait_for_screen(
        &self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> String {
        self.wait_for_screen_of(FIRST, what, timeout, pred)
    }

    /// The last `lines` lines of this world's Zellij log (the plugin's log lines land there),
    /// without the stack backtraces Zellij prints under each non-fatal error (they would fill
    /// any tail).
    pub fn log_tail(&self, lines: usize) -> String {
        let log = self.log();
        let mut kept = Vec::new();
        let mut in_backtrace = false;
        for line in log.lines() {
            if line.starts_with("Stack backtrace:") || line.starts_with("stack backtrace:") {
                in_backtrace = true;
                continue;
            }
            if in_backtrace && (line.is_empty() || line.starts_with(char::is_whitespace)) {
                continue;
            }
            in_backtrace = false;
            kept.push(line);
        }
        kept[kept.len().saturating_sub(lines)..].join("\n")
    }

    /// Where the plugin first failed in this world's Zellij log (a panic, or a trap such as
    /// running out of its memory), with the lines before it that say why: every later call
    /// fails the same way, so the tail shows only the last of many.
    pub fn first_plugin_failure(&self) -> Option<String> {
        let log = self.log();
        let lines: Vec<&str> = log.lines().collect();
        let at = lines.iter().position(|l| {
            l.contains("PANIC IN PLUGIN") || l.contains("Failed to apply event to plugin")
        })?;
        let from = at.saturating_sub(6);
        Some(lines[from..(at + 16).min(lines.len())].join("\n"))
    }

    /// Keeps this world's whole Zellij log under the target directory, for a failed test.
    fn keep_log(&self) -> Option<PathBuf> {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-failed-logs");
        std::fs::create_dir_all(&dir).ok()?;
        let name = thread::current()
            .name()
            .unwrap_or("test")
            .replace("::", "-");
        let path = dir.join(format!("{name}-{}.log", self.session));
        std::fs::write(&path, self.log()).ok()?;
        Some(path)
    }

    /// This world's whole Zellij log (`$TMPDIR/zellij-<uid>/zellij-log/zellij.log`).
    pub fn log(&self) -> String {
        let tmp = self.root.join("tmp");
        let mut text = String::new();
        for entry in std::fs::read_dir(&tmp).into_iter().flatten().flatten() {
            let log = entry.path().join("zellij-log").join("zellij.log");
            if let Ok(mut f) = std::fs::File::open(log) {
                let _ = f.read_to_string(&mut text);
            }
        }
        text
    }

    /// The earlier of now + `timeout` and this test's deadline.
    pub fn until(&self, timeout: Duration) -> Instant {
        (Instant::now() + timeout).min(self.deadline)
    }

    fn remaining(&self) -> Duration {
        self.deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_secs(1))
    }
}

impl Drop for Zellij {
    fn drop(&mut self) {
        if thread::panicking() {
            let kept = self
                .keep_log()
                .map_or_else(String::new, |p| format!(", whole log: {}", p.display()));
            if let Some(failure) = self.first_plugin_failure() {
                eprintln!("--- where the plugin first failed ---\n{failure}");
            }
            eprintln!(
                "--- zellij log of the failed test (tail{kept}) ---\n{}\n--- screen ---\n{}",
                self.log_tail(80),
                self.screen_quietly()
            );
        }
        let mut kill = self.zellij();
        kill.args(["kill-session", &self.session]);
        run_quietly(kill, Duration::from_secs(10));
        // Every other session of this world too (a test's background session).
        let mut zellij = Command::new(zellij_bin());
        zellij.args(["kill-all-sessions", "--yes"]);
        self.isolate(&mut zellij);
        run_quietly(zellij, Duration::from_secs(10));
        // And the `ask-popup serve` its first question started (it would end by itself a
        // minute after the sessions).
        for (pid, args) in self.processes() {
            if args.iter().any(|a| a == "serve") && args.iter().any(|a| a.ends_with("ask-popup")) {
                let mut kill = Command::new("kill");
                kill.arg(pid.to_string());
                run_quietly(kill, Duration::from_secs(5));
            }
        }
        if self.web_port.is_some() {
            let mut stop = self.web_command();
            stop.arg("--stop");
            run_quietly(stop, Duration::from_secs(10));
        }
        let mut tmux = self.tmux();
        tmux.arg("kill-server");
        run_quietly(tmux, Duration::from_secs(10));
        hold_still(&self.root.join("cache/zellij/permissions.kdl"), false);
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Makes the permissions granted ahead immutable (`chattr +i`) for the world's life, or
/// mutable again. Zellij 0.45.1 rewrites that file (emptied, then written) on every plugin load
/// in every session of the world; a load in another session at that moment read it empty and
/// asked for the permissions again, a prompt no test answers (a person answers `y`). Held
/// still, Zellij's rewrite fails (it logs that, and keeps the grant in memory) and every load
/// reads the whole file. Where the file system has no such flag, the world goes on without.
fn hold_still(file: &Path, immutable: bool) {
    if !file.exists() {
        return;
    }
    let flag = if immutable { "+i" } else { "-i" };
    let mut chattr = Command::new("chattr");
    chattr.arg(flag).arg(file);
    let held = run_quietly(chattr, Duration::from_secs(10));
    if immutable && !held {
        eprintln!(
            "chattr +i {} did not hold; a permission prompt can come",
            file.display()
        );
    }
}

/// A running `zellij pipe`.
pub struct PipeCall {
    command: Command,
    stdin: Option<String>,
    /// Asking again is harmless (`status`, another plugin, a rejected payload): `wait` then
    /// sends it again when Zellij dropped the CLI (see `dropped`).
    idempotent: bool,
    child: Child,
    stdout: Option<JoinHandle<Vec<u8>>>,
    stderr: Option<JoinHandle<Vec<u8>>>,
}

impl PipeCall {
    fn spawn(command: Command, stdin: Option<String>) -> PipeCall {
        let (child, stdout, stderr) = PipeCall::start(&command, stdin.as_deref());
        PipeCall {
            command,
            stdin,
            idempotent: false,
            child,
            stdout,
            stderr,
        }
    }

    #[allow(clippy::type_complexity)]
    fn start(
        command: &Command,
        stdin: Option<&str>,
    ) -> (
        Child,
        Option<JoinHandle<Vec<u8>>>,
        Option<JoinHandle<Vec<u8>>>,
    ) {
        let mut cmd = clone_command(command);
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn zellij pipe");
        if let (Some(text), Some(mut input)) = (stdin.map(str::to_owned), child.stdin.take()) {
            // From a thread, so a CLI that does not read cannot block the test; dropping
            // `input` closes the CLI's stdin (end of the pipe).
            thread::spawn(move || {
                let _ = input.write_all(text.as_bytes());
            });
        }
        let stdout = child.stdout.take().map(drain);
        let stderr = child.stderr.take().map(drain);
        (child, stdout, stderr)
    }

    /// Marks a request that is answered at once and changes nothing (`busy`, a rejection) as
    /// harmless to send twice: `wait` then sends it again if Zellij dropped the CLI (`dropped`).
    pub fn answered_at_once(mut self) -> PipeCall {
        self.idempotent = true;
        self
    }

    /// A question with an `id` is safe to ask again (see `Zellij::pipe`).
    fn asked_again_if_dropped(mut self, args: &[(&str, &str)]) -> PipeCall {
        self.idempotent |= args.iter().any(|(key, _)| *key == "id");
        self
    }

    /// Whether the CLI is still waiting.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Starts the CLI again if it already exited having missed the session (`missed_session`)
    /// or having been dropped by Zellij (`dropped`). Whether it did. Only for requests that are
    /// safe to send twice: a question with an `id` (the second replaces the first, keeping what
    /// the user did) or one answered at once; call it once the request is known to have arrived
    /// (a dropped CLI exits within moments of connecting).
    pub fn retry_if_dropped(&mut self) -> bool {
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            return false;
        }
        let Ok(Some(status)) = self.child.try_wait() else {
            return false;
        };
        let stdout = self.stdout.take().map(join).unwrap_or_default();
        let stderr = self.stderr.take().map(join).unwrap_or_default();
        let out = Output {
            status,
            stdout,
            stderr,
        };
        if missed_session(&out) || dropped(&out) {
            let (child, stdout, stderr) = PipeCall::start(&self.command, self.stdin.as_deref());
            self.child = child;
            self.stdout = stdout;
            self.stderr = stderr;
            true
        } else {
            // Keep what it printed for `wait`.
            let Output { stdout, stderr, .. } = out;
            self.stdout = Some(thread::spawn(move || stdout));
            self.stderr = Some(thread::spawn(move || stderr));
            false
        }
    }

    /// Waits for the CLI to exit; after `timeout` kills it and panics saying what it printed.
    /// A CLI that did not find the session sent nothing, so it is started again (see
    /// `missed_session`).
    pub fn wait(self, timeout: Duration) -> Output {
        self.wait_noting_drops(timeout).0
    }

    /// `wait`, also saying whether Zellij dropped an earlier attempt of an idempotent call
    /// after its message may have reached the plugin (`dropped`): what the call did may then
    /// be done already when the attempt that answered came (a `cancel` then withdraws nothing).
    pub fn wait_noting_drops(mut self, timeout: Duration) -> (Output, bool) {
        let until = Instant::now() + timeout;
        let mut attempts = 1;
        let mut dropped_once = false;
        loop {
            let status = wait_child(
                &mut self.child,
                until.saturating_duration_since(Instant::now()),
            );
            let stdout = self.stdout.take().map(join).unwrap_or_default();
            let stderr = self.stderr.take().map(join).unwrap_or_default();
            let Some(status) = status else {
                panic!(
                    "`zellij pipe` did not exit within {timeout:?}; stdout so far: {:?}, stderr: {:?}",
                    String::from_utf8_lossy(&stdout),
                    String::from_utf8_lossy(&stderr)
                );
            };
            let out = Output {
                status,
                stdout,
                stderr,
            };
            let was_dropped = self.idempotent && dropped(&out);
            if !(missed_session(&out) || was_dropped) || attempts >= 4 {
                return (out, dropped_once);
            }
            dropped_once |= was_dropped;
            attempts += 1;
            thread::sleep(Duration::from_millis(100));
            let (child, stdout, stderr) = PipeCall::start(&self.command, self.stdin.as_deref());
            self.child = child;
            self.stdout = stdout;
            self.stderr = stderr;
        }
    }
}

impl Zellij {
    /// An idempotent pipe to `plugin` (see `pipe_to`) until it exits with output that
    /// `answered` accepts: a CLI that hangs without it (Zellij 0.45.1 leaves one now and then,
    /// e.g. a plugin instance of a client that left keeps it open) is stopped after `per_try`
    /// and asked again, as `ask-popup status` does, until `limit`. The last output, or why none.
    pub fn pipe_asking_again(
        &self,
        plugin: &str,
        name: &str,
        per_try: Duration,
        limit: Duration,
        answered: impl Fn(&Output) -> bool,
    ) -> Result<Output, String> {
        let until = self.until(limit);
        let mut tries = 0;
        loop {
            tries += 1;
            let mut call = self.pipe_to(plugin, name, &[], "x");
            let exited = wait_child(&mut call.child, per_try);
            let stdout = call.stdout.take().map(join).unwrap_or_default();
            let stderr = call.stderr.take().map(join).unwrap_or_default();
            if let Some(status) = exited {
                let out = Output {
                    status,
                    stdout,
                    stderr,
                };
                if answered(&out) {
                    return Ok(out);
                }
            }
            if Instant::now() >= until {
                return Err(format!(
                    "the `{name}` pipe to {plugin} gave no answer in {tries} tries within {limit:?}"
                ));
            }
            thread::sleep(Duration::from_millis(200));
        }
    }

    /// `action`, stopped after `timeout` (None) instead of failing the test: for an action
    /// whose hang the test can handle as a person would (try again). A call that missed the
    /// session (`missed_session`) sent nothing and is None too: for an action that must land
    /// within a moment, running it again later would not do.
    pub fn action_within(&self, args: &[&str], timeout: Duration) -> Option<Output> {
        let mut zellij = self.zellij();
        zellij.arg("action").args(args);
        run_within(zellij, timeout).filter(|out| !missed_session(out))
    }
}

/// Whether the popup on `screen` shows the footer of a request that just appeared (`…` alone
/// on its line, inside the pane's frame).
pub fn settling(screen: &str) -> bool {
    screen.lines().any(|line| {
        line.split('│').any(|cell| {
            let cell = cell.trim();
            cell == "…" || cell.ends_with("· …")
        })
    })
}

/// Whether Zellij 0.45.1 dropped the CLI's connection right after it connected: exit 0 with
/// nothing printed. Every CLI call first probes the session (`assert_socket`: connect, send
/// `ConnStatus`, disconnect); the server removes the probe's client id when it answers
/// (`ServerInstruction::ConnStatus`) and again when the probe's route thread ends
/// (`RemoveClient`). Client ids are reused lowest-first, so the CLI's real connection can get
/// the probe's id in between, and the second removal then disconnects it (`Exit { Disconnect }`,
/// which the CLI takes as a normal exit). Its message usually reached the plugin anyway: a
/// question is then pending with nobody to answer to. Rare on an idle server, more frequent on a
/// busy one.
pub fn dropped(out: &Output) -> bool {
    out.status.success() && out.stdout.is_empty() && out.stderr.is_empty()
}

/// `command` run as outside any Zellij session on a machine where nobody serves questions from
/// outside: no Zellij variables, and a runtime dir of its own (`runtime`, empty), so that an
/// `ask-popup serve` this user runs (a demo, a session of theirs) is not asked through.
pub fn outside_zellij<'a>(command: &'a mut Command, runtime: &Path) -> &'a mut Command {
    for var in [
        "ZELLIJ",
        "ZELLIJ_SESSION_NAME",
        "ZELLIJ_PANE_ID",
        "ASK_POPUP_SOCKET",
    ] {
        command.env_remove(var);
    }
    command.env("XDG_RUNTIME_DIR", runtime)
}

/// Whether a CLI call failed only because it did not see the session, which Zellij 0.45.1's
/// CLI sometimes reports for a busy but live session (`ask_popup::zellij::programs::
/// missed_session`: "There is no active session!", or "Session '…' not found", the other live
/// sessions then listed on stdout with exit 0). Such a call sent nothing to the server, so
/// running it again is safe.
fn missed_session(out: &Output) -> bool {
    ask_popup::zellij::programs::missed_session(&out.stderr)
}

/// A copy of `command`'s program, arguments, environment and directory (`Command` is not
/// `Clone`).
fn clone_command(command: &Command) -> Command {
    let mut copy = Command::new(command.get_program());
    copy.args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => copy.env(key, value),
            None => copy.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        copy.current_dir(dir);
    }
    copy
}

impl Drop for PipeCall {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn drain(mut from: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = from.read_to_end(&mut bytes);
        bytes
    })
}

fn join(handle: JoinHandle<Vec<u8>>) -> Vec<u8> {
    handle.join().unwrap_or_default()
}

/// Polls `child` until it exits (its status) or `timeout` passes (killed, `None`).
fn wait_child(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let until = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// Runs a command to completion, killing it and panicking after `timeout`.
fn run(cmd: Command, timeout: Duration) -> Output {
    let description = format!("{cmd:?}");
    run_within(cmd, timeout)
        .unwrap_or_else(|| panic!("{description} did not finish within {timeout:?}"))
}

/// Runs a command to completion; after `timeout` kills it (None). Panics if it cannot start.
fn run_within(mut cmd: Command, timeout: Duration) -> Option<Output> {
    let description = format!("{cmd:?}");
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("could not run {description}: {e}"));
    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);
    let status = wait_child(&mut child, timeout)?;
    Some(Output {
        status,
        stdout: stdout.map(join).unwrap_or_default(),
        stderr: stderr.map(join).unwrap_or_default(),
    })
}

/// Runs a teardown command; never panics (we may already be unwinding). Whether it succeeded.
fn run_quietly(mut cmd: Command, timeout: Duration) -> bool {
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    match cmd.spawn() {
        Ok(mut child) => wait_child(&mut child, timeout).is_some_and(|s| s.success()),
        Err(_) => false,
    }
}

/// A loopback port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// `s` as one word for `sh`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The executable of a real agent (or MCP client) the tests run, as `scripts/ensure-agents.sh`
/// installs it from `scripts/agents.txt` (`name package version bin [runtime]`) into
/// `$ASK_POPUP_CACHE` (default `~/.cache/ask-popup`): an npm package's, or a `pypi:` package's
/// virtual environment's. An agent that names a runtime (Pi: Node 22) runs only with
/// `agent_path(name)` as its PATH.
pub fn agent_bin(name: &str) -> PathBuf {
    let (package, version, bin, _) = agent_line(name);
    let installed = format!("{name}-{version}");
    let path = if package.starts_with("pypi:") {
        agents_cache()
            .join("python")
            .join(installed)
            .join("bin")
            .join(bin)
    } else {
        agents_cache()
            .join("npm")
            .join(installed)
            .join("node_modules/.bin")
            .join(bin)
    };
    assert!(
        path.exists(),
        "{name} {version} is not installed at {}: run `bash scripts/ensure-agents.sh`",
        path.display()
    );
    path
}

/// The PATH agent `name` runs with: this process's, with the folder of the runtime its line in
/// `scripts/agents.txt` names (Pi's Node 22) in front; this process's when it names none.
pub fn agent_path(name: &str) -> std::ffi::OsString {
    match agent_line(name).3 {
        Some(runtime) => path_with(agent_bin(runtime).parent().expect("the runtime's folder")),
        None => std::env::var_os("PATH").unwrap_or_default(),
    }
}

/// `name`'s line of `scripts/agents.txt`: package, version, executable, runtime.
fn agent_line(
    name: &str,
) -> (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
) {
    const AGENTS: &str = include_str!("../../scripts/agents.txt");
    let fields: Vec<&str> = AGENTS
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.first() == Some(&name))
        .unwrap_or_else(|| panic!("{name} is not in scripts/agents.txt"));
    match fields.as_slice() {
        [_, package, version, bin] => (*package, *version, *bin, None),
        [_, package, version, bin, runtime] => (*package, *version, *bin, Some(*runtime)),
        _ => panic!("scripts/agents.txt: bad line for {name}"),
    }
}

fn agents_cache() -> PathBuf {
    std::env::var_os("ASK_POPUP_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/ask-popup")))
        .expect("HOME or ASK_POPUP_CACHE")
}
