//! Whom `ask-popup serve`'s socket trusts, on the host with real sockets, real processes and a
//! second real user: a caller asks only through a socket, a folder and a listener of its own
//! user's, and takes only its own question's envelope; the server listens only in a folder of
//! its own, answers only its own user's callers, holds no caller past one deadline, keeps a
//! bounded number of them, and takes its questions back from the popup when it stops; the notes
//! of questions waiting where nobody is attached go in no folder another user made. The
//! popup's side is a stand-in `zellij` that records the pipes it is given (a real Zellij is
//! tests/e2e/remote.rs).

use ask_popup::remote::wire::{
    self as relay, check_socket, read_frame, reply_for, Frame, NotOwnFolder, Owned, Trust,
    Untrusted,
};
use ask_popup_protocol::envelope::{self, Answer, Envelope, ErrorCode, Outcome, Responses};
use ask_popup_protocol::request::{self, RequestError};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const DB: &str = r#"{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres"},{"label":"SQLite"}]}]}"#;

/// What a condition is waited for, at most.
const WAIT: Duration = Duration::from_secs(30);

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < until, "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A fresh folder of the test's, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        static NEXT: Mutex<u32> = Mutex::new(0);
        let n = {
            let mut next = NEXT.lock().unwrap_or_else(|e| e.into_inner());
            *next += 1;
            *next
        };
        let dir =
            std::env::temp_dir().join(format!("ask-popup-trust-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).expect("create the test's folder");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755))
            .expect("chmod the test's folder");
        Scratch(dir)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// A folder in it, with `mode`.
    fn folder(&self, name: &str, mode: u32) -> PathBuf {
        let dir = self.join(name);
        std::fs::create_dir(&dir).expect("create a folder");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).expect("chmod");
        dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A second real user, made for one test with `useradd` and removed with `userdel -r` when
/// dropped, even when the test fails.
struct OtherUser {
    name: String,
    uid: u32,
    gid: u32,
}

impl OtherUser {
    fn new() -> OtherUser {
        // One useradd at a time in this binary; another's lock on /etc/passwd is waited out.
        static ONE_AT_A_TIME: Mutex<u32> = Mutex::new(0);
        let mut next = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        *next += 1;
        let name = format!("apt{}x{}", std::process::id(), *next);
        let until = Instant::now() + WAIT;
        loop {
            let out = Command::new("useradd")
                .args(["-M", "-N", "-s", "/usr/sbin/nologin", &name])
                .output()
                .expect("run useradd");
            if out.status.success() {
                break;
            }
            let said = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(
                said.contains("lock") && Instant::now() < until,
                "useradd {name}: {said}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let id = |flag: &str| -> u32 {
            let out = Command::new("id")
                .args([flag, &name])
                .output()
                .expect("run id");
            String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .expect("a number")
        };
        let user = OtherUser {
            uid: id("-u"),
            gid: id("-g"),
            name,
        };
        assert_ne!(user.uid, this_uid());
        user
    }

    /// `program` run as this user (its uid, its group, no other groups).
    fn command(&self, program: &Path) -> Command {
        let mut command = Command::new("setpriv");
        command
            .arg(format!("--reuid={}", self.uid))
            .arg(format!("--regid={}", self.gid))
            .arg("--clear-groups")
            .arg("--")
            .arg(program);
        command
    }

    fn chown(&self, path: &Path) {
        std::os::unix::fs::lchown(path, Some(self.uid), Some(self.gid)).expect("chown");
    }
}

impl Drop for OtherUser {
    fn drop(&mut self) {
        // Its processes (the squatter, a server) were dropped, and killed, before it.
        let until = Instant::now() + WAIT;
        while Command::new("userdel")
            .args(["-r", &self.name])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| !s.success() && s.code() != Some(6))
            && Instant::now() < until
        {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// What `command` printed once it ended by itself (a server that listens when it should have
/// refused is killed and fails the test, rather than holding it).
fn run_to_end(command: &mut Command) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ask-popup");
    let mut ended = false;
    let until = Instant::now() + WAIT;
    while Instant::now() < until {
        if child.try_wait().ok().flatten().is_some() {
            ended = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if !ended {
        let _ = child.kill();
    }
    let out = child.wait_with_output().expect("it ends");
    assert!(ended, "it did not end: {out:?}");
    out
}

fn this_uid() -> u32 {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() }
}

/// The command, run where no Zellij session is reachable, asking through `socket`.
fn outside_zellij(socket: &Path, dir: &Path) -> Command {
    command_outside_zellij(Path::new(env!("CARGO_BIN_EXE_ask-popup")), socket, dir)
}

fn command_outside_zellij(program: &Path, socket: &Path, dir: &Path) -> Command {
    let mut command = Command::new(program);
    set_outside_zellij(&mut command, socket, dir);
    command
}

fn set_outside_zellij(command: &mut Command, socket: &Path, dir: &Path) {
    command
        .env("ASK_POPUP_SOCKET", socket)
        .env("ZELLIJ_SOCKET_DIR", dir.join("no-zellij"))
        .env("XDG_CACHE_HOME", dir.join("no-cache"))
        .env("PATH", "/usr/bin:/bin")
        .env_remove("ZELLIJ")
        .env_remove("ZELLIJ_SESSION_NAME")
        .env_remove("ZELLIJ_PANE_ID")
        .env_remove(relay::TRUST_ENV)
        .env_remove("ASK_POPUP_NOTIFY")
        .env("ASK_POPUP_SERVE", "off")
        .stdin(Stdio::null());
}

/// Claude Code's (and Codex's) permission prompt as its hook reads it.
fn permission_request() -> String {
    json!({
        "session_id": "s", "cwd": "/p", "permission_mode": "default",
        "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /srv/data", "description": "Clean up"},
    })
    .to_string()
}

/// opencode's `permission.asked` as its plugin hands it on.
fn opencode_permission() -> String {
    json!({
        "id": "per_1", "sessionID": "ses_1", "permission": "bash",
        "patterns": ["rm -rf /srv/data"], "always": [],
        "metadata": {"command": "rm -rf /srv/data", "description": "Clean up"},
    })
    .to_string()
}

/// What each way of asking prints when answered through `socket`: `ask --id mine`, and the
/// three approval hooks.
fn every_way_of_asking(socket: &Path, dir: &Path, extra: &[(&str, String)]) -> Vec<Output> {
    let run = |args: &[&str], input: &str| {
        let mut command = outside_zellij(socket, dir);
        for (name, value) in extra {
            command.env(name, value);
        }
        let mut child = command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run ask-popup");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(input.as_bytes()).expect("write the input");
        drop(stdin);
        child.wait_with_output().expect("it ends")
    };
    vec![
        run(&["ask", "--id", "mine", DB], ""),
        run(&["claude-approval"], &permission_request()),
        run(&["codex-approval"], &permission_request()),
        run(&["opencode-approval"], &opencode_permission()),
    ]
}

/// `Allow once` (the first option) for the questionnaire of `frame`, as request `id`'s answer.
fn allow_once(frame: &Frame, id: &str) -> String {
    let questionnaire = request::parse(&frame.questionnaire).expect("a questionnaire");
    let mut responses = Responses::empty(questionnaire.questions.len());
    responses.answers[0] = Some(Answer::Option(0));
    envelope::outcome(&questionnaire, &Outcome::Submitted(responses), Some(id))
}

/// Whether no way of asking was allowed (nothing printed by a hook; `ask` not answered).
fn nothing_allowed(outputs: &[Output]) -> Result<(), String> {
    let ask = String::from_utf8_lossy(&outputs[0].stdout);
    if Envelope::read(ask.trim_end()).is_some_and(|e| e.error().is_none()) {
        return Err(format!("ask was answered: {ask}"));
    }
    for out in &outputs[1..] {
        let printed = String::from_utf8_lossy(&out.stdout);
        if printed.contains("allow") || printed.contains("once") {
            return Err(format!("a hook allowed: {printed}"));
        }
    }
    Ok(())
}

/// A listener that answers every frame with `answer(frame)`: the squatter's (when run in a
/// process of another user's, see `squatter`) or a server answering with another request's id.
fn answer_every_frame(listener: UnixListener, log: Option<PathBuf>, answer: fn(&Frame) -> String) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let mut line = String::new();
        let _ = BufReader::new(&stream).read_line(&mut line);
        if let Some(log) = &log {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .expect("the squatter's log");
            let _ = file.write_all(line.as_bytes());
        }
        if let Ok(frame) = read_frame(line.as_bytes()) {
            let _ = (&stream).write_all(answer(&frame).as_bytes());
        }
    }
}

/// Not a test of its own: run as another user by the tests below (`SQUATTER_SOCKET` set), it
/// listens on that path and answers `Allow once` to whatever comes, with the caller's own id
/// (read from its frame), logging every frame to `SQUATTER_LOG`.
#[test]
fn squatter() {
    let Some(socket) = std::env::var_os("SQUATTER_SOCKET") else {
        return;
    };
    let listener = UnixListener::bind(&socket).expect("bind the squatted path");
    let log = std::env::var_os("SQUATTER_LOG").map(PathBuf::from);
    answer_every_frame(listener, log, |frame| allow_once(frame, &frame.id));
}

/// The squatter, as `user`, listening at `socket` (with its socket's mode `mode`).
struct Squatter {
    child: Child,
    log: PathBuf,
}

impl Squatter {
    fn start(user: &OtherUser, socket: &Path, log_dir: &Path) -> Squatter {
        let log = log_dir.join("squatter.log");
        let child = user
            .command(&std::env::current_exe().expect("this test binary"))
            .args(["--exact", "squatter", "--nocapture", "--test-threads=1"])
            .env("SQUATTER_SOCKET", socket)
            .env("SQUATTER_LOG", &log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the squatter");
        wait_until("the squatter listens", || {
            UnixStream::connect(socket).is_ok()
        });
        // That connection was logged as an empty line: start from a clean log.
        wait_until("the squatter logged the look", || log.exists());
        std::fs::write(&log, "").expect("empty the log");
        Squatter { child, log }
    }

    /// The frames it was sent.
    fn heard(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Squatter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A folder the other user can write its log into.
fn log_dir_of(user: &OtherUser, scratch: &Scratch) -> PathBuf {
    let dir = scratch.folder("log", 0o700);
    user.chown(&dir);
    dir
}

#[test]
fn a_socket_another_user_made_in_a_shared_folder_is_not_asked_through() {
    let user = OtherUser::new();
    let scratch = Scratch::new("shared");
    // A folder like /tmp: anyone may make a file there, first come.
    let shared = scratch.folder("tmp", 0o1777);
    let socket = shared.join("ask-popup-me.sock");
    let squatter = Squatter::start(&user, &socket, &log_dir_of(&user, &scratch));
    let outputs = every_way_of_asking(&socket, &scratch.0, &[]);
    nothing_allowed(&outputs).unwrap();
    // Not asked at all: no_ui, as with no socket; the squatter heard nothing.
    assert_eq!(
        String::from_utf8_lossy(&outputs[0].stdout),
        envelope::host_error(ErrorCode::NoUi, Some("mine"))
    );
    assert_eq!(outputs[0].status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&outputs[0].stderr).contains("not asking through"),
        "{:?}",
        outputs[0]
    );
    assert_eq!(squatter.heard(), "");
}

#[test]
fn a_socket_of_another_users_is_not_asked_through_even_in_a_folder_of_mine() {
    let user = OtherUser::new();
    let scratch = Scratch::new("owner");
    let theirs = scratch.folder("theirs", 0o755);
    user.chown(&theirs);
    let squatter = Squatter::start(&user, &theirs.join("s.sock"), &log_dir_of(&user, &scratch));
    // Moved into a folder of mine that nobody else may write: the socket is still theirs.
    let mine = scratch.folder("mine", 0o700);
    let socket = mine.join("ask-popup.sock");
    std::fs::rename(theirs.join("s.sock"), &socket).expect("move the socket");
    let outputs = every_way_of_asking(&socket, &scratch.0, &[]);
    nothing_allowed(&outputs).unwrap();
    assert_eq!(outputs[0].status.code(), Some(3), "{:?}", outputs[0]);
    assert_eq!(squatter.heard(), "");

    // Their folder, with a socket made mine: refused for the folder.
    let socket = theirs.join("again.sock");
    std::fs::rename(mine.join("ask-popup.sock"), &socket).expect("move the socket back");
    std::os::unix::fs::lchown(&socket, Some(this_uid()), None).expect("chown the socket");
    let outputs = every_way_of_asking(&socket, &scratch.0, &[]);
    nothing_allowed(&outputs).unwrap();
    assert!(
        String::from_utf8_lossy(&outputs[0].stderr).contains("its folder belongs to uid"),
        "{:?}",
        outputs[0]
    );
    assert_eq!(squatter.heard(), "");
}

#[test]
fn a_listener_of_another_users_is_not_asked_through_whoever_owns_the_file() {
    let user = OtherUser::new();
    let scratch = Scratch::new("peer");
    let theirs = scratch.folder("theirs", 0o755);
    user.chown(&theirs);
    let squatter = Squatter::start(&user, &theirs.join("s.sock"), &log_dir_of(&user, &scratch));
    // The file and its folder are mine, as nothing but the connection tells otherwise.
    let mine = scratch.folder("mine", 0o700);
    let socket = mine.join("ask-popup.sock");
    std::fs::rename(theirs.join("s.sock"), &socket).expect("move the socket");
    std::os::unix::fs::lchown(&socket, Some(this_uid()), None).expect("chown the socket");
    let outputs = every_way_of_asking(&socket, &scratch.0, &[]);
    nothing_allowed(&outputs).unwrap();
    assert_eq!(outputs[0].status.code(), Some(3), "{:?}", outputs[0]);
    assert!(
        String::from_utf8_lossy(&outputs[0].stderr)
            .contains(&format!("uid {} listens on it", user.uid)),
        "{:?}",
        outputs[0]
    );
    assert_eq!(squatter.heard(), "");

    // Trusted by name (a container's server of another uid): asked through, its answer taken.
    let outputs = every_way_of_asking(
        &socket,
        &scratch.0,
        &[(relay::TRUST_ENV, user.uid.to_string())],
    );
    assert_eq!(outputs[0].status.code(), Some(0), "{:?}", outputs[0]);
    assert!(String::from_utf8_lossy(&outputs[1].stdout).contains("\"allow\""));
    assert!(squatter.heard().contains("\"id\":\"mine\""));
}

#[test]
fn another_requests_answer_is_never_taken_for_the_callers() {
    let scratch = Scratch::new("ids");
    let socket = scratch.folder("mine", 0o700).join("ask-popup.sock");
    // A listener of my own that answers every question, but with another request's id.
    let listener = UnixListener::bind(&socket).expect("bind");
    std::thread::spawn(move || {
        answer_every_frame(listener, None, |frame| allow_once(frame, "someone-else"))
    });
    let outputs = every_way_of_asking(&socket, &scratch.0, &[]);
    nothing_allowed(&outputs).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&outputs[0].stdout),
        envelope::host_error(ErrorCode::NoReply, Some("mine"))
    );
    assert_eq!(outputs[0].status.code(), Some(5));
    for hook in &outputs[1..] {
        assert_eq!(String::from_utf8_lossy(&hook.stdout), "", "{hook:?}");
        assert_eq!(hook.status.code(), Some(0));
    }

    // Its own id: taken.
    let socket = scratch.folder("own", 0o700).join("ask-popup.sock");
    let listener = UnixListener::bind(&socket).expect("bind");
    std::thread::spawn(move || answer_every_frame(listener, None, |f| allow_once(f, &f.id)));
    let outputs = every_way_of_asking(&socket, &scratch.0, &[]);
    assert_eq!(outputs[0].status.code(), Some(0), "{:?}", outputs[0]);
    assert!(String::from_utf8_lossy(&outputs[1].stdout).contains("\"allow\""));
    assert!(String::from_utf8_lossy(&outputs[2].stdout).contains("\"allow\""));
    assert_eq!(
        String::from_utf8_lossy(&outputs[3].stdout),
        "{\"reply\":\"once\"}\n"
    );
}

#[test]
fn only_the_callers_own_envelope_or_an_error_naming_nobody_is_its_reply() {
    let questionnaire = request::parse(DB).expect("a questionnaire");
    let mut responses = Responses::empty(1);
    responses.answers[0] = Some(Answer::Option(1));
    let answer = |id: Option<&str>| {
        envelope::outcome(&questionnaire, &Outcome::Submitted(responses.clone()), id)
    };
    let mine = answer(Some("mine"));
    assert_eq!(
        reply_for(format!("junk\n{mine}").as_bytes(), "mine"),
        Some(mine.clone())
    );
    // Another request's answer, an answer naming none, another's error: no reply.
    assert_eq!(reply_for(answer(Some("other")).as_bytes(), "mine"), None);
    assert_eq!(reply_for(answer(None).as_bytes(), "mine"), None);
    let theirs = envelope::host_error(ErrorCode::Dismissed, Some("other"));
    assert_eq!(reply_for(theirs.as_bytes(), "mine"), None);
    // The first envelope counts: one for the caller after another's is not looked for.
    assert_eq!(
        reply_for(
            format!("{}{mine}", answer(Some("other"))).as_bytes(),
            "mine"
        ),
        None
    );
    // The server's own failures: with the id, or with none (a made-up id, or busy).
    for error in [
        envelope::host_error(ErrorCode::NoUi, Some("mine")),
        envelope::host_error(ErrorCode::Busy, None),
    ] {
        assert_eq!(reply_for(error.as_bytes(), "mine"), Some(error.clone()));
    }
    assert_eq!(reply_for(b"", "mine"), None);
}

#[test]
fn a_socket_is_trusted_when_it_and_its_folder_are_mine_or_a_trusted_uids() {
    let me = Trust::new(1000, None);
    let owned = |uid, mode| Owned { uid, mode };
    let ok = |socket, folder, trust: &Trust| check_socket(socket, true, folder, trust);
    assert_eq!(ok(owned(1000, 0o600), owned(1000, 0o700), &me), Ok(()));
    // A root-owned folder nobody else writes (a container's /run).
    assert_eq!(ok(owned(1000, 0o600), owned(0, 0o755), &me), Ok(()));
    assert_eq!(ok(owned(1000, 0o755), owned(1000, 0o755), &me), Ok(()));
    let cases = [
        (
            owned(1001, 0o600),
            owned(1000, 0o700),
            Untrusted::SocketOwner(1001),
        ),
        (
            owned(0, 0o600),
            owned(1000, 0o700),
            Untrusted::SocketOwner(0),
        ),
        (
            owned(1000, 0o666),
            owned(1000, 0o700),
            Untrusted::SocketWritable(0o666),
        ),
        (
            owned(1000, 0o600),
            owned(1001, 0o700),
            Untrusted::FolderOwner(1001),
        ),
        (
            owned(1000, 0o600),
            owned(0, 0o1777),
            Untrusted::FolderWritable(0o1777),
        ),
        (
            owned(1000, 0o600),
            owned(1000, 0o770),
            Untrusted::FolderWritable(0o770),
        ),
    ];
    for (socket, folder, why) in cases {
        assert_eq!(ok(socket, folder, &me), Err(why.clone()), "{why}");
    }
    assert_eq!(
        check_socket(owned(1000, 0o600), false, owned(1000, 0o700), &me),
        Err(Untrusted::NotASocket)
    );
    // $ASK_POPUP_TRUST_UID: a container's caller (root) trusts the server's user.
    let container = Trust::new(0, Some(" 1000, junk"));
    assert_eq!(container.others, [1000]);
    assert_eq!(ok(owned(1000, 0o600), owned(0, 0o755), &container), Ok(()));
    assert_eq!(relay::check_listener(1000, &container), Ok(()));
    assert_eq!(
        relay::check_listener(1001, &container),
        Err(Untrusted::Listener(1001))
    );
    // The server answers its own user, root, and whom it is told to trust.
    assert!(relay::serves(1000, &me) && relay::serves(0, &me));
    assert!(!relay::serves(1001, &me));
    assert!(relay::serves(1001, &Trust::new(1000, Some("1001"))));
}

#[test]
fn the_command_keeps_to_folders_of_its_own_that_nobody_else_writes_and_no_link() {
    // `serve`'s socket's folder, and each on the way to the notes of waiting questions.
    let owned = |uid, mode| Owned { uid, mode };
    let own = |folder, is_link| relay::check_own_folder(folder, is_link, 1000);
    assert_eq!(own(owned(1000, 0o700), false), Ok(()));
    assert_eq!(own(owned(1000, 0o755), false), Ok(()));
    let cases = [
        (owned(0, 0o755), false, NotOwnFolder::Owner(0)),
        (owned(1001, 0o700), false, NotOwnFolder::Owner(1001)),
        (owned(1000, 0o777), false, NotOwnFolder::Writable(0o777)),
        (owned(1000, 0o770), false, NotOwnFolder::Writable(0o770)),
        (owned(1000, 0o1777), false, NotOwnFolder::Writable(0o1777)),
        // A link, whoever made it and whatever its mode says.
        (owned(1000, 0o777), true, NotOwnFolder::Link),
        (owned(1001, 0o777), true, NotOwnFolder::Link),
    ];
    for (folder, is_link, why) in cases {
        assert_eq!(own(folder, is_link), Err(why.clone()), "{why}");
    }
}

#[test]
fn a_frame_without_an_id_is_refused() {
    for id in ["", "  "] {
        let line = format!("{}\n", json!({"id": id, "questionnaire": DB}));
        match read_frame(line.as_bytes()) {
            Err(RequestError::Unreadable { detail }) => {
                assert!(detail.contains("\"id\" is empty"), "{detail}")
            }
            other => panic!("{id:?}: {other:?}"),
        }
    }
}

/// The real `ask-popup serve`, on `socket`; killed when dropped.
struct Server {
    child: Child,
    socket: PathBuf,
}

impl Server {
    fn start(command: &mut Command, socket: &Path) -> Server {
        let child = command
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start ask-popup serve");
        let mut server = Server {
            child,
            socket: socket.to_owned(),
        };
        wait_until("ask-popup serve listens", || {
            assert!(
                server.child.try_wait().ok().flatten().is_none(),
                "ask-popup serve ended"
            );
            UnixStream::connect(socket).is_ok()
        });
        server
    }

    fn running(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_none()
    }

    /// How many threads the server runs, as /proc says.
    fn threads(&self) -> String {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Threads:").map(|n| n.trim().to_owned()))
            })
            .unwrap_or_else(|| "unknown".to_owned())
    }

    /// Sends `bytes` and reads what comes back until the server closes.
    fn exchange(&self, bytes: &[u8]) -> String {
        let mut stream = UnixStream::connect(&self.socket).expect("connect");
        let _ = stream.write_all(bytes);
        let mut out = String::new();
        let _ = stream.read_to_string(&mut out);
        out
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn frame(id: &str) -> Frame {
    Frame {
        agent: Some("claude".to_owned()),
        id: id.to_owned(),
        id_given: true,
        pane_id: None,
        session: None,
        host: None,
        approval_by: None,
        questionnaire: DB.to_owned(),
    }
}

#[test]
fn serve_does_not_listen_in_a_folder_someone_else_made_or_anyone_may_write() {
    let user = OtherUser::new();
    let scratch = Scratch::new("serve-folder");
    let theirs = scratch.folder("theirs", 0o777);
    user.chown(&theirs);
    let open = scratch.folder("open", 0o777);
    for dir in [&theirs, &open] {
        let out = run_to_end(outside_zellij(&dir.join("ask-popup.sock"), &scratch.0).arg("serve"));
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("its folder"),
            "{out:?}"
        );
        // Nothing made there, and the mode left as it was.
        assert_eq!(std::fs::read_dir(dir).expect("read").count(), 0);
        let mode = std::fs::metadata(dir).expect("stat").permissions().mode();
        assert_eq!(mode & 0o777, 0o777);
    }
}

#[test]
fn serve_follows_no_symlink_at_its_lock_and_makes_nothing_above_its_folder() {
    let scratch = Scratch::new("serve-lock");
    let mine = scratch.folder("mine", 0o700);
    let target = scratch.join("elsewhere");
    std::os::unix::fs::symlink(&target, mine.join("ask-popup.sock.lock")).expect("symlink");
    let out = run_to_end(outside_zellij(&mine.join("ask-popup.sock"), &scratch.0).arg("serve"));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(!target.exists(), "a file was made through the symlink");

    // A missing folder is made (0700), but nothing above it.
    let deep = scratch.join("a").join("b");
    let out = run_to_end(outside_zellij(&deep.join("ask-popup.sock"), &scratch.0).arg("serve"));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(!scratch.join("a").exists());
    let new = scratch.join("new");
    let socket = new.join("ask-popup.sock");
    let _server = Server::start(&mut outside_zellij(&socket, &scratch.0), &socket);
    let mode = std::fs::metadata(&new).expect("stat").permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
}

/// Not a test of its own: run as another user by the test below (`CALLER_SOCKET` set), it
/// sends a frame on that socket and writes what comes back to `CALLER_OUT`.
#[test]
fn caller() {
    let (Some(socket), Some(out)) = (
        std::env::var_os("CALLER_SOCKET"),
        std::env::var_os("CALLER_OUT"),
    ) else {
        return;
    };
    let stream = UnixStream::connect(socket).expect("connect");
    // A server that refuses may have closed the connection already.
    let _ = (&stream).write_all(frame("c-1").line().as_bytes());
    let mut reply = String::new();
    let _ = (&stream).read_to_string(&mut reply);
    std::fs::write(out, reply).expect("write the reply");
}

#[test]
fn serve_answers_only_its_own_users_callers_unless_told_to_trust_another() {
    let user = OtherUser::new();
    let scratch = Scratch::new("serve-peer");
    let folder = scratch.folder("run", 0o755);
    let socket = folder.join("ask-popup.sock");
    let out_dir = log_dir_of(&user, &scratch);
    // A caller of the other user's (a container's, say) sends a frame.
    let ask = |server_trusts: bool| {
        let mut server_command = outside_zellij(&socket, &scratch.0);
        if server_trusts {
            server_command.env(relay::TRUST_ENV, user.uid.to_string());
        }
        let _server = Server::start(&mut server_command, &socket);
        // As a socket handed to a container might be: anyone may connect.
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o777))
            .expect("chmod the socket");
        let out = out_dir.join(format!("reply-{server_trusts}"));
        let status = user
            .command(&std::env::current_exe().expect("this test binary"))
            .args(["--exact", "caller", "--test-threads=1"])
            .env("CALLER_SOCKET", &socket)
            .env("CALLER_OUT", &out)
            .stdout(Stdio::null())
            .status()
            .expect("run the other user's caller");
        assert!(status.success(), "{status}");
        std::fs::read_to_string(out).expect("the reply")
    };
    // Refused: the connection closes with nothing asked and nothing said.
    assert_eq!(ask(false), "");
    // Trusted: asked (no Zellij session here, so no_ui).
    assert_eq!(
        ask(true),
        envelope::host_error(ErrorCode::NoUi, Some("c-1"))
    );
}

#[test]
fn a_frame_trickled_in_is_cut_off_at_one_deadline_for_the_whole_frame() {
    let scratch = Scratch::new("trickle");
    let socket = scratch.folder("run", 0o700).join("ask-popup.sock");
    let server = Server::start(&mut outside_zellij(&socket, &scratch.0), &socket);
    let stream = UnixStream::connect(&server.socket).expect("connect");
    let reader = stream.try_clone().expect("clone");
    let replied = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reading = {
        let replied = replied.clone();
        std::thread::spawn(move || {
            let mut out = String::new();
            let _ = (&reader).read_to_string(&mut out);
            replied.store(true, std::sync::atomic::Ordering::SeqCst);
            out
        })
    };
    // A byte every half second: each read comes well within any per-read limit, and the whole
    // frame would take over a minute and a half.
    let line = frame("slow").line();
    for byte in line.as_bytes() {
        if replied.load(std::sync::atomic::Ordering::SeqCst)
            || (&stream).write_all(&[*byte]).is_err()
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let out = reading.join().expect("the reader");
    let envelope = Envelope::read(out.trim_end()).expect("an envelope");
    assert_eq!(
        envelope.error(),
        Some(Ok(ErrorCode::InvalidPayload)),
        "{out}"
    );
    assert!(out.contains("did not come within 10 s"), "{out}");
}

#[test]
fn callers_beyond_the_limit_hear_busy_and_the_server_goes_on() {
    let scratch = Scratch::new("busy");
    let socket = scratch.folder("run", 0o700).join("ask-popup.sock");
    let server = Server::start(&mut outside_zellij(&socket, &scratch.0), &socket);
    // Callers that send nothing hold a connection each, up to the limit.
    let mut idle: Vec<UnixStream> = Vec::new();
    let until = Instant::now() + WAIT;
    for asked in 1.. {
        while idle.len() < 64 {
            idle.push(UnixStream::connect(&server.socket).expect("connect"));
        }
        let said = server.exchange(frame(&format!("b-{asked}")).line().as_bytes());
        if said == envelope::host_error(ErrorCode::Busy, None) {
            break;
        }
        // One of them was told busy instead (the thread of an earlier connection, such as
        // `Server::start`'s look at the socket, had not ended yet on a loaded machine), and
        // this caller took its place: it is replaced, and a caller beyond the limit asks again.
        assert!(
            Instant::now() < until,
            "a caller beyond the limit heard {said}"
        );
        idle.retain(still_held);
    }
    drop(idle);
    wait_until("a caller is answered again", || {
        server.exchange(frame("b-2").line().as_bytes())
            == envelope::host_error(ErrorCode::NoUi, Some("b-2"))
    });
}

/// Whether the server still holds `stream`: nothing said to it, and not closed.
fn still_held(stream: &UnixStream) -> bool {
    stream.set_nonblocking(true).expect("non-blocking");
    let mut byte = [0u8; 1];
    let held = matches!((&*stream).read(&mut byte), Err(e) if e.kind() == ErrorKind::WouldBlock);
    stream.set_nonblocking(false).expect("blocking");
    held
}

/// A caller the server holds: its connection open, nothing said to it yet. One told `busy`
/// is not: the thread of an earlier connection (`Server::start`'s look at the socket) may not
/// have ended yet on a loaded machine, and the server then had no thread for this one.
fn held_caller(server: &Server) -> UnixStream {
    let until = Instant::now() + WAIT;
    loop {
        let mut stream = UnixStream::connect(&server.socket).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_millis(300)))
            .expect("a read timeout");
        let mut byte = [0u8; 1];
        match stream.read(&mut byte) {
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return stream;
            }
            said => assert!(
                Instant::now() < until,
                "never held a caller ({said:?}); the server's threads: {}",
                server.threads()
            ),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_server_that_cannot_start_a_thread_says_busy_and_goes_on() {
    let user = OtherUser::new();
    let scratch = Scratch::new("threads");
    let folder = scratch.folder("run", 0o700);
    user.chown(&folder);
    let socket = folder.join("ask-popup.sock");
    // The other user may run three threads: the server's own two, and one caller's.
    let mut command = user.command(Path::new("/usr/bin/prlimit"));
    command
        .args(["--nproc=3", "--"])
        .arg(env!("CARGO_BIN_EXE_ask-popup"));
    set_outside_zellij(&mut command, &socket, &scratch.0);
    let mut server = Server::start(&mut command, &socket);
    let held = held_caller(&server);
    wait_until(
        &format!(
            "the second caller hears busy (the server ran {} threads with one caller held)",
            server.threads()
        ),
        || {
            server.exchange(frame("t-1").line().as_bytes())
                == envelope::host_error(ErrorCode::Busy, None)
        },
    );
    assert!(server.running(), "the server ended");
    drop(held);
    wait_until("a caller is answered again", || {
        server.exchange(frame("t-2").line().as_bytes())
            == envelope::host_error(ErrorCode::NoUi, Some("t-2"))
    });
    assert!(server.running(), "the server ended");
}

/// A Zellij session's server as the command sees it (a listening socket where Zellij puts
/// them), with a stand-in `zellij` on PATH that logs the pipes it is given: `ask` waits until
/// the file `reply` exists and prints it, `cancel` answers that it withdrew the question.
struct Popup {
    scratch: Scratch,
    path: String,
}

impl Popup {
    fn new(name: &str) -> Popup {
        let scratch = Scratch::new(name);
        let sessions = scratch
            .join("zellij")
            .join(ask_popup::zellij::session::CONTRACT_DIR);
        std::fs::create_dir_all(&sessions).expect("the sockets' folder");
        let session = UnixListener::bind(sessions.join("work")).expect("the session's socket");
        std::thread::spawn(move || for _ in session.incoming() {});
        let bin = scratch.folder("bin", 0o755);
        let zellij = bin.join("zellij");
        std::fs::write(
            &zellij,
            format!(
                "#!/bin/sh\necho \"$*\" >> '{log}'\ncase \"$*\" in\n\
                 *'--name ask'*) cat >/dev/null; while [ ! -f '{reply}' ]; do sleep 0.05; done; \
                 cat '{reply}'; exec sleep 600 ;;\n\
                 *'--name cancel'*) echo '{{\"withdrawn\":1}}' ;;\nesac\n",
                log = scratch.join("zellij.log").display(),
                reply = scratch.join("reply").display(),
            ),
        )
        .expect("write the stand-in zellij");
        std::fs::set_permissions(&zellij, std::fs::Permissions::from_mode(0o755))
            .expect("make it executable");
        let path = format!("{}:/usr/bin:/bin", bin.display());
        Popup { scratch, path }
    }

    /// `ask-popup serve` beside the session, its own session `own`.
    fn serve(&self, own: &str, extra: &[(&str, &str)]) -> Server {
        let socket = self.scratch.folder("run", 0o700).join("ask-popup.sock");
        let mut command = outside_zellij(&socket, &self.scratch.0);
        command
            .env("PATH", &self.path)
            .env("ZELLIJ_SOCKET_DIR", self.scratch.join("zellij"))
            .env("ZELLIJ_SESSION_NAME", own);
        for (name, value) in extra {
            command.env(name, value);
        }
        Server::start(&mut command, &socket)
    }

    /// The pipes the stand-in was given, one line each.
    fn pipes(&self) -> String {
        std::fs::read_to_string(self.scratch.join("zellij.log")).unwrap_or_default()
    }

    fn asked(&self, id: &str) -> bool {
        self.pipes()
            .lines()
            .any(|l| l.contains("--name ask") && l.contains(&format!("id={id}")))
    }

    fn withdrawn(&self, id: &str) -> bool {
        self.pipes()
            .lines()
            .any(|l| l.contains("--name cancel") && l.contains(&format!("id={id}")))
    }

    /// The popup answers SQLite to the question `id` (every waiting pipe prints it).
    fn answer(&self, id: &str) -> String {
        let questionnaire = request::parse(DB).expect("a questionnaire");
        let mut responses = Responses::empty(1);
        responses.answers[0] = Some(Answer::Option(1));
        let answer = envelope::outcome(&questionnaire, &Outcome::Submitted(responses), Some(id));
        std::fs::write(self.scratch.join("reply"), &answer).expect("write the reply");
        answer
    }
}

/// Sends `frame` and reads the reply on a thread; the stream stays the caller's.
fn ask_on(socket: &Path, frame: &Frame) -> (UnixStream, std::thread::JoinHandle<String>) {
    let stream = UnixStream::connect(socket).expect("connect");
    (&stream).write_all(frame.line().as_bytes()).expect("send");
    let reader = stream.try_clone().expect("clone");
    let reading = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = (&reader).read_to_string(&mut out);
        out
    });
    (stream, reading)
}

#[test]
fn a_stopped_server_takes_its_questions_back_from_the_popup() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let popup = Popup::new("stop");
        let mut server = popup.serve("work", &[]);
        let (_stream, reading) = ask_on(&server.socket, &frame("s-1"));
        wait_until("the question is asked", || popup.asked("s-1"));
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(server.child.id() as libc::pid_t, signal) };
        wait_until("the server ends", || !server.running());
        assert!(popup.withdrawn("s-1"), "signal {signal}: {}", popup.pipes());
        assert!(
            popup.pipes().contains("--session work"),
            "{}",
            popup.pipes()
        );
        // Its caller hears that no reply will come (and asks elsewhere).
        assert_eq!(
            reading.join().expect("the reader"),
            envelope::host_error(ErrorCode::NoReply, Some("s-1"))
        );
        assert!(!server.socket.exists());
    }
}

#[test]
fn a_caller_that_only_closes_its_writing_half_keeps_its_question_and_one_that_hangs_up_not() {
    let popup = Popup::new("half");
    let server = popup.serve("work", &[]);
    // As `socat -` and `nc -N` do once the frame is sent.
    let (half, half_reading) = ask_on(&server.socket, &frame("h-1"));
    half.shutdown(std::net::Shutdown::Write)
        .expect("close the writing half");
    wait_until("the question is asked", || popup.asked("h-1"));
    // A caller that hangs up has its question withdrawn; by then the half-closed one has been
    // looked at many times.
    let (gone, _) = ask_on(&server.socket, &frame("h-2"));
    wait_until("the second question is asked", || popup.asked("h-2"));
    gone.shutdown(std::net::Shutdown::Both).expect("hang up");
    wait_until("the hung-up question is withdrawn", || {
        popup.withdrawn("h-2")
    });
    assert!(!popup.withdrawn("h-1"), "{}", popup.pipes());
    let answer = popup.answer("h-1");
    assert_eq!(half_reading.join().expect("the reader"), answer);
    assert!(!popup.withdrawn("h-1"), "{}", popup.pipes());
}

#[test]
fn the_container_recipe_as_documented_asks_in_the_named_session_through_the_socket() {
    let popup = Popup::new("recipe");
    let server = popup.serve("home", &[]);
    let answer = popup.answer("c-1");
    // docs/anywhere.md: `docker run -v …:/run/ask-popup.sock -e ASK_POPUP_SOCKET=… -e
    // ASK_POPUP_TRUST_UID=$(id -u) -e ZELLIJ_PANE_ID -e ZELLIJ_SESSION_NAME …`: the session's
    // name and pane, and no `zellij` nor Zellij's sockets in there.
    let out = outside_zellij(&server.socket, &popup.scratch.0)
        .env(relay::TRUST_ENV, this_uid().to_string())
        .env("ZELLIJ_PANE_ID", "7")
        .env("ZELLIJ_SESSION_NAME", "work")
        .args(["ask", "--id", "c-1", DB])
        .output()
        .expect("run ask");
    assert_eq!(String::from_utf8_lossy(&out.stdout), answer, "{out:?}");
    assert_eq!(out.status.code(), Some(0));
    let asked = popup
        .pipes()
        .lines()
        .find(|l| l.contains("--name ask"))
        .unwrap_or_default()
        .to_owned();
    assert!(asked.starts_with("--session work pipe"), "{asked}");
    assert!(asked.contains("pane_id=7"), "{asked}");
}

#[test]
fn a_caller_without_zellij_whose_server_has_no_session_either_hears_what_it_lacks() {
    let scratch = Scratch::new("lacks");
    let socket = scratch.folder("run", 0o700).join("ask-popup.sock");
    let _server = Server::start(&mut outside_zellij(&socket, &scratch.0), &socket);
    // Inside Zellij by its variables, with no `zellij` on PATH.
    let out = outside_zellij(&socket, &scratch.0)
        .env("ZELLIJ", "0")
        .args(["ask", "--id", "z-1", DB])
        .output()
        .expect("run ask");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        envelope::host_error(ErrorCode::ZellijNotFound, Some("z-1"))
    );
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn the_notification_of_a_question_from_outside_names_the_session_it_waits_in() {
    let popup = Popup::new("notify");
    let notified = popup.scratch.join("notified.json");
    let command = format!("cat > '{}.part' && mv '{0}.part' '{0}'", notified.display());
    let server = popup.serve(
        "elsewhere",
        &[
            ("ASK_POPUP_NOTIFY", &command),
            ("ASK_POPUP_NOTIFY_DELAY", "0"),
        ],
    );
    let (_stream, _reading) = ask_on(&server.socket, &frame("n-1"));
    wait_until("the notify command ran", || notified.exists());
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string(&notified).expect("read")).expect("JSON");
    assert_eq!(document["session"], "work", "{document}");
    assert_eq!(document["requestId"], "n-1", "{document}");
}

/// `ask-popup ask --id ID` in `popup`'s session `work`, which nobody is attached to (its
/// metadata says so), with `tmp` as the temp dir and no `$XDG_RUNTIME_DIR`: the question's
/// note goes in the user's folder in `tmp`. Run to its end on a thread of its own.
fn ask_where_nobody_is_attached(
    popup: &Popup,
    tmp: &Path,
    id: &str,
) -> std::thread::JoinHandle<Output> {
    let cache = popup.scratch.join("cache");
    let info = cache.join("zellij/contract_version_1/session_info/work");
    std::fs::create_dir_all(&info).expect("the session's metadata folder");
    std::fs::write(
        info.join("session-metadata.kdl"),
        "name \"work\"\nconnected_clients 0\n",
    )
    .expect("write the metadata");
    let mut command = outside_zellij(&popup.scratch.join("no.sock"), &popup.scratch.0);
    command
        .env("PATH", &popup.path)
        .env("ZELLIJ_SOCKET_DIR", popup.scratch.join("zellij"))
        .env("ZELLIJ_SESSION_NAME", "work")
        .env("XDG_CACHE_HOME", &cache)
        .env("HOME", popup.scratch.join("home"))
        .env("TMPDIR", tmp)
        .env_remove("XDG_RUNTIME_DIR")
        .env("ASK_POPUP_TERMINAL_NOTIFY", "off")
        .args(["ask", "--id", id, DB]);
    std::thread::spawn(move || run_to_end(&mut command))
}

fn mode_of(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .expect("stat")
        .permissions()
        .mode()
        & 0o7777
}

#[test]
fn a_note_of_a_waiting_question_goes_in_no_folder_another_user_made_in_the_temp_dir() {
    // As it should be: while the question waits where nobody is attached, its note is in the
    // user's own folder of the temp dir.
    let popup = Popup::new("notes");
    let tmp = popup.scratch.folder("tmp", 0o1777);
    let asking = ask_where_nobody_is_attached(&popup, &tmp, "n-1");
    let own = tmp.join(format!("ask-popup-{}", this_uid()));
    wait_until("the question's note is written", || {
        std::fs::read_dir(own.join("waiting")).is_ok_and(|notes| notes.count() == 1)
    });
    assert_eq!(mode_of(&own.join("waiting")), 0o700);
    let answer = popup.answer("n-1");
    let out = asking.join().expect("the asking thread");
    assert_eq!(String::from_utf8_lossy(&out.stdout), answer, "{out:?}");

    // Another user made that folder first, open to anyone, with `waiting` in it a link to a
    // folder of this user's.
    let user = OtherUser::new();
    let popup = Popup::new("notes-squatted");
    let tmp = popup.scratch.folder("tmp", 0o1777);
    let own = tmp.join(format!("ask-popup-{}", this_uid()));
    std::fs::create_dir(&own).expect("mkdir");
    std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    user.chown(&own);
    let mine = popup.scratch.folder("mine", 0o755);
    std::os::unix::fs::symlink(&mine, own.join("waiting")).expect("symlink");
    user.chown(&own.join("waiting"));
    let asking = ask_where_nobody_is_attached(&popup, &tmp, "n-2");
    wait_until("the question is asked", || popup.asked("n-2"));
    // The sessions are looked at once a second while it waits: a few looks.
    std::thread::sleep(Duration::from_millis(2500));
    // Asking still works.
    let answer = popup.answer("n-2");
    let out = asking.join().expect("the asking thread");
    assert_eq!(String::from_utf8_lossy(&out.stdout), answer, "{out:?}");
    assert_eq!(out.status.code(), Some(0));
    // The folder at the link's end is as it was: its mode, and nothing in it.
    assert_eq!(mode_of(&mine), 0o755);
    assert_eq!(std::fs::read_dir(&mine).expect("read").count(), 0);
    // Why, said once.
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(said.matches("are not noted in").count(), 1, "{said}");
    assert!(said.contains("it belongs to uid"), "{said}");
}
