//! End to end: the desktop notification with actions, on a session bus of the test's own (a real
//! `dbus-daemon`) with a real notification server (Debian's dunst, under Xvfb), for questions
//! asked in a real Zellij: an option picked from the notification is the caller's answer and the
//! question leaves the popup, with no terminal notification beside it; an approval offers only
//! Deny and Open, and Deny denies; an `ActionInvoked` that another client forges changes nothing.
//!
//! A click is made through dunst's context menu (`dunstctl context`): dunst runs the `dmenu` of
//! its config with one line per action (`#LABEL (SUMMARY) [ID,KEY]`) on stdin and invokes the
//! action of the line it prints back; here that program is a script that keeps the menu it was
//! given and prints the line of the action the test wants.

use crate::agents::{new_pane, pick_sqlite, shell_quote, status, submitted, zellij_on_path, DB};
use crate::command::{command, record_outer_terminal, wait_for_file};
use crate::harness::Zellij;
use crate::history::recorded;
use crate::ANSWER;
use ask_popup_protocol::envelope::Answer;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How long the desktop's programs have to come up, or a menu to be shown.
const COMES_UP: Duration = Duration::from_secs(20);

/// The programs the desktop needs, each from Debian's packages (`scripts/ensure-tools.sh
/// desktop` installs them).
const PROGRAMS: [&str; 6] = [
    "dbus-daemon",
    "dbus-send",
    "gdbus",
    "Xvfb",
    "dunst",
    "dunstctl",
];

/// The context menu's program: keeps the menu it was given in `menu`, and prints the line of
/// the action whose key `want` names (none when `want` is empty).
const MENU_SCRIPT: &str = r#"#!/bin/sh
dir=$(dirname "$0")
input=$(cat)
want=$(cat "$dir/want" 2>/dev/null)
printf '%s\n' "$input" > "$dir/menu.tmp" && mv "$dir/menu.tmp" "$dir/menu"
if [ -n "$want" ]; then printf '%s\n' "$input" | grep -F ",$want]" | head -n 1; fi
exit 0
"#;

/// A desktop of the test's own: a session bus, an X server, and dunst on both; every process
/// killed when dropped, however the test ends.
struct Desktop {
    dir: PathBuf,
    address: String,
    display: String,
    processes: Vec<(&'static str, Child)>,
}

impl Desktop {
    fn start(dir: &Path) -> Desktop {
        for program in PROGRAMS {
            let found = Command::new("sh")
                .args(["-c", &format!("command -v {program}")])
                .output()
                .is_ok_and(|out| out.status.success());
            assert!(
                found,
                "{program} not found: run `bash scripts/ensure-tools.sh desktop`"
            );
        }
        let dir = dir.join("desktop");
        std::fs::create_dir_all(&dir).expect("create the desktop dir");
        let mut desktop = Desktop {
            address: format!("unix:path={}", dir.join("bus").display()),
            dir,
            display: String::new(),
            processes: Vec::new(),
        };
        desktop.start_bus();
        desktop.start_display();
        desktop.start_dunst();
        desktop
    }

    /// A session bus of its own (a config of its own, its socket in the test's dir).
    fn start_bus(&mut self) {
        let config = self.dir.join("bus.conf");
        std::fs::write(
            &config,
            format!(
                "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n \
                 \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n\
                 <busconfig>\n  <type>session</type>\n  <listen>{}</listen>\n  \
                 <auth>EXTERNAL</auth>\n  <policy context=\"default\">\n    \
                 <allow send_destination=\"*\" eavesdrop=\"true\"/>\n    \
                 <allow eavesdrop=\"true\"/>\n    <allow own=\"*\"/>\n  </policy>\n</busconfig>\n",
                self.address
            ),
        )
        .expect("write the bus config");
        let bus = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--nopidfile"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(self.log("dbus-daemon"))
            .spawn()
            .expect("start dbus-daemon");
        self.processes.push(("dbus-daemon", bus));
        let socket = self.dir.join("bus");
        self.wait("the session bus", || socket.exists());
    }

    /// Xvfb on a display it picks itself (`-displayfd`), which dunst draws on.
    fn start_display(&mut self) {
        let mut xvfb = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-nolisten",
                "tcp",
                "-screen",
                "0",
                "1280x800x24",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(self.log("Xvfb"))
            .spawn()
            .expect("start Xvfb");
        let stdout = xvfb.stdout.take().expect("Xvfb's stdout");
        self.processes.push(("Xvfb", xvfb));
        let (tx, rx) = std::sync::mpsc::channel();
        thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let number = rx.recv_timeout(COMES_UP).unwrap_or_default();
        let number = number.trim();
        assert!(
            !number.is_empty(),
            "Xvfb named no display: {}",
            self.read_log("Xvfb")
        );
        self.display = format!(":{number}");
    }

    /// dunst with a config of its own: its context menu is `MENU_SCRIPT`.
    fn start_dunst(&mut self) {
        let script = self.dir.join("menu.sh");
        std::fs::write(&script, MENU_SCRIPT).expect("write the menu script");
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("make the menu script executable");
        let config = self.dir.join("dunstrc");
        std::fs::write(
            &config,
            format!("[global]\n    dmenu = {}\n", script.display()),
        )
        .expect("write dunstrc");
        let mut dunst = Command::new("dunst");
        dunst
            .arg("-config")
            .arg(&config)
            .env("DISPLAY", &self.display)
            .stdin(Stdio::null())
            .stdout(self.log("dunst"))
            .stderr(self.log("dunst.err"));
        let dunst = self.on_bus(&mut dunst).spawn().expect("start dunst");
        self.processes.push(("dunst", dunst));
        self.wait("dunst on the bus", || {
            self.run(Command::new("dunstctl").arg("debug"))
                .status
                .success()
        });
    }

    /// `command` with this desktop's bus and display.
    fn on_bus<'a>(&self, command: &'a mut Command) -> &'a mut Command {
        command
            .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
            .env("DISPLAY", &self.display)
    }

    /// `command` run on this desktop: its output.
    fn run(&self, command: &mut Command) -> Output {
        self.on_bus(command)
            .stdin(Stdio::null())
            .output()
            .expect("run a desktop command")
    }

    /// What a pane's command line sets for the command to reach this desktop.
    fn env(&self) -> String {
        format!("DBUS_SESSION_BUS_ADDRESS={} ", shell_quote(&self.address))
    }

    /// How many notifications dunst shows.
    fn displayed(&self) -> usize {
        let out = self.run(Command::new("dunstctl").args(["count", "displayed"]));
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or(usize::MAX)
    }

    /// Waits until dunst shows `n` notifications.
    fn wait_displayed(&self, n: usize, what: &str) {
        let until = Instant::now() + ANSWER;
        loop {
            let displayed = self.displayed();
            if displayed == n {
                return;
            }
            assert!(
                Instant::now() < until,
                "{what}: dunst shows {displayed} notifications, not {n}; its log:\n{}",
                self.read_log("dunst")
            );
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// Opens dunst's context menu, as a person does, and picks the action of key `want` (none
    /// when empty): the menu's actions, as (notification id, key, label).
    fn context_menu(&self, want: &str) -> Vec<(u32, String, String)> {
        let menu = self.dir.join("menu");
        let _ = std::fs::remove_file(&menu);
        std::fs::write(self.dir.join("want"), want).expect("write the wanted action");
        let out = self.run(Command::new("dunstctl").arg("context"));
        assert!(out.status.success(), "dunstctl context: {out:?}");
        self.wait("the context menu", || menu.exists());
        let menu = std::fs::read_to_string(&menu).expect("the menu");
        menu.lines().filter_map(menu_action).collect()
    }

    /// The id of the one notification dunst shows, read from its context menu (nothing picked).
    fn shown_id(&self) -> u32 {
        let actions = self.context_menu("");
        let ids: Vec<u32> = actions.iter().map(|(id, _, _)| *id).collect();
        assert!(
            !ids.is_empty() && ids.iter().all(|id| *id == ids[0]),
            "{actions:?}"
        );
        ids[0]
    }

    /// `ActionInvoked(id, key)` as another client sends it: to everyone, and to each
    /// connection on the bus but the notification server's, one by one (a signal sent to one
    /// connection reaches it whatever it listens to).
    fn forge_click(&self, id: u32, key: &str) {
        let emit = |dest: Option<&str>| {
            let mut gdbus = Command::new("gdbus");
            gdbus.args([
                "emit",
                "--session",
                "--object-path",
                "/org/freedesktop/Notifications",
                "--signal",
                "org.freedesktop.Notifications.ActionInvoked",
            ]);
            if let Some(dest) = dest {
                gdbus.args(["--dest", dest]);
            }
            gdbus.args([format!("uint32 {id}"), format!("'{key}'")]);
            let out = self.run(&mut gdbus);
            assert!(out.status.success(), "gdbus emit: {out:?}");
        };
        emit(None);
        let server = self.bus_call("GetNameOwner", &["org.freedesktop.Notifications"]);
        let names = self.bus_call("ListNames", &[]);
        let names: Vec<&str> = names
            .split(['\'', ' ', ',', '[', ']', '(', ')'])
            .filter(|n| n.starts_with(":1."))
            .collect();
        assert!(names.len() >= 2, "the bus's connections: {names:?}");
        for name in names {
            if !server.contains(&format!("'{name}'")) {
                emit(Some(name));
            }
        }
    }

    /// A method of the bus daemon itself, with `args`: what gdbus prints.
    fn bus_call(&self, method: &str, args: &[&str]) -> String {
        let out = self.run(
            Command::new("gdbus")
                .args([
                    "call",
                    "--session",
                    "--dest",
                    "org.freedesktop.DBus",
                    "--object-path",
                    "/org/freedesktop/DBus",
                    "--method",
                    &format!("org.freedesktop.DBus.{method}"),
                ])
                .args(args),
        );
        assert!(out.status.success(), "gdbus call {method}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn log(&self, name: &str) -> Stdio {
        Stdio::from(
            std::fs::File::create(self.dir.join(format!("{name}.log"))).expect("a log file"),
        )
    }

    fn read_log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default()
    }

    fn wait(&self, what: &str, done: impl Fn() -> bool) {
        let until = Instant::now() + COMES_UP;
        while !done() {
            assert!(
                Instant::now() < until,
                "{what} never came; dunst's log:\n{}",
                self.read_log("dunst")
            );
            thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        // dunst first, the bus last; each asked to end (Xvfb then removes its lock and
        // socket), then killed.
        for (_, child) in self.processes.iter_mut().rev() {
            if let Ok(pid) = i32::try_from(child.id()) {
                // SAFETY: a signal to a process this test started.
                unsafe { libc::kill(pid, libc::SIGTERM) };
            }
            let until = Instant::now() + Duration::from_secs(3);
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < until {
                thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A line of dunst's context menu, `#LABEL (SUMMARY) [ID,KEY]`: (id, key, label).
fn menu_action(line: &str) -> Option<(u32, String, String)> {
    let line = line.strip_prefix('#')?;
    let (head, tail) = line.rsplit_once(" [")?;
    let (id, key) = tail.strip_suffix(']')?.split_once(',')?;
    let (label, _summary) = head.rsplit_once(" (")?;
    Some((id.parse().ok()?, key.to_owned(), label.to_owned()))
}

/// The keys and labels of `actions`, sorted (dunst lists them in no set order).
fn keys_and_labels(actions: &[(u32, String, String)]) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = actions
        .iter()
        .map(|(_, key, label)| (key.clone(), label.clone()))
        .collect();
    pairs.sort();
    pairs
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = expected
        .iter()
        .map(|(k, l)| ((*k).to_owned(), (*l).to_owned()))
        .collect();
    pairs.sort();
    pairs
}

/// Starts `line` (run in `dir`, on `desktop`'s bus, with the tested zellij and command on
/// PATH) in a new pane named `name`; the pane stays once it ended, and `rc` tells it ended.
fn in_pane(zellij: &Zellij, desktop: &Desktop, dir: &Path, name: &str, line: &str) -> u32 {
    let line = format!(
        "cd {dir} && {env}{path}{line}; echo $? > rc.tmp && mv rc.tmp rc; exec sleep 1000",
        dir = shell_quote(&dir.to_string_lossy()),
        env = desktop.env(),
        path = zellij_on_path(),
    );
    new_pane(zellij, name, &line)
}

/// `ask-popup ask --id ID` asking the database question for the agent `asker` in a pane of
/// its own that hears the desktop (its envelope into `dir/out.json`), shown in the popup and
/// in one notification.
fn ask_asker(zellij: &Zellij, desktop: &Desktop, dir: &Path, id: &str) {
    in_pane(
        zellij,
        desktop,
        dir,
        "agent",
        &format!(
            "ASK_POPUP_AGENT=asker {command} ask --id {id} {payload} > out.json",
            command = shell_quote(&command().to_string_lossy()),
            payload = shell_quote(DB),
        ),
    );
    zellij.wait_for_screen("the question", ANSWER, |s| {
        s.contains("asker asks") && s.contains("Which database?")
    });
    desktop.wait_displayed(1, "the question's notification");
}

#[test]
fn an_option_picked_from_the_desktop_notification_answers_the_question() {
    let zellij = Zellij::start();
    let desktop = Desktop::start(&zellij.scratch());
    let dir = zellij.scratch();
    let outer = dir.join("outer.log");
    record_outer_terminal(&zellij, &outer);
    ask_asker(&zellij, &desktop, &dir, "d-1");
    // The person picks SQLite from the notification: its options and Open are offered.
    let offered = desktop.context_menu("1");
    assert_eq!(
        keys_and_labels(&offered),
        pairs(&[("0", "Postgres"), ("1", "SQLite"), ("open", "Open")])
    );
    wait_for_file(&zellij, &dir.join("rc"), "the command never ended");
    let out = std::fs::read_to_string(dir.join("out.json")).expect("out.json");
    assert_eq!(
        out,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("d-1"))
    );
    // It left the popup, and the notification is gone.
    zellij.wait_for_screen("the popup gone", ANSWER, |s| !s.contains("Which database?"));
    assert_eq!(status(&zellij)["pending"], json!([]));
    desktop.wait_displayed(0, "the notification closed once answered");
    // One notification, not two: the terminal was told nothing.
    let sent = String::from_utf8_lossy(&std::fs::read(&outer).unwrap_or_default()).into_owned();
    assert!(!sent.contains("\u{1b}]9;asker asks"), "{sent:?}");
    // The record says where it was answered.
    let entries = recorded(&zellij, 1);
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["answeredFrom"], "notification", "{entries:#?}");
    assert_eq!(entries[0]["details"]["answers"][0]["answer"], "SQLite");
}

#[test]
fn an_approval_offers_deny_and_open_and_deny_from_the_notification_denies() {
    let zellij = Zellij::start();
    let desktop = Desktop::start(&zellij.scratch());
    let dir = zellij.scratch();
    let input = json!({
        "session_id": "s", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "touch denied-by-the-notification", "description": "Make a file"},
        "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash",
            "ruleContent": "touch:*"}], "behavior": "allow", "destination": "localSettings"}],
    });
    std::fs::write(dir.join("hook.json"), input.to_string()).expect("write the hook input");
    in_pane(
        &zellij,
        &desktop,
        &dir,
        "claude",
        &format!(
            "{command} claude-approval < hook.json > out.json",
            command = shell_quote(&command().to_string_lossy()),
        ),
    );
    zellij.wait_for_screen("the approval", ANSWER, |s| {
        s.contains("❯ Deny") && s.contains("Allow always")
    });
    desktop.wait_displayed(1, "the approval's notification");
    // Deny and Open, never an Allow: what runs must be read whole, in the popup.
    let offered = desktop.context_menu("deny");
    assert_eq!(
        keys_and_labels(&offered),
        pairs(&[("deny", "Deny"), ("open", "Open")])
    );
    wait_for_file(&zellij, &dir.join("rc"), "the hook never ended");
    let out: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).expect("out.json"))
            .expect("the hook's answer is JSON");
    assert_eq!(
        out["hookSpecificOutput"]["decision"]["behavior"], "deny",
        "{out}"
    );
    zellij.wait_for_screen("the popup gone", ANSWER, |s| !s.contains("❯ Deny"));
    desktop.wait_displayed(0, "the notification closed once denied");
    let entries = recorded(&zellij, 1);
    assert_eq!(entries[0]["approval"], "deny", "{entries:#?}");
    assert_eq!(entries[0]["answeredFrom"], "notification", "{entries:#?}");
    assert!(!dir.join("denied-by-the-notification").exists());
}

#[test]
fn a_forged_action_invoked_changes_nothing() {
    let zellij = Zellij::start();
    let desktop = Desktop::start(&zellij.scratch());
    let dir = zellij.scratch();
    ask_asker(&zellij, &desktop, &dir, "f-1");
    let id = desktop.shown_id();
    // Another client says Postgres was clicked, and Open: to everyone, and to each connection.
    desktop.forge_click(id, "0");
    desktop.forge_click(id, "open");
    thread::sleep(Duration::from_secs(3));
    assert!(
        !dir.join("rc").exists(),
        "a forged click answered the question"
    );
    let pending = status(&zellij)["pending"].as_array().map_or(0, Vec::len);
    assert_eq!(pending, 1, "the question still waits");
    assert_eq!(desktop.displayed(), 1, "the notification still shows");
    // The person answers in the popup: SQLite, and the notification closes.
    let rc = dir.join("rc");
    pick_sqlite(&zellij, "asker asks", || rc.exists());
    let out = std::fs::read_to_string(dir.join("out.json")).expect("out.json");
    assert_eq!(
        out,
        submitted(DB, &[(0, Answer::Option(1))], &[], Some("f-1"))
    );
    desktop.wait_displayed(0, "the notification closed once answered in the popup");
    let entries = recorded(&zellij, 1);
    assert_eq!(entries[0]["answeredFrom"], Value::Null, "{entries:#?}");
}
