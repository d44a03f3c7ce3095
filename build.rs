//! The `ask-popup` command carries the plugin it was built with, so that
//! `ask-popup setup zellij` can write it out and `ask-popup doctor` can tell an installed
//! plugin of another version. The plugin file is, the first that applies:
//!
//! - `$ASK_POPUP_PLUGIN_WASM` when set: a plugin built before (`scripts/install.sh`,
//!   `scripts/release.sh` and `scripts/demo.sh` build it with `scripts/build-plugin.sh`). An
//!   empty value builds a command that carries none, on purpose, for what needs no plugin: the
//!   benches' own builds.
//! - `assets/ask-popup.wasm` when there: the released plugin, which `scripts/release.sh` puts
//!   into the packaged crate, so that `cargo install ask-popup` needs no wasm target and never
//!   builds a plugin (a clone has no `assets/`).
//! - In a release build of a clone (`cargo build --release`, `cargo install --path .` or
//!   `--git`): the plugin of the same sources, built here by `scripts/build-plugin.sh` (the
//!   `plugin` profile for wasm32-wasip1, shrunk by wasm-opt when installed: the plugin every
//!   script builds) into a target dir of its own under `OUT_DIR`, which later builds reuse.
//!   Not into the build's own target dir: cargo holds that one's lock while this script runs,
//!   so a cargo started here to build there would wait for it forever. It needs the
//!   wasm32-wasip1 target, and without it the build fails saying `rustup target add
//!   wasm32-wasip1`. A command that cannot write out its plugin is not one to install.
//! - Otherwise (a debug build: the tests) the target dir's `wasm32-wasip1/plugin/ask-popup.wasm`
//!   as `scripts/build-plugin.sh` left it (`$CARGO_TARGET_DIR`, or this clone's `target/`), or
//!   nothing: the tests' builds never build the plugin themselves.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The released plugin, in the packaged crate.
const RELEASED: &str = "assets/ask-popup.wasm";
/// What builds the plugin, in a clone (not packaged).
const BUILD_PLUGIN: &str = "scripts/build-plugin.sh";
/// What the plugin is built from, in a clone: a change to any of them builds it again.
const PLUGIN_SOURCES: [&str; 5] = [
    "crates/plugin",
    "crates/protocol",
    "Cargo.toml",
    "Cargo.lock",
    BUILD_PLUGIN,
];
/// The plugin's target.
const WASM_TARGET: &str = "wasm32-wasip1";

fn main() {
    println!("cargo:rerun-if-env-changed=ASK_POPUP_PLUGIN_WASM");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_DIR");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let embedded = out.join("ask-popup.wasm");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("manifest"));
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let clone = manifest.join(BUILD_PLUGIN).is_file();
    let (source, required) = match std::env::var_os("ASK_POPUP_PLUGIN_WASM") {
        Some(path) if path.is_empty() => {
            std::fs::write(&embedded, b"").expect("write the embedded plugin");
            return;
        }
        Some(path) => (PathBuf::from(path), true),
        None if manifest.join(RELEASED).is_file() => (manifest.join(RELEASED), true),
        None if release && clone => (build_plugin(&manifest, &out), true),
        None => {
            let target_dir = std::env::var_os("CARGO_TARGET_DIR")
                .map(|dir| manifest.join(dir))
                .unwrap_or_else(|| manifest.join("target"));
            (
                target_dir.join(WASM_TARGET).join("plugin/ask-popup.wasm"),
                release,
            )
        }
    };
    if !source.starts_with(&out) {
        // (Not the plugin built here: what it is built from is watched instead, and a file
        // written while this script runs would count as changed since, at every build.)
        println!("cargo:rerun-if-changed={}", source.display());
    }
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

/// Builds the plugin of this clone with `scripts/build-plugin.sh` in a target dir of its own
/// under `out`, and returns the built file.
fn build_plugin(manifest: &Path, out: &Path) -> PathBuf {
    for source in PLUGIN_SOURCES {
        println!("cargo:rerun-if-changed={}", manifest.join(source).display());
    }
    if !wasm_target_installed() {
        panic!(
            "the ask-popup command carries its plugin, which this build builds for the \
             {WASM_TARGET} target, and that target is not installed: `rustup target add \
             {WASM_TARGET}`, then build again (or set ASK_POPUP_PLUGIN_WASM to a built plugin's \
             file)"
        );
    }
    let target_dir = out.join("plugin-target");
    let built = Command::new("bash")
        .arg(manifest.join(BUILD_PLUGIN))
        .current_dir(manifest)
        .env("CARGO_TARGET_DIR", &target_dir)
        // The host build's flags, which cargo hands this script, are not the plugin's: the
        // build is the one `scripts/build-plugin.sh` makes from the same shell.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap_or_else(|e| panic!("run bash {BUILD_PLUGIN}: {e}"));
    // On this script's stderr, which cargo shows when the build fails (its stdout is read as
    // instructions to cargo).
    eprint!(
        "{}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    if !built.status.success() {
        panic!(
            "building the plugin with `bash {BUILD_PLUGIN}` failed ({}): see above",
            built.status
        );
    }
    target_dir.join(WASM_TARGET).join("plugin/ask-popup.wasm")
}

/// Whether the toolchain building this has the plugin's target (rustup's `target add`).
fn wasm_target_installed() -> bool {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(output) = Command::new(rustc).args(["--print", "sysroot"]).output() else {
        return false;
    };
    let sysroot = String::from_utf8_lossy(&output.stdout);
    Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(WASM_TARGET)
        .is_dir()
}
