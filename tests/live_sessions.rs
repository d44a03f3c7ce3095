//! Which Zellij sessions of this machine count as live, and who is attached to each, as
//! `ask-popup status --all-sessions` lists them: real Unix sockets for the servers (one that
//! listens, one left by a server that ended), session metadata as Zellij writes it, and a
//! stand-in `zellij` that answers each session's `status` pipe.

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

/// A fresh folder, removed after the test.
struct Folder(PathBuf);

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes session `name`'s metadata with `clients` attached, last written `ago`.
fn metadata(cache: &Path, name: &str, clients: usize, ago: Duration) {
    let dir = cache
        .join("zellij/contract_version_1/session_info")
        .join(name);
    std::fs::create_dir_all(&dir).expect("create the session's metadata folder");
    let path = dir.join("session-metadata.kdl");
    std::fs::write(
        &path,
        format!("name \"{name}\"\nconnected_clients {clients}\ntabs {{\n}}\n"),
    )
    .expect("write the metadata");
    std::fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(SystemTime::now() - ago))
        .expect("date the metadata");
}

#[test]
fn an_idle_session_is_live_with_its_clients_and_a_dead_ones_socket_is_not() {
    let dir = Folder(std::env::temp_dir().join(format!("ask-popup-live-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let (sockets, cache) = world(&dir.0);
    // `acc`: its server listens; a person is attached, and nothing changed for an hour, so
    // Zellij has not rewritten its metadata since.
    let _acc = UnixListener::bind(sockets.join("acc")).expect("listen as acc's server");
    metadata(&cache, "acc", 1, Duration::from_secs(3600));
    // `old`: its server was killed a moment ago and left its socket and fresh metadata.
    drop(UnixListener::bind(sockets.join("old")).expect("listen as old's server"));
    metadata(&cache, "old", 1, Duration::ZERO);
    // Both servers started an hour ago.
    for name in ["acc", "old"] {
        let touched = Command::new("touch")
            .args(["-d", "1 hour ago"])
            .arg(sockets.join(name))
            .status()
            .expect("run touch");
        assert!(touched.success(), "touch {name}");
    }

    assert_eq!(
        status_of_every_session(&dir.0),
        serde_json::json!({"sessions": [{"pending": [], "session": "acc", "clients": 1}]}),
    );
}

/// The folders of a test in `dir`: Zellij's sockets, its cache, and a `bin` for a stand-in
/// `zellij` whose plugin answers each session's status pipe with no question pending.
fn world(dir: &Path) -> (PathBuf, PathBuf) {
    let sockets = dir.join("s/contract_version_1");
    let cache = dir.join("cache");
    let bin = dir.join("bin");
    for d in [&sockets, &cache, &bin, &dir.join("run")] {
        std::fs::create_dir_all(d).expect("create the test's folders");
    }
    let zellij = bin.join("zellij");
    std::fs::write(&zellij, "#!/bin/sh\necho '{\"pending\":[]}'\n").expect("write zellij");
    std::fs::set_permissions(&zellij, std::fs::Permissions::from_mode(0o755))
        .expect("make it executable");
    (sockets, cache)
}

/// What `ask-popup status --all-sessions` prints in the world of `world(dir)`.
fn status_of_every_session(dir: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ask-popup"))
        .args(["status", "--all-sessions"])
        .env(
            "PATH",
            format!(
                "{}:{}",
                dir.join("bin").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("ZELLIJ_SOCKET_DIR", dir.join("s"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("XDG_RUNTIME_DIR", dir.join("run"))
        .env_remove("ZELLIJ")
        .env_remove("ZELLIJ_SESSION_NAME")
        .output()
        .expect("run ask-popup status --all-sessions");
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn a_question_waiting_where_nobody_is_attached_is_listed_with_where_it_shows() {
    let dir = Folder(std::env::temp_dir().join(format!("ask-popup-notes-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let (sockets, cache) = world(&dir.0);
    let _api = UnixListener::bind(sockets.join("api")).expect("listen as api's server");
    metadata(&cache, "api", 0, Duration::ZERO);
    // Two questions asked in `api`, by `ask-popup ask` as it notes them: one waits in this
    // process, nobody attached anywhere; the other's process was killed, its note left.
    let notes = dir.0.join("run/ask-popup-waiting");
    std::fs::create_dir_all(&notes).expect("create the notes' folder");
    let note = |id: &str, pid: u32, since_ms: u64| {
        let note = ask_popup::inbox::Note {
            session: "api".to_owned(),
            request_id: id.to_owned(),
            agent: Some("builder".to_owned()),
            pane_id: ask_popup::later::pane_number("terminal_3").map(u64::from),
            shown_in: Vec::new(),
            since_ms,
            pid,
        };
        let file = ask_popup::inbox::note_file(&notes, id, pid);
        std::fs::write(&file, serde_json::to_string(&note).expect("JSON")).expect("write");
        file
    };
    let now_ms = u64::try_from(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .expect("after the epoch")
            .as_millis(),
    )
    .expect("ms");
    note("x-1", std::process::id(), now_ms - 30_000);
    let mut ended = Command::new("true").spawn().expect("run true");
    let dead = ended.id();
    ended.wait().expect("wait for it");
    let left = note("x-2", dead, now_ms);

    let all = status_of_every_session(&dir.0);
    let api = &all["sessions"][0];
    assert_eq!(api["session"], "api", "{all}");
    assert_eq!(api["clients"], 0, "{all}");
    let waiting = api["waiting"].as_array().expect("a list of what waits");
    assert_eq!(waiting.len(), 1, "{all}");
    assert_eq!(waiting[0]["requestId"], "x-1");
    assert_eq!(waiting[0]["agent"], "builder");
    assert_eq!(waiting[0]["paneId"], 3);
    assert_eq!(waiting[0]["shownIn"], serde_json::json!([]));
    assert!(
        waiting[0]["ageSeconds"].as_u64().is_some_and(|s| s >= 30),
        "{all}"
    );
    // The note of the question whose process is gone is removed.
    assert!(!left.exists());
}

#[test]
fn a_question_names_its_own_session_to_zellij_when_that_session_is_there() {
    let dir = Folder(std::env::temp_dir().join(format!("ask-popup-named-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let (sockets, _) = world(&dir.0);
    // A `zellij` that notes its arguments and answers the question at once.
    let reply = r#"{"content":[{"type":"text","text":"User answered: SQLite"}],"details":{"answers":[],"cancelled":false,"requestId":"r1"}}"#;
    let args = dir.0.join("args");
    std::fs::write(
        dir.0.join("bin/zellij"),
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\ncat >/dev/null\necho '{reply}'\n",
            args.display()
        ),
    )
    .expect("write zellij");
    let ask = |session: &str| {
        let _ = std::fs::remove_file(&args);
        let out = Command::new(env!("CARGO_BIN_EXE_ask-popup"))
            .args(["ask", "--id", "r1", "--agent", "test"])
            .arg(r#"{"questions":[{"question":"Which?","header":"DB","options":["Postgres","SQLite"]}]}"#)
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    dir.0.join("bin").display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("ZELLIJ_SOCKET_DIR", dir.0.join("s"))
            .env("XDG_CACHE_HOME", dir.0.join("cache"))
            .env("XDG_RUNTIME_DIR", dir.0.join("run"))
            .env("ASK_POPUP_SERVE", "off")
            .env("ZELLIJ", "0")
            .env("ZELLIJ_SESSION_NAME", session)
            .env_remove("ZELLIJ_PANE_ID")
            .output()
            .expect("run ask-popup ask");
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{reply}\n"));
        std::fs::read_to_string(&args).expect("zellij's arguments")
    };
    // The session's server listens: the pipe names it (with another session live, Zellij's
    // CLI would otherwise pick by itself).
    let _api = UnixListener::bind(sockets.join("api")).expect("listen as api's server");
    let asked = ask("api");
    assert!(asked.starts_with("--session api pipe --plugin"), "{asked}");
    // A session renamed since (no socket of the old name): Zellij's CLI picks.
    let asked = ask("old-name");
    assert!(asked.starts_with("pipe --plugin"), "{asked}");
}

#[test]
fn the_pane_of_a_question_where_nobody_is_attached_is_marked_though_zellij_drops_the_first_rename()
{
    let dir = Folder(std::env::temp_dir().join(format!("ask-popup-mark-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let (sockets, cache) = world(&dir.0);
    let _api = UnixListener::bind(sockets.join("api")).expect("listen as api's server");
    metadata(&cache, "api", 0, Duration::ZERO);
    // A `zellij` whose CLI drops the first `rename-pane` (Zellij 0.45.1's does now and then),
    // notes the others, lists pane 3 as `builder`, and leaves the question waiting.
    let renames = dir.0.join("renames");
    let dropped = dir.0.join("dropped");
    std::fs::write(
        dir.0.join("bin/zellij"),
        format!(
            "#!/bin/sh\n\
             case \" $* \" in\n\
             *' rename-pane '*)\n\
               if [ ! -e '{dropped}' ]; then : > '{dropped}'; exit 1; fi\n\
               for last; do :; done; echo \"$last\" >> '{renames}';;\n\
             *' list-panes '*) echo '[{{\"id\":3,\"is_plugin\":false,\"title\":\"builder\"}}]';;\n\
             *' cancel '*) cat >/dev/null; echo '{{\"withdrawn\":1}}';;\n\
             *' pipe '*) exec sleep 60;;\n\
             *) echo '{{\"pending\":[]}}';;\n\
             esac\n",
            dropped = dropped.display(),
            renames = renames.display(),
        ),
    )
    .expect("write zellij");
    let mut ask = Command::new(env!("CARGO_BIN_EXE_ask-popup"))
        .args(["ask", "--id", "m-1", "--agent", "builder"])
        .arg(r#"{"questions":[{"question":"Which?","header":"DB","options":["Postgres","SQLite"]}]}"#)
        .env(
            "PATH",
            format!(
                "{}:{}",
                dir.0.join("bin").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("HOME", &dir.0)
        .env("ZELLIJ_SOCKET_DIR", dir.0.join("s"))
        .env("XDG_CACHE_HOME", dir.0.join("cache"))
        .env("XDG_RUNTIME_DIR", dir.0.join("run"))
        .env("ASK_POPUP_SERVE", "off")
        .env("ASK_POPUP_TERMINAL_NOTIFY", "off")
        .env("ZELLIJ", "0")
        .env("ZELLIJ_SESSION_NAME", "api")
        .env("ZELLIJ_PANE_ID", "3")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run ask-popup ask");
    let read = || std::fs::read_to_string(&renames).unwrap_or_default();
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while read().is_empty() {
        if std::time::Instant::now() > until {
            let _ = ask.kill();
            panic!("the pane was never marked (dropped: {})", dropped.exists());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(read(), "⏳ builder\n");
    // Ended, the title is put back.
    // SAFETY: a signal to the process this test started.
    unsafe { libc::kill(i32::try_from(ask.id()).expect("a pid"), libc::SIGTERM) };
    ask.wait().expect("ask ended");
    assert_eq!(read(), "⏳ builder\nbuilder\n");
}
