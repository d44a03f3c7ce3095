//! End to end: questions from where no Zellij session is reachable. `ask-popup serve` listens
//! on a socket beside a real Zellij session; a real OpenSSH server on 127.0.0.1 (Debian's
//! openssh-server, with keys this test makes) plays the other machine, its shell without any
//! Zellij variable, and `ssh -R` forwards the socket to it as the README shows. Nothing
//! connects anywhere but loopback.

use crate::agents::{pick_sqlite, shell_quote, status, wait_until_nothing_pending, DB};
use crate::claude::{Claude, DATABASE};
use crate::command::{command, record_outer_terminal, wait_for_outer};
use crate::harness::{free_port, Zellij};
use crate::{ANSWER, AT_ONCE};
use ask_popup_protocol::envelope::{self, Answer, ErrorCode};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Debian's sshd.
const SSHD: &str = "/usr/sbin/sshd";

/// A real OpenSSH server on 127.0.0.1, for this test only; stopped when dropped.
pub(crate) struct Sshd {
    child: Child,
    port: u16,
    key: PathBuf,
    user: String,
}

impl Sshd {
    pub(crate) fn start(dir: &Path) -> Sshd {
        assert!(
            Path::new(SSHD).exists(),
            "{SSHD} not found: install OpenSSH's server (Debian: apt-get install openssh-server; \
             scripts/ensure-tools.sh does)"
        );
        let dir = dir.join("sshd");
        std::fs::create_dir_all(&dir).expect("create the sshd dir");
        for (name, key) in [("host key", "host_key"), ("user key", "user_key")] {
            let out = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.join(key))
                .stdin(Stdio::null())
                .output()
                .expect("run ssh-keygen");
            assert!(out.status.success(), "ssh-keygen ({name}): {out:?}");
        }
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys"))
            .expect("authorize the user key");
        // sshd refuses to start without its privilege separation dir.
        let _ = std::fs::create_dir_all("/run/sshd");
        let port = free_port();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\n\
             AuthorizedKeysFile {authorized}\nPidFile {pid}\nStrictModes no\nUsePAM no\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\n\
             PermitRootLogin prohibit-password\nAllowStreamLocalForwarding yes\n\
             StreamLocalBindUnlink yes\nPrintMotd no\nLogLevel ERROR\n",
            host_key = dir.join("host_key").display(),
            authorized = dir.join("authorized_keys").display(),
            pid = dir.join("sshd.pid").display(),
        );
        std::fs::write(dir.join("sshd_config"), config).expect("write sshd_config");
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(
                std::fs::File::create(dir.join("sshd.log")).expect("sshd log"),
            ))
            .spawn()
            .expect("start sshd");
        let until = Instant::now() + AT_ONCE;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < until,
                "sshd never listened: {}",
                std::fs::read_to_string(dir.join("sshd.log")).unwrap_or_default()
            );
            thread::sleep(Duration::from_millis(50));
        }
        let user = String::from_utf8_lossy(
            &Command::new("id")
                .arg("-un")
                .output()
                .expect("run id -un")
                .stdout,
        )
        .trim()
        .to_owned();
        Sshd {
            child,
            port,
            key: dir.join("user_key"),
            user,
        }
    }

    /// The `ssh` words that log in with the remote end of `forward` (`REMOTE:LOCAL`, two socket
    /// paths) forwarded, as the README shows.
    pub(crate) fn ssh_words(&self, forward: &str, tty: bool) -> Vec<String> {
        let mut words: Vec<String> = [
            "ssh",
            "-F",
            "/dev/null",
            "-i",
            &self.key.to_string_lossy(),
            "-p",
            &self.port.to_string(),
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "BatchMode=yes",
            "-o",
            "LogLevel=ERROR",
            "-o",
            "ExitOnForwardFailure=yes",
            "-o",
            "StreamLocalBindUnlink=yes",
            "-R",
            forward,
        ]
        .iter()
        .map(|w| (*w).to_owned())
        .collect();
        if tty {
            words.push("-tt".to_owned());
        }
        words.push(format!("{}@127.0.0.1", self.user));
        words
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ask-popup serve` for the world's session, listening on `socket`; stopped when dropped.
pub(crate) struct Serve {
    child: Child,
}

impl Serve {
    pub(crate) fn start(zellij: &Zellij, socket: &Path) -> Serve {
        let child = zellij
            .in_session(&command())
            .arg("serve")
            .env("ASK_POPUP_SOCKET", socket)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ask-popup serve");
        let until = zellij.until(AT_ONCE);
        while std::os::unix::net::UnixStream::connect(socket).is_err() {
            assert!(Instant::now() < until, "ask-popup serve never listened");
            thread::sleep(Duration::from_millis(50));
        }
        Serve { child }
    }
}

impl Serve {
    /// Sends `signal` to the server and waits until it has ended.
    pub(crate) fn stop(&mut self, signal: i32) -> std::process::ExitStatus {
        let pid = i32::try_from(self.child.id()).expect("a pid");
        // SAFETY: a signal to the process this test started.
        unsafe { libc::kill(pid, signal) };
        self.child.wait().expect("ask-popup serve ended")
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The "remote" shell's command: waits for the forwarded socket, then runs `line` with no
/// variable but PATH, the socket's and `vars`.
fn remote_line(remote_socket: &Path, vars: &str, line: &str) -> String {
    format!(
        "while [ ! -S {socket} ]; do sleep 0.05; done; \
         exec env -i PATH=/usr/local/bin:/usr/bin:/bin ASK_POPUP_SOCKET={socket} {vars} sh -c {line}",
        socket = shell_quote(&remote_socket.to_string_lossy()),
        line = shell_quote(line),
    )
}

/// The user picks SQLite on the question of `asker`, asked by `child` (its stdout piped);
/// what `child` printed, once it ended.
fn sqlite_picked_for(zellij: &Zellij, asker: &str, child: Child) -> Output {
    let out = Arc::new(Mutex::new(None));
    {
        let out = out.clone();
        thread::spawn(move || {
            let output = child.wait_with_output();
            *out.lock().expect("lock") = Some(output);
        });
    }
    pick_sqlite(zellij, asker, || out.lock().expect("lock").is_some());
    let output = out.lock().expect("lock").take().expect("it ended");
    output.expect("it ran")
}

#[test]
fn a_question_from_another_machine_over_ssh_is_answered_in_the_popup() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let local = dir.join("local.sock");
    let _serve = Serve::start(&zellij, &local);
    let sshd = Sshd::start(&dir);

    // The other machine: no Zellij, the socket forwarded, the host named as a container or a
    // remote box is.
    let remote = dir.join("remote-1.sock");
    let line = format!(
        "{command} ask --id r-1 {payload}",
        command = shell_quote(&command().to_string_lossy()),
        payload = shell_quote(DB),
    );
    let words = sshd.ssh_words(&format!("{}:{}", remote.display(), local.display()), false);
    let mut ssh = Command::new(&words[0]);
    ssh.args(&words[1..])
        .arg(remote_line(
            &remote,
            "ASK_POPUP_AGENT=builder ASK_POPUP_HOST=devbox",
            &line,
        ))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = ssh.spawn().expect("run ssh");
    // The popup names the agent and the machine it asks from.
    zellij.wait_for_screen("the remote question", ANSWER, |s| {
        s.contains("builder@devbox asks") && s.contains("Which database?")
    });
    let output = sqlite_picked_for(&zellij, "builder@devbox asks", child);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        crate::agents::submitted(DB, &[(0, Answer::Option(1))], &[], Some("r-1")),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(0));
    wait_until_nothing_pending(&zellij);
}

#[test]
fn a_dropped_ssh_connection_gives_no_reply_and_takes_the_question_back() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let local = dir.join("local.sock");
    let _serve = Serve::start(&zellij, &local);
    let sshd = Sshd::start(&dir);

    let remote = dir.join("remote-2.sock");
    let line = format!(
        "{command} ask --id r-2 {payload} > {out}; echo $? > {rc}.tmp && mv {rc}.tmp {rc}",
        command = shell_quote(&command().to_string_lossy()),
        payload = shell_quote(DB),
        out = shell_quote(&dir.join("r-2.json").to_string_lossy()),
        rc = shell_quote(&dir.join("r-2.rc").to_string_lossy()),
    );
    let words = sshd.ssh_words(&format!("{}:{}", remote.display(), local.display()), false);
    let mut ssh = Command::new(&words[0])
        .args(&words[1..])
        .arg(remote_line(&remote, "ASK_POPUP_AGENT=builder", &line))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run ssh");
    zellij.wait_for_screen("the remote question", ANSWER, |s| {
        s.contains("builder asks") && s.contains("Which database?")
    });
    assert_eq!(status(&zellij)["pending"].as_array().map(Vec::len), Some(1));

    // The connection dies mid-question.
    let _ = ssh.kill();
    let _ = ssh.wait();
    // The question leaves the popup, and the remote caller hears that no reply will come.
    wait_until_nothing_pending(&zellij);
    let until = zellij.until(ANSWER);
    while !dir.join("r-2.rc").exists() {
        assert!(Instant::now() < until, "the remote ask never ended");
        thread::sleep(Duration::from_millis(100));
    }
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert_eq!(read("r-2.rc").trim(), "5");
    assert_eq!(
        read("r-2.json"),
        envelope::host_error(ErrorCode::NoReply, Some("r-2"))
    );
    // The popup is redrawn a moment after the question leaves it.
    zellij.wait_for_screen("the popup without the question", ANSWER, |s| {
        !s.contains("Which database?")
    });
}

#[test]
fn claude_code_on_another_machine_gets_its_answer_from_the_popup() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let local = dir.join("local.sock");
    let _serve = Serve::start(&zellij, &local);
    let sshd = Sshd::start(&dir);
    let outer = dir.join("outer.log");
    record_outer_terminal(&zellij, &outer);
    let remote = dir.join("remote-3.sock");
    let words = sshd.ssh_words(&format!("{}:{}", remote.display(), local.display()), true);
    let claude = Claude::start_over(
        &zellij,
        "claude-remote",
        json!([crate::claude::database()]),
        &Remote {
            ssh: words,
            socket: remote,
        },
    );
    claude.asked(&zellij, DATABASE);
    // The hook on the other machine told its terminal, the SSH connection's, which is the
    // local pane: Zellij passed the notification on.
    wait_for_outer(
        &zellij,
        &outer,
        &format!("\u{1b}]9;claude asks: DB: {DATABASE}\u{7}"),
    );
    crate::claude::pick_the_second_option(&zellij);
    assert_eq!(claude.tool_result(&zellij), crate::claude::sqlite_picked());
    wait_until_nothing_pending(&zellij);
}

/// How an agent reaches the other machine: the `ssh` words, and the socket's path there.
pub(crate) struct Remote {
    pub(crate) ssh: Vec<String>,
    pub(crate) socket: PathBuf,
}

impl Remote {
    /// The pane's command: `line` run on the other machine, with only PATH, the socket and
    /// `vars` (`NAME=value ` words) set.
    pub(crate) fn line(&self, vars: &str, line: &str) -> String {
        let ssh: Vec<String> = self.ssh.iter().map(|w| shell_quote(w)).collect();
        format!(
            "exec {} {}",
            ssh.join(" "),
            shell_quote(&remote_line(&self.socket, vars, line))
        )
    }
}

#[test]
fn the_first_question_inside_zellij_starts_the_server_that_questions_from_outside_use() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let line = format!(
        "cd {dir} && {path}ASK_POPUP_AGENT=inside {command} ask --id s-1 {payload} > s-1.json; \
         exec sleep 1000",
        dir = shell_quote(&dir.to_string_lossy()),
        path = crate::agents::zellij_on_path(),
        command = shell_quote(&command().to_string_lossy()),
        payload = shell_quote(DB),
    );
    crate::agents::new_pane(&zellij, "inside", &line);
    zellij.wait_for_screen("the question inside", ANSWER, |s| s.contains("inside asks"));
    // It started `ask-popup serve` on the default socket, in the runtime dir.
    let socket = zellij.runtime_dir().join("ask-popup.sock");
    let until = zellij.until(AT_ONCE);
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(Instant::now() < until, "no server on {}", socket.display());
        thread::sleep(Duration::from_millis(100));
    }
    zellij.send_keys(&["Esc"]);
    wait_until_nothing_pending(&zellij);

    // A caller with no Zellij at all (a container given the runtime dir's socket) asks there.
    let mut outside = zellij.in_session(&command());
    outside
        .env_remove("ZELLIJ_SESSION_NAME")
        .env("ASK_POPUP_AGENT", "outside")
        .env("ASK_POPUP_HOST", "box")
        .args(["ask", "--id", "s-2", DB])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = outside.spawn().expect("run ask outside Zellij");
    zellij.wait_for_screen("the question from outside", ANSWER, |s| {
        s.contains("outside@box asks")
    });
    let output = sqlite_picked_for(&zellij, "outside@box asks", child);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        crate::agents::submitted(DB, &[(0, Answer::Option(1))], &[], Some("s-2"))
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn a_container_given_the_session_as_documented_asks_in_it_through_the_socket() {
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let local = dir.join("local.sock");
    let _serve = Serve::start(&zellij, &local);
    // docs/anywhere.md's container: the socket mounted, `-e ASK_POPUP_TRUST_UID=$(id -u) -e
    // ZELLIJ_PANE_ID -e ZELLIJ_SESSION_NAME`, and neither `zellij` nor Zellij's sockets there.
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let mut container = Command::new(command());
    container
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("ASK_POPUP_SOCKET", &local)
        .env("ASK_POPUP_TRUST_UID", uid.to_string())
        .env("ZELLIJ_PANE_ID", "0")
        .env("ZELLIJ_SESSION_NAME", zellij.session())
        .env("ASK_POPUP_AGENT", "boxed")
        .args(["ask", "--id", "k-1", DB])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = container.spawn().expect("run ask in the container");
    zellij.wait_for_screen("the container's question", ANSWER, |s| {
        s.contains("boxed asks") && s.contains("Which database?")
    });
    let output = sqlite_picked_for(&zellij, "boxed asks", child);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        crate::agents::submitted(DB, &[(0, Answer::Option(1))], &[], Some("k-1")),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(0));
    wait_until_nothing_pending(&zellij);
}

#[test]
fn a_serve_that_stops_takes_its_questions_out_of_the_popup() {
    // Stopped as a service manager or a closed terminal stops it, the server withdraws what it
    // asked: nobody could receive an answer given to it, and the caller hears no_reply.
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let local = dir.join("local.sock");
    let mut serve = Serve::start(&zellij, &local);
    let caller = Command::new(command())
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &dir)
        .env("ASK_POPUP_SOCKET", &local)
        .env("ASK_POPUP_AGENT", "faraway")
        .args(["ask", "--id", "t-1", DB])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ask outside Zellij");
    zellij.wait_for_screen("the question through the socket", ANSWER, |s| {
        s.contains("faraway asks") && s.contains("Which database?")
    });
    assert_eq!(status(&zellij)["pending"].as_array().map(Vec::len), Some(1));
    serve.stop(libc::SIGTERM);
    // Out of the popup at once, not only when the caller gives up.
    wait_until_nothing_pending(&zellij);
    zellij.wait_for_screen("the popup without the question", ANSWER, |s| {
        !s.contains("Which database?")
    });
    let output = caller.wait_with_output().expect("the caller ended");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        envelope::host_error(ErrorCode::NoReply, Some("t-1")),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(5));
}
