//! The command's arguments (clap) and which feature each one runs: nothing else. Each
//! subcommand's work is in its feature's folder (`ask/`, `hooks/`, `later/`, `history/`,
//! `remote/`, `inbox/`, `mcp/`, `setup/`, `zellij/`); docs/ARCHITECTURE.md maps them.

use crate::ask::command::{ask_command, Asking};
use crate::ask::DEFAULT_PLUGIN;
use crate::hooks::command::{
    claude_approval, claude_hook, codex_approval, codex_hook, opencode_approval,
};
use crate::inbox::copies;
use crate::remote::server as serve;
use crate::setup::{all, claude, codex, doctor, opencode, pi, web, zellij as zellij_setup};
use crate::zellij::pipe::pipe_command;
use crate::{history, later, mcp};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "ask-popup",
    version,
    about = "Ask the user 1-4 structured questions in the ask-popup Zellij plugin and print the answers"
)]
struct Cli {
    #[command(subcommand)]
    command: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Put a questionnaire to the user and print the one JSON result envelope.
    ///
    /// Exit status: 0 when the user responded (answers, a decline or a chat request), 1 when the
    /// envelope carries an error (a validation error, timed_out, dismissed, superseded, busy,
    /// aborted), 3 outside Zellij (no_ui), 4 without zellij on PATH (zellij_not_found), 5 when no
    /// reply came (no_reply). Every failure still prints an envelope. Stopped by SIGINT, SIGTERM
    /// or SIGHUP, or when its parent process dies, it withdraws the question from the popup and
    /// prints the `aborted` envelope.
    Ask {
        /// The questionnaire: its JSON, a file holding it, or `-` (the default) for stdin.
        questionnaire: Option<String>,
        /// The name the dialog shows for the asking agent (default: the parent program's name).
        #[arg(long, env = "ASK_POPUP_AGENT")]
        agent: Option<String>,
        /// A request id, echoed in details.requestId; asking again with it replaces the earlier
        /// request (default: a fresh one).
        #[arg(long, env = "ASK_POPUP_ID", allow_hyphen_values = true)]
        id: Option<String>,
        /// Put the question up and print {"requestId": …} at once (exit 0); `ask-popup answer`
        /// prints the envelope once the user has answered.
        #[arg(long)]
        no_wait: bool,
        /// (What --no-wait leaves to wait: keeps the envelope for `ask-popup answer`, under
        /// this token.)
        #[arg(long, hide = true, conflicts_with = "no_wait", value_name = "TOKEN")]
        keep_answer: Option<String>,
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// Print the envelope of the question last asked under the id with --no-wait (or the
    /// record's of the id asked from this pane), once it has ended; while it waits, print
    /// {"requestId": …, "waiting": true} and exit 6. Exit statuses otherwise as for `ask`.
    Answer {
        /// The request's id, as `ask --no-wait` printed it.
        #[arg(allow_hyphen_values = true)]
        id: String,
        /// Wait until it has ended (or --timeout passes).
        #[arg(long)]
        wait: bool,
        /// With --wait: give up after this many seconds.
        #[arg(long)]
        timeout: Option<u64>,
    },
    /// The record of every questionnaire put to the user, the latest first: when, who asked,
    /// each question and its answer. Works outside Zellij.
    History {
        /// Only those asked by this agent.
        #[arg(long)]
        agent: Option<String>,
        /// Only those of this Zellij session.
        #[arg(long)]
        session: Option<String>,
        /// Only those with this text in a question, an option, an answer or a note.
        #[arg(long)]
        search: Option<String>,
        /// Only those asked in this last span of time (90s, 30m, 2h, 3d).
        #[arg(long, value_parser = parse_span)]
        since: Option<u64>,
        /// At most this many (0: all).
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// One JSON object per line, with the envelope's details.
        #[arg(long)]
        json: bool,
        /// Delete the record.
        #[arg(long)]
        clear: bool,
    },
    /// Listen on a private Unix socket ($ASK_POPUP_SOCKET, else ask-popup.sock in
    /// $XDG_RUNTIME_DIR) for questions from where no Zellij session is reachable (a container
    /// given the socket, another machine over `ssh -R`), and ask each in the Zellij session the
    /// person is attached to. `ask-popup ask` outside Zellij sends through it when it is there.
    Serve {
        /// As the command starts it (inside a Zellij session, when no server answers): quiet,
        /// and ends once no Zellij session has been left for a minute.
        #[arg(long, hide = true)]
        on_demand: bool,
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// Print what is waiting in the popup, as JSON (the plugin's `status` pipe).
    Status {
        /// Every session of this machine: {"sessions":[{"session": …, "pending": […], …}]}
        /// (a session nobody is attached to, whose plugin does not run, says so instead).
        #[arg(long)]
        all_sessions: bool,
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// Mark this pane as waiting on the person, as a question in the popup does, while the
    /// agent asks in a dialog of its own (another Pi extension's confirm, say): the pane's ⏳
    /// and the `ask-popup:blocked` / `herdr:blocked` pair. Runs until it is stopped (SIGINT,
    /// SIGTERM, SIGHUP) or its parent ends, then takes the mark off; --end ends the wait of
    /// --id at once. Exit statuses as for `ask` (3 outside Zellij, 5 when the plugin did not
    /// answer).
    Blocked {
        /// The name status bars show for the waiting agent (default: the parent program's).
        #[arg(long, env = "ASK_POPUP_AGENT")]
        agent: Option<String>,
        /// The wait's id (default: a fresh one); --end ends the wait of this id.
        #[arg(long, allow_hyphen_values = true)]
        id: Option<String>,
        /// End the wait of --id now, rather than start one.
        #[arg(long, requires = "id")]
        end: bool,
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// Bring a hidden popup back (the plugin's `show` pipe).
    Show {
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// Claude Code's PreToolUse hook for AskUserQuestion: reads the hook input on stdin and
    /// answers Claude Code from the popup (see `ask-popup setup claude`).
    ClaudeHook {
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// Claude Code's PermissionRequest hook: asks its permission prompt in the popup and allows
    /// or denies as the user answers; anything else leaves Claude Code's own prompt to decide
    /// (see `ask-popup setup claude --approvals`).
    ClaudeApproval {
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// Claude Code's Elicitation hook: asks an MCP server's form (or URL) in the popup and
    /// answers it as the user does; anything else leaves Claude Code's own form to ask (see
    /// `ask-popup setup claude`).
    ClaudeElicitation {
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// Codex's PermissionRequest hook: asks its permission prompt in the popup and allows or
    /// denies as the user answers; anything else leaves Codex's own prompt to decide (see
    /// `ask-popup setup codex --approvals`).
    CodexApproval {
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// opencode's permission prompts, for the opencode plugin ask-popup-approvals.js: reads the
    /// `permission.asked` event's properties on stdin, asks in the popup and prints opencode's
    /// reply, or nothing so that opencode's own prompt decides.
    #[command(hide = true)]
    OpencodeApproval {
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// Codex's PreToolUse hook for its own question tool, request_user_input: reads the hook
    /// input on stdin and answers Codex from the popup (see `ask-popup setup codex`).
    CodexHook {
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// An MCP server on stdio with one tool, ask_user_question, answered in the popup (see
    /// `ask-popup setup codex` and `ask-popup setup claude-mcp`).
    Mcp {
        #[command(flatten)]
        plugin: PluginArg,
    },
    /// Wire Zellij and the installed agents to ask-popup (all of them, or the one named): print
    /// what would change, do it with --write, take it out again with --remove --write.
    Setup {
        #[command(subcommand)]
        agent: Option<SetupAgent>,
        #[command(flatten)]
        how: SetupHow,
    },
    /// Check that everything ask-popup needs is in place: one line per check, each ✗ with the
    /// command that fixes it. Exits 0 only when every check holds.
    Doctor {
        /// Print the checks as JSON.
        #[arg(long)]
        json: bool,
        /// Zellij's config dir (default: $ZELLIJ_CONFIG_DIR, else where Zellij finds it).
        #[arg(long)]
        config_dir: Option<PathBuf>,
        #[command(flatten)]
        plugin: PluginArg,
    },
}

#[derive(clap::Args)]
struct PluginArg {
    /// The plugin's URL or alias.
    #[arg(long, env = "ASK_POPUP_PLUGIN", default_value = DEFAULT_PLUGIN)]
    plugin: String,
}

#[derive(Subcommand)]
enum SetupAgent {
    /// Zellij: the plugin file in Zellij's config dir, and the `ask-popup` alias and the binding
    /// that brings a hidden popup back (Ctrl o, then y) merged into config.kdl. Without --write
    /// it prints what it would change.
    Zellij {
        #[command(flatten)]
        how: SetupHow,
        /// Zellij's config dir (default: $ZELLIJ_CONFIG_DIR, else where Zellij finds it).
        #[arg(long)]
        config_dir: Option<PathBuf>,
        /// Have Zellij load the plugin from this URL (http or https) instead of the file this
        /// command carries: no file is written, and an alias already there is pointed at it.
        /// Without a value: this version's release on the project's page.
        #[arg(long, num_args = 0..=1, default_missing_value = "", conflicts_with = "remove")]
        url: Option<String>,
    },
    /// Zellij's web client, to answer from a browser: sharing and the web server turned on in
    /// config.kdl, the server started, a login token made when none exists, and the URL to open
    /// printed. Zellij shows a token only once, so it is made and printed only when stdout is a
    /// terminal (otherwise setup prints the command to run in one). --remove --write also
    /// revokes the tokens setup made and stops the server if setup started it. Without --write
    /// it prints what it would do.
    Web {
        #[command(flatten)]
        how: SetupHow,
        /// Make a new login token even when one exists (with --write, in a terminal).
        #[arg(long, conflicts_with = "remove")]
        new_token: bool,
        /// Zellij's config dir (default: $ZELLIJ_CONFIG_DIR, else where Zellij finds it).
        #[arg(long)]
        config_dir: Option<PathBuf>,
    },
    /// Claude Code: the PreToolUse hook that answers AskUserQuestion from the popup, printed, or
    /// merged into ~/.claude/settings.json with --write.
    Claude {
        #[command(flatten)]
        how: SetupHow,
        /// Also ask Claude Code's permission prompts in the popup (its PermissionRequest hook).
        #[arg(long)]
        approvals: bool,
    },
    /// Codex: the `[mcp_servers.ask-popup]` table, printed, or merged into
    /// ~/.codex/config.toml ($CODEX_HOME) with --write.
    Codex {
        #[command(flatten)]
        how: SetupHow,
        /// Also ask Codex's permission prompts in the popup (its PermissionRequest hook).
        #[arg(long)]
        approvals: bool,
    },
    /// Pi: the ask_user_question extension, installed into Pi's extensions dir with --write
    /// (~/.pi/agent/extensions/ask-popup, or under $PI_CODING_AGENT_DIR).
    Pi {
        #[command(flatten)]
        how: SetupHow,
    },
    /// opencode: the `ask-popup` MCP server in its config (~/.config/opencode/opencode.json or
    /// opencode.jsonc; $XDG_CONFIG_HOME, $OPENCODE_CONFIG_DIR), printed, or merged in with
    /// --write, and the plugin that answers opencode's own question tool in the popup, written
    /// into its plugin dir.
    Opencode {
        #[command(flatten)]
        how: SetupHow,
        /// Also ask opencode's permission prompts in the popup (a second plugin beside the
        /// first).
        #[arg(long)]
        approvals: bool,
    },
    /// Claude Code: the `claude mcp add` line for the MCP server (the hook, `setup claude`, is
    /// the better fit for Claude Code); with --write, also keeps the server's calls in the
    /// foreground however long the user takes (CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS=0 in the `env`
    /// of ~/.claude/settings.json).
    ClaudeMcp {
        #[command(flatten)]
        how: SetupHow,
    },
}

/// What a setup does: print, write, or take out again.
#[derive(clap::Args, Clone, Copy)]
struct SetupHow {
    /// Do it (keeping each edited file's old text beside it, as .bak).
    #[arg(long)]
    write: bool,
    /// Take out exactly what setup added (with --write; without, print what it would take out).
    #[arg(long)]
    remove: bool,
}

/// Runs the command as its arguments say; its exit status.
pub fn main() -> i32 {
    match Cli::parse().command {
        Action::Ask {
            questionnaire,
            agent,
            id,
            no_wait,
            keep_answer,
            plugin,
        } => {
            let how = match keep_answer {
                _ if no_wait => Asking::Later,
                Some(token) => Asking::Kept(token),
                None => Asking::Waiting,
            };
            ask_command(questionnaire.as_deref(), agent, id, &plugin.plugin, how)
        }
        Action::Answer { id, wait, timeout } => {
            later::command::answer_command(&id, wait, timeout.map(Duration::from_secs))
        }
        Action::History {
            agent,
            session,
            search,
            since,
            limit,
            json,
            clear,
        } => history::command::history_command(history::command::HistoryRequest {
            agent,
            session,
            search,
            since_ms: since,
            limit,
            json,
            clear,
        }),
        Action::Serve { on_demand, plugin } => serve::serve(&plugin.plugin, on_demand),
        Action::Status {
            all_sessions: true,
            plugin,
        } => copies::status_of_every_session(&plugin.plugin),
        Action::Status { plugin, .. } => pipe_command(&plugin.plugin, "status"),
        Action::Show { plugin } => pipe_command(&plugin.plugin, "show"),
        Action::Blocked {
            agent,
            id,
            end,
            plugin,
        } => crate::ask::blocked::blocked_command(agent, id, end, &plugin.plugin),
        Action::ClaudeHook { plugin } => claude_hook(&plugin.plugin),
        Action::CodexHook { plugin } => codex_hook(&plugin.plugin),
        Action::ClaudeApproval { plugin } => claude_approval(&plugin.plugin),
        Action::CodexApproval { plugin } => codex_approval(&plugin.plugin),
        Action::ClaudeElicitation { plugin } => {
            crate::hooks::elicitation::claude_elicitation(&plugin.plugin)
        }
        Action::OpencodeApproval { plugin } => opencode_approval(&plugin.plugin),
        Action::Mcp { plugin } => mcp::server::serve(&plugin.plugin),
        Action::Doctor {
            json,
            config_dir,
            plugin,
        } => doctor::doctor(json, config_dir.as_deref(), &plugin.plugin),
        Action::Setup { agent, how } => match agent {
            None => all::setup_all(how.write, how.remove),
            Some(SetupAgent::Zellij {
                how,
                config_dir,
                url,
            }) => match url {
                None => zellij_setup::setup_zellij(how.write, how.remove, config_dir.as_deref()),
                Some(url) => zellij_setup::setup_zellij_url(how.write, &url, config_dir.as_deref()),
            },
            Some(SetupAgent::Web {
                how,
                new_token,
                config_dir,
            }) => web::setup_web(how.write, how.remove, new_token, config_dir.as_deref()),
            Some(SetupAgent::Claude { how, approvals }) => {
                claude::setup_claude(how.write, how.remove, approvals)
            }
            Some(SetupAgent::Codex { how, approvals }) => {
                codex::setup_codex(how.write, how.remove, approvals)
            }
            Some(SetupAgent::Pi { how }) => pi::setup_pi(how.write, how.remove),
            Some(SetupAgent::Opencode { how, approvals }) => {
                opencode::setup_opencode(how.write, how.remove, approvals)
            }
            Some(SetupAgent::ClaudeMcp { how }) => claude::setup_claude_mcp(how.write, how.remove),
        },
    }
}

/// A span of time as `--since` takes it (`2h`).
fn parse_span(text: &str) -> Result<u64, String> {
    crate::history::parse_span(text)
        .ok_or_else(|| format!("{text:?} is not a span of time like 90s, 30m, 2h or 3d"))
}
