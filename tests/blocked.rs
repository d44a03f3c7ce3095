//! `ask-popup blocked` as a process: the wait it tells the plugin of ends with the agent that
//! runs it, however that agent ends (SIGKILL, as when Pi crashes, sends it no signal). The
//! plugin's side is a stand-in `zellij` that answers the `blocked` pipe as the plugin does and
//! logs every call.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long the test waits for what the command does within a second; generous, for a busy
/// machine.
const WAIT: Duration = Duration::from_secs(10);

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < until, "never within {WAIT:?}: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A stand-in `zellij` in `dir`, answering the `blocked` pipe as the plugin does and logging
/// each call's arguments to `dir/zellij.log`.
fn stand_in_zellij(dir: &Path) {
    let zellij = dir.join("zellij");
    std::fs::write(
        &zellij,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{log}'\ncase \"$*\" in\n\
             *'--name blocked'*active=true*) echo '{{\"active\":true,\"waiting\":1}}' ;;\n\
             *'--name blocked'*active=false*) echo '{{\"active\":false,\"waiting\":0}}' ;;\n\
             esac\n",
            log = dir.join("zellij.log").display()
        ),
    )
    .expect("write the stand-in zellij");
    std::fs::set_permissions(&zellij, std::fs::Permissions::from_mode(0o755))
        .expect("make it executable");
}

/// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
fn ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // `pid (comm) S …`: the state follows the last `)`.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

#[test]
fn a_wait_ends_within_a_second_of_its_agent_being_killed() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let dir = temp.path();
    stand_in_zellij(dir);
    let log = dir.join("zellij.log");
    let pid_file = dir.join("blocked.pid");
    // The agent: a shell that runs `ask-popup blocked` and waits for it, as Pi runs it around
    // a dialog of its own.
    let mut agent = Command::new("sh")
        .arg("-c")
        .arg("\"$@\" & echo $! > \"$PID_FILE\"; wait")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_ask-popup"))
        .args(["blocked", "--agent", "pi", "--id", "confirm-1"])
        .env("PID_FILE", &pid_file)
        .env(
            "PATH",
            format!(
                "{}:{}",
                dir.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("ZELLIJ", "0")
        .env("ZELLIJ_SESSION_NAME", "work")
        .env("ZELLIJ_PANE_ID", "7")
        .env("ZELLIJ_SOCKET_DIR", dir.join("no-sessions"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the agent");
    let said = || std::fs::read_to_string(&log).unwrap_or_default();
    wait_until("the wait is told to the plugin", || {
        said().contains("active=true")
    });
    let blocked: u32 = std::fs::read_to_string(&pid_file)
        .expect("the command's pid")
        .trim()
        .parse()
        .expect("a pid");

    agent.kill().expect("SIGKILL the agent");
    agent.wait().expect("reap the agent");
    let killed = Instant::now();
    let ends = || ended(blocked) && said().contains("active=false");
    let until = killed + WAIT;
    while !ends() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let ended_in_time = ends();
    if !ended(blocked) {
        // SAFETY: a signal to the process this test started (through its agent).
        unsafe { libc::kill(blocked as libc::pid_t, libc::SIGKILL) };
    }
    assert!(
        ended_in_time,
        "`ask-popup blocked` did not end and tell the plugin so within {WAIT:?} of its agent's \
         end; the pipes: {}",
        said()
    );
    let end = said()
        .lines()
        .find(|l| l.contains("active=false"))
        .unwrap_or_default()
        .to_owned();
    assert!(
        end.contains("--name blocked") && end.contains("id=confirm-1"),
        "{end}"
    );
}
