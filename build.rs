//! The `ask-popup` command carries the plugin it was built with, so that
//! `ask-popup setup zellij` can write it out and `ask-popup doctor` can tell an installed
//! plugin of another version: the plugin file is `$ASK_POPUP_PLUGIN_WASM` when set (what
//! `scripts/install.sh` and `scripts/release.sh` build), else `assets/ask-popup.wasm` when there
//! (the released plugin, which `scripts/release.sh` puts into the packaged crate, so that `cargo
//! install ask-popup` needs no wasm target; a clone has none), else the build's own
//! `wasm32-wasip1/plugin/ask-popup.wasm` under the target dir (`$CARGO_TARGET_DIR`, or this
//! checkout's `target/`).
//!
//! A release build without the plugin fails, saying how to build it: a command that cannot
//! write out its plugin is not one to install. (`ASK_POPUP_PLUGIN_WASM=""` builds one that
//! carries none on purpose, for what needs no plugin: the benches' own builds.) A debug build
//! (the tests) carries whatever is there, or nothing.

use std::path::PathBuf;

/// The released plugin, in the packaged crate.
const RELEASED: &str = "assets/ask-popup.wasm";

fn main() {
    println!("cargo:rerun-if-env-changed=ASK_POPUP_PLUGIN_WASM");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_DIR");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let embedded = out.join("ask-popup.wasm");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("manifest"));
    let (source, required) = match std::env::var_os("ASK_POPUP_PLUGIN_WASM") {
        Some(path) if path.is_empty() => {
            std::fs::write(&embedded, b"").expect("write the embedded plugin");
            return;
        }
        Some(path) => (PathBuf::from(path), true),
        None if manifest.join(RELEASED).is_file() => (manifest.join(RELEASED), true),
        None => {
            let target_dir = std::env::var_os("CARGO_TARGET_DIR")
                .map(|dir| manifest.join(dir))
                .unwrap_or_else(|| manifest.join("target"));
            let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
            (
                target_dir.join("wasm32-wasip1/plugin/ask-popup.wasm"),
                release,
            )
        }
    };
    println!("cargo:rerun-if-changed={}", source.display());
    let bytes = std::fs::read(&source).unwrap_or_default();
    if bytes.is_empty() && required {
        panic!(
            "the ask-popup command carries its plugin, and {} is not there: build it first \
             (`bash scripts/build-plugin.sh`), or set ASK_POPUP_PLUGIN_WASM to the plugin's file \
             (an empty value builds a command without one)",
            source.display()
        );
    }
    std::fs::write(&embedded, bytes).expect("write the embedded plugin");
}
