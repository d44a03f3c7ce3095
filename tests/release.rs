//! The release is one version: the crate's is the command's (`ask-popup --version`), the
//! plugin's (its `version` pipe answers `VERSION`), the Pi package's and the CHANGELOG's latest
//! entry; the release's URLs come from the manifest's `repository` alone (and the READMEs name
//! this release's); and the packaged
//! crate holds what the command is built from (the Pi extension it carries included), nothing
//! of the tests; and a fresh clone's `cargo build --release` builds the command with its plugin.

use ask_popup::setup::zellij::plugin::{
    release_url, REPOSITORY, VERSION, ZELLIJ_LINE, ZELLIJ_TESTED,
};
use ask_popup::setup::{PI_EXTENSION, PI_PACKAGE};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
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

/// Makes `clone` a copy of the files a clone of this checkout has (git's files: committed, or
/// new and not ignored; as they are now, so that uncommitted work is what is built): a file
/// already the same is left alone, for cargo to rebuild only what changed since the last copy,
/// and one no longer there is removed. No target dir of this checkout, no `assets/`; the
/// clone's own `target/` is kept, as a clone's is between two builds.
fn sync_clone(clone: &Path) {
    let root = Path::new(MANIFEST_DIR);
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .expect("run git ls-files");
    assert!(listed.status.success(), "{listed:?}");
    let files: HashSet<PathBuf> = listed
        .stdout
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| PathBuf::from(String::from_utf8(f.to_vec()).expect("a UTF-8 path")))
        .filter(|f| !f.starts_with("assets") && root.join(f).is_file())
        .collect();
    assert!(files.contains(Path::new("build.rs")), "{files:?}");
    for file in &files {
        let (from, to) = (root.join(file), clone.join(file));
        let bytes = std::fs::read(&from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
        if std::fs::read(&to).is_ok_and(|there| there == bytes) {
            continue;
        }
        std::fs::create_dir_all(to.parent().unwrap()).expect("a folder of the clone");
        std::fs::copy(&from, &to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    }
    let mut folders = vec![clone.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder of the clone") {
            let path = entry.expect("an entry").path();
            let file = path.strip_prefix(clone).unwrap();
            if file == Path::new("target") {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else if !files.contains(file) {
                std::fs::remove_file(&path).expect("remove a file gone from the checkout");
            }
        }
    }
}

#[test]
fn cargo_build_release_in_a_fresh_clone_builds_the_command_with_its_plugin() {
    // A Rust user's first step in a clone, before any script: `cargo build --release` builds
    // the command and, on the way, the plugin it carries (build.rs). The clone lives in this
    // checkout's target/ and is kept, so a run builds what changed. It builds into this
    // checkout's target dir, where the test command built the command in release already:
    // the registry's crates are taken from there rather than built a second time, and the
    // clone's own crates (at another path) and the plugin (in build.rs's own target dir, as in
    // any clone) are built anew.
    let clone = Path::new(MANIFEST_DIR).join("target/fresh-clone/ask-popup");
    sync_clone(&clone);
    assert!(!clone.join("assets").exists() && !clone.join("target/wasm32-wasip1").exists());
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => Path::new(MANIFEST_DIR).join(dir),
        None => Path::new(MANIFEST_DIR).join("target"),
    };
    let built = Command::new(env!("CARGO"))
        .args(["build", "--release", "--target-dir"])
        .arg(&target)
        .current_dir(&clone)
        .env_remove("ASK_POPUP_PLUGIN_WASM")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        // What it builds from is on this machine already (the test command has built the
        // plugin and the command before).
        .env("CARGO_NET_OFFLINE", "true")
        .status()
        .expect("run cargo build --release");
    assert!(
        built.success(),
        "cargo build --release in {}",
        clone.display()
    );

    // The command carries the plugin: `setup zellij` writes it out.
    let config = tempfile::tempdir().expect("a config dir");
    let out = Command::new(target.join("release/ask-popup"))
        .args(["setup", "zellij", "--write", "--config-dir"])
        .arg(config.path())
        .env("HOME", config.path())
        .output()
        .expect("run ask-popup setup zellij");
    assert!(out.status.success(), "{out:?}");
    let carried = std::fs::read(config.path().join("plugins/ask-popup.wasm"))
        .expect("the plugin setup wrote out");
    assert!(carried.starts_with(b"\0asm"), "not a wasm module");
    // It is the plugin build.rs built from the clone's crates/plugin, as
    // scripts/build-plugin.sh builds it.
    let builds: Vec<PathBuf> = std::fs::read_dir(target.join("release/build"))
        .expect("the build scripts' dirs")
        .map(|e| e.expect("an entry").path())
        .filter(|dir| {
            dir.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("ask-popup-"))
        })
        .map(|dir| dir.join("out/plugin-target/wasm32-wasip1/plugin/ask-popup.wasm"))
        .filter(|wasm| wasm.is_file())
        .collect();
    assert!(
        builds
            .iter()
            .any(|wasm| std::fs::read(wasm).is_ok_and(|bytes| bytes == carried)),
        "the command carries a plugin other than the one built for it: {builds:?}"
    );
}
