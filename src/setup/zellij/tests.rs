use super::checks::*;
use super::config::*;
use super::plugin::*;
use crate::setup::check::{all_hold, report, Check};
use kdl::KdlDocument;
use std::path::Path;

const PATH: &str = "config.kdl";
const LOCATION: &str = "/home/u/.config/zellij/plugins/ask-popup.wasm";

/// Whether `small`'s lines appear in `big` in order (`big` only adds lines).
fn only_adds(small: &str, big: &str) -> bool {
    let mut big = big.lines();
    small.lines().all(|line| big.any(|b| b == line))
}

fn round_trip(original: &str) -> String {
    let merged = merge(original, PATH, LOCATION)
        .unwrap()
        .expect("something added");
    assert!(only_adds(original, &merged), "{merged}");
    round_trip_of(original, merged)
}

fn round_trip_of(original: &str, merged: String) -> String {
    let _: KdlDocument = merged.parse().expect("the result is KDL");
    assert_eq!(
        inspect(&merged, PATH).unwrap(),
        (Some(format!("file:{LOCATION}")), true)
    );
    assert_eq!(
        merge(&merged, PATH, LOCATION).unwrap(),
        None,
        "a second run"
    );
    assert_eq!(
        remove(&merged, PATH).unwrap().as_deref(),
        Some(original),
        "remove gives back the file byte for byte; merged:\n{merged}"
    );
    merged
}

#[test]
fn an_empty_config_gets_both_blocks_and_loses_them_again() {
    let merged = round_trip("");
    assert!(merged.starts_with(MARK), "{merged}");
    assert!(
        merged.contains("plugins {\n    ask-popup location="),
        "{merged}"
    );
    assert!(
        merged.contains("keybinds {\n    // Added by `ask-popup setup zellij`\n    session {\n        bind \"y\" {"),
        "{merged}"
    );
    assert_eq!(inspect("", PATH).unwrap(), (None, false));
}

#[test]
fn a_users_config_keeps_its_comments_nodes_and_other_bindings() {
    let original = "// my zellij\ntheme \"dracula\"\n\n\
        plugins {\n    // bars\n    tab-bar location=\"zellij:tab-bar\"\n    status-bar location=\"zellij:status-bar\"\n}\n\n\
        keybinds clear-defaults=false {\n    normal {\n        bind \"Alt y\" { NewPane; }\n    }\n    locked {\n        bind \"Ctrl y\" { SwitchToMode \"normal\"; }\n    }\n}\n// the end\n";
    let merged = round_trip(original);
    assert!(
        merged.contains("    status-bar location=\"zellij:status-bar\"\n    ask-popup location="),
        "{merged}"
    );
    assert!(merged.ends_with("// the end\n"), "{merged}");
}

#[test]
fn a_session_block_of_the_users_gets_the_binding_inside_it() {
    let original = "keybinds {\n\tsession {\n\t\tbind \"d\" { Detach; }\n\t}\n}\n";
    let merged = round_trip(original);
    assert!(
        merged.contains("\t\tbind \"d\" { Detach; }\n\t\tbind \"y\" {"),
        "{merged}"
    );
    assert_eq!(merged.matches("session").count(), 1, "{merged}");
}

#[test]
fn one_line_and_empty_blocks_get_the_nodes_and_lose_them_again() {
    // Their lines must be split, so only the nodes come back out, not every byte.
    for original in [
        "plugins { tab-bar location=\"zellij:tab-bar\"; }",
        "keybinds { }\nplugins {\n}",
    ] {
        let merged = merge(original, PATH, LOCATION).unwrap().unwrap();
        assert!(inspect(&merged, PATH).unwrap().1, "{merged}");
        let removed = remove(&merged, PATH).unwrap().unwrap();
        assert_eq!(inspect(&removed, PATH).unwrap(), (None, false), "{removed}");
        let doc: KdlDocument = removed.parse().unwrap();
        assert_eq!(
            doc.nodes().len(),
            original.matches('{').count(),
            "{removed}"
        );
    }
}

#[test]
fn an_alias_already_there_is_left_as_it_is() {
    let original = "plugins {\n    ask-popup location=\"file:/elsewhere.wasm\"\n}\n";
    let merged = merge(original, PATH, LOCATION).unwrap().unwrap();
    assert!(merged.starts_with(original), "{merged}");
    assert_eq!(
        inspect(&merged, PATH).unwrap().0.as_deref(),
        Some("file:/elsewhere.wasm")
    );
}

const URL: &str = "https://example.org/releases/download/v9.9.9/ask-popup.wasm";

#[test]
fn a_url_setup_adds_the_alias_with_the_url_and_points_one_already_there_at_it() {
    let merged = merge_url("", PATH, URL).unwrap().unwrap();
    assert_eq!(
        inspect(&merged, PATH).unwrap(),
        (Some(URL.to_owned()), true)
    );
    assert!(
        merged.contains(&format!("ask-popup location=\"{URL}\" {{\n")),
        "{merged}"
    );
    assert_eq!(merge_url(&merged, PATH, URL).unwrap(), None, "a second run");
    assert_eq!(remove(&merged, PATH).unwrap().as_deref(), Some(""));

    // A file setup's alias, and the user's options in it, pointed at the URL and only that.
    let filed = merge("", PATH, LOCATION).unwrap().unwrap();
    let user = filed.replace("hide_key \"Ctrl ]\"", "hide_key \"off\"");
    let pointed = merge_url(&user, PATH, URL).unwrap().unwrap();
    assert_eq!(
        pointed,
        user.replace(
            &format!("location=\"file:{LOCATION}\""),
            &format!("location=\"{URL}\"")
        )
    );
    // A newer release's URL replaces the older one.
    let newer = URL.replace("v9.9.9", "v10.0.0");
    let again = merge_url(&pointed, PATH, &newer).unwrap().unwrap();
    assert_eq!(inspect(&again, PATH).unwrap().0, Some(newer));
    // The default (file) setup leaves a URL alias as it is.
    assert_eq!(merge(&pointed, PATH, LOCATION).unwrap(), None);
}

#[test]
fn the_release_url_is_the_repositorys_download_of_this_version() {
    let url = release_url(VERSION);
    assert_eq!(
        url,
        format!("{REPOSITORY}/releases/download/v{VERSION}/ask-popup.wasm")
    );
    assert!(
        is_url(&url) && url.starts_with("https://github.com/"),
        "{url}"
    );
    assert_eq!(release_in(&url), Some(VERSION));
    assert_eq!(release_in("http://127.0.0.1:8080/ask-popup.wasm"), None);
    assert!(!is_url("file:/x/ask-popup.wasm") && !is_url("zellij:tab-bar"));
}

fn line(checks: &[Check], name: &str) -> Check {
    checks
        .iter()
        .find(|c| c.check == name)
        .unwrap_or_else(|| panic!("no {name} in {checks:?}"))
        .clone()
}

#[test]
fn a_url_alias_needs_no_plugin_file_and_names_another_release() {
    let dir = Path::new("/h/.config/zellij");
    let ours = merge_url("", PATH, &release_url(VERSION)).unwrap().unwrap();
    let checks = config_checks(dir, None, Some(&ours));
    assert_eq!(line(&checks, "plugin file").ok, None, "{checks:?}");
    assert_eq!(line(&checks, "alias").ok, Some(true), "{checks:?}");
    assert!(all_hold(&checks), "{checks:?}");
    // A stale file beside a URL alias is no failure either.
    let checks = config_checks(dir, Some(b"\0asm old"), Some(&ours));
    assert!(all_hold(&checks), "{checks:?}");
    // Any other URL holds: the version pipe says what Zellij downloaded.
    let served = merge_url("", PATH, "http://127.0.0.1:8080/ask-popup.wasm")
        .unwrap()
        .unwrap();
    assert!(all_hold(&config_checks(dir, None, Some(&served))));
    // Another release's URL: pointed at this one's.
    let older = merge_url("", PATH, URL).unwrap().unwrap();
    let alias = line(&config_checks(dir, None, Some(&older)), "alias");
    assert_eq!(alias.ok, Some(false), "{alias:?}");
    assert!(alias.detail.contains("release 9.9.9"), "{alias:?}");
    assert_eq!(
        alias.fix,
        Some(format!(
            "ask-popup setup zellij --url {} --write",
            release_url(VERSION)
        ))
    );
    // A file alias without its file still fails, as before.
    let filed = merge("", PATH, "/h/.config/zellij/plugins/ask-popup.wasm")
        .unwrap()
        .unwrap();
    let file = line(&config_checks(dir, None, Some(&filed)), "plugin file");
    assert_eq!(file.ok, Some(false), "{file:?}");
}

#[test]
fn zellij_of_the_tested_line_passes_and_another_line_is_a_warning() {
    let tested = zellij_check(Some("zellij 0.45.1\n"));
    assert_eq!((tested.ok, tested.warning), (Some(true), false));
    assert!(
        tested.detail.contains("built and tested for Zellij 0.45.x"),
        "{tested:?}"
    );
    let patch = zellij_check(Some("zellij 0.45.7"));
    assert_eq!((patch.ok, patch.warning), (Some(true), false));
    for other in [
        "zellij 0.46.0",
        "zellij 0.44.3",
        "zellij 0.450.0",
        "something else",
    ] {
        let check = zellij_check(Some(other));
        assert_eq!((check.ok, check.warning), (Some(true), true), "{other}");
        assert!(check.detail.contains("0.45.x"), "{check:?}");
        assert!(all_hold(std::slice::from_ref(&check)));
        assert!(report(&[check]).starts_with("⚠ zellij: "));
    }
    let missing = zellij_check(None);
    assert_eq!(missing.ok, Some(false));
    assert_eq!(
        missing.fix.as_deref(),
        Some("cargo install --locked zellij --version 0.45.1")
    );
}

#[test]
fn a_file_that_is_not_kdl_is_refused_and_named() {
    let err = merge("plugins {\n", "/x/config.kdl", LOCATION).unwrap_err();
    assert!(
        err.to_string().starts_with("/x/config.kdl is not KDL"),
        "{err}"
    );
    assert!(remove("plugins {\n", PATH).is_err());
}

#[test]
fn the_config_dir_is_found_as_zellij_finds_it() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    };
    let none = |_: &Path| false;
    let all: &[(&str, &str)] = &[
        ("ZELLIJ_CONFIG_DIR", "/z"),
        ("XDG_CONFIG_HOME", "/x"),
        ("HOME", "/h"),
    ];
    assert_eq!(
        config_dir(Some(Path::new("/arg")), env(all), none),
        Some("/arg".into())
    );
    assert_eq!(config_dir(None, env(all), none), Some("/z".into()));
    let both: &[(&str, &str)] = &[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")];
    // Neither exists: the one Zellij creates and looks in first.
    assert_eq!(
        config_dir(None, env(both), none),
        Some("/h/.config/zellij".into())
    );
    assert_eq!(
        config_dir(None, env(both), |p: &Path| p == Path::new("/x/zellij")),
        Some("/x/zellij".into())
    );
    assert_eq!(
        config_dir(None, env(both), |_: &Path| true),
        Some("/h/.config/zellij".into())
    );
    assert_eq!(
        config_dir(None, env(&[("XDG_CONFIG_HOME", "/x")]), none),
        Some("/x/zellij".into())
    );
    assert_eq!(config_dir(None, env(&[]), none), None);
}
