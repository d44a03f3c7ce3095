use super::checks::*;
use super::config::*;
use super::tokens::*;
use kdl::KdlDocument;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

const PATH: &str = "config.kdl";

fn round_trip(original: &str) -> String {
    let merged = merge(original, PATH).unwrap().expect("something changed");
    let _: KdlDocument = merged.parse().expect("the result is KDL");
    assert!(inspect(&merged, PATH).unwrap().is_on(), "{merged}");
    assert_eq!(merge(&merged, PATH).unwrap(), None, "a second run");
    assert_eq!(
        remove(&merged, PATH).unwrap().as_deref(),
        Some(original),
        "remove gives back the file byte for byte; merged:\n{merged}"
    );
    merged
}

#[test]
fn an_empty_config_gets_both_settings_and_loses_them_again() {
    let merged = round_trip("");
    assert_eq!(
        merged,
        format!("{ADDED}\nweb_sharing \"on\"\n{ADDED}\nweb_server true\n")
    );
    assert!(!inspect("", PATH).unwrap().is_on());
}

#[test]
fn a_users_config_keeps_everything_and_a_setting_set_otherwise_comes_back() {
    let original = "// mine\ntheme \"dracula\"\n  web_sharing \"off\" // not yet\nplugins {\n}\n";
    let merged = round_trip(original);
    assert!(
        merged.contains("  // Changed by `ask-popup setup web`; it was: web_sharing \"off\"\n  web_sharing \"on\" // not yet\n"),
        "{merged}"
    );
    assert!(
        merged.ends_with(&format!("}}\n\n{ADDED}\nweb_server true\n")),
        "{merged}"
    );
}

#[test]
fn settings_already_on_are_the_users_and_stay_on_removal() {
    let original = "web_sharing \"on\"\nweb_server true\n";
    assert_eq!(merge(original, PATH).unwrap(), None);
    assert_eq!(remove(original, PATH).unwrap(), None);
}

#[test]
fn a_config_that_is_not_kdl_is_left_alone() {
    assert!(merge("web_sharing {", PATH).is_err());
    assert!(remove("web_sharing {", PATH).is_err());
}

#[test]
fn a_session_name_is_one_path_segment_with_only_the_unreserved_bytes_left_as_they_are() {
    assert_eq!(path_segment("Az09-._~"), "Az09-._~");
    assert_eq!(path_segment("my session/1"), "my%20session%2F1");
    assert_eq!(
        path_segment("a%2Fb?#[]@!$&'()*+,;="),
        "a%252Fb%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D"
    );
    assert_eq!(path_segment("ünï ✓"), "%C3%BCn%C3%AF%20%E2%9C%93");
    assert_eq!(path_segment(""), "");
    assert_eq!(
        session_url("http://127.0.0.1:8082/", "my session/1"),
        "http://127.0.0.1:8082/my%20session%2F1"
    );
}

#[test]
fn the_url_is_the_one_zellij_serves() {
    let mut config = inspect("web_server_port 9000\n", PATH).unwrap();
    assert_eq!(config.base_url(), "http://127.0.0.1:9000");
    assert_eq!(
        session_url(&config.base_url(), "work"),
        "http://127.0.0.1:9000/work"
    );
    config.ip = "0.0.0.0".to_owned();
    assert_eq!(config.base_url(), "https://0.0.0.0:9000");
    let tls = inspect(
        "web_server_cert \"/c.pem\"\nweb_server_key \"/k.pem\"\n",
        PATH,
    )
    .unwrap();
    assert_eq!(tls.base_url(), "https://127.0.0.1:8082");
}

#[test]
fn the_token_is_read_from_what_zellij_printed() {
    assert_eq!(
        token_in("Created token successfully\n\ntoken_1: 3f2a-bc\n"),
        Some(NewToken {
            name: "token_1".to_owned(),
            token: "3f2a-bc".to_owned()
        })
    );
    assert_eq!(token_in("Failed to create token: no db\n"), None);
    assert_eq!(
        tokens_in("token_1: created at 2026-12-02 01:00:00\nphone: created at 2026-12-02 01:01:00 [READ-ONLY]\n"),
        [
            listed("token_1", "2026-12-02 01:00:00"),
            Token {
                read_only: true,
                ..listed("phone", "2026-12-02 01:01:00")
            }
        ]
    );
    assert_eq!(tokens_in(""), []);
}

fn listed(name: &str, created_at: &str) -> Token {
    Token {
        name: name.to_owned(),
        created_at: created_at.to_owned(),
        read_only: false,
    }
}

fn made(tokens: &[(&str, Option<&str>)], started_server: bool) -> Made {
    Made {
        tokens: tokens
            .iter()
            .map(|(name, created_at)| MadeToken {
                name: (*name).to_owned(),
                created_at: created_at.map(str::to_owned),
            })
            .collect(),
        started_server,
    }
}

#[test]
fn a_token_is_made_only_when_none_can_answer_or_a_new_one_is_asked_for() {
    let one = [listed("token_1", "2026-12-02 01:00:00")];
    let watcher = [Token {
        read_only: true,
        ..listed("phone", "2026-12-02 01:01:00")
    }];
    // (listed, --new-token, a terminal) → plan
    let cases: [(&[Token], bool, bool, TokenPlan); 8] = [
        (&[], false, true, TokenPlan::Create),
        (&one, false, true, TokenPlan::Keep(1)),
        (&one, true, true, TokenPlan::Create),
        (&watcher, false, true, TokenPlan::Create),
        // Not a terminal: never made, so never printed where an agent or a log reads it.
        (&[], false, false, TokenPlan::InTerminal),
        (&one, true, false, TokenPlan::InTerminal),
        (&watcher, false, false, TokenPlan::InTerminal),
        (&one, false, false, TokenPlan::Keep(1)),
    ];
    for (listed, new_token, terminal, plan) in cases {
        assert_eq!(
            token_plan(listed, new_token, terminal),
            plan,
            "{listed:?} new_token={new_token} terminal={terminal}"
        );
    }
}

#[test]
fn outside_a_terminal_setup_says_the_exact_command_that_makes_a_token() {
    assert_eq!(
        new_token_command(None),
        "ask-popup setup web --write --new-token"
    );
    let command = new_token_command(Some(Path::new("/home/me/my zellij")));
    assert_eq!(
        command,
        "ask-popup setup web --write --new-token --config-dir '/home/me/my zellij'"
    );
    let said = TokenPlan::InTerminal.said(&command).unwrap();
    assert!(
        said.ends_with(&format!("run in a terminal: {command}")),
        "{said}"
    );
    assert!(TokenPlan::Keep(2)
        .said(&command)
        .unwrap()
        .contains(&command));
    assert_eq!(TokenPlan::Create.said(&command), None);
}

#[test]
fn a_token_made_is_remembered_with_its_creation_time_and_the_file_reads_back() {
    let mut state = Made::default();
    assert!(state.is_empty());
    let new = NewToken {
        name: "token_2".to_owned(),
        token: "secret".to_owned(),
    };
    state.add(&new, &[listed("token_1", "t1"), listed("token_2", "t2")]);
    state.started_server = true;
    assert_eq!(state, made(&[("token_2", Some("t2"))], true));
    let file = state.file();
    assert!(
        !file.contains("secret"),
        "the token itself is never kept: {file}"
    );
    assert_eq!(Made::read(&file, "web.json"), Ok(state));
    // The list failed after it was made: remembered by its name alone.
    let mut state = Made::default();
    state.add(&new, &[]);
    assert_eq!(state, made(&[("token_2", None)], false));
    assert!(matches!(
        Made::read("{", "web.json"),
        Err(WebError::StateUnreadable { .. })
    ));
}

#[test]
fn remove_revokes_the_tokens_setup_made_and_stops_the_server_it_started() {
    let ours = made(&[("token_2", Some("t2")), ("token_3", None)], true);
    let listed_now = [
        listed("token_1", "t1"),
        listed("token_2", "t2"),
        listed("token_3", "t3"),
    ];
    let removal = removal(&ours, Some(&listed_now), ServerStatus::Online);
    assert_eq!(
        removal.steps,
        [
            Step::Revoke("token_2".to_owned()),
            Step::Revoke("token_3".to_owned()),
            Step::StopServer
        ]
    );
    assert!(removal.left.is_empty());
    assert_eq!(
        removal.steps[0].done(),
        "Revoked the login token token_2 (`ask-popup setup web` made it)"
    );
    assert_eq!(
        removal.steps[2].would(),
        "Would stop the web server (`ask-popup setup web` started it)"
    );
    // A revoke that failed is remembered, for the next removal.
    let left = removal.left_after(&ours, &[Step::Revoke("token_3".to_owned())]);
    assert_eq!(left, made(&[("token_3", None)], false));
    let left = removal.left_after(&ours, &[Step::StopServer]);
    assert_eq!(left, made(&[], true));
}

#[test]
fn remove_leaves_the_users_tokens_and_a_server_it_did_not_start() {
    // token_2 is gone (revoked by hand); a token named token_2 made since is not ours.
    let ours = made(&[("token_2", Some("t2"))], false);
    let listed_now = [listed("token_1", "t1"), listed("token_2", "t9")];
    let removal = removal(&ours, Some(&listed_now), ServerStatus::Online);
    assert_eq!(removal.steps, []);
    assert!(removal.left.is_empty(), "a token gone is forgotten");
    // Started by setup, but no longer running: nothing to stop.
    let started = made(&[], true);
    assert_eq!(
        removal_of(&started, ServerStatus::Offline),
        Removal::default()
    );
    // The tokens could not be listed: none is revoked blindly, all stay remembered.
    let removal = super::tokens::removal(&ours, None, ServerStatus::Offline);
    assert_eq!(removal.steps, []);
    assert_eq!(removal.left, ours);
}

fn removal_of(made: &Made, status: ServerStatus) -> Removal {
    removal(made, Some(&[]), status)
}

#[test]
fn the_state_file_is_under_the_xdg_state_dir() {
    let home = Some(OsStr::new("/home/me"));
    assert_eq!(
        state_path(None, home),
        Some(PathBuf::from("/home/me/.local/state/ask-popup/web.json"))
    );
    assert_eq!(
        state_path(Some(OsStr::new("/state")), home),
        Some(PathBuf::from("/state/ask-popup/web.json"))
    );
    assert_eq!(
        state_path(Some(OsStr::new("relative")), home),
        Some(PathBuf::from("/home/me/.local/state/ask-popup/web.json"))
    );
    assert_eq!(state_path(None, None), None);
}

#[test]
fn the_servers_status_is_told_apart() {
    assert_eq!(
        ServerStatus::of("This version of Zellij was compiled without web server support, cannot get web server status!"),
        ServerStatus::NotBuiltIn
    );
    assert_eq!(
        ServerStatus::of("Web server online with version: 0.45.1. Checked: http://127.0.0.1:8082"),
        ServerStatus::Online
    );
    assert_eq!(
        ServerStatus::of("Web server is offline, checked: http://127.0.0.1:8082"),
        ServerStatus::Offline
    );
}

#[test]
fn doctor_checks_the_server_and_a_token_only_once_set_up() {
    let one = [listed("token_1", "t1")];
    let off = inspect("", PATH).unwrap();
    let fx = checks(Some(&off), ServerStatus::Online, Some(&one));
    assert_eq!(fx.len(), 1);
    assert_eq!(fx[0].ok, None);
    let on = inspect("web_sharing \"on\"\nweb_server true\n", PATH).unwrap();
    let fx = checks(Some(&on), ServerStatus::NotBuiltIn, None);
    assert_eq!((fx.len(), fx[0].ok), (1, Some(false)));
    let fx = checks(Some(&on), ServerStatus::Online, Some(&[]));
    assert_eq!(
        fx.iter().map(|c| c.ok).collect::<Vec<_>>(),
        [Some(true), Some(false)]
    );
    assert_eq!(
        fx[1].fix.as_deref(),
        Some("ask-popup setup web --write (in a terminal: Zellij shows a new token only once)")
    );
    let two = [listed("token_1", "t1"), listed("token_2", "t2")];
    let fx = checks(Some(&on), ServerStatus::Offline, Some(&two));
    assert_eq!(
        fx.iter().map(|c| c.ok).collect::<Vec<_>>(),
        [Some(false), Some(true)]
    );
    assert_eq!(fx[1].detail, "2 login token(s)");
    // Read-only tokens watch a session: none of them answers a question.
    let watcher = [Token {
        read_only: true,
        ..listed("phone", "t1")
    }];
    let fx = checks(Some(&on), ServerStatus::Online, Some(&watcher));
    assert_eq!(fx[1].ok, Some(false), "{:?}", fx[1]);
    assert!(fx[1].detail.contains("read-only"), "{:?}", fx[1]);
}
