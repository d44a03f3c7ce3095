//! Where a waiting caller looks for its session's server, and when it takes the server for gone.

use ask_popup::zellij::session::{socket_path, Look, Watch, MISSES_TO_GONE};
use std::path::{Path, PathBuf};

fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| (*v).to_owned())
    }
}

/// A case: what it is, the environment, whether on Linux, and the socket expected.
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], bool, Option<&'a str>);

#[test]
fn the_socket_is_where_zellij_places_it() {
    let tmp = Path::new("/tmp");
    let cases: [Case; 7] = [
        (
            "the socket dir Zellij was told",
            &[
                ("ZELLIJ_SESSION_NAME", "work"),
                ("ZELLIJ_SOCKET_DIR", "/run/s"),
                ("XDG_RUNTIME_DIR", "/run/user/1000"),
            ],
            true,
            Some("/run/s/contract_version_1/work"),
        ),
        (
            "the runtime dir on Linux",
            &[
                ("ZELLIJ_SESSION_NAME", "work"),
                ("XDG_RUNTIME_DIR", "/run/user/1000"),
            ],
            true,
            Some("/run/user/1000/zellij/contract_version_1/work"),
        ),
        (
            "no runtime dir elsewhere",
            &[
                ("ZELLIJ_SESSION_NAME", "work"),
                ("XDG_RUNTIME_DIR", "/run/user/1000"),
            ],
            false,
            Some("/tmp/zellij-1000/contract_version_1/work"),
        ),
        (
            "a relative runtime dir does not count",
            &[("ZELLIJ_SESSION_NAME", "work"), ("XDG_RUNTIME_DIR", "run")],
            true,
            Some("/tmp/zellij-1000/contract_version_1/work"),
        ),
        (
            "an empty socket dir does not count",
            &[("ZELLIJ_SESSION_NAME", "work"), ("ZELLIJ_SOCKET_DIR", "")],
            true,
            Some("/tmp/zellij-1000/contract_version_1/work"),
        ),
        ("outside a named session", &[("ZELLIJ", "0")], true, None),
        (
            "a name that is no file name",
            &[("ZELLIJ_SESSION_NAME", "../other")],
            true,
            None,
        ),
    ];
    for (case, vars, linux, want) in cases {
        assert_eq!(
            socket_path(env(vars), 1000, tmp, linux),
            want.map(PathBuf::from),
            "{case}"
        );
    }
}

fn watch(looks: &[Look]) -> Vec<bool> {
    let mut watch = Watch::default();
    looks.iter().map(|look| watch.look(*look)).collect()
}

#[test]
fn a_server_seen_listening_then_refusing_twice_is_gone() {
    use Look::*;
    assert_eq!(MISSES_TO_GONE, 2);
    assert_eq!(
        watch(&[Listening, Listening, Refused, Refused]),
        [false, false, false, true]
    );
    assert_eq!(watch(&[Listening, Missing, Missing]), [false, false, true]);
    assert_eq!(
        watch(&[Listening, Refused, Unknown, Missing]),
        [false, false, false, true]
    );
}

#[test]
fn one_miss_between_answers_is_not_gone() {
    use Look::*;
    assert_eq!(
        watch(&[Listening, Refused, Listening, Refused, Listening]),
        [false; 5]
    );
}

#[test]
fn a_socket_never_seen_listening_says_nothing() {
    use Look::*;
    // This command may be looking in the wrong place: it keeps waiting.
    assert_eq!(watch(&[Missing, Missing, Missing, Refused]), [false; 4]);
    assert_eq!(watch(&[Unknown, Unknown, Unknown]), [false; 3]);
}

#[test]
fn the_sockets_listened_on_are_read_from_linuxs_table() {
    let table = "\
Num       RefCount Protocol Flags    Type St Inode Path
00000000a8ba8b10: 00000003 00000000 00000000 0001 03  7066
0000000056bafcea: 00000002 00000000 00010000 0001 01 51500 /tmp/zellij-0/contract_version_1/acc
0000000056bafceb: 00000002 00000000 00010000 0001 01 51501 /tmp/zellij-0/contract_version_1/two words
0000000056bafcec: 00000003 00000000 00000000 0001 03 51502 /tmp/zellij-0/contract_version_1/acc
0000000056bafced: 00000002 00000000 00000000 0002 01 51503 /run/bound-not-listening
0000000056bafcee: 00000002 00000000 00010000 0001 01 51504 @abstract
0000000056bafcef: 00000002 00000000 00010000 0001 01 123456 /run/wide-inode
";
    let mut listed: Vec<PathBuf> = ask_popup::zellij::session::listening_paths(table)
        .into_iter()
        .collect();
    listed.sort();
    assert_eq!(
        listed,
        [
            "/run/wide-inode",
            "/tmp/zellij-0/contract_version_1/acc",
            "/tmp/zellij-0/contract_version_1/two words",
        ]
        .map(PathBuf::from)
    );
    assert!(ask_popup::zellij::session::listening_paths("").is_empty());
}

#[test]
fn a_socket_is_listened_on_while_its_server_lives_and_not_after() {
    use ask_popup::zellij::session::{is_listening, listening_paths, PROC_NET_UNIX};
    let dir = std::env::temp_dir().join(format!("ask-popup-listening-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("real")).expect("create the test's folder");
    std::os::unix::fs::symlink(dir.join("real"), dir.join("link")).expect("link the folder");
    let socket = dir.join("real").join("acc");
    let listed = || {
        let table = std::fs::read_to_string(PROC_NET_UNIX).expect("read /proc/net/unix");
        let listening = listening_paths(&table);
        (
            is_listening(&listening, &socket),
            // The same file, reached through a link.
            is_listening(&listening, &dir.join("link").join("acc")),
        )
    };
    let server = std::os::unix::net::UnixListener::bind(&socket).expect("listen");
    // A client's connection is not a listening socket of its own.
    let client = std::os::unix::net::UnixStream::connect(&socket).expect("connect");
    assert_eq!(listed(), (true, true));
    drop(client);
    // The server ends and leaves its file behind, as a killed Zellij server does.
    drop(server);
    assert!(socket.exists());
    assert_eq!(listed(), (false, false));
    let _ = std::fs::remove_dir_all(&dir);
}
