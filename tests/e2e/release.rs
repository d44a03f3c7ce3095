//! End to end: ask-popup as a release installs it, without the clone. The command installed from
//! the packaged crate alone (`scripts/install-crate.sh`, with cargo offline and no wasm build of
//! the clone's), set up in an empty HOME, carries the released plugin and the doctor finds
//! everything; and Zellij loading the released plugin from its URL, served on 127.0.0.1 from
//! `target/release-assets/` (what `scripts/release.sh` built), as config.kdl's `location` has it
//! after `ask-popup setup zellij --url`: the question is answered and the doctor says ✓, with no
//! plugin file anywhere.

use crate::command::command;
use crate::harness::{wasm_path, Options, Setup, Zellij};
use crate::http::LoopbackServer;
use crate::install::{
    asked_permitted_and_answered, dismiss_release_notes, doctor_with, only_yes,
    THE_PLUGIN_FILES_CHECKS,
};
use ask_popup::setup::zellij::plugin::VERSION;
use std::path::{Path, PathBuf};

/// A file `scripts/release.sh` built into `target/release-assets/`.
fn release_asset(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/release-assets")
        .join(name);
    assert!(
        path.is_file(),
        "no {} : run `bash scripts/release.sh` (or `bash scripts/test.sh`)",
        path.display()
    );
    path
}

/// The released plugin, which must be the plugin these tests build (the same sources).
fn released_plugin() -> Vec<u8> {
    let released =
        std::fs::read(release_asset("ask-popup.wasm")).expect("read the released plugin");
    let built = std::fs::read(wasm_path()).expect("read the built plugin");
    assert!(
        released == built,
        "target/release-assets/ask-popup.wasm is not the plugin built now: run `bash scripts/release.sh`"
    );
    released
}

/// The `ask-popup` that `bash scripts/install-crate.sh` installed from the packaged crate (the
/// test command runs it after `scripts/release.sh`).
fn crate_installed_command() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/crate-installed/bin/ask-popup");
    assert!(
        path.is_file(),
        "no ask-popup installed from the packaged crate at {}: run `bash scripts/release.sh && \
         bash scripts/install-crate.sh` (or `bash scripts/test.sh`)",
        path.display()
    );
    path
}

/// Asks in a pane with `ask_popup` (the permission request first, answered `y`), picks SQLite,
/// and checks the envelope.
fn ask_and_answer(zellij: &Zellij, ask_popup: &Path, id: &str) {
    let out = zellij.scratch().join(format!("{id}.json"));
    asked_permitted_and_answered(zellij, ask_popup, "Allow? (y/n)", id, &out);
}

#[test]
fn installed_from_the_packaged_crate_alone_the_command_carries_the_released_plugin() {
    let installed = crate_installed_command();
    let plugin = released_plugin();
    let zellij = Zellij::start_with(Options::default().installed_by(Setup {
        command: installed.clone(),
        args: ["setup", "zellij", "--write"].map(str::to_owned).to_vec(),
        path: Vec::new(),
    }));
    dismiss_release_notes(&zellij);
    // What setup wrote out is the release's plugin, byte for byte.
    let written = std::fs::read(zellij.home().join(".config/zellij/plugins/ask-popup.wasm"))
        .expect("the plugin file setup wrote");
    assert!(written == plugin, "the plugin written is not the release's");

    ask_and_answer(&zellij, &installed, "crate-1");
    let (code, report) = doctor_with(&zellij, "doctor", &installed, "");
    only_yes(code, &report, &THE_PLUGIN_FILES_CHECKS);
    assert!(
        report.contains(&format!("answers, version {VERSION}")),
        "{report}"
    );
}

#[test]
fn zellij_loads_the_released_plugin_from_its_url_and_the_doctor_needs_no_file() {
    released_plugin();
    // The release's page: any path ending in a file's name gets that file.
    let assets = release_asset("ask-popup.wasm")
        .parent()
        .expect("the assets' dir")
        .to_path_buf();
    let server = LoopbackServer::start(move |path| {
        let name = path.rsplit('/').next().unwrap_or("");
        (!name.is_empty() && !name.starts_with('.'))
            .then(|| std::fs::read(assets.join(name)).ok())
            .flatten()
    });
    let url = format!(
        "{}/ask-popup/releases/download/v{VERSION}/ask-popup.wasm",
        server.base()
    );
    let zellij = Zellij::start_with(
        Options::default().installed_by(Setup {
            command: command(),
            args: ["setup", "zellij", "--url", &url, "--write"]
                .map(str::to_owned)
                .to_vec(),
            path: Vec::new(),
        }),
    );
    dismiss_release_notes(&zellij);
    let config = std::fs::read_to_string(zellij.home().join(".config/zellij/config.kdl"))
        .expect("the config setup wrote");
    assert!(
        config.contains(&format!("ask-popup location=\"{url}\"")),
        "{config}"
    );
    assert!(!zellij.home().join(".config/zellij/plugins").exists());

    // The first question loads the plugin: Zellij downloads it from the URL.
    ask_and_answer(&zellij, &command(), "url-1");
    let wanted = format!("/ask-popup/releases/download/v{VERSION}/ask-popup.wasm");
    assert!(
        server.requests().contains(&wanted),
        "Zellij never asked for {wanted}: {:?}",
        server.requests()
    );

    let (code, report) = doctor_with(&zellij, "doctor", &command(), "");
    only_yes(
        code,
        &report,
        &["zellij", "alias", "binding", "plugin in this session"],
    );
    assert!(
        report.contains(&format!(
            "– plugin file: none needed: Zellij downloads the plugin from {url}"
        )),
        "{report}"
    );
}
