//! End to end with the real Claude Code: its model replaced by a scripted Anthropic server that
//! asks for `AskUserQuestion`, its `PreToolUse` hook installed by `ask-popup setup claude
//! --write`, and the user answering in the popup; or, through `ask-popup mcp` added by the line
//! `ask-popup setup claude-mcp` prints, a model that loads the MCP tool through `ToolSearch` and
//! calls it; or an MCP server's form (elicitation) asked by a Python server the model calls.
//! What the model gets back is read from the next request Claude Code sends.

use crate::agents::{
    allow_once, deny_with_a_note, marked, new_pane, note_on_the_question, pane_title,
    pick_the_second_option_of_each, press_esc_in, question, shell_quote, tick_invoices_and_reports,
    wait_for_title, wait_until_nothing_pending, zellij_on_path,
};
use crate::command::{command, record_outer_terminal, setup_write, wait_for_outer};
use crate::harness::{agent_bin, path_with, Zellij};
use crate::history::recorded;
use crate::model::{anthropic, ModelServer};
use crate::remote::Remote;
use crate::ANSWER;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A key for the scripted server; Claude Code remembers its last 20 characters as approved.
const API_KEY: &str = "sk-ant-api03-scripted-model-0123456789ABCDEFGHIJ";

pub(crate) const DATABASE: &str = "Which database?";
const FEATURES: &str = "Which features?";
const NAME: &str = "What should the service be called?";
const LANGUAGE: &str = "Which language?";

pub(crate) fn database() -> Value {
    question(DATABASE, "DB", &["Postgres", "SQLite"], false)
}

/// The MCP tool as Claude Code names it: `mcp__<server>__<tool>`.
const MCP_TOOL: &str = "mcp__ask-popup__ask_user_question";

/// The tool of the form-asking server (`tests/e2e/elicit_server.py`, added as `elicit`).
const ELICIT_TOOL: &str = "mcp__elicit__ask_prefs";
/// Its tool that asks a plain confirmation: a form with nothing to fill in.
const CONFIRM_TOOL: &str = "mcp__elicit__confirm_delete";

/// How Claude Code reaches the popup.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wiring {
    /// Its own AskUserQuestion, answered by the hook `ask-popup setup claude --write` installs.
    Hook,
    /// As `Hook`, in the world's HOME, where `ask-popup setup --write` installed the hook.
    Installed,
    /// The `ask-popup mcp` server, added by the line `ask-popup setup claude-mcp` prints.
    Mcp,
    /// Its permission prompts, asked by the hook `ask-popup setup claude --approvals --write`
    /// installs; the model calls `Bash` with the input given for the questions.
    Approvals,
    /// An MCP server's form: `ask-popup setup claude --write` as for `Hook`, and the form-asking
    /// server `tests/e2e/elicit_server.py` added as `elicit`, whose tool the model calls (no
    /// arguments): its confirmation when the questions are `"confirm"`, its form otherwise.
    Elicitation,
}

/// Claude Code running in a pane of `zellij`, asking `questions` as soon as it starts.
pub(crate) struct Claude {
    name: String,
    pane: u32,
    model: ModelServer,
    wiring: Wiring,
    /// Where the form-asking server writes what it got (`Wiring::Elicitation`).
    elicited: PathBuf,
}

impl Claude {
    pub(crate) fn start(zellij: &Zellij, name: &str, questions: Value) -> Claude {
        Claude::start_wired(zellij, name, questions, Wiring::Hook)
    }

    pub(crate) fn start_wired(
        zellij: &Zellij,
        name: &str,
        questions: Value,
        wiring: Wiring,
    ) -> Claude {
        Claude::start_with_env(zellij, name, questions, wiring, "")
    }

    /// `start_wired`, Claude Code's environment with `env` (`NAME=value ` words) besides.
    pub(crate) fn start_with_env(
        zellij: &Zellij,
        name: &str,
        questions: Value,
        wiring: Wiring,
        env: &str,
    ) -> Claude {
        Claude::start_somewhere(zellij, name, questions, wiring, env, None)
    }

    /// Claude Code whose model calls the tool of an MCP server that asks for a form
    /// (`Wiring::Elicitation`).
    pub(crate) fn start_elicitation(zellij: &Zellij, name: &str) -> Claude {
        Claude::start_wired(zellij, name, Value::Null, Wiring::Elicitation)
    }

    /// Claude Code with its hook, run on another machine (`remote`) from a pane of `zellij`.
    pub(crate) fn start_over(
        zellij: &Zellij,
        name: &str,
        questions: Value,
        remote: &Remote,
    ) -> Claude {
        Claude::start_somewhere(zellij, name, questions, Wiring::Hook, "", Some(remote))
    }

    fn start_somewhere(
        zellij: &Zellij,
        name: &str,
        questions: Value,
        wiring: Wiring,
        env: &str,
        remote: Option<&Remote>,
    ) -> Claude {
        let input = json!({ "questions": questions });
        let model = match wiring {
            Wiring::Hook | Wiring::Installed => {
                ModelServer::start(anthropic::calling("AskUserQuestion", input))
            }
            Wiring::Mcp => ModelServer::start(anthropic::calling_deferred(MCP_TOOL, input)),
            Wiring::Approvals => ModelServer::start(anthropic::calling("Bash", questions)),
            Wiring::Elicitation => {
                let tool = if input["questions"] == json!("confirm") {
                    CONFIRM_TOOL
                } else {
                    ELICIT_TOOL
                };
                ModelServer::start(anthropic::calling_deferred(tool, json!({})))
            }
        };
        let dir = zellij.scratch().join(name);
        let home = match wiring {
            Wiring::Installed => zellij.home(),
            Wiring::Hook | Wiring::Mcp | Wiring::Approvals | Wiring::Elicitation => {
                dir.join("home")
            }
        };
        let elicited = dir.join("elicited.jsonl");
        let project = dir.join("project");
        for d in [&home, &project] {
            std::fs::create_dir_all(d).expect("create Claude Code's dirs");
        }
        let project = project.canonicalize().expect("the project's path");
        // No onboarding, no API-key question, the project trusted.
        let approved = &API_KEY[API_KEY.len() - 20..];
        let state = json!({
            "hasCompletedOnboarding": true,
            "customApiKeyResponses": {"approved": [approved], "rejected": []},
            "projects": {project.to_string_lossy(): {"hasTrustDialogAccepted": true}},
        });
        std::fs::write(home.join(".claude.json"), state.to_string()).expect("seed .claude.json");
        match wiring {
            // The hook, installed as a user installs it.
            Wiring::Hook => {
                setup_write("claude", &[("HOME", &home)]);
            }
            Wiring::Approvals => {
                setup_write("claude --approvals", &[("HOME", &home)]);
            }
            Wiring::Mcp => add_the_mcp_server(&home),
            Wiring::Elicitation => {
                setup_write("claude", &[("HOME", &home)]);
                add_the_elicit_server(&home, &elicited);
            }
            Wiring::Installed => {}
        }
        // A user leaves an MCP call as long as a person needs (milliseconds).
        let mcp_timeout = match wiring {
            Wiring::Hook | Wiring::Installed | Wiring::Approvals => "",
            Wiring::Mcp | Wiring::Elicitation => "MCP_TOOL_TIMEOUT=3600000 ",
        };
        // Claude Code's default mode (auto) runs what it judges low-risk without a prompt;
        // the approval tests need one.
        let flags = match wiring {
            Wiring::Approvals => "--permission-mode default ",
            Wiring::Hook | Wiring::Installed | Wiring::Mcp | Wiring::Elicitation => "",
        };
        let line = match remote {
            None => format!(
                "cd {project} && exec env -u TMUX -u TMUX_PANE {path}HOME={home} \
                 ANTHROPIC_BASE_URL={url} ANTHROPIC_API_KEY={API_KEY} {mcp_timeout}{env}\
                 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 {claude} {flags}'Ask me.'",
                project = shell_quote(&project.to_string_lossy()),
                path = zellij_on_path(),
                home = shell_quote(&home.to_string_lossy()),
                url = model.url(),
                claude = shell_quote(&agent_bin("claude-code").to_string_lossy()),
            ),
            // No Zellij there: only the forwarded socket reaches the popup.
            Some(remote) => remote.line(
                &format!(
                    "HOME={home} TERM=xterm-256color ANTHROPIC_BASE_URL={url} \
                     ANTHROPIC_API_KEY={API_KEY} CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
                     DISABLE_AUTOUPDATER=1",
                    home = shell_quote(&home.to_string_lossy()),
                    url = model.url(),
                ),
                &format!(
                    "cd {project} && exec {claude} 'Ask me.'",
                    project = shell_quote(&project.to_string_lossy()),
                    claude = shell_quote(&agent_bin("claude-code").to_string_lossy()),
                ),
            ),
        };
        let pane = new_pane(zellij, name, &line);
        Claude {
            name: name.to_owned(),
            pane,
            model,
            wiring,
            elicited,
        }
    }

    /// The tool result Claude Code sent its model: `(text, is_error)`.
    pub(crate) fn tool_result(&self, zellij: &Zellij) -> (String, bool) {
        let read = match self.wiring {
            Wiring::Hook | Wiring::Installed | Wiring::Approvals => anthropic::tool_result,
            Wiring::Mcp | Wiring::Elicitation => anthropic::result_of_call,
        };
        self.model
            .wait_for("the tool result", ANSWER, read, || zellij.screen())
    }

    /// What the form-asking server got (`Wiring::Elicitation`): its line
    /// `{"action": ..., "content": {...}}`, once it has written one.
    pub(crate) fn elicited(&self, zellij: &Zellij) -> Value {
        let until = zellij.until(ANSWER);
        loop {
            let text = std::fs::read_to_string(&self.elicited).unwrap_or_default();
            if let Some(line) = text.lines().next() {
                return serde_json::from_str(line).expect("the server's line is JSON");
            }
            assert!(
                Instant::now() < until,
                "the form-asking server got no answer\n{}",
                zellij.screen()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Whether the form-asking server has got an answer yet.
    pub(crate) fn has_elicited(&self) -> bool {
        std::fs::read_to_string(&self.elicited).is_ok_and(|t| !t.is_empty())
    }

    /// Waits until the popup shows this Claude's question.
    pub(crate) fn asked(&self, zellij: &Zellij, question: &str) {
        zellij.wait_for_screen(&format!("{}'s question", self.name), ANSWER, |s| {
            s.contains("claude asks") && s.contains(question)
        });
    }
}

/// Adds the MCP server as a user does: `ask-popup setup claude-mcp --write` (Claude Code's
/// settings keep the call in the foreground), then the line it prints, with the pinned Claude
/// Code as its `claude`; and allows the tool in the user's settings.
fn add_the_mcp_server(home: &Path) {
    let printed = Command::new(command())
        .args(["setup", "claude-mcp", "--write"])
        .env("HOME", home)
        .output()
        .expect("run ask-popup setup claude-mcp");
    assert!(printed.status.success(), "setup claude-mcp: {printed:?}");
    let stdout = String::from_utf8_lossy(&printed.stdout);
    let line = stdout.lines().last().unwrap_or_default().trim().to_owned();
    assert!(line.starts_with("claude mcp add "), "{stdout}");
    run_claude_line(home, &line);
    assert_eq!(
        settings(home)["env"]["CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS"],
        "0"
    );
    allow_only(home, MCP_TOOL);
}

/// Adds the form-asking server (`tests/e2e/elicit_server.py`, run by the MCP Python SDK's
/// Python) as `elicit` for the user, as a user adds a server with `claude mcp add`, writing what
/// it gets to `elicited`; and allows its tool in the user's settings.
fn add_the_elicit_server(home: &Path, elicited: &Path) {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/elicit_server.py");
    // The name before `-e`: its values run on to the `--`.
    let line = format!(
        "claude mcp add --scope user elicit -e ELICIT_RESULT={elicited} -- {python} {server}",
        elicited = shell_quote(&elicited.to_string_lossy()),
        python = shell_quote(&agent_bin("mcp-python").to_string_lossy()),
        server = shell_quote(&server.to_string_lossy()),
    );
    run_claude_line(home, &line);
    let mut settings = settings(home);
    settings["permissions"] = json!({ "allow": [ELICIT_TOOL, CONFIRM_TOOL] });
    std::fs::write(home.join(".claude/settings.json"), settings.to_string())
        .expect("write settings.json");
}

/// Runs `line`, a `claude …` command, with `sh` as a user runs it in a shell: HOME `home`, the
/// pinned Claude Code as its `claude`.
fn run_claude_line(home: &Path, line: &str) {
    let claude = agent_bin("claude-code");
    let path = path_with(claude.parent().expect("the agent's bin dir"));
    let ran = Command::new("sh")
        .args(["-c", line])
        .env("HOME", home)
        .env("PATH", path)
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run a claude line");
    assert!(ran.status.success(), "{line}: {ran:?}");
}

/// Allows `tool` (and only it) without asking, in the user's settings.
fn allow_only(home: &Path, tool: &str) {
    let mut settings = settings(home);
    settings["permissions"] = json!({ "allow": [tool] });
    std::fs::write(home.join(".claude/settings.json"), settings.to_string())
        .expect("write settings.json");
}

/// What Claude Code's model reads when SQLite was picked in the popup for `DATABASE`.
pub(crate) fn sqlite_picked() -> (String, bool) {
    (
        format!(
            "Your questions have been answered: \"{DATABASE}\"=\"SQLite\". You can now continue \
             with these answers in mind."
        ),
        false,
    )
}

/// Picks the question's second option (SQLite) in the popup.
pub(crate) fn pick_the_second_option(zellij: &Zellij) {
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("SQLite focused", ANSWER, |s| s.contains("❯ 2. SQLite"));
    zellij.send_keys(&["Enter"]);
}

/// The settings `ask-popup setup claude --write` wrote for Claude Code.
fn settings(home: &Path) -> Value {
    let text = std::fs::read_to_string(home.join(".claude/settings.json")).expect("settings.json");
    serde_json::from_str(&text).expect("settings.json is JSON")
}

#[test]
fn claude_code_gets_a_single_pick_from_the_popup() {
    let zellij = Zellij::start();
    let outer = zellij.scratch().join("outer.log");
    record_outer_terminal(&zellij, &outer);
    let claude = Claude::start(&zellij, "claude-one", json!([database()]));
    let hooks = settings(&zellij.scratch().join("claude-one/home"));
    assert_eq!(
        hooks["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        format!("{} claude-hook", command().display())
    );
    claude.asked(&zellij, DATABASE);
    // The asking pane is marked while it waits, and the hook told the terminal (the pane is
    // its controlling terminal), which Zellij passes on as a desktop notification.
    wait_for_title(&zellij, claude.pane, &marked("claude-one"));
    wait_for_outer(
        &zellij,
        &outer,
        &format!("\u{1b}]9;claude asks: DB: {DATABASE}\u{7}"),
    );
    pick_the_second_option(&zellij);
    assert_eq!(claude.tool_result(&zellij), sqlite_picked());
    wait_for_title(&zellij, claude.pane, "claude-one");
    // Asked through the hook, recorded once.
    let entries = recorded(&zellij, 1);
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["agent"], "claude");
    assert_eq!(entries[0]["ending"], "answered");
    assert_eq!(entries[0]["details"]["answers"][0]["answer"], "SQLite");
    // The skill setup installed is offered to the model.
    assert!(
        crate::model::lists_the_skill(&claude.model.requests()),
        "Claude Code did not offer its model the ask-user skill"
    );
}

#[test]
fn claude_code_gets_a_multi_select_and_a_typed_answer() {
    let zellij = Zellij::start();
    let questions = json!([
        question(
            FEATURES,
            "Features",
            &["Invoices", "Refunds", "Reports"],
            true
        ),
        question(NAME, "Name", &["billing", "payments"], false),
    ]);
    let claude = Claude::start(&zellij, "claude-two", questions);
    claude.asked(&zellij, FEATURES);
    tick_invoices_and_reports(&zellij);
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("typing", ANSWER, |s| s.contains("Esc stop typing"));
    zellij.write_chars("Audit log");
    zellij.wait_for_screen("the typed text", ANSWER, |s| s.contains("Audit log"));
    zellij.send_keys(&["Enter"]);
    zellij.wait_for_screen("Next focused", ANSWER, |s| s.contains("❯ Next"));
    zellij.send_keys(&["Enter"]);
    zellij.wait_for_screen("the second question", ANSWER, |s| s.contains(NAME));
    zellij.send_keys(&["3"]);
    zellij.wait_for_screen("typing", ANSWER, |s| s.contains("Esc stop typing"));
    zellij.write_chars("ledger");
    zellij.wait_for_screen("the typed name", ANSWER, |s| s.contains("ledger"));
    zellij.send_keys(&["Enter"]);
    zellij.wait_for_screen("the review", ANSWER, |s| {
        s.contains("Review your answers") && s.contains("❯ 1. Submit answers")
    });
    zellij.send_keys(&["Enter"]);
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(!is_error, "{text}");
    for answer in [
        format!("\"{FEATURES}\"=\"Invoices, Reports, Audit log\""),
        format!("\"{NAME}\"=\"ledger\""),
    ] {
        assert!(text.contains(&answer), "{answer} not in {text:?}");
    }
}

#[test]
fn claude_code_gets_the_users_note_with_the_answer() {
    let zellij = Zellij::start();
    let claude = Claude::start(&zellij, "claude-note", json!([database()]));
    claude.asked(&zellij, DATABASE);
    note_on_the_question(&zellij, "one file per tenant");
    pick_the_second_option(&zellij);
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(!is_error, "{text}");
    assert!(
        text.contains(&format!(
            "\"{DATABASE}\"=\"SQLite\" notes: one file per tenant"
        )),
        "{text:?}"
    );
}

#[test]
fn claude_code_gets_a_decline_as_the_denial() {
    let zellij = Zellij::start();
    let claude = Claude::start(&zellij, "claude-no", json!([database()]));
    claude.asked(&zellij, DATABASE);
    zellij.send_keys(&["Esc"]);
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(is_error, "a denial: {text}");
    assert!(
        text.ends_with(ask_popup_protocol::envelope::DECLINED_TEXT),
        "{text:?}"
    );
}

#[test]
fn claude_code_gets_chat_about_this_as_the_denial() {
    let zellij = Zellij::start();
    let claude = Claude::start(&zellij, "claude-chat", json!([database()]));
    claude.asked(&zellij, DATABASE);
    zellij.send_keys(&["4"]);
    zellij.wait_for_screen("Chat about this focused", ANSWER, |s| {
        s.contains("❯ 4. Chat about this")
    });
    zellij.send_keys(&["Enter"]);
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(is_error, "a denial: {text}");
    assert!(
        text.ends_with(&format!(
            "User picked \"Chat about this\" on question 1: \"{DATABASE}\"."
        )),
        "{text:?}"
    );
}

#[test]
fn closing_the_popup_hands_the_question_to_claude_codes_own_dialog() {
    let zellij = Zellij::start();
    let claude = Claude::start(&zellij, "claude-own", json!([database()]));
    claude.asked(&zellij, DATABASE);
    let popup = zellij.plugin_pane(ANSWER);
    let out = zellij.action(&["close-pane", "--pane-id", &popup]);
    assert!(out.status.success(), "close-pane: {out:?}");
    // The hook gave no answer: Claude Code asks in its own pane, nothing was sent to the model.
    zellij.wait_for_screen("Claude Code's own dialog", ANSWER, |s| {
        s.contains(DATABASE) && s.contains("Enter to select") && !s.contains("claude asks")
    });
    assert_eq!(anthropic::tool_result(&claude.model.requests()), None);
    // The mark is gone (the plugin closed with its pane, so the title is Claude Code's own).
    let until = zellij.until(ANSWER);
    while pane_title(&zellij, claude.pane).is_none_or(|t| t.starts_with(&marked(""))) {
        assert!(std::time::Instant::now() < until, "the mark stayed");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn interrupting_claude_code_takes_its_question_out_of_the_popup() {
    let zellij = Zellij::start();
    let claude = Claude::start(&zellij, "claude-esc", json!([database()]));
    claude.asked(&zellij, DATABASE);
    wait_for_title(&zellij, claude.pane, &marked("claude-esc"));
    // The user interrupts Claude Code in its own pane: Esc, as its footer says.
    press_esc_in(&zellij, claude.pane);
    wait_until_nothing_pending(&zellij);
    wait_for_title(&zellij, claude.pane, "claude-esc");
    zellij.wait_for_screen("Claude Code stopped", ANSWER, |s| {
        s.contains("Declined to answer")
    });
}

#[test]
fn two_claude_code_panes_asking_at_once_each_get_their_own_answer() {
    let zellij = Zellij::start();
    let first = Claude::start(&zellij, "claude-a", json!([database()]));
    let second = Claude::start(
        &zellij,
        "claude-b",
        json!([question(LANGUAGE, "Lang", &["Rust", "Go"], false)]),
    );
    wait_for_title(&zellij, first.pane, &marked("claude-a"));
    wait_for_title(&zellij, second.pane, &marked("claude-b"));
    // Whichever shows first: SQLite for the database, Go for the language.
    pick_the_second_option_of_each(
        &zellij,
        "claude asks",
        &[(DATABASE, "SQLite"), (LANGUAGE, "Go")],
    );
    let (text, _) = first.tool_result(&zellij);
    assert!(
        text.contains(&format!("\"{DATABASE}\"=\"SQLite\"")),
        "{text:?}"
    );
    let (text, _) = second.tool_result(&zellij);
    assert!(text.contains(&format!("\"{LANGUAGE}\"=\"Go\"")), "{text:?}");
    wait_for_title(&zellij, first.pane, "claude-a");
    wait_for_title(&zellij, second.pane, "claude-b");
}

#[test]
fn claude_code_through_mcp_gets_the_envelopes_text() {
    let zellij = Zellij::start();
    let claude = Claude::start_wired(&zellij, "claude-mcp", json!([database()]), Wiring::Mcp);
    claude.asked(&zellij, DATABASE);
    wait_for_title(&zellij, claude.pane, &marked("claude-mcp"));
    pick_the_second_option(&zellij);
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(!is_error, "{text}");
    let expected = format!(
        "User has answered your questions: \"{DATABASE}\"=\"SQLite\". You can now continue with \
         the user's answers in mind."
    );
    // Byte for byte: the envelope's text, not the details' JSON.
    assert_eq!(text, expected);
    wait_for_title(&zellij, claude.pane, "claude-mcp");
    // Asked through the MCP server, recorded once.
    let entries = recorded(&zellij, 1);
    assert_eq!(entries.len(), 1, "{entries:#?}");
    assert_eq!(entries[0]["ending"], "answered");
    assert_eq!(entries[0]["details"]["answers"][0]["answer"], "SQLite");
}

#[test]
fn claude_code_through_mcp_gets_a_decline() {
    let zellij = Zellij::start();
    let claude = Claude::start_wired(&zellij, "claude-mcp-no", json!([database()]), Wiring::Mcp);
    claude.asked(&zellij, DATABASE);
    zellij.send_keys(&["Esc"]);
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(!is_error, "a decline is an answer: {text}");
    assert_eq!(text, ask_popup_protocol::envelope::DECLINED_TEXT);
}

#[test]
fn interrupting_claude_code_through_mcp_takes_its_question_out_of_the_popup() {
    let zellij = Zellij::start();
    let claude = Claude::start_wired(&zellij, "claude-mcp-esc", json!([database()]), Wiring::Mcp);
    claude.asked(&zellij, DATABASE);
    wait_for_title(&zellij, claude.pane, &marked("claude-mcp-esc"));
    press_esc_in(&zellij, claude.pane);
    wait_until_nothing_pending(&zellij);
    wait_for_title(&zellij, claude.pane, "claude-mcp-esc");
}

#[test]
fn claude_code_through_mcp_gets_the_answer_given_after_its_background_limit() {
    // Claude Code moves an MCP call that outlives its limit (2 minutes; 2 s here) to the
    // background. `setup claude-mcp --write` keeps the popup's calls in the foreground: the
    // model gets the answer however long the user took.
    let zellij = Zellij::start();
    let claude = Claude::start_with_env(
        &zellij,
        "claude-late",
        json!([database()]),
        Wiring::Mcp,
        "CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS=2000 ",
    );
    claude.asked(&zellij, DATABASE);
    std::thread::sleep(Duration::from_secs(5));
    pick_the_second_option(&zellij);
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(!is_error, "{text}");
    assert_eq!(
        text,
        format!(
            "User has answered your questions: \"{DATABASE}\"=\"SQLite\". You can now continue \
             with the user's answers in mind."
        )
    );
}

/// The command the scripted model asks Claude Code to run, which needs the user's approval.
const APPROVED_COMMAND: &str = "touch approved && echo approved-by-the-popup";
const APPROVAL_QUESTION: &str =
    "Allow claude to use Bash: touch approved && echo approved-by-the-popup?";

/// Claude Code asking to run `APPROVED_COMMAND`, its permission prompt in the popup.
fn asking_for_approval(zellij: &Zellij, name: &str) -> Claude {
    let input = json!({"command": APPROVED_COMMAND, "description": "Say it was approved"});
    let claude = Claude::start_wired(zellij, name, input, Wiring::Approvals);
    let hooks = settings(&zellij.scratch().join(name).join("home"));
    assert_eq!(
        hooks["hooks"]["PermissionRequest"][0]["hooks"][0]["command"],
        format!("{} claude-approval", command().display())
    );
    claude.asked(zellij, APPROVAL_QUESTION);
    // Its pane is marked while it waits, as for a question.
    wait_for_title(zellij, claude.pane, &marked(name));
    // The command is the preview; the focus starts on Deny, never on an Allow.
    zellij.wait_for_screen("the approval", ANSWER, |s| {
        s.contains("❯ Deny") && s.contains(APPROVED_COMMAND) && s.contains("Allow always")
    });
    claude
}

#[test]
fn claude_codes_permission_prompt_allowed_in_the_popup_runs_the_command() {
    let zellij = Zellij::start();
    let claude = asking_for_approval(&zellij, "claude-allow");
    allow_once(&zellij);
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(!is_error, "{text}");
    assert!(text.contains("approved-by-the-popup"), "{text:?}");
    // Recorded as an approval, with what it decided.
    let entries = recorded(&zellij, 1);
    assert_eq!(entries[0]["agent"], "claude");
    assert_eq!(entries[0]["approval"], "allow_once", "{entries:#?}");
    assert_eq!(entries[0]["details"]["answers"][0]["answer"], "Allow once");
}

#[test]
fn claude_codes_permission_prompt_denied_with_a_note_gives_the_model_the_note() {
    let zellij = Zellij::start();
    let claude = asking_for_approval(&zellij, "claude-deny");
    deny_with_a_note(&zellij, "use the staging registry", "Deny");
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(is_error, "a denial: {text}");
    assert!(
        text.contains("The user denied this: use the staging registry"),
        "{text:?}"
    );
    assert!(!text.contains("approved-by-the-popup"), "it ran: {text:?}");
}

#[test]
fn closing_an_approval_leaves_claude_codes_own_prompt_to_decide() {
    let zellij = Zellij::start();
    let claude = asking_for_approval(&zellij, "claude-own-prompt");
    zellij.send_keys(&["Esc"]);
    wait_until_nothing_pending(&zellij);
    // Nothing was decided: Claude Code's own prompt is on screen, and the model got nothing.
    zellij.wait_for_screen("Claude Code's own prompt", ANSWER, |s| {
        s.contains("Do you want to proceed?") && !s.contains("claude asks")
    });
    assert_eq!(anthropic::tool_result(&claude.model.requests()), None);
    // Answered there, the command runs.
    let out = zellij.action(&[
        "write",
        "--pane-id",
        &format!("terminal_{}", claude.pane),
        "13",
    ]);
    assert!(out.status.success(), "write: {out:?}");
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(
        !is_error && text.contains("approved-by-the-popup"),
        "{text:?}"
    );
}

#[test]
fn a_permission_prompt_answered_in_claude_code_leaves_the_popup() {
    let zellij = Zellij::start();
    let claude = asking_for_approval(&zellij, "claude-both");
    // The user hides the popup (the question still waits in it) and answers Claude Code's own
    // prompt: Enter, its first choice, Yes.
    zellij.send_keys(&["Ctrl ]"]);
    zellij.wait_for_screen("Claude Code's own prompt", ANSWER, |s| {
        s.contains("Do you want to proceed?") && !s.contains(APPROVAL_QUESTION)
    });
    let pending = crate::agents::status(&zellij)["pending"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(pending, 1, "hiding the popup ended the question");
    let out = zellij.action(&[
        "write",
        "--pane-id",
        &format!("terminal_{}", claude.pane),
        "13",
    ]);
    assert!(out.status.success(), "write: {out:?}");
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(
        !is_error && text.contains("approved-by-the-popup"),
        "{text:?}"
    );
    // The question leaves the popup.
    wait_until_nothing_pending(&zellij);
}

/// The message of the form-asking server's form.
const FORM_MESSAGE: &str = "Please fill in your preferences";
/// The top of Claude Code's own form for the form-asking server, in its pane.
const OWN_FORM: &str = "MCP server “elicit” requests your input";

/// What the form-asking server gets for the form filled in as the tests fill it in.
fn bobs_preferences() -> Value {
    json!({"action": "accept", "content": {"name": "Bob", "count": 3, "confirm": true, "color": "blue"}})
}

/// Waits until Claude Code shows its own form in its pane, the popup not over it.
fn own_form_shown(zellij: &Zellij) {
    zellij.wait_for_screen("Claude Code's own form", ANSWER, |s| {
        s.contains(OWN_FORM) && s.contains(FORM_MESSAGE) && !s.contains("claude asks")
    });
}

// The form answered in the popup, through the Elicitation hook `ask-popup setup claude
// --write` installs (`ask-popup claude-elicitation`). Each field is a tab, headed by its title;
// the field's description shows on its tab, so it tells which tab is up.

/// Whether a row drawn focused (`❯ `) is `label`, numbered (`❯ 2. No`) or not (`❯ Decline`).
fn focused(screen: &str, label: &str) -> bool {
    screen.lines().any(|line| {
        line.split("❯ ").skip(1).any(|after| {
            after
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start_matches(". ")
                .starts_with(label)
        })
    })
}

/// Claude Code whose MCP server asks for a form, the hook setup installed asking it in the
/// popup: waits until the popup shows it, on the name's tab.
fn asking_a_form(zellij: &Zellij, name: &str) -> Claude {
    let claude = Claude::start_elicitation(zellij, name);
    let hooks = settings(&zellij.scratch().join(name).join("home"));
    assert_eq!(
        hooks["hooks"]["Elicitation"][0]["hooks"][0]["command"],
        format!("{} claude-elicitation", command().display()),
        "{hooks:#}"
    );
    zellij.wait_for_screen("the form in the popup", ANSWER, |s| {
        s.contains("elicit")
            && s.contains(FORM_MESSAGE)
            && s.contains("Your name")
            && focused(s, "Type something.")
            && !s.contains(OWN_FORM)
    });
    for title in ["Name *", "Count *", "Confirm", "Color"] {
        assert!(zellij.screen().contains(title), "no tab {title}");
    }
    // Waiting on a form is waiting as on any question: Claude Code's pane is marked.
    wait_for_title(zellij, claude.pane, &marked(name));
    claude
}

#[test]
fn claude_code_gets_a_form_filled_in_in_the_popup() {
    let zellij = Zellij::start();
    let claude = asking_a_form(&zellij, "claude-form");
    zellij.write_chars("Bob");
    zellij.wait_for_screen("the typed name", ANSWER, |s| s.contains("Bob"));
    zellij.send_keys(&["Enter"]);
    zellij.wait_for_screen("the count's tab", ANSWER, |s| {
        s.contains("How many (1-5)") && focused(s, "Type something.")
    });
    // A count that does not fit says why, and Enter keeps it on its tab.
    zellij.write_chars("9");
    zellij.wait_for_screen("the count refused", ANSWER, |s| s.contains("At most 5"));
    // (Were Enter to go on, the Backspace below would find no 9 to take.)
    zellij.send_keys(&["Enter"]);
    zellij.send_keys(&["Backspace"]);
    zellij.wait_for_screen("the 9 gone", ANSWER, |s| !s.contains("At most 5"));
    zellij.write_chars("3");
    zellij.send_keys(&["Enter"]);
    // A boolean: No, its default, picked and focused.
    zellij.wait_for_screen("the confirm's tab", ANSWER, |s| {
        s.contains("Really?") && focused(s, "No") && s.contains("1. Yes")
    });
    zellij.send_keys(&["Up"]);
    zellij.wait_for_screen("Yes focused", ANSWER, |s| focused(s, "Yes"));
    zellij.send_keys(&["Enter"]);
    // A choice: red, its default, picked and focused.
    zellij.wait_for_screen("the color's tab", ANSWER, |s| {
        s.contains("Pick a color") && focused(s, "red") && s.contains("green")
    });
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("green focused", ANSWER, |s| focused(s, "green"));
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("blue focused", ANSWER, |s| focused(s, "blue"));
    zellij.send_keys(&["Enter"]);
    zellij.wait_for_screen("the submit tab", ANSWER, |s| {
        focused(s, "Submit answers") && s.contains("Cancel")
    });
    zellij.send_keys(&["Enter"]);
    assert_eq!(claude.elicited(&zellij), bobs_preferences());
    let (text, is_error) = claude.tool_result(&zellij);
    assert!(!is_error, "{text}");
    assert!(text.starts_with("accepted: "), "{text:?}");
    wait_until_nothing_pending(&zellij);
    wait_for_title(&zellij, claude.pane, "claude-form");
}

#[test]
fn claude_code_gets_a_form_declined_in_the_popup() {
    let zellij = Zellij::start();
    let claude = asking_a_form(&zellij, "claude-form-no");
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("Decline focused", ANSWER, |s| focused(s, "Decline"));
    zellij.send_keys(&["Enter"]);
    assert_eq!(claude.elicited(&zellij), json!({"action": "decline"}));
    assert_eq!(claude.tool_result(&zellij), ("decline".to_owned(), false));
    wait_until_nothing_pending(&zellij);
}

/// A plain confirmation (a form with nothing to fill in) was accepted by the hook with nobody
/// asked: it is asked in the popup as a question, and only the person's Accept accepts it.
#[test]
fn a_confirmation_with_nothing_to_fill_in_is_asked_and_only_accept_accepts() {
    let zellij = Zellij::start();
    let claude = Claude::start_wired(
        &zellij,
        "claude-confirm",
        json!("confirm"),
        Wiring::Elicitation,
    );
    zellij.wait_for_screen("the confirmation in the popup", ANSWER, |s| {
        s.contains("Delete the production database?")
            && s.contains("elicit")
            && focused(s, "Accept")
            && s.contains("Decline")
            && !s.contains(OWN_FORM)
    });
    assert!(
        !claude.has_elicited(),
        "the server got an answer before anyone answered"
    );
    wait_for_title(&zellij, claude.pane, &marked("claude-confirm"));
    zellij.send_keys(&["Enter"]);
    assert_eq!(
        claude.elicited(&zellij),
        json!({"action": "accept", "content": {}})
    );
    assert_eq!(claude.tool_result(&zellij), ("accepted".to_owned(), false));
    wait_until_nothing_pending(&zellij);
}

#[test]
fn closing_a_form_in_the_popup_hands_it_to_claude_codes_own_form() {
    let zellij = Zellij::start();
    let claude = asking_a_form(&zellij, "claude-form-own");
    // Something typed: the first Esc leaves the typed row, the second only arms (and warns),
    // the third closes.
    zellij.write_chars("Bo");
    zellij.wait_for_screen("the typed name", ANSWER, |s| s.contains("Bo"));
    zellij.send_keys(&["Esc"]);
    zellij.wait_for_screen("no longer typing", ANSWER, |s| s.contains("Esc cancel"));
    zellij.send_keys(&["Esc"]);
    zellij.wait_for_screen("the warning", ANSWER, |s| {
        s.contains("Press Esc again to discard") && s.contains(FORM_MESSAGE)
    });
    zellij.send_keys(&["Esc"]);
    wait_until_nothing_pending(&zellij);
    // Nothing answered: Claude Code asks in its own pane, and Esc there cancels.
    own_form_shown(&zellij);
    assert!(!claude.has_elicited(), "the server got an answer");
    press_esc_in(&zellij, claude.pane);
    assert_eq!(claude.elicited(&zellij), json!({"action": "cancel"}));
    assert_eq!(claude.tool_result(&zellij), ("cancel".to_owned(), false));
}
