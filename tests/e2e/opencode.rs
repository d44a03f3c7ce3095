//! End to end with the real opencode: its model replaced by a scripted Chat Completions server
//! that calls opencode's own `question` tool, the plugin and the MCP server set up by
//! `ask-popup setup opencode --write`, and the user answering in the popup (or in opencode's own
//! dialog, outside Zellij or when answering there first). What the model gets back is read from
//! the next request opencode sends. Nothing leaves the machine: the provider is the scripted
//! server on 127.0.0.1, the model list, updates, sharing and LSP downloads are off, the
//! plugin's dependency install finds its config dir's packages in place, and any other request
//! goes to a proxy on a closed loopback port.

use crate::agents::{
    allow_once, deny_with_a_note, marked, new_pane, note_reports_can_wait, shell_quote, status,
    text_of, tick_invoices_and_reports, wait_for_title, wait_until_nothing_pending, zellij_on_path,
};
use crate::command::{command, setup_write};
use crate::harness::{agent_bin, Zellij};
use crate::model::{chat, ModelServer};
use crate::ANSWER;
use ask_popup::setup::opencode;
use ask_popup_protocol::envelope::{Answer, Outcome, Responses};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

const DATABASE: &str = "Which database?";
const FEATURES: &str = "Which features?";

/// opencode's tool, and what it calls the MCP server's.
const QUESTION_TOOL: &str = "question";
const MCP_TOOL: &str = "ask-popup_ask_user_question";

/// A question as opencode's model writes one: `multiple` for a multi-select.
fn question(text: &str, header: &str, labels: &[&str], multiple: bool) -> Value {
    let options: Vec<Value> = labels
        .iter()
        .map(|l| json!({"label": l, "description": format!("{l}, described")}))
        .collect();
    let mut question = json!({"question": text, "header": header, "options": options});
    if multiple {
        question["multiple"] = json!(true);
    }
    question
}

fn database() -> Value {
    json!({"questions": [question(DATABASE, "DB", &["Postgres", "SQLite"], false)]})
}

/// The questionnaire the popup is given for opencode's `arguments` (as the plugin writes it).
fn in_the_popup(arguments: &Value) -> Value {
    let questions: Vec<Value> = arguments["questions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| {
            json!({"question": q["question"], "header": q["header"], "options": q["options"],
                   "multiSelect": q["multiple"] == true})
        })
        .collect();
    json!({ "questions": questions })
}

fn picked(option: usize) -> Outcome {
    let mut responses = Responses::empty(1);
    responses.answers[0] = Some(Answer::Option(option));
    Outcome::Submitted(responses)
}

/// Where opencode runs: inside the Zellij session, or in a pane that does not know it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Where {
    InZellij,
    OutsideZellij,
}

/// opencode's TUI in a pane of `zellij`, its model calling `question` with `arguments`.
struct Opencode {
    pane: u32,
    model: ModelServer,
    config: PathBuf,
}

fn q(path: &Path) -> String {
    shell_quote(&path.to_string_lossy())
}

impl Opencode {
    /// SQLite picked in opencode's own dialog, and the model told so in the popup's words.
    fn picks_sqlite_in_its_own_dialog(&self, zellij: &Zellij) {
        self.keys(zellij, &["Down"]);
        self.keys(zellij, &["Enter"]);
        assert_eq!(
            self.tool_message(zellij),
            text_of(&in_the_popup(&database()), &picked(1))
        );
    }

    fn start(zellij: &Zellij, name: &str, arguments: Value, place: Where) -> Opencode {
        Opencode::start_calling(zellij, name, QUESTION_TOOL, arguments, place, false)
    }

    /// opencode whose model calls `tool` with `arguments`; with `approvals`, its `bash` asks
    /// first and its permission prompts are asked in the popup (`setup opencode --approvals`).
    fn start_calling(
        zellij: &Zellij,
        name: &str,
        tool: &'static str,
        arguments: Value,
        place: Where,
        approvals: bool,
    ) -> Opencode {
        let model = ModelServer::start(chat::calling_when_offered(tool, arguments));
        let dir = zellij.scratch().join(name);
        let (home, xdg, tmp, work) = (
            dir.join("home"),
            dir.join("xdg"),
            dir.join("tmp"),
            dir.join("work"),
        );
        let config = xdg.join("config/opencode");
        for d in [&home, &config, &tmp, &work] {
            std::fs::create_dir_all(d).expect("create opencode's dirs");
        }
        // The scripted provider, and nothing that reaches the network: no updates, no sharing.
        let mut settings = json!({
            "$schema": opencode::SCHEMA,
            "model": "scripted/scripted-model",
            "small_model": "scripted/scripted-model",
            "autoupdate": false,
            "share": "disabled",
            "provider": {"scripted": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Scripted",
                "options": {"baseURL": format!("{}/v1", model.url()), "apiKey": "scripted-key"},
                "models": {"scripted-model": {"name": "Scripted", "tool_call": true,
                           "limit": {"context": 128000, "output": 4096}}},
            }},
        });
        if approvals {
            settings["permission"] = json!({"bash": "ask"});
        }
        let settings_path = config.join("opencode.json");
        std::fs::write(
            &settings_path,
            serde_json::to_string_pretty(&settings).expect("JSON"),
        )
        .expect("write opencode.json");
        // opencode installs its plugin package (`@opencode-ai/plugin`, from npm) into every
        // config dir that lacks it, and waits for that before it loads a plugin: here it finds
        // the dir's packages as an install leaves them, and installs nothing.
        std::fs::create_dir_all(config.join("node_modules")).expect("node_modules");
        std::fs::write(
            config.join("package.json"),
            r#"{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}"#,
        )
        .expect("package.json");
        std::fs::write(
            config.join("package-lock.json"),
            r#"{"lockfileVersion":3,"requires":true,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}}}"#,
        )
        .expect("package-lock.json");
        // The MCP server and the plugin, as `ask-popup setup opencode --write` writes them.
        setup_write(
            if approvals {
                "opencode --approvals"
            } else {
                "opencode"
            },
            &[("HOME", &home), ("XDG_CONFIG_HOME", &xdg.join("config"))],
        );
        let written = std::fs::read_to_string(&settings_path).expect("opencode.json");
        assert_eq!(
            opencode::entry_in(&written, &command().to_string_lossy()),
            opencode::Entry::Current,
            "{written}"
        );
        assert!(config.join("plugin/ask-popup.js").is_file());
        assert_eq!(
            config.join("plugin/ask-popup-approvals.js").is_file(),
            approvals
        );
        let outside = match place {
            Where::InZellij => "",
            Where::OutsideZellij => "-u ZELLIJ -u ZELLIJ_SESSION_NAME -u ZELLIJ_PANE_ID ",
        };
        let line = format!(
            "cd {work} && exec env -u TMUX -u TMUX_PANE {outside}{path}HOME={home} \
             XDG_CONFIG_HOME={xdg}/config XDG_DATA_HOME={xdg}/data XDG_CACHE_HOME={xdg}/cache \
             XDG_STATE_HOME={xdg}/state TMPDIR={tmp} OPENCODE_DISABLE_AUTOUPDATE=1 \
             OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_SHARE=1 \
             OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_DEFAULT_PLUGINS=1 \
             HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 \
             NO_PROXY=127.0.0.1,localhost ASK_POPUP_COMMAND={command} {opencode} \
             --prompt 'Ask me.'",
            work = q(&work),
            path = zellij_on_path(),
            home = q(&home),
            xdg = q(&xdg),
            tmp = q(&tmp),
            command = q(&command()),
            opencode = q(&agent_bin("opencode")),
        );
        let pane = new_pane(zellij, name, &line);
        Opencode {
            pane,
            model,
            config,
        }
    }

    /// The tool's message opencode sent its model.
    fn tool_message(&self, zellij: &Zellij) -> String {
        self.model.wait_for(
            "the tool message",
            Duration::from_secs(90),
            chat::tool_message,
            || format!("{}\n{}", zellij.screen(), self.log_tail()),
        )
    }

    /// The end of opencode's own log, for a failure's message.
    fn log_tail(&self) -> String {
        let logs = self
            .config
            .parent()
            .and_then(Path::parent)
            .map(|xdg| xdg.join("data/opencode/log"));
        let text = logs
            .and_then(|dir| std::fs::read_dir(dir).ok())
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .collect::<Vec<_>>()
            .join("\n");
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    fn keys(&self, zellij: &Zellij, keys: &[&str]) {
        zellij.send_keys_to(&format!("terminal_{}", self.pane), keys);
    }
}

/// Waits until opencode's own dialog shows `question` in its pane.
fn opencodes_dialog(zellij: &Zellij, question: &str) {
    zellij.wait_for_screen("opencode's own dialog", Duration::from_secs(90), |s| {
        s.contains(question) && s.contains("Type your own answer")
    });
}

fn asked(zellij: &Zellij, question: &str) {
    zellij.wait_for_screen(
        "opencode's question in the popup",
        Duration::from_secs(90),
        |s| s.contains("opencode asks") && s.contains(question),
    );
}

#[test]
fn opencodes_question_tool_asks_in_the_popup_and_the_model_gets_the_pick() {
    let zellij = Zellij::start();
    let opencode = Opencode::start(&zellij, "opencode-one", database(), Where::InZellij);
    asked(&zellij, DATABASE);
    wait_for_title(&zellij, opencode.pane, &marked("opencode-one"));
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("SQLite focused", ANSWER, |s| s.contains("❯ 2. SQLite"));
    zellij.send_keys(&["Enter"]);
    assert_eq!(
        opencode.tool_message(&zellij),
        text_of(&in_the_popup(&database()), &picked(1))
    );
    wait_for_title(&zellij, opencode.pane, "opencode-one");
    // opencode's own dialog closed with the answer.
    zellij.wait_for_screen("opencode's dialog closed", ANSWER, |s| {
        !s.contains("Type your own answer")
    });
    // The model was offered both: opencode's own tool, and the MCP server's that setup added.
    let offered: Vec<String> = opencode
        .model
        .requests()
        .iter()
        .flat_map(|r| r.body["tools"].as_array().cloned().unwrap_or_default())
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .collect();
    for tool in [QUESTION_TOOL, MCP_TOOL] {
        assert!(offered.iter().any(|t| t == tool), "{tool}: {offered:?}");
    }
    // The skill setup installed is offered to the model.
    assert!(
        crate::model::lists_the_skill(&opencode.model.requests()),
        "opencode did not offer its model the ask-user skill"
    );
}

#[test]
fn opencodes_model_reads_the_popups_text_with_the_notes_in_place_of_its_own() {
    let zellij = Zellij::start();
    let arguments = json!({"questions": [
        question(FEATURES, "Features", &["Invoices", "Refunds", "Reports"], true),
    ]});
    let opencode = Opencode::start(
        &zellij,
        "opencode-multi",
        arguments.clone(),
        Where::InZellij,
    );
    asked(&zellij, FEATURES);
    tick_invoices_and_reports(&zellij);
    note_reports_can_wait(&zellij);
    zellij.send_keys(&["Tab"]);
    zellij.wait_for_screen("the review", ANSWER, |s| s.contains("Review your answers"));
    zellij.send_keys(&["Enter"]);
    let given = Responses {
        answers: vec![Some(Answer::Multi {
            ticked: vec![0, 2],
            text: None,
        })],
        notes: vec!["reports can wait".to_owned()],
        global_note: String::new(),
    };
    assert_eq!(
        opencode.tool_message(&zellij),
        text_of(&in_the_popup(&arguments), &Outcome::Submitted(given))
    );
}

#[test]
fn outside_zellij_opencodes_own_dialog_asks() {
    let zellij = Zellij::start();
    let opencode = Opencode::start(&zellij, "opencode-alone", database(), Where::OutsideZellij);
    opencodes_dialog(&zellij, DATABASE);
    assert!(!zellij.screen().contains("opencode asks"));
    assert_eq!(status(&zellij)["pending"], json!([]));
    // opencode's own text, which for a pick is the popup's too.
    opencode.picks_sqlite_in_its_own_dialog(&zellij);
}

#[test]
fn an_answer_in_opencodes_dialog_takes_the_question_out_of_the_popup() {
    let zellij = Zellij::start();
    let opencode = Opencode::start(&zellij, "opencode-there", database(), Where::InZellij);
    asked(&zellij, DATABASE);
    opencodes_dialog(&zellij, DATABASE);
    wait_for_title(&zellij, opencode.pane, &marked("opencode-there"));
    // Answered in opencode's pane: Postgres, its first option, as it is focused.
    opencode.keys(&zellij, &["Enter"]);
    assert_eq!(
        opencode.tool_message(&zellij),
        text_of(&in_the_popup(&database()), &picked(0))
    );
    wait_until_nothing_pending(&zellij);
    wait_for_title(&zellij, opencode.pane, "opencode-there");
}

#[test]
fn with_the_popup_closed_opencodes_own_dialog_asks() {
    let zellij = Zellij::start();
    let opencode = Opencode::start(&zellij, "opencode-closed", database(), Where::InZellij);
    asked(&zellij, DATABASE);
    let plugin = zellij.plugin_pane(ANSWER);
    let out = zellij.action(&["close-pane", "--pane-id", &plugin]);
    assert!(out.status.success(), "close-pane: {out:?}");
    wait_until_nothing_pending(&zellij);
    // Dismissed: opencode is not answered, and its own dialog, open all along, asks.
    opencodes_dialog(&zellij, DATABASE);
    assert!(chat::tool_message(&opencode.model.requests()).is_none());
    opencode.picks_sqlite_in_its_own_dialog(&zellij);
}

#[test]
fn esc_in_opencodes_dialog_takes_the_question_out_of_the_popup() {
    let zellij = Zellij::start();
    let opencode = Opencode::start(&zellij, "opencode-esc", database(), Where::InZellij);
    asked(&zellij, DATABASE);
    opencodes_dialog(&zellij, DATABASE);
    wait_for_title(&zellij, opencode.pane, &marked("opencode-esc"));
    // Dismissed in opencode's pane (opencode ends the turn there, its model not asked again):
    // the popup's question is withdrawn and the pane's mark goes.
    opencode.keys(&zellij, &["Esc"]);
    wait_until_nothing_pending(&zellij);
    wait_for_title(&zellij, opencode.pane, "opencode-esc");
}

/// The command the scripted model asks opencode to run, which needs the user's approval.
const OPENCODE_COMMAND: &str = "touch approved && echo approved-by-the-popup";

/// opencode asking to run `OPENCODE_COMMAND`, its permission prompt in the popup.
fn opencode_asking_for_approval(zellij: &Zellij, name: &str) -> Opencode {
    let arguments = json!({"command": OPENCODE_COMMAND, "description": "Say it was approved"});
    let opencode = Opencode::start_calling(zellij, name, "bash", arguments, Where::InZellij, true);
    zellij.wait_for_screen(
        "opencode's permission prompt in the popup",
        Duration::from_secs(90),
        |s| {
            s.contains("opencode asks")
                && s.contains(&format!("Allow opencode to use bash: {OPENCODE_COMMAND}?"))
                && s.contains("❯ Deny")
        },
    );
    opencode
}

#[test]
fn opencodes_permission_prompt_allowed_in_the_popup_runs_the_command() {
    let zellij = Zellij::start();
    let opencode = opencode_asking_for_approval(&zellij, "opencode-allow");
    allow_once(&zellij);
    let message = opencode.tool_message(&zellij);
    assert!(message.contains("approved-by-the-popup"), "{message:?}");
}

#[test]
fn opencodes_permission_prompt_denied_with_a_note_gives_the_model_the_note() {
    let zellij = Zellij::start();
    let opencode = opencode_asking_for_approval(&zellij, "opencode-deny");
    deny_with_a_note(&zellij, "use the staging registry", "Deny");
    let message = opencode.tool_message(&zellij);
    assert!(
        message.contains("The user denied this: use the staging registry"),
        "{message:?}"
    );
    assert!(
        !message.contains("approved-by-the-popup"),
        "it ran: {message:?}"
    );
}

#[test]
fn a_permission_prompt_answered_in_opencode_leaves_the_popup() {
    let zellij = Zellij::start();
    let opencode = opencode_asking_for_approval(&zellij, "opencode-own-prompt");
    // opencode's own prompt is open all along; Enter there allows once.
    opencode.keys(&zellij, &["Enter"]);
    let message = opencode.tool_message(&zellij);
    assert!(message.contains("approved-by-the-popup"), "{message:?}");
    wait_until_nothing_pending(&zellij);
}

#[test]
fn closing_opencodes_approval_leaves_its_own_prompt_to_decide() {
    let zellij = Zellij::start();
    let opencode = opencode_asking_for_approval(&zellij, "opencode-esc");
    // Esc in the popup decides nothing: opencode's own prompt, open all along, decides.
    zellij.send_keys(&["Esc"]);
    wait_until_nothing_pending(&zellij);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(chat::tool_message(&opencode.model.requests()), None);
    opencode.keys(&zellij, &["Enter"]);
    let message = opencode.tool_message(&zellij);
    assert!(message.contains("approved-by-the-popup"), "{message:?}");
}
