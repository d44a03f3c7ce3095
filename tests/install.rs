//! `ask-popup setup` and `ask-popup doctor` as a user runs them, on real files in a HOME of
//! their own: what setup writes and takes out again, and what the doctor says in each broken
//! state, with the command that fixes it. (Zellij itself, the permission prompt and the agents
//! asking through what setup wrote are the e2e tests'.)

mod files;
use files::{mode, names};

use ask_popup::setup::zellij::plugin::PLUGIN;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// A HOME of its own, and a PATH dir for the programs the test says are installed.
struct Home {
    root: PathBuf,
    /// Removed when the test ends.
    _dir: tempfile::TempDir,
}

impl Home {
    fn new(name: &str) -> Home {
        let dir = tempfile::Builder::new()
            .prefix(&format!("ask-popup-{name}-"))
            .tempdir()
            .unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("home")).unwrap();
        std::fs::create_dir_all(root.join("bin")).unwrap();
        Home { root, _dir: dir }
    }

    fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    fn zellij_dir(&self) -> PathBuf {
        self.home().join(".config/zellij")
    }

    /// Puts a program on this HOME's PATH: a script printing `output` for `--version`, and
    /// failing anything else.
    fn install(&self, program: &str, output: &str) {
        let path = self.root.join("bin").join(program);
        std::fs::write(
            &path,
            format!("#!/bin/sh\n[ \"$1\" = --version ] || exit 1\necho '{output}'\n"),
        )
        .unwrap();
        Command::new("chmod").arg("+x").arg(&path).status().unwrap();
    }

    /// `program` with this HOME and only its PATH dir (and the system's).
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command
            .env_clear()
            .env("HOME", self.home())
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", self.root.join("bin").display()),
            )
            .stdin(Stdio::null());
        command
    }

    /// Runs `ask-popup ARGS` with this HOME and only its PATH dir (and the system's), its
    /// stdout a pipe (as an agent runs it).
    fn run(&self, args: &[&str]) -> Output {
        let mut command = self.command(env!("CARGO_BIN_EXE_ask-popup"));
        command.args(args).output().expect("run ask-popup")
    }

    /// Runs `ask-popup ARGS` as `run` does, but its stdout a terminal (util-linux's `script`
    /// gives it a pseudo-terminal), as a person runs it.
    fn run_in_terminal(&self, args: &[&str]) -> Output {
        let line = std::iter::once(env!("CARGO_BIN_EXE_ask-popup"))
            .chain(args.iter().copied())
            .map(|word| format!("'{word}'"))
            .collect::<Vec<_>>()
            .join(" ");
        let mut command = self.command("script");
        command.args(["-qec", &line, "/dev/null"]);
        command
            .output()
            .expect("util-linux's `script`, to run ask-popup in a terminal")
    }

    fn doctor(&self) -> (i32, String) {
        let out = self.run(&["doctor"]);
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }
}

/// The line of `report` for `check`.
fn line<'a>(report: &'a str, check: &str) -> &'a str {
    report
        .lines()
        .find(|l| {
            l[l.char_indices().nth(2).map_or(0, |(i, _)| i)..].starts_with(&format!("{check}:"))
        })
        .unwrap_or_else(|| panic!("no line for {check}:\n{report}"))
}

fn fails_with_fix(report: &str, check: &str, fix: &str) {
    let found = line(report, check);
    assert!(found.starts_with('✗'), "{check}: {report}");
    let next = report
        .lines()
        .skip_while(|l| *l != found)
        .nth(1)
        .unwrap_or("");
    assert_eq!(next.trim(), format!("fix: {fix}"), "{report}");
}

const USER_CONFIG: &str = "// My Zellij.\ntheme \"gruvbox\"\n\nplugins {\n    // The bars.\n    tab-bar location=\"zellij:tab-bar\"\n}\n\nkeybinds {\n    locked {\n        bind \"Ctrl o\" { SwitchToMode \"normal\"; }\n    }\n    session {\n        bind \"Alt y\" { Detach; }\n    }\n}\n";

#[test]
fn the_plugin_is_carried_by_the_command() {
    assert!(
        PLUGIN.starts_with(b"\0asm"),
        "the command was built without its plugin: build it first (bash scripts/build-plugin.sh)"
    );
}

#[test]
fn setup_zellij_on_a_users_config_adds_only_its_nodes_and_remove_gives_the_file_back() {
    let home = Home::new("setup-zellij");
    home.install("zellij", "zellij 0.45.1");
    let config = home.zellij_dir().join("config.kdl");
    std::fs::create_dir_all(home.zellij_dir()).unwrap();
    std::fs::write(&config, USER_CONFIG).unwrap();

    // Without --write: what it would do, and nothing done.
    let out = home.run(&["setup", "zellij"]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("Would write the plugin"), "{said}");
    assert!(said.contains("  + "), "{said}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), USER_CONFIG);

    let out = home.run(&["setup", "zellij", "--write"]);
    assert!(out.status.success(), "{out:?}");
    let written = std::fs::read_to_string(&config).unwrap();
    let mut lines = written.lines();
    assert!(
        USER_CONFIG.lines().all(|l| lines.any(|w| w == l)),
        "only additions:\n{written}"
    );
    assert!(written.contains("ask-popup location=\"file:"), "{written}");
    assert_eq!(
        std::fs::read_to_string(config.with_extension("kdl.bak")).unwrap(),
        USER_CONFIG
    );
    assert_eq!(
        std::fs::read(home.zellij_dir().join("plugins/ask-popup.wasm")).unwrap(),
        PLUGIN
    );
    // A second run changes nothing.
    let out = home.run(&["setup", "zellij", "--write"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("already"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), written);

    let out = home.run(&["setup", "zellij", "--remove", "--write"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), USER_CONFIG);
    assert!(!home.zellij_dir().join("plugins/ask-popup.wasm").exists());
}

#[test]
fn setup_zellij_leaves_a_config_it_cannot_read_alone() {
    let home = Home::new("setup-broken");
    let config = home.zellij_dir().join("config.kdl");
    std::fs::create_dir_all(home.zellij_dir()).unwrap();
    std::fs::write(&config, "plugins {\n").unwrap();
    let out = home.run(&["setup", "zellij", "--write"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not KDL"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "plugins {\n");
}

#[test]
fn setup_zellij_refuses_a_location_it_cannot_write_and_leaves_the_config_alone() {
    // A URL with a control character: a clear error, no panic, nothing written.
    let home = Home::new("setup-control");
    let config = home.zellij_dir().join("config.kdl");
    std::fs::create_dir_all(home.zellij_dir()).unwrap();
    std::fs::write(&config, "plugins {\n}\n").unwrap();
    for write in [false, true] {
        let mut args = vec![
            "setup",
            "zellij",
            "--url",
            "https://example.org/a\u{1}b.wasm",
        ];
        if write {
            args.push("--write");
        }
        let out = home.run(&args);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("control character"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "plugins {\n}\n");
    }
    // A config dir whose path is not UTF-8 (--config-dir; Zellij's variables are read as text):
    // config.kdl would name another file.
    use std::os::unix::ffi::OsStrExt;
    let home = Home::new("setup-bytes");
    let dir = home
        .root
        .join(std::ffi::OsStr::from_bytes(b"zellij-\xff-config"));
    let out = home
        .command(env!("CARGO_BIN_EXE_ask-popup"))
        .args(["setup", "zellij", "--write", "--config-dir"])
        .arg(&dir)
        .output()
        .expect("run ask-popup");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is not UTF-8"), "{stderr}");
    assert!(!dir.join("config.kdl").exists());
}

#[test]
fn the_doctor_prints_what_a_config_holds_cleaned_for_the_terminal() {
    let home = Home::new("doctor-escapes");
    std::fs::create_dir_all(home.zellij_dir()).unwrap();
    std::fs::write(
        home.zellij_dir().join("config.kdl"),
        "plugins {\n    ask-popup location=\"file:/x\\u{1b}]0;PWNED\\u{7}\\u{1b}[31m.wasm\"\n}\n",
    )
    .unwrap();
    let (_, report) = home.doctor();
    assert!(report.contains("PWNED"), "{report}");
    assert!(
        !report.chars().any(|c| c.is_control() && c != '\n'),
        "{report:?}"
    );
}

#[test]
fn the_doctor_says_whether_desktop_actions_are_available_and_why_not() {
    let home = Home::new("doctor-desktop");
    let doctor = |env: &[(&str, &str)]| {
        let mut command = home.command(env!("CARGO_BIN_EXE_ask-popup"));
        command.arg("doctor").envs(env.iter().copied());
        let out = command.output().expect("run ask-popup doctor");
        let report = String::from_utf8_lossy(&out.stdout).into_owned();
        line(&report, "desktop actions").to_owned()
    };
    let nowhere = format!("unix:path={}", home.root.join("no-bus").display());
    let cases = [
        (
            vec![],
            "no session bus (DBUS_SESSION_BUS_ADDRESS is not set",
        ),
        (
            vec![("DBUS_SESSION_BUS_ADDRESS", nowhere.as_str())],
            "no notification server on the session bus",
        ),
        (
            vec![
                ("DBUS_SESSION_BUS_ADDRESS", nowhere.as_str()),
                ("ASK_POPUP_DESKTOP_ACTIONS", "off"),
            ],
            "turned off (ASK_POPUP_DESKTOP_ACTIONS=off)",
        ),
        (
            vec![
                ("DBUS_SESSION_BUS_ADDRESS", nowhere.as_str()),
                ("ASK_POPUP_TERMINAL_NOTIFY", "off"),
            ],
            "turned off (ASK_POPUP_TERMINAL_NOTIFY=off)",
        ),
    ];
    for (env, why) in cases {
        let said = doctor(&env);
        // Not a failure: the terminal's notification is told instead.
        assert!(
            said.starts_with('–') && said.contains(&format!("not available: {why}")),
            "{env:?}: {said}"
        );
    }
    // The config file turns it off too.
    let config = home.home().join(".config/ask-popup");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[notify]\ndesktop_actions = false\n",
    )
    .unwrap();
    let said = doctor(&[("DBUS_SESSION_BUS_ADDRESS", nowhere.as_str())]);
    assert!(
        said.contains("turned off (notify.desktop_actions = false in "),
        "{said}"
    );
}

#[test]
fn doctor_names_each_broken_state_with_its_fix_and_passes_once_set_up() {
    let home = Home::new("doctor");
    // No zellij at all.
    let (code, report) = home.doctor();
    assert_eq!(code, 1);
    fails_with_fix(
        &report,
        "zellij",
        "cargo install --locked zellij --version 0.45.1",
    );
    // Zellij, but nothing of ask-popup.
    home.install("zellij", "zellij 0.45.1");
    let (code, report) = home.doctor();
    assert_eq!(code, 1, "{report}");
    assert!(line(&report, "zellij").starts_with('✓'), "{report}");
    for check in ["plugin file", "alias", "binding"] {
        fails_with_fix(&report, check, "ask-popup setup zellij --write");
    }
    // Outside Zellij the plugin's answer is not checked, and counts against nothing.
    assert!(
        line(&report, "plugin in this session").starts_with('–'),
        "{report}"
    );

    // Set up: every check holds.
    assert!(home.run(&["setup", "zellij", "--write"]).status.success());
    let (code, report) = home.doctor();
    assert_eq!(code, 0, "{report}");
    assert!(!report.contains('✗'), "{report}");

    // An older plugin.
    let plugin = home.zellij_dir().join("plugins/ask-popup.wasm");
    std::fs::write(&plugin, b"\0asm older").unwrap();
    let (code, report) = home.doctor();
    assert_eq!(code, 1);
    fails_with_fix(&report, "plugin file", "ask-popup setup zellij --write");
    assert!(
        line(&report, "plugin file").contains("another version"),
        "{report}"
    );
    // No plugin file.
    std::fs::remove_file(&plugin).unwrap();
    let (_, report) = home.doctor();
    assert!(line(&report, "plugin file").contains("missing"), "{report}");
    assert!(home.run(&["setup", "zellij", "--write"]).status.success());

    // No alias (the binding kept): the user took it out.
    let config = home.zellij_dir().join("config.kdl");
    let text = std::fs::read_to_string(&config).unwrap();
    let without = text.replace("ask-popup location=", "other-plugin location=");
    std::fs::write(&config, without).unwrap();
    let (code, report) = home.doctor();
    assert_eq!(code, 1);
    fails_with_fix(&report, "alias", "ask-popup setup zellij --write");
    std::fs::write(&config, text).unwrap();

    // Claude Code installed without the hook, Codex without its table, Pi without the
    // extension, opencode without its server and plugin: each its ✗ and fix; after
    // `setup --write`, only ✓.
    home.install("claude", "2.1.0 (Claude Code)");
    home.install("codex", "codex-cli 0.1");
    home.install("pi", "0.1");
    home.install("opencode", "1.18.33");
    let (code, report) = home.doctor();
    assert_eq!(code, 1);
    fails_with_fix(&report, "Claude Code", "ask-popup setup claude --write");
    fails_with_fix(&report, "Codex", "ask-popup setup codex --write");
    fails_with_fix(&report, "Pi", "ask-popup setup pi --write");
    fails_with_fix(
        &report,
        "Codex's question tool",
        "ask-popup setup codex --write",
    );
    fails_with_fix(&report, "opencode", "ask-popup setup opencode --write");
    fails_with_fix(
        &report,
        "opencode plugin",
        "ask-popup setup opencode --write",
    );
    for (agent, check) in SKILLS {
        fails_with_fix(&report, check, &format!("ask-popup setup {agent} --write"));
    }
    let out = home.run(&["setup", "--write"]);
    assert!(out.status.success(), "{out:?}");
    let (code, report) = home.doctor();
    assert_eq!(code, 0, "{report}");
    for check in [
        "Claude Code",
        "Claude Code's MCP forms",
        "Codex",
        "Codex's question tool",
        "Pi",
        "opencode",
        "opencode plugin",
    ] {
        assert!(line(&report, check).starts_with('✓'), "{report}");
    }
    // The skill in each agent's own skill folder.
    for (dir, (_, check)) in [
        ".claude/skills",
        ".codex/skills",
        ".pi/agent/skills",
        ".config/opencode/skills",
    ]
    .iter()
    .zip(SKILLS)
    {
        let skill = home.home().join(dir).join("ask-user/SKILL.md");
        assert_eq!(
            std::fs::read_to_string(&skill).ok().as_deref(),
            Some(ask_popup::setup::SKILL),
            "{}",
            skill.display()
        );
        assert!(line(&report, check).starts_with('✓'), "{report}");
    }
    // An edited skill is another version.
    let codex_skill = home.home().join(".codex/skills/ask-user/SKILL.md");
    std::fs::write(&codex_skill, "---\nname: ask-user\n---\nolder\n").unwrap();
    let (code, report) = home.doctor();
    assert_eq!(code, 1, "{report}");
    assert!(
        line(&report, "Codex skill").contains("another version"),
        "{report}"
    );
    assert!(home.run(&["setup", "codex", "--write"]).status.success());
    // An older plugin, and the server moved: each a ✗ that says so.
    let plugin = home.home().join(".config/opencode/plugin/ask-popup.js");
    let header = ask_popup::setup::opencode::PLUGIN[0]
        .1
        .lines()
        .next()
        .unwrap();
    std::fs::write(&plugin, format!("{header}\n// an older plugin\n")).unwrap();
    let config = home.home().join(".config/opencode/opencode.json");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace(env!("CARGO_BIN_EXE_ask-popup"), "/old/ask-popup"),
    )
    .unwrap();
    let (code, report) = home.doctor();
    assert_eq!(code, 1);
    assert!(
        line(&report, "opencode plugin").contains("another version"),
        "{report}"
    );
    assert!(
        line(&report, "opencode").contains("runs another command"),
        "{report}"
    );
    assert!(home.run(&["setup", "opencode", "--write"]).status.success());
    let (code, report) = home.doctor();
    assert_eq!(code, 0, "{report}");

    // --json, for scripts.
    let out = home.run(&["doctor", "--json"]);
    let checks: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(checks
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["ok"] != Value::Bool(false)));

    // `setup --remove --write` takes all of it out again.
    let out = home.run(&["setup", "--remove", "--write"]);
    assert!(out.status.success(), "{out:?}");
    let (code, report) = home.doctor();
    assert_eq!(code, 1);
    for check in [
        "plugin file",
        "alias",
        "binding",
        "Claude Code",
        "Codex",
        "Codex's question tool",
        "Pi",
        "opencode",
        "opencode plugin",
        "Claude Code skill",
        "Codex skill",
        "Pi skill",
        "opencode skill",
    ] {
        assert!(line(&report, check).starts_with('✗'), "{check}: {report}");
    }
    // Nothing of the skills is left, their folders included.
    for dir in [
        ".claude/skills",
        ".codex/skills",
        ".pi/agent/skills",
        ".config/opencode/skills",
    ] {
        assert!(!home.home().join(dir).exists(), "{dir}");
    }
}

/// Each agent setup takes, and the doctor's check of its skill.
const SKILLS: [(&str, &str); 4] = [
    ("claude", "Claude Code skill"),
    ("codex", "Codex skill"),
    ("pi", "Pi skill"),
    ("opencode", "opencode skill"),
];

#[test]
fn setup_zellij_with_a_url_writes_no_file_and_the_doctor_needs_none() {
    let home = Home::new("setup-url");
    home.install("zellij", "zellij 0.45.1");
    let config = home.zellij_dir().join("config.kdl");
    std::fs::create_dir_all(home.zellij_dir()).unwrap();
    std::fs::write(&config, USER_CONFIG).unwrap();
    let url = "http://127.0.0.1:9/v/ask-popup.wasm";

    let out = home.run(&["setup", "zellij", "--url", url]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("download the plugin from {url}")),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), USER_CONFIG);

    let out = home.run(&["setup", "zellij", "--url", url, "--write"]);
    assert!(out.status.success(), "{out:?}");
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(
        written.contains(&format!("ask-popup location=\"{url}\"")),
        "{written}"
    );
    assert!(!home.zellij_dir().join("plugins").exists());
    let (code, report) = home.doctor();
    assert_eq!(code, 0, "{report}");
    assert!(line(&report, "plugin file").starts_with('–'), "{report}");
    assert!(line(&report, "alias").contains(url), "{report}");

    // Without a value: this version's release, in place of the URL before.
    let out = home.run(&["setup", "zellij", "--url", "--write"]);
    assert!(out.status.success(), "{out:?}");
    let release = format!(
        "{}/releases/download/v{}/ask-popup.wasm",
        env!("CARGO_PKG_REPOSITORY"),
        env!("CARGO_PKG_VERSION")
    );
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(
        written.contains(&format!("ask-popup location=\"{release}\"")) && !written.contains(url),
        "{written}"
    );
    let (code, report) = home.doctor();
    assert_eq!(code, 0, "{report}");

    // Not a URL Zellij downloads.
    let out = home.run(&[
        "setup",
        "zellij",
        "--url",
        "ftp://x/ask-popup.wasm",
        "--write",
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("http://"),
        "{out:?}"
    );

    // The file setup afterwards leaves the URL alias alone; --remove takes it out.
    let out = home.run(&["setup", "zellij", "--remove", "--write"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), USER_CONFIG);
}

#[test]
fn the_doctor_warns_of_another_zellij_line_without_failing() {
    let home = Home::new("doctor-line");
    home.install("zellij", "zellij 0.46.2");
    assert!(home.run(&["setup", "zellij", "--write"]).status.success());
    let (code, report) = home.doctor();
    assert_eq!(code, 0, "{report}");
    let zellij = line(&report, "zellij");
    assert!(
        zellij.starts_with("⚠ zellij: zellij 0.46.2 on PATH")
            && zellij.contains("built and tested for Zellij 0.45.x"),
        "{report}"
    );
    home.install("zellij", "zellij 0.45.3");
    let (code, report) = home.doctor();
    assert_eq!(code, 0, "{report}");
    assert!(
        line(&report, "zellij").starts_with("✓ zellij: zellij 0.45.3"),
        "{report}"
    );
}

#[test]
fn pi_with_the_extension_installed_as_a_package_needs_no_setup() {
    let home = Home::new("pi-package");
    home.install("zellij", "zellij 0.45.1");
    home.install("pi", "0.73.1");
    assert!(home.run(&["setup", "zellij", "--write"]).status.success());
    let agent = home.home().join(".pi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    let source = "npm:pi-ask-popup@file:/releases/pi-ask-popup-0.1.0.tgz";
    std::fs::write(
        agent.join("settings.json"),
        format!(r#"{{"packages": ["{source}"]}}"#),
    )
    .unwrap();
    let (code, report) = home.doctor();
    assert_eq!(code, 0, "{report}");
    assert!(
        line(&report, "Pi").starts_with(&format!("✓ Pi: Pi loads the package {source}")),
        "{report}"
    );
    // The package ships the skill too.
    assert!(
        line(&report, "Pi skill").starts_with("✓ Pi skill: the pi-ask-popup package ships"),
        "{report}"
    );
    // setup pi writes no second copy, of either.
    let out = home.run(&["setup", "pi", "--write"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("nothing to write"),
        "{out:?}"
    );
    assert!(!agent.join("extensions").exists());
    assert!(!agent.join("skills").exists());
    // Both: the tool twice.
    std::fs::create_dir_all(agent.join("extensions/ask-popup")).unwrap();
    let (code, report) = home.doctor();
    assert_eq!(code, 1, "{report}");
    fails_with_fix(&report, "Pi", "ask-popup setup pi --remove --write");
    std::fs::remove_dir_all(agent.join("extensions")).unwrap();
    // Pinned to another release: a warning.
    std::fs::write(
        agent.join("settings.json"),
        r#"{"packages": ["npm:pi-ask-popup@0.0.1"]}"#,
    )
    .unwrap();
    let (code, report) = home.doctor();
    assert_eq!(code, 0, "{report}");
    assert!(line(&report, "Pi").starts_with('⚠'), "{report}");
}

#[test]
fn setup_without_write_changes_nothing_and_says_what_it_would() {
    let home = Home::new("setup-dry");
    home.install("zellij", "zellij 0.45.1");
    home.install("codex", "codex-cli 0.1");
    let out = home.run(&["setup"]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("Zellij:"), "{said}");
    assert!(said.contains("Codex:"), "{said}");
    assert!(said.contains("Claude Code: not installed"), "{said}");
    assert!(!home.zellij_dir().exists() || !home.zellij_dir().join("config.kdl").exists());
    assert!(!home.home().join(".codex").exists());
}

#[test]
fn on_a_machine_without_a_config_setup_writes_zellijs_default_and_remove_leaves_nothing() {
    let home = Home::new("setup-fresh");
    // The real Zellij, for its default config.
    let zellij = std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("zellij"))
                .find(|p| p.is_file())
        })
        .expect("zellij on PATH: run `bash scripts/ensure-tools.sh` (or `bash scripts/test.sh`)");
    std::os::unix::fs::symlink(&zellij, home.root.join("bin/zellij")).unwrap();
    let out = home.run(&["setup", "zellij", "--write"]);
    assert!(out.status.success(), "{out:?}");
    let config = std::fs::read_to_string(home.zellij_dir().join("config.kdl")).unwrap();
    let default = Command::new(&zellij)
        .args(["setup", "--dump-config"])
        .output()
        .unwrap();
    let default = String::from_utf8_lossy(&default.stdout);
    let mut lines = config.lines();
    assert!(default.lines().all(|l| lines.any(|c| c == l)), "{config}");
    let out = home.run(&["setup", "zellij", "--remove", "--write"]);
    assert!(out.status.success(), "{out:?}");
    let left: Vec<_> = std::fs::read_dir(home.zellij_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn setup_web_turns_sharing_on_says_when_zellij_has_no_web_server_and_remove_restores_the_file() {
    let home = Home::new("setup-web");
    std::fs::create_dir_all(home.zellij_dir()).unwrap();
    let config = home.zellij_dir().join("config.kdl");
    let original = "// mine\ntheme \"dracula\"\nweb_sharing \"off\"\n";
    std::fs::write(&config, original).unwrap();
    // A Zellij built without its web server, as `zellij web` says it.
    let zellij = home.root.join("bin").join("zellij");
    std::fs::write(
        &zellij,
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'zellij 0.45.1'; exit 0; }\n\
         echo 'This version of Zellij was compiled without web server support, cannot get web server status!' >&2\nexit 2\n",
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&zellij)
        .status()
        .unwrap();

    // Without --write: what it would do, and nothing done.
    let out = home.run(&["setup", "web"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Would turn on"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);

    // With --write: the settings on, the user's own changed with its old text kept, and a
    // clear error that this Zellij cannot serve a browser.
    let out = home.run(&["setup", "web", "--write"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("built without its web server"),
        "{out:?}"
    );
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(
        written.contains("web_sharing \"on\"") && written.contains("web_server true"),
        "{written}"
    );
    let (code, report) = home.doctor();
    assert_ne!(code, 0, "{report}");
    assert!(
        report.contains("✗ web client: this zellij was built without its web server"),
        "{report}"
    );

    // --remove --write: the file as it was, byte for byte.
    let out = home.run(&["setup", "web", "--remove", "--write"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
}

#[test]
fn setup_writes_each_file_whole_keeping_a_linked_config_a_link_and_its_mode() {
    let home = Home::new("setup-atomic");
    home.install("zellij", "zellij 0.45.1");
    home.install("claude", "2.1.0 (Claude Code)");
    home.install("codex", "codex-cli 0.1");
    // config.kdl lives in a dotfiles repo, linked into Zellij's config dir, group-readable only.
    let dotfiles = home.home().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    let real = dotfiles.join("config.kdl");
    std::fs::write(&real, USER_CONFIG).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::create_dir_all(home.zellij_dir()).unwrap();
    let link = home.zellij_dir().join("config.kdl");
    std::os::unix::fs::symlink("../../dotfiles/config.kdl", &link).unwrap();

    let out = home.run(&["setup", "--write"]);
    assert!(out.status.success(), "{out:?}");

    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let written = std::fs::read_to_string(&real).unwrap();
    assert!(written.contains("ask-popup location=\"file:"), "{written}");
    assert_eq!(mode(&real), 0o640);
    // The backup beside the link, as before; nothing else (no temporary file) anywhere.
    assert_eq!(names(&dotfiles), ["config.kdl"]);
    assert_eq!(
        names(&home.zellij_dir()),
        ["config.kdl", "config.kdl.bak", "plugins"]
    );
    assert_eq!(
        std::fs::read_to_string(home.zellij_dir().join("config.kdl.bak")).unwrap(),
        USER_CONFIG
    );
    assert_eq!(mode(&home.zellij_dir().join("config.kdl.bak")), 0o640);
    assert_eq!(
        names(&home.zellij_dir().join("plugins")),
        ["ask-popup.wasm"]
    );
    assert_eq!(
        mode(&home.zellij_dir().join("plugins/ask-popup.wasm")),
        0o644
    );
    // The agents' settings can hold API keys: new ones are their owner's only.
    let claude = home.home().join(".claude/settings.json");
    let codex = home.home().join(".codex/config.toml");
    assert_eq!(mode(&claude), 0o600);
    assert_eq!(mode(&codex), 0o600);
    assert_eq!(
        names(&home.home().join(".claude")),
        ["settings.json", "skills"]
    );
    // The skill, readable (nothing secret in it), alone in its folder.
    let skill = home.home().join(".claude/skills/ask-user/SKILL.md");
    assert_eq!(
        std::fs::read_to_string(&skill).unwrap(),
        ask_popup::setup::SKILL
    );
    assert_eq!(mode(&skill), 0o644);
    assert_eq!(
        names(&home.home().join(".claude/skills/ask-user")),
        ["SKILL.md"]
    );

    // --remove --write gives the linked file back through the link, still a link.
    let out = home.run(&["setup", "--remove", "--write"]);
    assert!(out.status.success(), "{out:?}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), USER_CONFIG);
    assert_eq!(mode(&real), 0o640);
}

/// A `zellij` with its web server, as far as `setup web` asks it: the server's status, start and
/// stop, and login tokens made, listed and revoked (as Zellij 0.45.1 prints them), kept in
/// files under `state`, each call logged in `state/calls`.
fn fake_web_zellij(home: &Home) -> PathBuf {
    let state = home.root.join("zellij-web");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("tokens"), "").unwrap();
    let s = state.display();
    let script = format!(
        r#"#!/bin/sh
S={s}
[ "$1" = --version ] && {{ echo 'zellij 0.45.1'; exit 0; }}
[ "$1" = --config ] && shift 2
[ "$1" = web ] || exit 1
shift
echo "$*" >> "$S/calls"
case "$1" in
  --status)
    if [ -e "$S/running" ]; then echo "Web server online with version: 0.45.1. Checked: http://127.0.0.1:8082"
    else echo "Web server is offline, checked: http://127.0.0.1:8082"; fi ;;
  --start) touch "$S/running" ;;
  --stop) rm -f "$S/running"; echo "Stopped web server." ;;
  --create-token)
    n=$(( $(wc -l < "$S/tokens") + 1 ))
    echo "token_$n: created at 2026-12-02 01:00:0$n" >> "$S/tokens"
    printf 'Created token successfully

token_%s: secret-%s
' "$n" "$n" ;;
  --list-tokens) cat "$S/tokens" ;;
  --revoke-token)
    grep -q "^$2: " "$S/tokens" || {{ echo "Token by that name does not exist." >&2; exit 2; }}
    grep -v "^$2: " "$S/tokens" > "$S/left"; mv "$S/left" "$S/tokens"
    echo "Successfully revoked token." ;;
  *) exit 1 ;;
esac
"#
    );
    let zellij = home.root.join("bin/zellij");
    std::fs::write(&zellij, script).unwrap();
    std::fs::set_permissions(&zellij, std::fs::Permissions::from_mode(0o755)).unwrap();
    state
}

#[test]
fn setup_web_makes_a_token_only_when_none_exists_shows_it_only_in_a_terminal_and_remove_revokes_it()
{
    let home = Home::new("setup-web-tokens");
    let zellij = fake_web_zellij(&home);
    std::fs::create_dir_all(home.zellij_dir()).unwrap();
    let config = home.zellij_dir().join("config.kdl");
    std::fs::write(&config, USER_CONFIG).unwrap();
    let state = home.home().join(".local/state/ask-popup/web.json");
    let calls = || std::fs::read_to_string(zellij.join("calls")).unwrap_or_default();
    let stdout = |out: &Output| String::from_utf8_lossy(&out.stdout).into_owned();

    // Run by an agent (stdout a pipe), with no token yet: none made, the command to run in a
    // terminal said instead; the server started, and that remembered.
    let out = home.run(&["setup", "web", "--write"]);
    assert!(out.status.success(), "{out:?}");
    let said = stdout(&out);
    assert!(said.contains("Started the web server"), "{said}");
    assert!(
        said.contains("run in a terminal: ask-popup setup web --write --new-token"),
        "{said}"
    );
    assert!(!calls().contains("--create-token"), "{}", calls());
    assert_eq!(mode(&state), 0o600);
    let made: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(made["startedServer"], true, "{made}");

    // The user makes a token of their own: a second run makes none, even with --new-token
    // outside a terminal.
    std::fs::write(
        zellij.join("tokens"),
        "token_1: created at 2026-12-02 00:00:00\n",
    )
    .unwrap();
    let out = home.run(&["setup", "web", "--write"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("1 login token(s) exist already"),
        "{out:?}"
    );
    assert!(stdout(&out).contains("The web server runs"), "{out:?}");
    let out = home.run(&["setup", "web", "--write", "--new-token"]);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("run in a terminal"), "{out:?}");
    assert!(!calls().contains("--create-token"), "{}", calls());

    // In a terminal, --new-token makes one and shows it, once.
    let out = home.run_in_terminal(&["setup", "web", "--write", "--new-token"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("Login token token_2 (Zellij shows it this once; keep it): secret-2"),
        "{out:?}"
    );
    let made: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(
        made["tokens"],
        serde_json::json!([{"name": "token_2", "createdAt": "2026-12-02 01:00:02"}]),
        "{made}"
    );
    assert!(!std::fs::read_to_string(&state).unwrap().contains("secret"));

    // --remove without --write: what it would take away, and nothing taken.
    let out = home.run(&["setup", "web", "--remove"]);
    assert!(out.status.success(), "{out:?}");
    let said = stdout(&out);
    assert!(
        said.contains("Would revoke the login token token_2"),
        "{said}"
    );
    assert!(said.contains("Would stop the web server"), "{said}");
    assert!(zellij.join("running").exists());

    // --remove --write: the config as it was, the token setup made revoked (the user's kept),
    // the server it started stopped, and nothing left remembered.
    let out = home.run(&["setup", "web", "--remove", "--write"]);
    assert!(out.status.success(), "{out:?}");
    let said = stdout(&out);
    assert!(
        said.contains("Revoked the login token token_2 (`ask-popup setup web` made it)"),
        "{said}"
    );
    assert!(
        said.contains("Stopped the web server (`ask-popup setup web` started it)"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), USER_CONFIG);
    assert_eq!(
        std::fs::read_to_string(zellij.join("tokens")).unwrap(),
        "token_1: created at 2026-12-02 00:00:00\n"
    );
    assert!(!zellij.join("running").exists());
    assert!(!state.exists());
    assert!(!calls().contains("--revoke-token token_1"), "{}", calls());
}

#[test]
fn setup_web_remove_leaves_a_server_it_did_not_start_and_tokens_it_did_not_make() {
    let home = Home::new("setup-web-theirs");
    let zellij = fake_web_zellij(&home);
    std::fs::write(zellij.join("running"), "").unwrap();
    std::fs::write(
        zellij.join("tokens"),
        "token_1: created at 2026-12-02 00:00:00\n",
    )
    .unwrap();
    std::fs::create_dir_all(home.zellij_dir()).unwrap();
    std::fs::write(home.zellij_dir().join("config.kdl"), USER_CONFIG).unwrap();
    let out = home.run(&["setup", "web", "--write"]);
    assert!(out.status.success(), "{out:?}");
    // Nothing made, nothing started: nothing to remember.
    assert!(!home.home().join(".local/state/ask-popup/web.json").exists());
    let out = home.run(&["setup", "web", "--remove", "--write"]);
    assert!(out.status.success(), "{out:?}");
    assert!(zellij.join("running").exists());
    let calls = std::fs::read_to_string(zellij.join("calls")).unwrap();
    assert!(
        !calls.contains("--stop") && !calls.contains("--revoke"),
        "{calls}"
    );
}

/// An opencode config as a user keeps it: comments, a trailing comma, a provider of their own.
const USER_OPENCODE: &str = "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  // My model.\n  \"model\": \"anthropic/claude-sonnet-4-5\",\n  \"provider\": {\n    \"anthropic\": { \"options\": { \"timeout\": 600000 } }, // slow days\n  },\n}\n";

#[test]
fn setup_opencode_adds_the_server_and_the_plugin_and_remove_gives_the_config_back_byte_for_byte() {
    let home = Home::new("setup-opencode");
    home.install("opencode", "1.18.33");
    let dir = home.home().join(".config/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("opencode.jsonc");
    std::fs::write(&config, USER_OPENCODE).unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o640)).unwrap();
    let plugin = dir.join("plugin");

    // Without --write: the entry printed, and nothing done.
    let out = home.run(&["setup", "opencode"]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("\"ask-popup\": {"), "{said}");
    assert!(
        said.contains(&format!("Would change {}", config.display())),
        "{said}"
    );
    assert!(said.contains("Would write the plugin"), "{said}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), USER_OPENCODE);
    assert!(!plugin.exists());

    let out = home.run(&["setup", "opencode", "--write"]);
    assert!(out.status.success(), "{out:?}");
    let written = std::fs::read_to_string(&config).unwrap();
    // Only additions: every line of the user's file is still there, in order.
    let mut lines = written.lines();
    assert!(
        USER_OPENCODE
            .lines()
            .all(|l| lines.any(|w| w.starts_with(l.trim_end_matches(',')))),
        "{written}"
    );
    assert!(
        written.contains("// My model.") && written.contains("// slow days"),
        "{written}"
    );
    assert!(
        written.contains(&format!("\"{}\"", env!("CARGO_BIN_EXE_ask-popup"))),
        "{written}"
    );
    assert_eq!(mode(&config), 0o640);
    assert_eq!(
        std::fs::read_to_string(dir.join("opencode.jsonc.bak")).unwrap(),
        USER_OPENCODE
    );
    for (file, text) in ask_popup::setup::opencode::PLUGIN {
        assert_eq!(
            std::fs::read_to_string(plugin.join(file)).unwrap(),
            text,
            "{file}"
        );
    }
    assert_eq!(names(&plugin), ["ask-popup", "ask-popup.js"]);

    // A second run changes nothing.
    let out = home.run(&["setup", "opencode", "--write"]);
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("nothing to change"), "{said}");
    assert!(said.contains("the plugin is there already"), "{said}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), written);

    // --remove without --write says what it would take out, and takes nothing.
    let out = home.run(&["setup", "opencode", "--remove"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Would delete the ask-popup plugin"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), written);

    // --remove --write: the config byte for byte, the plugin and its folders gone.
    let out = home.run(&["setup", "opencode", "--remove", "--write"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), USER_OPENCODE);
    assert_eq!(mode(&config), 0o640);
    assert!(!plugin.exists());
}

#[test]
fn setup_opencode_on_a_machine_without_a_config_writes_one_and_remove_leaves_nothing() {
    let home = Home::new("setup-opencode-fresh");
    // $XDG_CONFIG_HOME is where opencode looks, and so does setup.
    let xdg = home.root.join("xdg");
    let mut command = home.command(env!("CARGO_BIN_EXE_ask-popup"));
    let out = command
        .env("XDG_CONFIG_HOME", &xdg)
        .args(["setup", "opencode", "--write"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let config = xdg.join("opencode/opencode.json");
    let written = std::fs::read_to_string(&config).unwrap();
    assert_eq!(
        written,
        ask_popup::setup::opencode::snippet(env!("CARGO_BIN_EXE_ask-popup"))
    );
    // It may come to hold the providers' keys: its owner's only.
    assert_eq!(mode(&config), 0o600);
    assert!(xdg.join("opencode/plugin/ask-popup.js").is_file());
    assert!(!home.home().join(".config/opencode").exists());
    let mut command = home.command(env!("CARGO_BIN_EXE_ask-popup"));
    let out = command
        .env("XDG_CONFIG_HOME", &xdg)
        .args(["setup", "opencode", "--remove", "--write"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(names(&xdg.join("opencode")), Vec::<String>::new());

    // $OPENCODE_CONFIG_DIR, opencode's own override, wins.
    let own = home.root.join("own");
    let mut command = home.command(env!("CARGO_BIN_EXE_ask-popup"));
    let out = command
        .env("XDG_CONFIG_HOME", &xdg)
        .env("OPENCODE_CONFIG_DIR", &own)
        .args(["setup", "opencode", "--write"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(own.join("opencode.json").is_file());
    assert!(own.join("plugin/ask-popup/shared.json").is_file());
}

#[test]
fn setup_opencode_leaves_a_config_it_cannot_read_alone() {
    let home = Home::new("setup-opencode-broken");
    let dir = home.home().join(".config/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("opencode.json");
    for text in ["{ \"model\": ", "{\n  \"mcp\": []\n}\n"] {
        std::fs::write(&config, text).unwrap();
        let out = home.run(&["setup", "opencode", "--write"]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("left"),
            "{out:?}"
        );
        assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
        assert!(!dir.join("opencode.json.bak").exists());
    }
}

/// Claude Code's settings as a user keeps them: hooks of their own whose commands only end in
/// the subcommands setup's hooks run (a wrapper, a logger), numbers serde_json would write anew
/// (`1e2`, an integer longer than 64 bits) and spacing of their own.
const USER_CLAUDE: &str = "{\n  \"model\" :\"opus\",\n  \"n\": 1e2,   \"big\": 123456789012345678901234567890,\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"AskUserQuestion\", \"hooks\": [{\"type\": \"command\", \"command\": \"/home/me/bin/audit-wrapper claude-hook\"}]}\n    ],\n    \"PermissionRequest\": [\n      {\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"my-tool --log x claude-approval\", \"timeout\": 1e2}]}\n    ],\n    \"Elicitation\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"/home/me/bin/log claude-elicitation\"}]}]\n  }\n}\n";

/// Runs `ask-popup ARGS` in `home` and asserts it succeeded; its stdout.
fn succeeds(home: &Home, args: &[&str]) -> String {
    let out = home.run(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `written` holds each of `kept` as written, and `hooks.<event>` has the user's entry first
/// and setup's, running `subcommand`, after it.
fn theirs_then_ours(written: &str, kept: &[&str], hooks: &[(&str, &str)]) {
    for text in kept {
        assert!(written.contains(text), "{text:?} in {written}");
    }
    let value: Value = serde_json::from_str(written).unwrap();
    for (event, subcommand) in hooks {
        let entries = value["hooks"][event].as_array().expect("a list");
        assert_eq!(entries.len(), 2, "{written}");
        assert_eq!(
            entries[1]["hooks"][0]["command"],
            format!("{} {subcommand}", env!("CARGO_BIN_EXE_ask-popup")),
            "{written}"
        );
    }
}

#[test]
fn setup_claude_keeps_a_users_own_hooks_and_their_text_and_remove_gives_the_file_back() {
    let home = Home::new("setup-claude-theirs");
    let dir = home.home().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.json");
    let backup = dir.join("settings.json.bak");
    std::fs::write(&settings, USER_CLAUDE).unwrap();

    succeeds(&home, &["setup", "claude", "--approvals", "--write"]);
    let written = std::fs::read_to_string(&settings).unwrap();
    theirs_then_ours(
        &written,
        &[
            "\"model\" :\"opus\",\n  \"n\": 1e2,   \"big\": 123456789012345678901234567890,\n",
            "{\"type\": \"command\", \"command\": \"/home/me/bin/audit-wrapper claude-hook\"}",
            "{\"type\": \"command\", \"command\": \"my-tool --log x claude-approval\", \"timeout\": 1e2}",
            "{\"type\": \"command\", \"command\": \"/home/me/bin/log claude-elicitation\"}",
        ],
        &[
            ("PreToolUse", "claude-hook"),
            ("PermissionRequest", "claude-approval"),
            ("Elicitation", "claude-elicitation"),
        ],
    );
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), USER_CLAUDE);
    let said = succeeds(&home, &["setup", "claude", "--approvals", "--write"]);
    assert!(said.contains("nothing to change"), "{said}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), written);

    // --remove: the file as it was, byte for byte; the backup is the file before this run.
    succeeds(&home, &["setup", "claude", "--remove", "--write"]);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), USER_CLAUDE);
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), written);

    // Nothing of setup's left: the user's hooks stay, and so does the backup.
    let said = succeeds(&home, &["setup", "claude", "--remove", "--write"]);
    assert!(said.contains("nothing to change"), "{said}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), USER_CLAUDE);
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), written);

    // claude-mcp's setting goes in and out the same way.
    succeeds(&home, &["setup", "claude-mcp", "--write"]);
    let with_env = std::fs::read_to_string(&settings).unwrap();
    assert!(
        with_env.starts_with(
            "{\n  \"model\" :\"opus\",\n  \"n\": 1e2,   \"big\": 123456789012345678901234567890,\n"
        ),
        "{with_env}"
    );
    succeeds(&home, &["setup", "claude-mcp", "--remove", "--write"]);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), USER_CLAUDE);
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), with_env);
}

/// Codex's hooks.json as a user keeps it: their own hooks whose commands only end in the
/// subcommands of setup's, on one line, and a number of theirs.
const USER_CODEX_HOOKS: &str = "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"request_user_input\",\"hooks\":[{\"type\":\"command\",\"command\":\"/home/me/bin/audit-wrapper codex-hook\",\"timeout\":1e2}]}],\"PermissionRequest\":[{\"matcher\":\"*\",\"hooks\":[{\"type\":\"command\",\"command\":\"my-tool --log x codex-approval\"}]}]},  \"n\":  123456789012345678901234567890}";

#[test]
fn setup_codex_keeps_a_users_own_hooks_and_their_text_and_remove_gives_the_file_back() {
    let home = Home::new("setup-codex-theirs");
    let dir = home.home().join(".codex");
    std::fs::create_dir_all(&dir).unwrap();
    let hooks = dir.join("hooks.json");
    let backup = dir.join("hooks.json.bak");
    std::fs::write(&hooks, USER_CODEX_HOOKS).unwrap();

    succeeds(&home, &["setup", "codex", "--approvals", "--write"]);
    let written = std::fs::read_to_string(&hooks).unwrap();
    theirs_then_ours(
        &written,
        &[
            "{\"type\":\"command\",\"command\":\"/home/me/bin/audit-wrapper codex-hook\",\"timeout\":1e2}",
            "{\"type\":\"command\",\"command\":\"my-tool --log x codex-approval\"}",
            "},  \"n\":  123456789012345678901234567890}",
        ],
        &[
            ("PreToolUse", "codex-hook"),
            ("PermissionRequest", "codex-approval"),
        ],
    );
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), USER_CODEX_HOOKS);

    succeeds(&home, &["setup", "codex", "--remove", "--write"]);
    assert_eq!(std::fs::read_to_string(&hooks).unwrap(), USER_CODEX_HOOKS);
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), written);
    let said = succeeds(&home, &["setup", "codex", "--remove", "--write"]);
    assert!(said.contains("nothing to change"), "{said}");
    assert_eq!(std::fs::read_to_string(&hooks).unwrap(), USER_CODEX_HOOKS);
}

#[test]
fn setup_leaves_an_ask_popup_server_of_the_users_own_alone() {
    let home = Home::new("setup-servers-theirs");
    // Codex: a table of that name running a wrapper of theirs.
    let codex = home.home().join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    let config = codex.join("config.toml");
    let theirs = "[mcp_servers.ask-popup]\ncommand = \"/home/me/bin/audit-wrapper\"\nargs = [\"ask-popup\", \"mcp\"]\n";
    std::fs::write(&config, theirs).unwrap();
    let out = home.run(&["setup", "codex", "--write"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not one setup wrote"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), theirs);
    succeeds(&home, &["setup", "codex", "--remove", "--write"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), theirs);

    // opencode: a server of that name, and plugin files of theirs under setup's names.
    let dir = home.home().join(".config/opencode");
    let plugin = dir.join("plugin");
    std::fs::create_dir_all(&plugin).unwrap();
    let config = dir.join("opencode.json");
    let theirs = "{\n  \"mcp\": {\n    \"ask-popup\": {\"type\": \"local\", \"command\": [\"/home/me/bin/audit-wrapper\", \"ask-popup\", \"mcp\"]}\n  }\n}\n";
    std::fs::write(&config, theirs).unwrap();
    let approvals = plugin.join("ask-popup-approvals.js");
    let own_plugin = "// my own approvals\nexport default {};\n";
    std::fs::write(&approvals, own_plugin).unwrap();
    let out = home.run(&["setup", "opencode", "--approvals", "--write"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("not one setup wrote"), "{said}");
    assert!(said.contains("not ask-popup's plugin"), "{said}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), theirs);
    assert_eq!(std::fs::read_to_string(&approvals).unwrap(), own_plugin);
    // The question tool's plugin, setup's own, went in; --remove takes it and nothing else.
    assert!(plugin.join("ask-popup.js").is_file());
    // The doctor says whose they are, and what to do.
    home.install("opencode", "1.18.33");
    let (_, report) = home.doctor();
    assert!(
        line(&report, "opencode").contains("not one setup wrote"),
        "{report}"
    );
    assert!(
        line(&report, "opencode's approvals").contains("not ask-popup's plugin"),
        "{report}"
    );
    succeeds(&home, &["setup", "opencode", "--remove", "--write"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), theirs);
    assert_eq!(std::fs::read_to_string(&approvals).unwrap(), own_plugin);
    assert_eq!(names(&plugin), ["ask-popup-approvals.js"]);
}
