//! The release is one version: the crate's is the command's (`ask-popup --version`), the
//! plugin's (its `version` pipe answers `VERSION`), the Pi package's and the CHANGELOG's latest
//! entry; the release's URLs come from the manifest's `repository` alone (and the READMEs name
//! this release's); and the packaged
//! crate holds what the command is built from (the Pi extension it carries included), nothing
//! of the tests.

use ask_popup::setup::zellij::plugin::{
    release_url, REPOSITORY, VERSION, ZELLIJ_LINE, ZELLIJ_TESTED,
};
use ask_popup::setup::{PI_EXTENSION, PI_PACKAGE};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(MANIFEST_DIR).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn pi_package() -> Value {
    serde_json::from_str(&read("integrations/pi/package.json")).expect("package.json is JSON")
}

#[test]
fn the_command_says_the_crates_version() {
    let out = Command::new(env!("CARGO_BIN_EXE_ask-popup"))
        .arg("--version")
        .output()
        .expect("run ask-popup --version");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("ask-popup {}\n", env!("CARGO_PKG_VERSION"))
    );
    // What the plugin's version pipe answers, and the doctor compares.
    assert_eq!(ask_popup_protocol::VERSION, env!("CARGO_PKG_VERSION"));
    assert_eq!(VERSION, env!("CARGO_PKG_VERSION"));
}

#[test]
fn the_pi_package_has_the_crates_version_and_repository() {
    let package = pi_package();
    assert_eq!(package["name"], PI_PACKAGE);
    assert_eq!(
        package["version"], VERSION,
        "integrations/pi/package.json's version is the crate's"
    );
    assert_eq!(
        package["repository"]["url"],
        format!("git+{REPOSITORY}.git")
    );
    assert_eq!(package["repository"]["directory"], "integrations/pi");
    assert_eq!(package["license"], env!("CARGO_PKG_LICENSE"));
}

#[test]
fn the_pi_package_follows_pis_package_rules() {
    let package = pi_package();
    // Found in Pi's gallery, its extension and skill declared, nothing but what it loads packed.
    assert!(package["keywords"]
        .as_array()
        .unwrap()
        .contains(&"pi-package".into()));
    assert_eq!(
        package["pi"]["extensions"],
        serde_json::json!(["./src/index.ts"])
    );
    assert_eq!(package["pi"]["skills"], serde_json::json!(["./skills"]));
    assert_eq!(
        package["files"],
        serde_json::json!(["src", "skills", "README.md"])
    );
    // Pi's own packages are peers with a `*` range, never bundled or installed beside it: Pi
    // hands its extensions its own copies.
    let peers = package["peerDependencies"].as_object().unwrap();
    for (name, range) in peers {
        assert_eq!(range, "*", "{name}");
        assert_eq!(
            package["peerDependenciesMeta"][name]["optional"], true,
            "{name}"
        );
    }
    assert!(package.get("dependencies").is_none());
}

#[test]
fn the_changelog_begins_with_this_versions_entry() {
    let changelog = read("CHANGELOG.md");
    let first = changelog
        .lines()
        .find(|l| l.starts_with("## "))
        .expect("a version's entry");
    assert!(
        first.starts_with(&format!("## {VERSION} ")) || first == format!("## {VERSION}"),
        "CHANGELOG.md's first entry is {first:?}, not {VERSION}'s"
    );
}

#[test]
fn the_zellij_line_is_the_one_the_plugin_is_built_against() {
    let manifest = read("crates/plugin/Cargo.toml");
    assert!(
        manifest.contains(&format!("zellij-tile = \"={ZELLIJ_TESTED}\"")),
        "zellij-tile is pinned to {ZELLIJ_TESTED}"
    );
    assert!(ZELLIJ_TESTED.starts_with(&format!("{ZELLIJ_LINE}.")));
}

#[test]
fn the_release_url_comes_from_the_manifests_repository() {
    assert_eq!(REPOSITORY, env!("CARGO_PKG_REPOSITORY"));
    assert!(
        REPOSITORY.starts_with("https://github.com/"),
        "{REPOSITORY}"
    );
    assert_eq!(
        release_url(VERSION),
        format!("{REPOSITORY}/releases/download/v{VERSION}/ask-popup.wasm")
    );
}

#[test]
fn the_packaged_crate_holds_what_the_command_is_built_from_and_no_tests() {
    let out = Command::new(env!("CARGO"))
        .args([
            "package",
            "-p",
            "ask-popup",
            "--list",
            "--allow-dirty",
            "--offline",
        ])
        .current_dir(MANIFEST_DIR)
        .output()
        .expect("run cargo package --list");
    assert!(out.status.success(), "{out:?}");
    let listed = String::from_utf8_lossy(&out.stdout);
    let files: Vec<&str> = listed.lines().collect();
    let mut needed: Vec<String> = PI_EXTENSION
        .iter()
        .map(|(path, _)| format!("integrations/pi/{path}"))
        .collect();
    needed.extend(
        [
            "Cargo.toml",
            "Cargo.lock",
            "build.rs",
            "src/main.rs",
            "src/lib.rs",
            "integrations/opencode/ask-popup.js",
            "integrations/opencode/ask-popup/shared.json",
            "README.md",
            "CHANGELOG.md",
            "LICENSE",
        ]
        .map(str::to_owned),
    );
    for file in &needed {
        assert!(
            files.contains(&file.as_str()),
            "{file} is not packaged:\n{listed}"
        );
    }
    for file in &files {
        assert!(
            !file.starts_with("tests/")
                && !file.starts_with("benches/")
                && !file.starts_with("integrations/pi/test/")
                && !file.starts_with("integrations/opencode/test/")
                && !file.starts_with("scripts/"),
            "{file} is packaged"
        );
    }
    // The built plugin is packaged when scripts/release.sh has put it there.
    let manifest = read("Cargo.toml");
    assert!(
        manifest.contains("\"/assets/ask-popup.wasm\""),
        "{manifest}"
    );
}

#[test]
fn the_readmes_name_this_releases_downloads() {
    for readme in ["README.md", "integrations/pi/README.md"] {
        let text = read(readme);
        let mut found = 0;
        for (at, _) in text.match_indices("/releases/download/") {
            found += 1;
            let before = &text[..at];
            let after = &text[at + "/releases/download/".len()..];
            assert!(
                before.ends_with(REPOSITORY),
                "{readme}: a release URL not under {REPOSITORY}: …{}",
                &before[before.len().saturating_sub(60)..]
            );
            assert!(
                after.starts_with(&format!("v{VERSION}/")),
                "{readme}: a release URL not of v{VERSION}: {}",
                after.chars().take(60).collect::<String>()
            );
        }
        assert!(found > 0, "{readme} names no release download");
    }
}

#[test]
fn the_command_unwinds_and_only_the_plugin_aborts_on_a_panic() {
    // One panicking call of the command (the MCP server's, say) must not end every other call
    // waiting beside it: the profile `cargo install` builds with unwinds. The plugin, which
    // the build script builds with its own profile, aborts (no unwinding code in the wasm).
    let manifest: toml_edit::DocumentMut = read("Cargo.toml").parse().expect("Cargo.toml");
    let profile = |name: &str| manifest["profile"][name].clone();
    assert!(
        profile("release").get("panic").is_none(),
        "[profile.release] sets panic: {}",
        profile("release")
    );
    assert_eq!(profile("plugin")["inherits"].as_str(), Some("release"));
    assert_eq!(profile("plugin")["panic"].as_str(), Some("abort"));
    assert!(read("scripts/build-plugin.sh")
        .contains("cargo build -p ask-popup-plugin --profile plugin --target wasm32-wasip1"));
}

#[test]
fn every_option_the_plugin_reads_is_documented_in_plugin_kdl_and_the_options_table() {
    use ask_popup_plugin::config::Settings;
    let (plugin_kdl, table) = (read("plugin.kdl"), read("docs/install.md"));
    for option in Settings::OPTIONS {
        // Read: a value it cannot take is said to be wrong.
        let map = [(option.to_owned(), "not-a-value!".to_owned())].into();
        let (_, errors) = Settings::from_map(&map);
        assert_eq!(errors.len(), 1, "{option} is not read");
        let documented = plugin_kdl.lines().any(|l| {
            l.trim_start()
                .trim_start_matches("// ")
                .starts_with(&format!("{option} "))
        });
        assert!(documented, "plugin.kdl does not document {option}");
        let in_table = table
            .lines()
            .any(|l| l.starts_with("| `") && l.contains(&format!("`{option}`")));
        assert!(in_table, "docs/install.md's options table lacks {option}");
    }
    // What is not an option is not read.
    let map = [("default_timeout_ms".to_owned(), "1".to_owned())].into();
    assert!(Settings::from_map(&map).1.is_empty());
}
