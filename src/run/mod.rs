//! What the `ask-popup` command does: its arguments, the `zellij pipe` calls, signals and stdio.
//! What it decides (the payload, the pipe's arguments, which output is the reply, the exit
//! statuses, the Claude Code hook's answer, the MCP tool's result, the settings, the
//! notification of a question left waiting) lives in the library (`ask_popup`); the MCP server's
//! protocol side is `mcp.rs`, the notification's timer and command `notify.rs`.

/// `println!` for a person: the line cleaned for their terminal (`ask_popup::terminal`).
macro_rules! say {
    ($($arg:tt)*) => { $crate::run::say(&format!($($arg)*)) };
}

/// `eprintln!` for a person, cleaned the same way.
macro_rules! say_err {
    ($($arg:tt)*) => { $crate::run::say_err(&format!($($arg)*)) };
}

mod children;
mod copies;
mod doctor;
mod install;
mod later;
mod mcp;
mod notify;
mod programs;
mod serve;
mod web;

use ask_popup::ask::{self, Caller, PayloadSource, DEFAULT_PLUGIN};
use ask_popup::terminal;
use ask_popup::{approval, claude, codex};
use ask_popup_protocol::envelope::{Envelope, ErrorCode};
use ask_popup_protocol::error_code::Next;
use clap::{Parser, Subcommand};
use programs::ZellijCli;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

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
            later::answer_command(&id, wait, timeout.map(Duration::from_secs))
        }
        Action::History {
            agent,
            session,
            search,
            since,
            limit,
            json,
            clear,
        } => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            let filter = ask_popup::history::Filter {
                agent,
                session,
                search,
                since_ms: since.map(|span| now.saturating_sub(span)),
                request_id: None,
            };
            later::history_command(later::HistoryRequest {
                filter,
                limit,
                json,
                clear,
            })
        }
        Action::Serve { on_demand, plugin } => serve::serve(&plugin.plugin, on_demand),
        Action::Status {
            all_sessions: true,
            plugin,
        } => copies::status_of_every_session(&plugin.plugin),
        Action::Status { plugin, .. } => pipe_command(&plugin.plugin, "status"),
        Action::Show { plugin } => pipe_command(&plugin.plugin, "show"),
        Action::ClaudeHook { plugin } => claude_hook(&plugin.plugin),
        Action::CodexHook { plugin } => codex_hook(&plugin.plugin),
        Action::ClaudeApproval { plugin } => claude_approval(&plugin.plugin),
        Action::CodexApproval { plugin } => codex_approval(&plugin.plugin),
        Action::OpencodeApproval { plugin } => opencode_approval(&plugin.plugin),
        Action::Mcp { plugin } => mcp::serve(&plugin.plugin),
        Action::Doctor {
            json,
            config_dir,
            plugin,
        } => doctor::doctor(json, config_dir.as_deref(), &plugin.plugin),
        Action::Setup { agent, how } => match agent {
            None => install::setup_all(how.write, how.remove),
            Some(SetupAgent::Zellij {
                how,
                config_dir,
                url,
            }) => match url {
                None => install::setup_zellij(how.write, how.remove, config_dir.as_deref()),
                Some(url) => install::setup_zellij_url(how.write, &url, config_dir.as_deref()),
            },
            Some(SetupAgent::Web {
                how,
                new_token,
                config_dir,
            }) => web::setup_web(how.write, how.remove, new_token, config_dir.as_deref()),
            Some(SetupAgent::Claude { how, approvals }) => {
                install::setup_claude(how.write, how.remove, approvals)
            }
            Some(SetupAgent::Codex { how, approvals }) => {
                install::setup_codex(how.write, how.remove, approvals)
            }
            Some(SetupAgent::Pi { how }) => install::setup_pi(how.write, how.remove),
            Some(SetupAgent::Opencode { how, approvals }) => {
                install::setup_opencode(how.write, how.remove, approvals)
            }
            Some(SetupAgent::ClaudeMcp { how }) => install::setup_claude_mcp(how.write, how.remove),
        },
    }
}

/// How `ask-popup ask` waits for the answer.
#[derive(Clone, PartialEq, Eq)]
enum Asking {
    /// Until it comes, and prints it.
    Waiting,
    /// Not: prints the request's id (`--no-wait`).
    Later,
    /// In the place of an `ask --no-wait`, keeping the answer under its token
    /// (`--keep-answer=TOKEN`).
    Kept(String),
}

/// `ask-popup ask`.
fn ask_command(
    arg: Option<&str>,
    agent: Option<String>,
    id: Option<String>,
    plugin: &str,
    how: Asking,
) -> i32 {
    // Asked without waiting, the id is what the answer is fetched with: always the caller's.
    let id_given = how != Asking::Waiting || id.as_deref().is_some_and(|id| !id.is_empty());
    let caller = Caller {
        pane_id: std::env::var("ZELLIJ_PANE_ID").ok(),
        agent: agent.or_else(parent_name),
        id: id.filter(|id| !id.is_empty()).unwrap_or_else(fresh_id),
        id_given,
        approval_by: None,
    };
    let payload = read_payload(&PayloadSource::of(arg, |path| Path::new(path).is_file()));
    match how {
        Asking::Later => later::ask_without_waiting(payload, &caller, plugin),
        Asking::Kept(token) => later::ask_and_keep(payload, &caller, plugin, &token),
        Asking::Waiting => {
            let envelope = answer(payload, &caller, plugin, &Interrupts::install());
            print(&terminal::json_for_terminal(&envelope));
            ask::exit_status(&envelope)
        }
    }
}

/// A span of time as `--since` takes it (`2h`).
fn parse_span(text: &str) -> Result<u64, String> {
    ask_popup::history::parse_span(text)
        .ok_or_else(|| format!("{text:?} is not a span of time like 90s, 30m, 2h or 3d"))
}

/// The envelope for a questionnaire read as `payload`: rejected at once, or asked in the popup
/// until it is answered, fails, or `stop` says the caller went away (then withdrawn).
fn answer(
    payload: Result<Vec<u8>, ask_popup_protocol::request::RequestError>,
    caller: &Caller,
    plugin: &str,
    stop: &dyn Stop,
) -> String {
    let line = match payload.and_then(|payload| ask::prepare(&payload, caller)) {
        Ok(line) => line,
        Err(error) => return caller.rejection(&error),
    };
    let zellij = Zellij::find(plugin);
    // A session this command cannot reach itself (not inside Zellij, no `zellij` here, or the
    // named session's server not on this machine: a container given `$ZELLIJ_SESSION_NAME`)
    // is asked through `ask-popup serve`'s socket when there is one; without one, as before.
    if zellij.is_err() || !children::session_is_here() {
        if let Some(envelope) = serve::ask_through_socket(caller, &line, stop) {
            // A server with no session to ask in either adds nothing to what is lacking here.
            let no_ui =
                Envelope::read(&envelope).is_some_and(|e| e.error() == Some(Ok(ErrorCode::NoUi)));
            if !no_ui {
                return envelope;
            }
        }
    }
    match zellij {
        Err(code) => caller.failure(code),
        Ok(zellij) => zellij.ask(caller, &line, stop),
    }
}

/// `ask-popup claude-hook`: prints Claude Code's answer, or nothing so that it asks itself.
fn claude_hook(plugin: &str) -> i32 {
    hook_command(
        "claude-hook",
        "Claude Code",
        plugin,
        |input| {
            claude::read_input(input)
                .map(|call| call.map(|c| (c.payload.clone(), c.tool_use_id.clone(), c)))
                .map_err(|e| e.to_string())
        },
        claude::AGENT,
        claude::answer,
        |_| None,
    )
}

/// `ask-popup codex-hook`: prints Codex's answer to its `request_user_input`, or nothing so
/// that it asks itself.
fn codex_hook(plugin: &str) -> i32 {
    hook_command(
        "codex-hook",
        "Codex",
        plugin,
        |input| {
            codex::read_input(input)
                .map(|call| call.map(|c| (c.payload.clone(), c.tool_use_id.clone(), c)))
                .map_err(|e| e.to_string())
        },
        codex::AGENT,
        codex::answer,
        |_| None,
    )
}

/// `ask-popup claude-approval`: prints Claude Code's decision on its permission prompt, or
/// nothing so that its own prompt (on screen meanwhile) decides. The question leaves the popup
/// when that prompt was answered (a tool result in the session's transcript).
fn claude_approval(plugin: &str) -> i32 {
    hook_command(
        "claude-approval",
        "Claude Code",
        plugin,
        |input| {
            approval::read_hook_input(input, claude::AGENT)
                .map(|r| r.map(|r| (r.payload.clone(), None, r)))
        },
        claude::AGENT,
        approval::hook_answer,
        |request| {
            let path = request.transcript.clone()?;
            let from = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            Some(Box::new(move || approval::answered_in_transcript(&path, from)) as Watch)
        },
    )
}

/// `ask-popup codex-approval`: prints Codex's decision on its permission prompt, or nothing so
/// that Codex asks in its own prompt.
fn codex_approval(plugin: &str) -> i32 {
    hook_command(
        "codex-approval",
        "Codex",
        plugin,
        |input| {
            approval::read_hook_input(input, codex::AGENT)
                .map(|r| r.map(|r| (r.payload.clone(), None, r)))
        },
        codex::AGENT,
        approval::hook_answer,
        |_| None,
    )
}

/// `ask-popup opencode-approval`: prints opencode's reply to its permission prompt, or nothing so
/// that its own prompt (open meanwhile) decides; the opencode plugin stops it when that prompt
/// is answered.
fn opencode_approval(plugin: &str) -> i32 {
    hook_command(
        "opencode-approval",
        "opencode",
        plugin,
        |input| {
            approval::read_opencode(input).map(|r| r.map(|r| (r.payload.clone(), r.id.clone(), r)))
        },
        ask_popup::opencode::AGENT,
        approval::opencode_answer,
        |_| None,
    )
}

/// An agent's hook: reads the hook input on stdin (`read` gives the questionnaire, the call's id
/// and the call, or `None` for a call to leave alone), asks as `ask-popup ask` asks, and prints
/// what `respond` makes of the envelope, or nothing so that the agent's own dialog asks.
fn hook_command<C>(
    name: &str,
    agent_name: &str,
    plugin: &str,
    read: impl Fn(&[u8]) -> Result<Option<(String, Option<String>, C)>, String>,
    agent: &str,
    respond: impl Fn(&C, &str) -> Option<String>,
    watch: impl Fn(&C) -> Option<Watch>,
) -> i32 {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        say_err!("ask-popup {name}: could not read the hook input: {e}");
        return 0;
    }
    let (payload, id, call) = match read(&input) {
        Ok(Some(call)) => call,
        Ok(None) => return 0,
        Err(e) => {
            say_err!("ask-popup {name}: {e}; {agent_name} asks the question itself");
            return 0;
        }
    };
    let caller = Caller {
        pane_id: std::env::var("ZELLIJ_PANE_ID").ok(),
        agent: Some(agent.to_owned()),
        id: id.unwrap_or_else(fresh_id),
        id_given: false,
        // The approval hooks (`claude-approval`, …) alone ask permission prompts.
        approval_by: name.ends_with("-approval").then(|| name.to_owned()),
    };
    let envelope = answer(
        Ok(payload.into_bytes()),
        &caller,
        plugin,
        &Interrupts::install_watching(watch(&call)),
    );
    if let Some(answer) = respond(&call, &envelope) {
        print(&answer);
    } else if let Some(refused) = Envelope::read(&envelope)
        .filter(|e| matches!(e.error(), Some(Ok(code)) if code.next() == Next::FixTheRequest))
    {
        say_err!(
            "ask-popup {name}: the popup cannot show these questions ({}); {agent_name} asks them itself",
            refused.text()
        );
    }
    0
}

/// `ask-popup status` and `ask-popup show`: what the pipe answers, printed as it came.
fn pipe_command(plugin: &str, name: &str) -> i32 {
    let zellij = match Zellij::find(plugin) {
        Ok(zellij) => zellij,
        Err(code) => {
            say_err!(
                "ask-popup {name}: {}",
                ask_popup_protocol::envelope::host_text(code)
            );
            return code.exit_status();
        }
    };
    for attempt in 1..=ask::ATTEMPTS {
        thread::sleep(Duration::from_millis(ask::backoff_ms(attempt)));
        let Some((success, stdout)) = zellij.call(name, "", "now", PIPE_TIMEOUT) else {
            continue;
        };
        let answered = if name == "status" {
            ask::is_status(&stdout)
        } else {
            success
        };
        if answered {
            // The plugin's JSON: what agents asked (their names, headers) stays exact, and
            // cannot drive the terminal.
            print(&terminal::json_for_terminal(&String::from_utf8_lossy(
                &stdout,
            )));
            return 0;
        }
    }
    say_err!(
        "ask-popup {name}: no answer from the plugin `{plugin}` (is it loaded in this session?)"
    );
    ErrorCode::NoReply.exit_status()
}

/// This command's path, for the configuration that runs it.
pub(crate) fn exe() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(str::to_owned))
        .unwrap_or_else(|| "ask-popup".to_owned())
}

/// How long a `zellij pipe` that answers at once (`cancel`, `status`, `show`) may take.
pub(super) const PIPE_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest pause between two askings of a question whose copies wait in other sessions.
const COPIES_RETRY: Duration = Duration::from_secs(2);
/// How long after its first pipe a question's session may still be starting, so that Zellij's
/// CLI does not find it yet and fails at once.
const SESSION_STARTS: Duration = Duration::from_secs(10);
/// How often a waiting command looks at its child and its parent.
pub(super) const POLL: Duration = Duration::from_millis(50);

/// The Zellij session this command runs in, and the plugin it asks.
struct Zellij {
    cli: ZellijCli,
    plugin: String,
    /// The session asked, when not the one this command runs in (`ask-popup serve`).
    session: Option<String>,
}

impl Zellij {
    /// The session's `zellij`, or why there is none: not inside Zellij, or not installed.
    fn find(plugin: &str) -> Result<Zellij, ErrorCode> {
        let inside = ["ZELLIJ", "ZELLIJ_SESSION_NAME"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
        if !inside {
            return Err(ErrorCode::NoUi);
        }
        let cli = ZellijCli::find().ok_or(ErrorCode::ZellijNotFound)?;
        Ok(Zellij {
            cli,
            plugin: plugin.to_owned(),
            session: None,
        })
    }

    /// The session named `session`, asked from outside it (`ask-popup serve`).
    fn of_session(plugin: &str, session: &str) -> Result<Zellij, ErrorCode> {
        let cli = ZellijCli::find().ok_or(ErrorCode::ZellijNotFound)?;
        Ok(Zellij {
            cli,
            plugin: plugin.to_owned(),
            session: Some(session.to_owned()),
        })
    }

    /// A `zellij pipe` that ends with this command (see `children`).
    fn pipe(&self, name: &str, args: &str) -> Command {
        let mut command = self.pipe_on_its_own(name, args);
        children::tied_to_this_process(&mut command);
        command
    }

    /// A `zellij pipe` that this command's end does not end. Its session is named even when
    /// it is this command's own: with one session that Zellij's CLI takes for live it sends to
    /// that one whatever `$ZELLIJ_SESSION_NAME` says, and a session whose server is starting
    /// is not yet among them (the question went to another session, marking a pane there).
    fn pipe_on_its_own(&self, name: &str, args: &str) -> Command {
        let mut command = self.cli.command();
        if let Some(session) = self.session.clone().or_else(children::this_session_by_name) {
            command.args(["--session", &session]);
        }
        command.args(["pipe", "--plugin", &self.plugin, "--name", name]);
        if !args.is_empty() {
            command.args(["--args", args]);
        }
        command.stderr(Stdio::null());
        command
    }

    /// Asks the question until an envelope for it comes back; withdraws it when interrupted,
    /// and gives up (`no_reply`) once the session's server is gone. Asked again or not, it is
    /// one question: the user's notify command runs at most once, and only while no envelope
    /// is in hand.
    ///
    /// Asked in this command's own session, or by `ask-popup serve` in the one it picked, it
    /// is shown in the other sessions that have a client attached too, when nobody is attached
    /// there (`copies`): answered there, it is
    /// taken back here without a record (the answering session keeps it) and that answer is
    /// the reply; ended here, it is taken back there.
    fn ask(&self, caller: &Caller, line: &str, stop: &dyn Stop) -> String {
        let copies = match self.session {
            None => {
                // For the agents of containers and other machines (see `serve`).
                serve::start_on_demand(&self.plugin);
                copies::Copies::start(&self.plugin, caller, line)
            }
            // `ask-popup serve`'s question, in the session it picked: the same copies.
            Some(ref session) => copies::Copies::start_in(&self.plugin, caller, line, session),
        };
        let envelope = self.ask_here(caller, "", line, stop, &copies);
        copies.end_after(&envelope);
        envelope
    }

    /// `ask` in this session alone, the pipe's arguments with `extra` (a copy's `from_session`
    /// and `from_pane`; no notification for a copy); a copy's answer in `copies` ends it.
    fn ask_here(
        &self,
        caller: &Caller,
        extra: &str,
        line: &str,
        stop: &dyn Stop,
        copies: &copies::Copies,
    ) -> String {
        let notice = if extra.is_empty() {
            notify::Notice::start(&self.cli, caller, line, self.session.as_deref())
        } else {
            notify::Notice::none()
        };
        // The asking pane's own terminal (none for `ask-popup serve`: the caller's command
        // tells its own, on the other machine).
        if self.session.is_none() && caller.pane_id.is_some() {
            notify::tell_terminal(caller, line);
        }
        let mut args = caller.pipe_args();
        if !extra.is_empty() {
            args.push(',');
            args.push_str(extra);
        }
        let mut session = match &self.session {
            Some(name) => children::SessionWatch::of_session(name),
            None => children::SessionWatch::of_this_session(),
        };
        // Shown in other sessions, or asked where nobody is attached, it is asked here again
        // and again until it ends (a session nobody is attached to lets no pipe through): once
        // somebody comes (say by the go key of a copy), it is here too. Only the pipes sent
        // while somebody could let them through count as attempts.
        let mut attempt = 0;
        let mut sent = 0;
        let mut at_once = false;
        let first_sent = Instant::now();
        while attempt < ask::ATTEMPTS || copies.made() || copies.home_unattended() {
            sent += 1;
            if sent > ask::ATTEMPTS && session.gone() {
                break;
            }
            let backoff = if at_once {
                Duration::ZERO
            } else {
                Duration::from_millis(ask::backoff_ms(sent)).min(COPIES_RETRY)
            };
            match pause(stop, copies, backoff) {
                Paused::Over => {}
                Paused::Stopped => {
                    notice.settle();
                    copies.end();
                    return self.withdraw_from(caller, None, copies);
                }
                Paused::Answered(envelope) => {
                    notice.settle();
                    return self.answered_elsewhere(caller, copies, envelope);
                }
            }
            let mut command = self.pipe("ask", &args);
            let Ok(mut child) = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn() else {
                continue;
            };
            let stdin = child.stdin.take();
            let payload = format!("{line}\n");
            thread::spawn(move || {
                if let Some(mut stdin) = stdin {
                    let _ = stdin.write_all(payload.as_bytes());
                }
            });
            let stdout = reply_in_background(&mut child, &caller.id);
            let asked = Instant::now();
            // A pipe into a session nobody is attached to waits, and is never let through, not
            // even once somebody comes: such a pipe is sent again, at once when somebody came.
            // So is one sent while the session's metadata still counted a client that was not
            // there (`attach --create-background` leaves its creating client counted until
            // the next CLI connection).
            let unattended = copies.home_unattended();
            let mut counted = !unattended;
            if counted {
                attempt += 1;
            }
            at_once = false;
            let out = loop {
                match stdout.recv_timeout(POLL) {
                    Ok(out) => break out,
                    Err(RecvTimeoutError::Disconnected) => break Vec::new(),
                    Err(RecvTimeoutError::Timeout) => {}
                }
                copies.look();
                let unattended_now = copies.home_unattended();
                at_once = unattended && !unattended_now;
                let again = at_once
                    || (unattended && asked.elapsed() >= COPIES_RETRY)
                    || (!unattended && unattended_now);
                if again {
                    if counted {
                        // Sent where nobody was: it was no attempt.
                        attempt -= 1;
                        counted = false;
                    }
                    let _ = child.kill();
                    let _ = child.wait();
                    break Vec::new();
                }
                if stop.wait(Duration::ZERO) {
                    notice.settle();
                    // The copies first: taking it back here may wait on a session nobody
                    // is attached to.
                    copies.end();
                    return self.withdraw_from(caller, Some(child), copies);
                }
                if let copies::State::Answered(envelope, _) = copies.state() {
                    notice.settle();
                    let _ = child.kill();
                    let _ = child.wait();
                    return self.answered_elsewhere(caller, copies, envelope);
                }
                if session.gone() {
                    // Its `zellij pipe` would wait for good, spinning a core.
                    notice.settle();
                    copies.end();
                    let _ = child.kill();
                    let _ = child.wait();
                    return caller.failure(ErrorCode::NoReply);
                }
            };
            if let Some(envelope) = ask::reply_in(&out, &caller.id) {
                notice.settle();
                // The CLI exits once the plugin lets its pipe go, a moment after the reply:
                // the agent need not wait for that.
                thread::spawn(move || child.wait());
                return envelope;
            }
            let failed = child.wait().is_ok_and(|status| !status.success());
            if counted && failed && first_sent.elapsed() < SESSION_STARTS {
                // Zellij's CLI did not find this session among the live ones yet (its server
                // starts): no attempt either.
                attempt -= 1;
            }
        }
        copies.end();
        // No reply came back, but a question may have reached the popup all the same: it is
        // taken back, or the agent, asking in its own dialog now, would leave it there for
        // the person to answer for nothing.
        if !session.gone() {
            self.take_back(caller);
        }
        caller.failure(ErrorCode::NoReply)
    }

    /// The question was answered in another session (`envelope`), which keeps the record: it
    /// is taken back here and from the other sessions, and that answer is the reply.
    fn answered_elsewhere(
        &self,
        caller: &Caller,
        copies: &copies::Copies,
        envelope: String,
    ) -> String {
        copies.end();
        // Not waited for: nobody may be attached here to let it through soon.
        let mut args = caller.pipe_args();
        args.push_str(",answered_elsewhere=1");
        self.cancel_in_background(&args);
        envelope
    }

    /// Sends a `cancel` pipe with `args` that this command does not wait for, and that
    /// outlives it (ending by itself after `PIPE_TIMEOUT`). Reaped on a thread of its own while
    /// this command runs (a long-lived `ask-popup mcp` would otherwise keep a zombie of every
    /// cancel), by whoever adopts it once the command has ended.
    fn cancel_in_background(&self, args: &str) {
        let mut command = self.pipe_on_its_own("cancel", args);
        children::on_its_own_for(&mut command, PIPE_TIMEOUT);
        command.args(["--", "withdraw"]);
        if let Ok(mut child) = command.stdin(Stdio::null()).stdout(Stdio::null()).spawn() {
            thread::spawn(move || child.wait());
        }
    }

    /// `withdraw`, not waiting for a session nobody is attached to (it lets no pipe through,
    /// and the caller that stopped waits for its envelope).
    fn withdraw_from(
        &self,
        caller: &Caller,
        asking: Option<Child>,
        copies: &copies::Copies,
    ) -> String {
        if !copies.home_unattended() {
            return self.withdraw(caller, asking);
        }
        if let Some(mut child) = asking {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.cancel_in_background(&caller.pipe_args());
        caller.failure(ErrorCode::Aborted)
    }

    /// Takes the question back from the popup (the `cancel` pipe) and returns the `aborted`
    /// envelope.
    fn withdraw(&self, caller: &Caller, asking: Option<Child>) -> String {
        if let Some(mut child) = asking {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.take_back(caller);
        caller.failure(ErrorCode::Aborted)
    }

    /// Sends the `cancel` pipe for the caller's question until the plugin says it is withdrawn
    /// (or a few times).
    fn take_back(&self, caller: &Caller) {
        let args = caller.pipe_args();
        for attempt in 1..=3 {
            thread::sleep(Duration::from_millis(ask::backoff_ms(attempt)));
            // On its own: Claude Code sends SIGKILL to the hook's whole group 1.5 s after
            // SIGTERM, and the withdrawal must get through even so; it still ends by itself.
            let mut command = self.pipe_on_its_own("cancel", &args);
            children::on_its_own_for(&mut command, PIPE_TIMEOUT);
            if let Some((_, out)) = run(command, "withdraw", PIPE_TIMEOUT) {
                if ask::is_withdrawal(&out) {
                    break;
                }
            }
        }
    }

    /// One `zellij pipe` that answers at once: whether it exited 0, and its stdout.
    fn call(
        &self,
        name: &str,
        args: &str,
        payload: &str,
        limit: Duration,
    ) -> Option<(bool, Vec<u8>)> {
        run(self.pipe(name, args), payload, limit)
    }
}

/// Runs a `zellij pipe` command with `payload` as its argument and no stdin, for at most
/// `limit`: whether it exited 0, and its stdout.
fn run(mut command: Command, payload: &str, limit: Duration) -> Option<(bool, Vec<u8>)> {
    command.args(["--", payload]);
    run_for(command, limit)
}

/// Runs a command with no stdin for at most `limit` (then kills it): whether it exited 0, and
/// its stdout.
fn run_for(mut command: Command, limit: Duration) -> Option<(bool, Vec<u8>)> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let stdout = read_in_background(&mut child);
    let until = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => thread::sleep(POLL),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    Some((status.success(), stdout.recv().unwrap_or_default()))
}

/// Reads a `zellij pipe` child's stdout on a thread of its own, and sends what it printed as
/// soon as that holds the reply to the question `id`, or at its end when it never does. The
/// question is answered when the reply comes, not when the child is next seen to have exited.
fn reply_in_background(child: &mut Child, id: &str) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take();
    let id = id.to_owned();
    thread::spawn(move || {
        let mut out = Vec::new();
        let mut sent = false;
        if let Some(mut stdout) = stdout {
            let mut chunk = [0u8; 64 * 1024];
            loop {
                match stdout.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let Some(read) = chunk.get(..n) else { break };
                        if sent {
                            // Read on to the end, so the child never blocks on a full pipe.
                            continue;
                        }
                        out.extend_from_slice(read);
                        if read.contains(&b'\n') && ask::reply_in(&out, &id).is_some() {
                            sent = tx.send(std::mem::take(&mut out)).is_ok();
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        if !sent {
            let _ = tx.send(out);
        }
    });
    rx
}

/// Reads a child's stdout to its end on a thread of its own.
fn read_in_background(child: &mut Child) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take();
    thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(mut stdout) = stdout {
            let _ = stdout.read_to_end(&mut out);
        }
        let _ = tx.send(out);
    });
    rx
}

/// How a pause of a waiting question ended.
enum Paused {
    /// Its time is over.
    Over,
    /// The caller went away (`Stop`).
    Stopped,
    /// It was answered in another session.
    Answered(String),
}

/// Waits up to `limit`, ending early when the caller goes away or a copy is answered.
fn pause(stop: &dyn Stop, copies: &copies::Copies, limit: Duration) -> Paused {
    let until = Instant::now() + limit;
    loop {
        copies.look();
        if let copies::State::Answered(envelope, _) = copies.state() {
            return Paused::Answered(envelope);
        }
        let now = Instant::now();
        if now >= until {
            return Paused::Over;
        }
        if stop.wait(POLL.min(until - now)) {
            return Paused::Stopped;
        }
    }
}

/// What tells a waiting question that its caller went away, so it is withdrawn.
trait Stop {
    /// Waits up to `limit`; true once the caller has gone.
    fn wait(&self, limit: Duration) -> bool;
}

/// What stops a waiting command: SIGINT, SIGTERM or SIGHUP, or its parent process ending.
struct Interrupts {
    signals: Receiver<()>,
    /// None: the parent's end does not count.
    parent: Option<libc::pid_t>,
}

/// Something a waiting hook polls: true once what it waits for was settled elsewhere.
type Watch = Box<dyn Fn() -> bool + Send>;

impl Interrupts {
    fn install() -> Interrupts {
        Interrupts::install_watching(None)
    }

    /// `install`, and `watch` polled four times a second: once it says so, the command stops
    /// as on a signal (the question is withdrawn).
    fn install_watching(watch: Option<Watch>) -> Interrupts {
        let (tx, rx) = mpsc::channel();
        if let Some(watch) = watch {
            let tx = tx.clone();
            thread::spawn(move || loop {
                thread::sleep(Duration::from_millis(250));
                if watch() {
                    let _ = tx.send(());
                    break;
                }
            });
        }
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            thread::spawn(move || {
                for _ in signals.forever() {
                    if tx.send(()).is_err() {
                        break;
                    }
                }
            });
        }
        // SAFETY: getppid has no preconditions.
        let parent = unsafe { libc::getppid() };
        // `wait` notices a new parent (the old one ended) within a poll. Not PR_SET_PDEATHSIG:
        // Linux sends it when the *thread* that spawned this process ends, and multi-threaded
        // agents spawn from worker threads that come and go (Codex's MCP servers got it 10 s
        // into every call, when the thread pool let its spawning thread go).
        Interrupts {
            signals: rx,
            parent: Some(parent),
        }
    }

    /// The signals alone: for a process whose parent ends at once by design.
    fn signals_only() -> Interrupts {
        Interrupts {
            parent: None,
            ..Interrupts::install()
        }
    }

    /// Whether the parent this command started with has ended.
    fn parent_gone(&self) -> bool {
        // SAFETY: getppid has no preconditions.
        self.parent
            .is_some_and(|parent| unsafe { libc::getppid() } != parent)
    }
}

impl Stop for Interrupts {
    fn wait(&self, limit: Duration) -> bool {
        if self.parent_gone() {
            return true;
        }
        match self.signals.recv_timeout(limit) {
            Ok(()) => true,
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => self.parent_gone(),
        }
    }
}

/// The parent program's name, for an agent that gave none.
fn parent_name() -> Option<String> {
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    let comm = std::fs::read_to_string(format!("/proc/{parent}/comm"))
        .ok()
        .or_else(|| {
            // No /proc (macOS): `ps` names it, there as the program's path.
            let mut ps = Command::new("ps");
            ps.args(["-o", "comm=", "-p", &parent.to_string()]);
            programs::output_of(ps)
        })?;
    let comm = comm.trim();
    ask::agent_from_parent(comm.rsplit('/').next().unwrap_or(comm))
}

fn fresh_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    ask::fresh_id(std::process::id(), nanos)
}

/// Prints to stdout; a reader that went away (the agent was stopped) is not an error here.
/// Prints `line` and a line break for a person (see `say!`).
pub(crate) fn say(line: &str) {
    print(&format!("{}\n", terminal::for_person(line)));
}

/// Writes `line` and a line break to stderr for a person (see `say_err!`).
pub(crate) fn say_err(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", terminal::for_person(line));
}

/// Prints `text` as it is: an envelope, JSON (see `terminal::json_for_terminal`), or text
/// cleaned already.
pub(crate) fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Reads the questionnaire from where the argument says.
fn read_payload(
    source: &PayloadSource,
) -> Result<Vec<u8>, ask_popup_protocol::request::RequestError> {
    match source {
        PayloadSource::Inline(json) => Ok(json.clone().into_bytes()),
        PayloadSource::File(path) => std::fs::File::open(path)
            .map_err(|e| ask_popup_protocol::request::RequestError::Unreadable {
                detail: format!("{}: {e}", path.display()),
            })
            .and_then(ask::read_bounded),
        PayloadSource::Stdin => ask::read_bounded(std::io::stdin().lock()),
    }
}
