//! Asking through `ask-popup serve`'s socket, on the host: the frame, where the socket is, which
//! session a question from outside is asked in; and the real server (this crate's binary) with
//! callers that send junk, too much, or hang up, and the socket file's permissions. Answering in
//! a real Zellij, over a real SSH connection, is tests/e2e/remote.rs.

use ask_popup::inbox::routes::{self, pick_session};
use ask_popup::remote::wire::{self, read_frame, socket_path, Frame};
use ask_popup::zellij::session::{connected_clients, LiveSession};
use ask_popup_protocol::envelope::{self, Envelope, ErrorCode};
use ask_popup_protocol::request::{self, RequestError};
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const DB: &str = r#"{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres"},{"label":"SQLite"}]}]}"#;

fn frame() -> Frame {
    Frame {
        agent: Some("claude".to_owned()),
        id: "r-1".to_owned(),
        id_given: true,
        pane_id: None,
        session: None,
        host: Some("devbox".to_owned()),
        approval_by: None,
        questionnaire: DB.to_owned(),
    }
}

#[test]
fn a_frame_is_one_line_read_back_as_sent() {
    let frame = frame();
    let line = frame.line();
    assert!(line.ends_with('\n'));
    assert_eq!(line.matches('\n').count(), 1);
    assert_eq!(read_frame(line.as_bytes()), Ok(frame));
}

#[test]
fn junk_a_frame_cut_short_and_unknown_fields_are_unreadable() {
    for junk in [
        "junk\n",
        "{\"id\":\"x\"\n",
        "[1]\n",
        "{\"id\":\"x\",\"questionnaire\":\"{}\",\"extra\":1}\n",
    ] {
        assert!(
            matches!(
                read_frame(junk.as_bytes()),
                Err(RequestError::Unreadable { .. })
            ),
            "{junk:?}"
        );
    }
    let cut = frame().line();
    let cut = cut.trim_end();
    match read_frame(cut.as_bytes()) {
        Err(RequestError::Unreadable { detail }) => {
            assert!(detail.contains("one line"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_frame_over_the_limit_is_too_large() {
    let big = vec![b'x'; wire::MAX_FRAME_BYTES + 10];
    assert!(matches!(
        read_frame(&big[..]),
        Err(RequestError::PayloadTooLarge { bytes }) if bytes > wire::MAX_FRAME_BYTES
    ));
    // The largest questionnaire fits, with who asks.
    let mut largest = frame();
    largest.questionnaire = "x".repeat(request::MAX_PAYLOAD_BYTES);
    assert_eq!(read_frame(largest.line().as_bytes()), Ok(largest));
}

#[test]
fn the_popup_names_the_machine_when_no_pane_is_passed_on() {
    let caller = frame().caller(Some("laptop"));
    assert_eq!(caller.agent.as_deref(), Some("claude@devbox"));
    assert_eq!(caller.pane_id, None);
    assert_eq!(caller.id, "r-1");
    assert!(caller.id_given);
    // Asked from this machine: the agent alone.
    assert_eq!(
        frame().caller(Some("devbox")).agent.as_deref(),
        Some("claude")
    );
    // A pane passed on names it.
    let mut with_pane = frame();
    with_pane.pane_id = Some("3".to_owned());
    let caller = with_pane.caller(Some("laptop"));
    assert_eq!(caller.agent.as_deref(), Some("claude"));
    assert_eq!(caller.pane_id.as_deref(), Some("3"));
    // No agent name: the machine's.
    let mut nameless = frame();
    nameless.agent = None;
    assert_eq!(
        nameless.caller(Some("laptop")).agent.as_deref(),
        Some("agent@devbox")
    );
}

#[test]
fn the_socket_is_the_variables_else_in_the_runtime_dir_else_the_users_temp_folder() {
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    };
    let tmp = Path::new("/tmp");
    assert_eq!(
        socket_path(
            env(&[
                ("ASK_POPUP_SOCKET", "/a/b.sock"),
                ("XDG_RUNTIME_DIR", "/run/user/1")
            ]),
            1,
            tmp
        ),
        PathBuf::from("/a/b.sock")
    );
    assert_eq!(
        socket_path(env(&[("XDG_RUNTIME_DIR", "/run/user/1")]), 1, tmp),
        PathBuf::from("/run/user/1/ask-popup.sock")
    );
    assert_eq!(
        socket_path(env(&[("XDG_RUNTIME_DIR", "relative")]), 7, tmp),
        PathBuf::from("/tmp/ask-popup-7/ask-popup.sock")
    );
}

#[test]
fn the_session_metadata_tells_the_attached_clients() {
    assert_eq!(
        connected_clients("name \"api\"\nconnected_clients 2\ntabs {\n}\n"),
        Some(2)
    );
    assert_eq!(connected_clients("name \"api\"\n"), None);
    // Only the top-level node counts.
    assert_eq!(
        connected_clients("tabs {\n    connected_clients 3\n}\n"),
        None
    );
}

#[test]
fn a_question_from_outside_goes_to_the_passed_session_else_an_attached_one() {
    let live = |list: &[(&str, Option<usize>)]| -> Vec<LiveSession> {
        list.iter()
            .map(|(name, clients)| LiveSession {
                name: (*name).to_owned(),
                clients: *clients,
            })
            .collect()
    };
    let sessions = live(&[("api", Some(0)), ("web", Some(1)), ("docs", Some(2))]);
    // The session the caller passed on, while it lives.
    assert_eq!(
        pick_session(Some("api"), Some("web"), &sessions).as_deref(),
        Some("api")
    );
    assert_eq!(
        pick_session(Some("gone"), Some("web"), &sessions).as_deref(),
        Some("web")
    );
    // The server's own, when attached; else the first attached by name.
    assert_eq!(
        pick_session(None, Some("api"), &sessions).as_deref(),
        Some("docs")
    );
    // Nobody attached: the server's own, else the only one, else none.
    let detached = live(&[("api", Some(0)), ("web", None)]);
    assert_eq!(
        pick_session(None, Some("web"), &detached).as_deref(),
        Some("web")
    );
    assert_eq!(pick_session(None, None, &detached), None);
    assert_eq!(
        pick_session(None, None, &live(&[("solo", None)])).as_deref(),
        Some("solo")
    );
    assert_eq!(pick_session(None, None, &[]), None);
}

/// This crate's `ask-popup`, run where no Zellij session is reachable, with `socket` for
/// `ask-popup serve` and the folders of `dir` for Zellij's sockets and cache (none there).
fn outside_zellij(socket: &Path, dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ask-popup"));
    command
        .env("ASK_POPUP_SOCKET", socket)
        .env("ZELLIJ_SOCKET_DIR", dir.join("zellij"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env_remove("ZELLIJ")
        .env_remove("ZELLIJ_SESSION_NAME")
        .stdin(Stdio::null());
    command
}

/// The real `ask-popup serve` on a socket in a fresh folder, with no Zellij session anywhere.
struct Server {
    child: Child,
    dir: PathBuf,
    socket: PathBuf,
}

impl Server {
    fn start() -> Server {
        let dir = std::env::temp_dir().join(format!(
            "ask-popup-relay-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("zellij")).expect("create the test's folder");
        let socket = dir.join("ask-popup.sock");
        let child = outside_zellij(&socket, &dir)
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ask-popup serve");
        let until = Instant::now() + Duration::from_secs(20);
        while UnixStream::connect(&socket).is_err() {
            assert!(Instant::now() < until, "ask-popup serve never listened");
            std::thread::sleep(Duration::from_millis(20));
        }
        Server { child, dir, socket }
    }

    /// Sends `bytes`, closes the writing half, and reads what comes back.
    fn exchange(&self, bytes: &[u8]) -> String {
        let mut stream = UnixStream::connect(&self.socket).expect("connect");
        // A server that answers before reading everything may close first: that is fine.
        let _ = stream.write_all(bytes);
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let mut out = String::new();
        stream.read_to_string(&mut out).expect("read the reply");
        out
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn the_server_answers_junk_and_too_much_with_an_error_envelope_and_goes_on() {
    let server = Server::start();
    let junk = server.exchange(b"hello\n");
    let envelope = Envelope::read(junk.trim_end()).expect("an envelope");
    assert_eq!(
        envelope.error(),
        Some(Ok(ErrorCode::InvalidPayload)),
        "{junk}"
    );
    assert!(junk.ends_with('\n'));

    let mut big = vec![b'{'; wire::MAX_FRAME_BYTES + 1];
    big.push(b'\n');
    let too_much = server.exchange(&big);
    let envelope = Envelope::read(too_much.trim_end()).expect("an envelope");
    assert_eq!(
        envelope.error(),
        Some(Ok(ErrorCode::PayloadTooLarge)),
        "{too_much}"
    );

    // A questionnaire the popup would reject is rejected here, with the caller's id.
    let mut bad = frame();
    bad.questionnaire = r#"{"questions":[]}"#.to_owned();
    let rejected = server.exchange(bad.line().as_bytes());
    let error = request::parse(r#"{"questions":[]}"#).expect_err("no questions");
    assert_eq!(rejected, envelope::rejection(&error, Some("r-1")));

    // A caller that hangs up halfway does not stop the server.
    {
        let mut stream = UnixStream::connect(&server.socket).expect("connect");
        stream.write_all(b"{\"id\":").expect("write half a frame");
    }
    // With no Zellij session to ask in: no_ui, as outside Zellij.
    let no_ui = server.exchange(frame().line().as_bytes());
    assert_eq!(
        no_ui,
        envelope::host_error(ErrorCode::NoUi, Some("r-1")),
        "{no_ui}"
    );
}

#[test]
fn the_socket_is_the_users_alone_and_a_second_server_leaves_it_be() {
    let server = Server::start();
    let mode = std::fs::metadata(&server.socket)
        .expect("the socket")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    let second = outside_zellij(&server.socket, &server.dir)
        .arg("serve")
        .output()
        .expect("run a second server");
    assert_eq!(second.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&second.stderr).contains("another ask-popup serve listens"),
        "{second:?}"
    );
    assert!(UnixStream::connect(&server.socket).is_ok());
}

#[test]
fn ask_outside_zellij_goes_through_the_socket_and_prints_what_comes_back() {
    let server = Server::start();
    let out = outside_zellij(&server.socket, &server.dir)
        .args(["ask", "--id", "o-1", DB])
        .output()
        .expect("run ask");
    // The server has no session either: the caller hears no_ui, with its exit status.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        envelope::host_error(ErrorCode::NoUi, Some("o-1"))
    );
    assert_eq!(out.status.code(), Some(3));
    // A socket nobody listens on is no socket: no_ui at once.
    let out = outside_zellij(&server.dir.join("nobody.sock"), &server.dir)
        .args(["ask", DB])
        .output()
        .expect("run ask");
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn a_question_in_a_session_nobody_sees_goes_to_the_attached_ones() {
    let live = vec![
        LiveSession {
            name: "api".to_owned(),
            clients: Some(0),
        },
        LiveSession {
            name: "web".to_owned(),
            clients: Some(1),
        },
        LiveSession {
            name: "docs".to_owned(),
            clients: Some(2),
        },
        LiveSession {
            name: "old".to_owned(),
            clients: None,
        },
    ];
    assert_eq!(routes::forward_to("api", None, &live), ["web", "docs"]);
    // Somebody sees it at home: there alone, unless told always.
    assert!(routes::forward_to("web", None, &live).is_empty());
    assert_eq!(routes::forward_to("web", Some("always"), &live), ["docs"]);
    assert!(routes::forward_to("api", Some("off"), &live).is_empty());
    for never in ["off", "never", " NO ", "0", "false"] {
        assert!(routes::never_forwards(Some(never)), "{never}");
        assert!(
            routes::forward_to("api", Some(never), &live).is_empty(),
            "{never}"
        );
    }
    assert!(!routes::never_forwards(None));
    assert!(!routes::never_forwards(Some("always")));
    // A session without metadata counts as nobody's: questions asked there go out.
    assert_eq!(routes::forward_to("old", None, &live), ["web", "docs"]);
}

#[test]
fn another_sessions_question_names_the_agent_and_the_session_within_the_limit() {
    assert_eq!(routes::copy_agent(Some("claude"), "api"), "claude in api");
    assert_eq!(routes::copy_agent(None, "api"), "an agent in api");
    let long = routes::copy_agent(Some(&"x".repeat(40)), "backend");
    assert!(long.ends_with(" in backend"), "{long}");
    assert_eq!(long.chars().count(), ask_popup::ask::MAX_AGENT_CHARS);
    // What would split the pipe's arguments is taken out.
    assert_eq!(routes::copy_agent(Some("a,b=c"), "x,y"), "abc in xy");
}

#[test]
fn servers_started_on_demand_at_once_leave_one_listening() {
    let dir = std::env::temp_dir().join(format!("ask-popup-relay-race-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("zellij")).expect("create the test's folder");
    let socket = dir.join("ask-popup.sock");
    let mut children: Vec<Child> = (0..6)
        .map(|_| {
            outside_zellij(&socket, &dir)
                .args(["serve", "--on-demand"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start ask-popup serve --on-demand")
        })
        .collect();
    // All but one leave at once, quietly; the one left listens.
    let until = Instant::now() + Duration::from_secs(20);
    let running = |children: &mut Vec<Child>| {
        children
            .iter_mut()
            .map(|c| c.try_wait().ok().flatten().is_none())
            .filter(|alive| *alive)
            .count()
    };
    while running(&mut children) > 1 {
        assert!(Instant::now() < until, "several servers kept running");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(running(&mut children), 1);
    for child in &mut children {
        if let Ok(Some(status)) = child.try_wait() {
            assert!(status.success(), "{status}");
        }
    }
    let until = Instant::now() + Duration::from_secs(20);
    while UnixStream::connect(&socket).is_err() {
        assert!(Instant::now() < until, "nobody listens");
        std::thread::sleep(Duration::from_millis(20));
    }
    for child in &mut children {
        let _ = child.kill();
        let _ = child.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
