//! The plugin this command carries, the names setup gives it in Zellij's config, the versions it
//! is built for, and where its release is.

/// The plugin this command was built with (see `build.rs`): empty when it was built without.
pub const PLUGIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/ask-popup.wasm"));

/// The plugin's alias, which agents and the binding name.
pub const ALIAS: &str = "ask-popup";
/// The plugin file's name in `<config dir>/plugins/`.
pub const PLUGIN_FILE: &str = "ask-popup.wasm";
/// The binding brings a hidden popup back: `y` in Zellij's session mode (`Ctrl o`, then `y`).
/// Behind Zellij's own prefix, no shell, editor or agent ever sees the key; session mode binds
/// no `y` by default.
pub const BIND_MODE: &str = "session";
pub const BIND_KEY: &str = "y";

/// This command's (and its plugin's) version, which is the release's: the one the plugin's
/// `version` pipe answers.
pub use ask_popup_protocol::VERSION;
/// The project's repository (the manifest's `repository`), whose releases carry the plugin.
pub const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");
/// The Zellij line this release is built against (zellij-tile's version) and tested with:
/// Zellij loads a plugin built for another version, but plugins break across its minor versions.
pub const ZELLIJ_LINE: &str = "0.45";
/// The Zellij version the tests run, and the one to install.
pub const ZELLIJ_TESTED: &str = "0.45.1";

/// Where the release of `version` has its plugin, for `location` in config.kdl.
pub fn release_url(version: &str) -> String {
    format!("{REPOSITORY}/releases/download/v{version}/{PLUGIN_FILE}")
}

/// Whether a plugin location is a URL Zellij downloads (not a file or one of its own).
pub fn is_url(location: &str) -> bool {
    location.starts_with("https://") || location.starts_with("http://")
}

/// The release a URL names (`…/download/v1.2.3/…`), if it names one.
pub fn release_in(url: &str) -> Option<&str> {
    url.split('/')
        .skip_while(|part| *part != "download")
        .nth(1)
        .and_then(|tag| tag.strip_prefix('v'))
}
