//! `ask-popup setup opencode`: the files it writes into opencode's config dir, and takes out
//! again.

use super::config as opencode;
use crate::setup::files::{edit, files_current, read_text, write_files};
use crate::setup::report::Change;
use crate::setup::skill::skill;
use ask_popup_protocol::atomic_file::OWNER_ONLY;
use std::path::{Path, PathBuf};

/// `ask-popup setup opencode [--write] [--remove]`: the MCP server's entry in opencode's
/// config (printed without --write), and the plugin that answers opencode's own `question`
/// tool in the popup, in opencode's plugin dir.
pub fn setup_opencode(write: bool, remove: bool, approvals: bool) -> i32 {
    if !write && !remove {
        crate::terminal::print(&opencode::snippet(&crate::zellij::programs::exe()));
    }
    opencode_files(write, remove, approvals)
}

/// opencode's config with the entry merged in (or taken out), and the plugin written (or
/// deleted).
pub fn opencode_files(write: bool, remove: bool, approvals: bool) -> i32 {
    let exe = crate::zellij::programs::exe();
    let Some(dir) = opencode::config_dir(|name| std::env::var(name).ok()) else {
        say_err!("ask-popup setup opencode: HOME is not set");
        return 1;
    };
    let path = opencode::config_file(&dir, Path::exists);
    let config = if remove {
        remove_opencode_entry(&path, write)
    } else {
        // opencode's config can carry the providers' keys.
        edit(&path, "opencode", write, OWNER_ONLY, |text| {
            opencode::merge(text, &exe).map_err(|e| e.to_string())
        })
    };
    let plugins = dir.join(opencode::PLUGIN_DIR);
    // Before the plugin, whose folder goes when nothing else is in it.
    let approvals = if approvals || remove {
        opencode_approvals(&plugins, write, remove)
    } else {
        0
    };
    let plugin = opencode_plugin(&plugins, write, remove);
    config
        .max(approvals)
        .max(plugin)
        .max(skill("opencode", write, remove))
}

/// The plugin that asks opencode's permission prompts in the popup, written into `dir` (or
/// deleted, with `remove`).
fn opencode_approvals(dir: &Path, write: bool, remove: bool) -> i32 {
    let path = dir.join(opencode::APPROVALS_PLUGIN.0);
    if let Some(theirs) = not_setups(dir, &[opencode::APPROVALS_PLUGIN]).first() {
        return leave_theirs(theirs, remove);
    }
    if remove {
        if !path.exists() {
            return 0;
        }
        return Change::delete(path.display())
            .make(opencode::AGENT, write, || std::fs::remove_file(&path));
    }
    if opencode_approvals_current(dir) {
        say!("{}: the approvals plugin is there already", path.display());
        return 0;
    }
    Change::write(
        "the plugin that asks opencode's permission prompts in the popup",
        &path,
    )
    .make(opencode::AGENT, write, || {
        write_files(dir, &[opencode::APPROVALS_PLUGIN])
    })
}

/// Takes the entry out of opencode's config; a config that setup wrote (nothing else in it)
/// goes with it.
fn remove_opencode_entry(path: &Path, write: bool) -> i32 {
    let removed = match read_text(path).map(|text| text.map(|t| opencode::remove(&t))) {
        Ok(Some(Ok(Some(text)))) => text,
        Ok(Some(Err(e))) => {
            say_err!(
                "ask-popup setup opencode: left {} alone: {e}",
                path.display()
            );
            return 1;
        }
        Err(e) => {
            say_err!("ask-popup setup opencode: {e}");
            return 1;
        }
        Ok(None) | Ok(Some(Ok(None))) => {
            say!("{}: nothing to change", path.display());
            return 0;
        }
    };
    if removed != opencode::skeleton() {
        return edit(path, "opencode", write, OWNER_ONLY, |_| Ok(Some(removed)));
    }
    Change::said(
        format!("Would delete {}: setup wrote it", path.display()),
        format!("Deleted {}: it held only what setup wrote", path.display()),
    )
    .make(opencode::AGENT, write, || std::fs::remove_file(path))
}

/// The plugin's files in opencode's plugin dir `dir`: written, or deleted with `remove`.
fn opencode_plugin(dir: &Path, write: bool, remove: bool) -> i32 {
    let main = dir.join(opencode::PLUGIN[0].0);
    let theirs = not_setups(dir, &opencode::PLUGIN);
    if !theirs.is_empty() && !remove {
        return leave_theirs(&theirs[0], remove);
    }
    for path in &theirs {
        leave_theirs(path, remove);
    }
    if remove {
        let there: Vec<PathBuf> = opencode::PLUGIN
            .iter()
            .map(|(file, _)| dir.join(file))
            .filter(|p| p.exists() && !theirs.contains(p))
            .collect();
        if there.is_empty() {
            say!("{}: no ask-popup plugin to remove", dir.display());
            return 0;
        }
        let what = format!("the ask-popup plugin from {}", dir.display());
        return Change::delete(what).make(opencode::AGENT, write, || {
            for file in &there {
                std::fs::remove_file(file)?;
            }
            // The plugin's data folder, then the plugin dir, when nothing else is in them.
            for (file, _) in opencode::PLUGIN.iter().rev() {
                if let Some(parent) = dir.join(file).parent() {
                    let _ = std::fs::remove_dir(parent);
                }
            }
            Ok(())
        });
    }
    if opencode_plugin_current(dir) {
        say!("{}: the plugin is there already", main.display());
        return 0;
    }
    Change::write(
        "the plugin that answers opencode's question tool in the popup",
        &main,
    )
    .make(opencode::AGENT, write, || {
        write_files(dir, &opencode::PLUGIN)
    })
}

/// The files of `files` in opencode's plugin dir `dir` that are there and not what setup writes
/// (`opencode::is_plugin_file`): the user's own, which setup neither replaces nor deletes.
fn not_setups(dir: &Path, files: &[(&str, &str)]) -> Vec<PathBuf> {
    files
        .iter()
        .filter_map(|(file, _)| {
            let path = dir.join(file);
            let text = std::fs::read(&path).ok()?;
            let ours = opencode::is_plugin_file(file, &String::from_utf8_lossy(&text));
            (!ours).then_some(path)
        })
        .collect()
}

/// Says that the file at `path`, not setup's, is left alone: with `remove`, as a note (there
/// is nothing of ours to take out), else as an error (ours cannot go there).
fn leave_theirs(path: &Path, remove: bool) -> i32 {
    if remove {
        say!(
            "{}: not ask-popup's plugin (a file of your own?), left alone",
            path.display()
        );
        0
    } else {
        say_err!(
            "ask-popup setup opencode: {} is not ask-popup's plugin (a file of your own?): left alone; move it, then run this again",
            path.display()
        );
        1
    }
}

/// Whether opencode's plugin dir `dir` holds the plugin this command carries, file for file.
pub fn opencode_plugin_current(dir: &Path) -> bool {
    files_current(dir, &opencode::PLUGIN)
}

/// Whether `dir` holds this command's approvals plugin for opencode.
pub fn opencode_approvals_current(dir: &Path) -> bool {
    files_current(dir, &[opencode::APPROVALS_PLUGIN])
}
