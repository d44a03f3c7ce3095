//! The `ask-popup` command carries the plugin it was built with, so that
//! `ask-popup setup zellij` can write it out and `ask-popup doctor` can tell an installed
//! plugin of another version: the plugin file is `$ASK_POPUP_PLUGIN_WASM` when set (what
//! `scripts/install.sh` builds), else this checkout's `target/wasm32-wasip1/release/ask-popup.wasm`
//! when built. Without either the command carries none, and says so when asked to write it.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=ASK_POPUP_PLUGIN_WASM");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let target = std::env::var("TARGET").unwrap_or_default();
    let embedded = out.join("ask-popup.wasm");
    if target.starts_with("wasm32") {
        // The plugin itself carries nothing.
        std::fs::write(&embedded, b"").expect("write the embedded plugin");
        return;
    }
    let source = match std::env::var_os("ASK_POPUP_PLUGIN_WASM") {
        Some(path) => PathBuf::from(path),
        None => {
            let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("manifest"));
            manifest.join("target/wasm32-wasip1/release/ask-popup.wasm")
        }
    };
    println!("cargo:rerun-if-changed={}", source.display());
    let bytes = std::fs::read(&source).unwrap_or_default();
    std::fs::write(&embedded, bytes).expect("write the embedded plugin");
}
