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
    let sockets = dir.0.join("s/contract_version_1");
    let cache = dir.0.join("cache");
    let bin = dir.0.join("bin");
    for d in [&sockets, &cache, &bin] {
        std::fs::create_dir_all(d).expect("create the test's folders");
    }
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
    // Each session's plugin answers its status pipe with no question pending.
    let zellij = bin.join("zellij");
    std::fs::write(&zellij, "#!/bin/sh\necho '{\"pending\":[]}'\n").expect("write zellij");
    std::fs::set_permissions(&zellij, std::fs::Permissions::from_mode(0o755))
        .expect("make it executable");

    let out = Command::new(env!("CARGO_BIN_EXE_ask-popup"))
        .args(["status", "--all-sessions"])
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("ZELLIJ_SOCKET_DIR", dir.0.join("s"))
        .env("XDG_CACHE_HOME", &cache)
        .env_remove("ZELLIJ")
        .env_remove("ZELLIJ_SESSION_NAME")
        .output()
        .expect("run ask-popup status --all-sessions");
    assert!(out.status.success(), "{out:?}");
    let all: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        all,
        serde_json::json!({"sessions": [{"pending": [], "session": "acc", "clients": 1}]}),
    );
}
