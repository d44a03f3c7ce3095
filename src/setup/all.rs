//! `ask-popup setup` alone: Zellij, and each agent found on PATH.

use super::claude::claude_file;
use super::codex::codex_file;
use super::opencode::install::opencode_files;
use super::pi::setup_pi;
use super::zellij::install::setup_zellij;
use crate::zellij::programs::find_on_path;

/// `ask-popup setup [--write] [--remove]`: Zellij, and each agent found on PATH.
pub fn setup_all(write: bool, remove: bool) -> i32 {
    let mut status = 0;
    say!("Zellij:");
    status = status.max(setup_zellij(write, remove, None));
    type Setup = fn(bool, bool) -> i32;
    let agents: [(&str, &str, Setup); 4] = [
        // Approvals stay opt-in (`setup claude --approvals`); taking out removes them too.
        ("claude", "Claude Code", |write, remove| {
            claude_file(write, remove, false)
        }),
        ("codex", "Codex", |write, remove| {
            codex_file(write, remove, false)
        }),
        ("pi", "Pi", setup_pi),
        ("opencode", "opencode", |write, remove| {
            opencode_files(write, remove, false)
        }),
    ];
    for (program, name, run) in agents {
        if find_on_path(program).is_none() {
            say!("{name}: not installed (no `{program}` on PATH)");
            continue;
        }
        say!("{name}:");
        status = status.max(run(write, remove));
    }
    status
}
