//! Where a waiting caller looks for its session's server, and when it takes the server for gone.

use ask_popup::session::{socket_path, Look, Watch, MISSES_TO_GONE};
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
