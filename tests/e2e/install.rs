//! End to end: ask-popup set up as a new user does it. From a HOME with no Zellij config at all,
//! `ask-popup setup zellij --write`, then Zellij started with nothing but what setup wrote (no
//! test config, no layout, no permission granted): an agent's question shows the plugin's
//! permission request in the popup, the user presses `y`, the question follows and its answer
//! reaches the agent; the tab bar and status bar are there; `Ctrl o`, `y` brings a hidden popup
//! back; `ask-popup doctor` in a pane finds everything in place, or says what is wrong. And a
//! fresh machine's whole path: the command `scripts/install.sh` installed, `ask-popup setup
//! --write` with the real agents installed, the real Claude Code asking, the doctor saying ✓.

use crate::agents::{new_pane, submitted, zellij_on_path, DB};
use crate::claude::{database, pick_the_second_option, Claude, Wiring, DATABASE};
use crate::command::{command, counted, session_missing_zellij};
use crate::harness::{
    agent_bin, free_port, settling, shell_quote, zellij_bin, Options, Setup, Zellij, FIRST,
};
use crate::ANSWER;
use ask_popup_protocol::envelope::Answer;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

/// Waits until `file` holds a whole line and returns it.
pub(crate) fn line_of(zellij: &Zellij, file: &Path, what: &str) -> String {
    let until = zellij.until(ANSWER);
    loop {
        if let Ok(text) = std::fs::read_to_string(file) {
            if text.ends_with('\n') {
                return text;
            }
        }
        assert!(
            Instant::now() < until,
            "{what} never came; screen:\n{}",
            zellij.screen()
        );
        thread::sleep(Duration::from_millis(100));
    }
}

/// Runs `ask-popup ask` in a new pane, as an agent would (asking again with its id on
/// `no_reply`, exit 5, should Zellij drop its call); its envelope goes to `out`.
fn ask_in_a_pane(zellij: &Zellij, name: &str, id: &str, out: &Path) {
    ask_in_a_pane_with(zellij, &command(), name, id, out);
}

/// The first question, asked in a pane with `ask_popup` as `id` (its envelope into `out`), loads
/// the plugin, which asks for its permissions (the screen shows `permission` and `Allow? (y/n)`):
/// `y`, then SQLite picked, and the envelope checked.
pub(crate) fn asked_permitted_and_answered(
    zellij: &Zellij,
    ask_popup: &Path,
    permission: &str,
    id: &str,
    out: &Path,
) {
    ask_in_a_pane_with(zellij, ask_popup, "agent", id, out);
    zellij.wait_for_screen("the permission request", ANSWER, |s| {
        s.contains(permission) && s.contains("Allow? (y/n)")
    });
    zellij.type_into(FIRST, &["y"]);
    zellij.wait_for_screen("the question", ANSWER, |s| {
        s.contains("claude asks") && s.contains("Which database?")
    });
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("the focus on SQLite", ANSWER, |s| s.contains("❯ 2. SQLite"));
    zellij.send_keys(&["Enter"]);
    let reply = line_of(zellij, out, "the answer");
    assert_eq!(
        serde_json::from_str::<Value>(&reply).expect("an envelope"),
        serde_json::from_str::<Value>(&submitted(DB, &[(0, Answer::Option(1))], &[], Some(id)))
            .unwrap()
    );
}

/// `ask_in_a_pane` with the `ask-popup` at `ask_popup`.
pub(crate) fn ask_in_a_pane_with(
    zellij: &Zellij,
    ask_popup: &Path,
    name: &str,
    id: &str,
    out: &Path,
) {
    let command = format!(
        "for attempt in 1 2 3; do {path}{command} ask --agent claude --id {id} {payload} > {out}.tmp; \
           [ $? -ne 5 ] && break; done; mv {out}.tmp {out}; exec sleep 1000",
        path = zellij_on_path(),
        command = shell_quote(&ask_popup.to_string_lossy()),
        payload = shell_quote(DB),
        out = shell_quote(&out.to_string_lossy()),
    );
    new_pane(zellij, name, &command);
}

#[test]
fn set_up_in_an_empty_home_the_popup_asks_once_permitted_and_doctor_finds_everything() {
    let zellij = Zellij::start_with(Options::default().installed_by_setup());
    let dir = zellij.scratch();
    dismiss_release_notes(&zellij);
    let screen = zellij.screen();
    assert!(
        screen.contains(&format!("Zellij ({})", zellij.session())) && screen.contains("Ctrl +"),
        "the tab bar and the status bar:\n{screen}"
    );

    // The first question loads the plugin, which asks for its permissions in the popup.
    let first = dir.join("first.json");
    asked_permitted_and_answered(&zellij, &command(), "ask-popup.wasm asks", "inst-1", &first);

    // Hidden with its key, the popup comes back with the binding setup added: Ctrl o, then y.
    let second = dir.join("second.json");
    ask_in_a_pane(&zellij, "agent2", "inst-2", &second);
    zellij.wait_for_screen("the second question", ANSWER, |s| {
        s.contains("claude asks") && s.contains("Which database?")
    });
    zellij.send_keys(&["Ctrl ]"]);
    zellij.wait_for_screen("the popup hidden", ANSWER, |s| !s.contains("claude asks"));
    zellij.type_into(FIRST, &["C-o"]);
    thread::sleep(Duration::from_millis(300));
    zellij.type_into(FIRST, &["y"]);
    zellij.wait_for_screen("the popup back", ANSWER, |s| {
        s.contains("claude asks") && s.contains("Which database?")
    });
    zellij.send_keys(&["Enter"]);
    let reply = line_of(&zellij, &second, "the second answer");
    assert!(reply.contains("\"requestId\":\"inst-2\""), "{reply}");

    // The doctor, in a pane of the session, finds everything in place.
    let (code, report) = doctor_in_a_pane(&zellij, "doctor");
    only_yes(code, &report, &THE_PLUGIN_FILES_CHECKS);
}

/// The doctor's checks of the plugin as a file, set up in a session.
pub(crate) const THE_PLUGIN_FILES_CHECKS: [&str; 5] = [
    "zellij",
    "plugin file",
    "alias",
    "binding",
    "plugin in this session",
];

/// The doctor's report holds only ✓ for `checks`, and no ✗ at all.
pub(crate) fn only_yes(code: i32, report: &str, checks: &[&str]) {
    assert_eq!(code, 0, "{report}");
    for check in checks {
        assert!(
            report
                .lines()
                .any(|l| l.starts_with(&format!("✓ {check}:"))),
            "{check}: {report}"
        );
    }
    assert!(!report.contains('✗'), "{report}");
}

#[test]
fn set_up_for_the_web_a_browser_logs_in_with_the_printed_token_and_answers() {
    // A new user: `setup zellij --write`, then `setup web --write` in a terminal (util-linux's
    // `script` gives it one: setup shows a token only there), on a port of the test's (the
    // user's config said it), which starts the server, makes a token and prints the URL.
    let port = free_port();
    let command = command();
    let c = shell_quote(&command.to_string_lossy());
    let script = format!(
        "set -e; {c} setup zellij --write; \
         printf '\\nweb_server_port {port}\\n' >> \"$HOME/.config/zellij/config.kdl\"; \
         out=\"$HOME/setup-web.txt\"; \
         script -qec {web} /dev/null > \"$out\" 2>&1 || {{ cat \"$out\"; exit 1; }}",
        web = shell_quote(&format!("{c} setup web --write")),
    );
    let options = Options::default().with_web_port(port).installed_by(Setup {
        command: PathBuf::from("/bin/sh"),
        args: vec!["-c".to_owned(), script],
        path: Vec::new(),
    });
    let zellij = Zellij::start_with(options);
    dismiss_release_notes(&zellij);
    let printed =
        std::fs::read_to_string(zellij.home().join("setup-web.txt")).expect("setup's output");
    let token = printed
        .lines()
        .find_map(|l| {
            let (_, token) = l
                .strip_prefix("Login token ")?
                .split_once(" (Zellij shows it this once; keep it): ")?;
            Some(token.trim())
        })
        .unwrap_or_else(|| panic!("no token printed:\n{printed}"));
    let base = format!("http://127.0.0.1:{port}");
    assert!(printed.contains(&format!("Open: {base}")), "{printed}");
    let url = format!("{base}/{}", zellij.session());
    let mut browser = crate::web::open_browser_at(&zellij, &url, token);

    // The first question: the permission request in the terminal, then the question, answered
    // in the browser.
    let first = zellij.scratch().join("first.json");
    ask_in_a_pane(&zellij, "agent", "web-inst-1", &first);
    zellij.wait_for_screen("the permission request", ANSWER, |s| {
        s.contains("ask-popup.wasm asks") && s.contains("Allow? (y/n)")
    });
    zellij.type_into(FIRST, &["y"]);
    browser.wait_for_screen("the question", zellij.until(ANSWER), |s| {
        s.contains("claude asks") && s.contains("Which database?") && !settling(s)
    });
    browser.click_text("SQLite");
    browser.wait_for_screen("the question answered", zellij.until(ANSWER), |s| {
        !s.contains("Which database?")
    });
    let reply = line_of(&zellij, &first, "the answer");
    assert!(reply.contains("\"SQLite\""), "{reply}");

    // The doctor finds the web client in place.
    let (code, report) = doctor_in_a_pane(&zellij, "doctor");
    assert_eq!(code, 0, "{report}");
    for check in ["web client", "web login"] {
        assert!(
            report
                .lines()
                .any(|l| l.starts_with(&format!("✓ {check}:"))),
            "{check}: {report}"
        );
    }
}

#[test]
fn with_its_permissions_denied_the_doctor_says_the_plugin_does_not_answer_and_how_to_fix_it() {
    let zellij = Zellij::start_with(Options::default().installed_by_setup());
    dismiss_release_notes(&zellij);
    let dir = zellij.scratch();
    ask_in_a_pane(&zellij, "agent", "denied-1", &dir.join("denied.json"));
    zellij.wait_for_screen("the permission request", ANSWER, |s| {
        s.contains("ask-popup.wasm asks") && s.contains("Allow? (y/n)")
    });
    zellij.type_into(FIRST, &["n"]);
    zellij.wait_for_screen("the denial", ANSWER, |s| {
        s.contains("needs its permissions")
    });
    let (code, report) = doctor_in_a_pane(&zellij, "doctor");
    assert_eq!(code, 1, "{report}");
    let mut lines = report
        .lines()
        .skip_while(|l| !l.starts_with("✗ plugin in this session:"));
    assert!(lines.next().is_some(), "{report}");
    let fix = lines.next().unwrap_or("");
    assert!(
        fix.trim_start().starts_with("fix: ") && fix.contains("permissions.kdl"),
        "{report}"
    );
}

#[test]
fn the_doctor_asks_the_plugin_again_when_zellij_says_the_session_is_not_found() {
    // Zellij's CLI misses the session of the doctor's first `version` pipe, listing the live
    // sessions where the plugin's version would be: asked again, not taken for another version.
    let zellij = Zellij::start();
    let bin = session_missing_zellij(&zellij.scratch(), "version");
    let (_, report) = doctor_with(&zellij, "doctor", &command(), &bin.to_string_lossy());
    assert!(
        report
            .lines()
            .any(|l| l.starts_with("✓ plugin in this session:")),
        "{report}"
    );
    assert_eq!(counted(&bin), 2, "{report}");
}

/// Dismisses what Zellij shows a new user first (its release notes), as they would.
pub(crate) fn dismiss_release_notes(zellij: &Zellij) {
    let until = zellij.until(Duration::from_secs(10));
    while Instant::now() < until && zellij.screen().contains("Release Notes") {
        zellij.type_into(FIRST, &["Escape"]);
        thread::sleep(Duration::from_millis(300));
    }
}

/// Runs `ask-popup doctor` (this build's) in a new pane of the session: its exit status and
/// report.
fn doctor_in_a_pane(zellij: &Zellij, name: &str) -> (i32, String) {
    doctor_with(zellij, name, &command(), "")
}

/// Runs `command doctor` in a new pane, with `dirs` (`a:b`) in front of `PATH`.
pub(crate) fn doctor_with(
    zellij: &Zellij,
    name: &str,
    command: &Path,
    dirs: &str,
) -> (i32, String) {
    let report = zellij.scratch().join(format!("{name}.txt"));
    let line = format!(
        "{path}{command} doctor > {out}.tmp 2>&1; echo \"exit $?\" >> {out}.tmp; mv {out}.tmp {out}; exec sleep 1000",
        path = if dirs.is_empty() {
            zellij_on_path()
        } else {
            let zellij = zellij_bin().parent().expect("zellij's dir").display().to_string();
            format!("PATH={}:\"$PATH\" ", shell_quote(&format!("{dirs}:{zellij}")))
        },
        command = shell_quote(&command.to_string_lossy()),
        out = shell_quote(&report.to_string_lossy()),
    );
    new_pane(zellij, name, &line);
    let text = line_of(zellij, &report, "the doctor's report");
    let code = text
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("exit "))
        .and_then(|c| c.parse().ok())
        .unwrap_or(-1);
    (code, text)
}

/// The `ask-popup` that `bash scripts/install.sh --root target/installed` installed (the test
/// command runs it first).
fn installed_command() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/installed/bin/ask-popup");
    assert!(
        path.is_file(),
        "no installed ask-popup at {}: run `bash scripts/install.sh --root target/installed` \
         (or `bash scripts/test.sh`)",
        path.display()
    );
    path
}

#[test]
fn installed_and_set_up_for_everything_found_the_real_claude_code_asks_and_doctor_says_only_yes() {
    // A fresh machine's path: the install command's `ask-popup`, then `ask-popup setup --write`
    // with Claude Code, Codex, Pi and opencode installed, then the real Claude Code asks.
    let installed = installed_command();
    // Pi 1.6 runs on Node 22.19 or later (the doctor checks it): its Node comes with them.
    let agents: Vec<PathBuf> = ["claude-code", "codex", "pi", "opencode", "node"]
        .iter()
        .map(|a| {
            agent_bin(a)
                .parent()
                .expect("the agent's bin dir")
                .to_path_buf()
        })
        .collect();
    let mut path = vec![installed.parent().expect("bin dir").to_path_buf()];
    path.extend(agents);
    let zellij = Zellij::start_with(Options::default().installed_by(Setup {
        command: installed.clone(),
        args: ["setup", "--write"].map(str::to_owned).to_vec(),
        path: path.clone(),
    }));
    dismiss_release_notes(&zellij);
    // Each found agent is wired to the installed command.
    let home = zellij.home();
    let settings = std::fs::read_to_string(home.join(".claude/settings.json")).expect("hook");
    assert!(
        settings.contains(&format!("{} claude-hook", installed.display())),
        "{settings}"
    );
    assert!(home
        .join(".pi/agent/extensions/ask-popup/src/index.ts")
        .is_file());
    let codex = std::fs::read_to_string(home.join(".codex/config.toml")).expect("codex");
    assert!(codex.contains("[mcp_servers.ask-popup]"), "{codex}");
    // opencode's config dir: under $XDG_CONFIG_HOME when the world sets it, else ~/.config.
    let opencode_dir = [
        home.parent()
            .expect("the world's root")
            .join("config/opencode"),
        home.join(".config/opencode"),
    ]
    .into_iter()
    .find(|d| d.join("opencode.json").is_file())
    .expect("setup wrote opencode's config");
    let opencode = std::fs::read_to_string(opencode_dir.join("opencode.json")).expect("opencode");
    assert!(opencode.contains("\"ask-popup\""), "{opencode}");
    assert!(opencode_dir.join("plugin/ask-popup.js").is_file());

    let claude = Claude::start_wired(&zellij, "claude", json!([database()]), Wiring::Installed);
    zellij.wait_for_screen("the permission request", ANSWER, |s| {
        s.contains("ask-popup.wasm asks") && s.contains("Allow? (y/n)")
    });
    zellij.type_into(FIRST, &["y"]);
    claude.asked(&zellij, DATABASE);
    pick_the_second_option(&zellij);
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(!is_error, "{text}");
    assert!(
        text.contains(&format!("\"{DATABASE}\"=\"SQLite\"")),
        "{text}"
    );

    // The installed doctor, in a pane with everything on PATH: only ✓.
    let dirs: Vec<String> = path.iter().map(|d| d.display().to_string()).collect();
    let (code, report) = doctor_with(&zellij, "doctor", &installed, &dirs.join(":"));
    assert_eq!(code, 0, "{report}");
    let checks: Vec<&str> = report.lines().filter(|l| !l.starts_with("exit ")).collect();
    assert!(checks.len() >= 8, "{report}");
    // Pi's Node is the one it needs (with Debian's Node 20 first on PATH it would not start).
    assert!(
        checks.iter().any(|l| l.starts_with("✓ Pi's Node.js")),
        "{report}"
    );
    // Everything but the web client, which `setup` leaves to `setup web`, the agents'
    // approvals, which are opt-in (`setup <agent> --approvals`), and the desktop
    // notification's actions, which need a desktop's session bus (the tests' Zellij has none).
    assert!(
        checks.iter().all(|l| l.starts_with('✓')
            || l.starts_with("– web client: not set up")
            || (l.starts_with("– ") && l.contains("approvals: asked in"))
            || l.starts_with("– desktop actions: not available: no session bus")),
        "{report}"
    );
}
