//! End to end with the real Pi coding agent: its model replaced by a scripted Chat Completions
//! server that calls `ask_user_question`, the extension installed by `ask-popup setup pi --write`, and the
//! user answering in the popup (or, outside Zellij, in Pi's own dialog). What the model gets
//! back is read from the next request Pi sends.

use crate::agents::{
    blocked as blocked_event, heard, marked, new_pane, note_reports_can_wait, press_esc_in,
    question, shell_quote, status, text_of, tick_invoices_and_reports, wait_for_title,
    wait_until_nothing_pending,
};
use crate::claude::pick_the_second_option;
use crate::command::{command, setup_write};
use crate::harness::{agent_bin, agent_path, zellij_bin, Options, Zellij};
use crate::http::LoopbackServer;
use crate::model::{chat, ModelServer};
use crate::ANSWER;
use ask_popup::setup;
use ask_popup_protocol::envelope::{self, Answer, Outcome, Responses};
use ask_popup_protocol::request;
use ask_popup_protocol::tool;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DATABASE: &str = "Which database?";
const FEATURES: &str = "Which features?";
const SHIP: &str = "When do we ship?";

fn database() -> Value {
    json!({"questions": [question(DATABASE, "DB", &["Postgres", "SQLite"], false)]})
}

/// Where Pi runs: inside the Zellij session, or in a pane that does not know it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Where {
    InZellij,
    OutsideZellij,
}

/// How the extension gets into Pi.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Install<'a> {
    /// `ask-popup setup pi --write`: the files the command carries, in Pi's extensions dir.
    Setup,
    /// `pi install npm:pi-ask-popup`, as from npm's registry once published: the registry here
    /// is one on 127.0.0.1 that serves the packed package (a release's `.tgz`) as npm's serves
    /// a package, and Pi installs it into the npm folder of its agent dir (`<agent>/npm`).
    Package(&'a Path),
}

/// Pi running in a pane of `zellij`, asked by its model to call the tool with `arguments`.
struct Pi {
    pane: u32,
    model: ModelServer,
    events: std::path::PathBuf,
}

impl Pi {
    /// SQLite picked in the popup, and Pi's model told so in the popup's words.
    fn gets_sqlite_picked_in_the_popup(&self, zellij: &Zellij) {
        pick_the_second_option(zellij);
        let mut responses = Responses::empty(1);
        responses.answers[0] = Some(Answer::Option(1));
        assert_eq!(
            self.tool_message(zellij),
            text_of(&database(), &Outcome::Submitted(responses))
        );
    }

    fn start(zellij: &Zellij, name: &str, arguments: Value, place: Where) -> Pi {
        Pi::start_installed(zellij, name, arguments, place, Install::Setup)
    }

    fn start_installed(
        zellij: &Zellij,
        name: &str,
        arguments: Value,
        place: Where,
        install: Install,
    ) -> Pi {
        Pi::start_with(zellij, name, arguments, place, install, &[])
    }

    /// Pi as `start_installed` starts it, with the extensions of these folders of
    /// `tests/e2e` loaded too (`-e`).
    fn start_with(
        zellij: &Zellij,
        name: &str,
        arguments: Value,
        place: Where,
        install: Install,
        others: &[&str],
    ) -> Pi {
        let model = ModelServer::start(chat::calling(tool::NAME, arguments));
        let dir = zellij.scratch().join(name);
        let (home, agent, tmp, work) = (
            dir.join("home"),
            dir.join("agent"),
            dir.join("tmp"),
            dir.join("work"),
        );
        for d in [&home, &agent, &tmp, &work] {
            std::fs::create_dir_all(d).expect("create Pi's dirs");
        }
        let models = json!({"providers": {"scripted": {
            "baseUrl": format!("{}/v1", model.url()),
            "api": "openai-completions",
            "apiKey": "scripted-key",
            "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false,
                       "supportsUsageInStreaming": true},
            "models": [{"id": "scripted-model", "name": "Scripted", "reasoning": false,
                        "input": ["text"], "contextWindow": 128000, "maxTokens": 4096,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}],
        }}});
        std::fs::write(agent.join("models.json"), models.to_string()).expect("models.json");
        let outside = match place {
            Where::InZellij => "",
            Where::OutsideZellij => "-u ZELLIJ -u ZELLIJ_SESSION_NAME -u ZELLIJ_PANE_ID ",
        };
        // npm's global folder, a scratch one: Pi 1.6 installs a user's packages into its agent
        // dir's `npm` folder, and nothing may land in the machine's.
        let npm_prefix = dir.join("npm-global");
        match install {
            // As `ask-popup setup pi --write` installs it: in Pi's own extensions dir, where Pi
            // finds it without being told.
            Install::Setup => {
                setup_write("pi", &[("HOME", &home), ("PI_CODING_AGENT_DIR", &agent)]);
                assert!(agent.join("extensions/ask-popup/src/index.ts").is_file());
            }
            Install::Package(tgz) => {
                pi_install(&agent_bin("pi"), tgz, &home, &agent, &npm_prefix, &dir);
                assert!(!agent.join("extensions").exists());
            }
        }
        let extension = Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/pi");
        // Another extension that hears the events, importing `pi-ask-popup/events` as a package.
        let listener = dir.join("listener");
        std::fs::create_dir_all(listener.join("node_modules")).expect("the listener's dir");
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/pi_listener/index.ts"),
            listener.join("index.ts"),
        )
        .expect("copy the listener");
        std::os::unix::fs::symlink(&extension, listener.join("node_modules/pi-ask-popup"))
            .expect("link pi-ask-popup");
        let line = format!(
            "cd {work} && exec env -u TMUX -u TMUX_PANE {outside}{path}HOME={home} \
             NPM_CONFIG_PREFIX={npm_prefix} npm_config_offline=true \
             npm_config_update_notifier=false \
             PI_CODING_AGENT_DIR={agent} TMPDIR={tmp} PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 \
             PI_TELEMETRY=0 ASK_POPUP_COMMAND={command} PI_EVENTS_LOG={events} {pi} \
             --provider scripted --model scripted-model --no-session -e {listener}{others} 'Ask me.'",
            work = q(&work),
            path = pi_path(),
            home = q(&home),
            agent = q(&agent),
            npm_prefix = q(&npm_prefix),
            tmp = q(&tmp),
            command = q(&command()),
            pi = q(&agent_bin("pi")),
            events = q(&dir.join("events.jsonl")),
            listener = q(&listener),
            others = others
                .iter()
                .map(|o| format!(
                    " -e {}",
                    q(&Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("tests/e2e")
                        .join(o)
                        .join("index.ts"))
                ))
                .collect::<String>(),
        );
        let pane = new_pane(zellij, name, &line);
        Pi {
            pane,
            model,
            events: dir.join("events.jsonl"),
        }
    }

    /// What another extension heard on Pi's event bus: `(channel, payload)`.
    fn heard(&self) -> Vec<(String, Value)> {
        std::fs::read_to_string(&self.events)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|v| {
                (
                    v["channel"].as_str().unwrap_or("").to_owned(),
                    v["payload"].clone(),
                )
            })
            .collect()
    }

    /// The tool's message Pi sent its model.
    fn tool_message(&self, zellij: &Zellij) -> String {
        self.model
            .wait_for("the tool message", ANSWER, chat::tool_message, || {
                zellij.screen()
            })
    }
}

/// `pi install npm:pi-ask-popup` as a user runs it once the package is published, into Pi's
/// agent dir `agent` (npm's global folder `prefix`, its cache in `dir`), from a registry on
/// 127.0.0.1 that has one package, the packed `tgz`: Pi (1.6) runs `npm install pi-ask-popup
/// --prefix <agent>/npm`, which asks the registry for the package's document and its tarball,
/// and nothing else.
fn pi_install(pi: &Path, tgz: &Path, home: &Path, agent: &Path, prefix: &Path, dir: &Path) {
    let registry = npm_registry(tgz);
    let source = format!("npm:{}", setup::PI_PACKAGE);
    let out = Command::new(pi)
        .args(["install", &source])
        .env("HOME", home)
        .env("PI_CODING_AGENT_DIR", agent)
        .env("PATH", agent_path("pi"))
        .env("NPM_CONFIG_PREFIX", prefix)
        .env("npm_config_registry", format!("{}/", registry.base()))
        .env("npm_config_cache", dir.join("npm-cache"))
        .env("npm_config_update_notifier", "false")
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false")
        .env("PI_SKIP_VERSION_CHECK", "1")
        .env("PI_TELEMETRY", "0")
        .stdin(Stdio::null())
        .output()
        .expect("run pi install");
    assert!(out.status.success(), "pi install {source}: {out:?}");
    let asked = registry.requests();
    assert!(
        asked.iter().any(|p| p.ends_with(".tgz")),
        "npm never fetched the package: {asked:?}"
    );
    let settings = std::fs::read_to_string(agent.join("settings.json")).expect("Pi's settings");
    assert_eq!(
        setup::pi_package_source(&settings).as_deref(),
        Some(source.as_str()),
        "{settings}"
    );
    assert!(agent
        .join("npm/node_modules/pi-ask-popup/src/index.ts")
        .is_file());
}

/// An npm registry with one package: the packed `tgz`, its document made from the package.json
/// inside it (as `npm publish` sends it).
fn npm_registry(tgz: &Path) -> LoopbackServer {
    let bytes = std::fs::read(tgz).expect("read the packed package");
    let name = tgz
        .file_name()
        .expect("the package's file name")
        .to_string_lossy()
        .into_owned();
    let manifest = Command::new("tar")
        .args(["-xzOf"])
        .arg(tgz)
        .arg("package/package.json")
        .output()
        .expect("read package.json from the package");
    let version: Value = serde_json::from_slice(&manifest.stdout).expect("package.json");
    let number = version["version"].as_str().expect("a version").to_owned();
    let document_path = format!("/{}", setup::PI_PACKAGE);
    let tarball_path = format!("/{}/-/{name}", setup::PI_PACKAGE);
    // The document names the tarball's URL, which has the port: known once the server is bound.
    let base = Arc::new(Mutex::new(String::new()));
    let server = {
        let base = base.clone();
        LoopbackServer::start(move |path| {
            if path == document_path {
                let mut published = version.clone();
                let url = format!("{}{tarball_path}", base.lock().unwrap());
                published["dist"] = json!({ "tarball": url });
                let document = json!({
                    "name": setup::PI_PACKAGE,
                    "dist-tags": { "latest": number },
                    "versions": { number.clone(): published },
                });
                Some(document.to_string().into_bytes())
            } else if path == tarball_path {
                Some(bytes.clone())
            } else {
                None
            }
        })
    };
    *base.lock().unwrap() = server.base();
    server
}

/// `PATH=… ` for Pi's pane: the Node Pi runs with (`scripts/agents.txt`) first, then the
/// Zellij under test, then this process's PATH.
fn pi_path() -> String {
    let runtime = agent_path("pi");
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&runtime).collect();
    if let Some(zellij) = zellij_bin().parent().filter(|d| !d.as_os_str().is_empty()) {
        dirs.insert(1.min(dirs.len()), zellij.to_path_buf());
    }
    let path = std::env::join_paths(dirs).expect("Pi's PATH");
    format!("PATH={} ", q(Path::new(&path)))
}

fn q(path: &Path) -> String {
    shell_quote(&path.to_string_lossy())
}

fn asked(zellij: &Zellij, question: &str) {
    zellij.wait_for_screen("Pi's question in the popup", ANSWER, |s| {
        s.contains("pi asks") && s.contains(question)
    });
}

#[test]
fn pi_gets_a_pick_from_the_popup_as_the_plugin_wrote_it() {
    let zellij = Zellij::start();
    let pi = Pi::start(&zellij, "pi-one", database(), Where::InZellij);
    asked(&zellij, DATABASE);
    wait_for_title(&zellij, pi.pane, &marked("pi-one"));
    pi.gets_sqlite_picked_in_the_popup(&zellij);
    // The tool as the model saw it: the library's description and schema.
    let declared = chat::declared_tool(&pi.model.requests(), tool::NAME).expect("declared");
    assert_eq!(declared["function"]["description"], tool::DESCRIPTION);
    assert_eq!(declared["function"]["parameters"], tool::parameters());
    // The skill setup installed is offered to the model.
    assert!(
        crate::model::lists_the_skill(&pi.model.requests()),
        "Pi did not offer its model the ask-user skill"
    );
    wait_for_title(&zellij, pi.pane, "pi-one");
    // Another extension heard the prompt, then the wait open and closed on both channels.
    let prompt = json!({"questions": [{"question": DATABASE, "header": "DB", "multiSelect": false,
        "options": [{"label": "Postgres", "description": "Postgres, described", "hasPreview": false},
                    {"label": "SQLite", "description": "SQLite, described", "hasPreview": false}]}]});
    let blocked = |active: bool| json!({ "active": active });
    assert_eq!(
        pi.heard(),
        [
            ("pi-ask-popup:prompt".to_owned(), prompt),
            ("pi-ask-popup:blocked".to_owned(), blocked(true)),
            ("herdr:blocked".to_owned(), blocked(true)),
            ("pi-ask-popup:blocked".to_owned(), blocked(false)),
            ("herdr:blocked".to_owned(), blocked(false)),
        ]
    );
}

/// The Pi package `scripts/release.sh` packed, `target/release-assets/pi-ask-popup-<version>.tgz`
/// (what a release carries, and what `npm publish` would send).
fn packed_pi_package() -> PathBuf {
    let tgz = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "target/release-assets/{}-{}.tgz",
        setup::PI_PACKAGE,
        env!("CARGO_PKG_VERSION")
    ));
    assert!(
        tgz.is_file(),
        "no {}: run `bash scripts/release.sh` (or `bash scripts/test.sh`)",
        tgz.display()
    );
    tgz
}

#[test]
fn pi_with_the_packed_package_pi_installed_from_a_registry_asks_in_the_popup() {
    let tgz = packed_pi_package();
    let zellij = Zellij::start();
    let pi = Pi::start_installed(
        &zellij,
        "pi-package",
        database(),
        Where::InZellij,
        Install::Package(&tgz),
    );
    asked(&zellij, DATABASE);
    wait_for_title(&zellij, pi.pane, &marked("pi-package"));
    pi.gets_sqlite_picked_in_the_popup(&zellij);
    let declared = chat::declared_tool(&pi.model.requests(), tool::NAME).expect("declared");
    assert_eq!(declared["function"]["description"], tool::DESCRIPTION);
    // The package ships the skill.
    assert!(
        crate::model::lists_the_skill(&pi.model.requests()),
        "Pi did not offer its model the package's ask-user skill"
    );
}

#[test]
fn pi_gets_a_multi_select_with_a_note_and_a_global_note() {
    let zellij = Zellij::start();
    let arguments = json!({"questions": [
        question(FEATURES, "Features", &["Invoices", "Refunds", "Reports"], true),
        question(SHIP, "Ship", &["This week", "Next week"], false),
    ]});
    let pi = Pi::start(&zellij, "pi-multi", arguments.clone(), Where::InZellij);
    asked(&zellij, FEATURES);
    tick_invoices_and_reports(&zellij);
    note_reports_can_wait(&zellij);
    zellij.send_keys(&["Tab"]);
    zellij.wait_for_screen("the second question", ANSWER, |s| s.contains(SHIP));
    zellij.send_keys(&["Enter"]);
    zellij.wait_for_screen("the review", ANSWER, |s| s.contains("Review your answers"));
    zellij.send_keys(&["n"]);
    zellij.wait_for_screen("the global note editor", ANSWER, |s| {
        s.contains("Global note:")
    });
    zellij.write_chars("thanks");
    zellij.send_keys(&["Enter"]);
    zellij.wait_for_screen("the global note saved", ANSWER, |s| s.contains("→ thanks"));
    zellij.send_keys(&["Enter"]);
    let given = Responses {
        answers: vec![
            Some(Answer::Multi {
                ticked: vec![0, 2],
                text: None,
            }),
            Some(Answer::Option(0)),
        ],
        notes: vec!["reports can wait".to_owned(), String::new()],
        global_note: "thanks".to_owned(),
    };
    assert_eq!(
        pi.tool_message(&zellij),
        text_of(&arguments, &Outcome::Submitted(given))
    );
}

#[test]
fn pi_gets_a_decline_and_chat_about_this() {
    let zellij = Zellij::start();
    let declining = Pi::start(&zellij, "pi-no", database(), Where::InZellij);
    asked(&zellij, DATABASE);
    zellij.send_keys(&["Esc"]);
    assert_eq!(declining.tool_message(&zellij), envelope::DECLINED_TEXT);

    let chatting = Pi::start(&zellij, "pi-chat", database(), Where::InZellij);
    asked(&zellij, DATABASE);
    zellij.send_keys(&["4"]);
    zellij.wait_for_screen("Chat about this focused", ANSWER, |s| {
        s.contains("❯ 4. Chat about this")
    });
    zellij.send_keys(&["Enter"]);
    assert_eq!(
        chatting.tool_message(&zellij),
        text_of(
            &database(),
            &Outcome::ChatRequested {
                question: 0,
                responses: Responses::empty(1)
            }
        )
    );
}

#[test]
fn pi_gets_a_timeout_that_is_not_a_decline() {
    let zellij = Zellij::start();
    let mut arguments = database();
    arguments["timeout"] = json!(2000);
    let pi = Pi::start(&zellij, "pi-late", arguments, Where::InZellij);
    asked(&zellij, DATABASE);
    assert_eq!(pi.tool_message(&zellij), envelope::TIMED_OUT_TEXT);
}

#[test]
fn invalid_questions_from_pis_model_are_answered_without_showing_anything() {
    let zellij = Zellij::start();
    // Caught by the extension's validator, with the plugin's code and text.
    let mut reserved = database();
    reserved["questions"][0]["options"][0]["label"] = json!("Other");
    let pi = Pi::start(&zellij, "pi-bad", reserved.clone(), Where::InZellij);
    let error = request::parse(&reserved.to_string()).expect_err("a reserved label");
    assert_eq!(pi.tool_message(&zellij), error.to_string());
    // Caught by the parameters' schema before the tool runs.
    let five: Vec<Value> = (0..5)
        .map(|i| question(&format!("Question {i}?"), "Q", &["A", "B"], false))
        .collect();
    let pi = Pi::start(
        &zellij,
        "pi-five",
        json!({ "questions": five }),
        Where::InZellij,
    );
    let message = pi.tool_message(&zellij);
    assert!(
        message.starts_with("Validation failed for tool \"ask_user_question\""),
        "{message}"
    );
    assert!(!zellij.screen().contains("pi asks"));
    assert_eq!(status(&zellij)["pending"], json!([]));
}

#[test]
fn esc_in_pi_takes_its_question_out_of_the_popup_and_leaves_nothing_running() {
    let zellij = Zellij::start();
    let pi = Pi::start(&zellij, "pi-esc", database(), Where::InZellij);
    asked(&zellij, DATABASE);
    wait_for_title(&zellij, pi.pane, &marked("pi-esc"));
    press_esc_in(&zellij, pi.pane);
    wait_until_nothing_pending(&zellij);
    wait_for_title(&zellij, pi.pane, "pi-esc");
    // Nothing of the call is left running.
    let until = zellij.until(ANSWER);
    loop {
        let ps = std::process::Command::new("ps")
            .args(["-eo", "args"])
            .output()
            .expect("run ps");
        let left: Vec<String> = String::from_utf8_lossy(&ps.stdout)
            .lines()
            .filter(|l| l.contains("ask --agent pi") || l.contains("--name ask --args pane_id"))
            .map(str::to_owned)
            .collect();
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < until, "still running: {left:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
    // The wait closed exactly once.
    let blocked: Vec<Value> = pi
        .heard()
        .into_iter()
        .filter(|(channel, _)| channel == "pi-ask-popup:blocked")
        .map(|(_, payload)| payload)
        .collect();
    assert_eq!(blocked, [json!({"active": true}), json!({"active": false})]);
}

#[test]
fn pi_outside_zellij_asks_in_its_own_select_dialog() {
    let zellij = Zellij::start();
    let pi = Pi::start(&zellij, "pi-alone", database(), Where::OutsideZellij);
    zellij.wait_for_screen("Pi's own dialog", ANSWER, |s| {
        s.contains(DATABASE) && s.contains("Postgres") && s.contains("SQLite")
    });
    assert!(!zellij.screen().contains("pi asks"));
    let pane = format!("terminal_{}", pi.pane);
    zellij.send_keys_to(&pane, &["Down"]);
    zellij.wait_for_screen("SQLite focused", ANSWER, |s| s.contains("→ SQLite"));
    zellij.send_keys_to(&pane, &["Enter"]);
    let mut responses = Responses::empty(1);
    responses.answers[0] = Some(Answer::Option(1));
    assert_eq!(
        pi.tool_message(&zellij),
        text_of(&database(), &Outcome::Submitted(responses))
    );
}

#[test]
fn another_extensions_confirm_marks_pis_wait_as_our_questions_do() {
    // A permission gate (tests/e2e/pi_gate) asks in Pi's own confirm before the tool runs: Pi
    // waits on the user there too (its ui_prompt_start / ui_prompt_end), and the extension
    // opens and closes the blocked pair around it, then around its own question; through
    // `ask-popup blocked` the plugin marks Pi's pane and says its pair for the confirm too.
    let zellij = Zellij::start_with(Options::default().with_listener());
    // The listener loaded (it answers) before Pi's first dialog can be told of.
    assert_eq!(heard(&zellij), Vec::new());
    let pi = Pi::start_with(
        &zellij,
        "pi-gated",
        database(),
        Where::InZellij,
        Install::Setup,
        &["pi_gate"],
    );
    zellij.wait_for_screen("the gate's confirm in Pi", ANSWER, |s| {
        s.contains("Gate: allow ask_user_question?") && s.contains("Yes")
    });
    let blocked = |active: bool| json!({ "active": active });
    let opened = [
        ("pi-ask-popup:blocked".to_owned(), blocked(true)),
        ("herdr:blocked".to_owned(), blocked(true)),
    ];
    let closed = [
        ("pi-ask-popup:blocked".to_owned(), blocked(false)),
        ("herdr:blocked".to_owned(), blocked(false)),
    ];
    wait_for_heard(&pi, &zellij, 2);
    assert_eq!(pi.heard(), opened);
    assert!(!zellij.screen().contains("pi asks"));
    wait_for_title(&zellij, pi.pane, &marked("pi-gated"));
    let dialog = the_dialogs_wait(&zellij, true);
    assert_eq!(
        dialog.1,
        blocked_event(
            true,
            pi.pane,
            "pi",
            1,
            dialog.1["requestId"].as_str().unwrap()
        ),
        "{dialog:#?}"
    );
    // Yes (focused first) in Pi's pane: the gate lets the tool run, which asks in the popup.
    zellij.send_keys_to(&format!("terminal_{}", pi.pane), &["Enter"]);
    asked(&zellij, DATABASE);
    pi.gets_sqlite_picked_in_the_popup(&zellij);
    let heard = pi.heard();
    let names: Vec<&str> = heard.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        names,
        [
            "pi-ask-popup:blocked",
            "herdr:blocked",
            "pi-ask-popup:blocked",
            "herdr:blocked",
            "pi-ask-popup:prompt",
            "pi-ask-popup:blocked",
            "herdr:blocked",
            "pi-ask-popup:blocked",
            "herdr:blocked",
        ],
        "{heard:#?}"
    );
    assert_eq!(heard[..2], opened);
    assert_eq!(heard[2..4], closed);
    assert_eq!(heard[5..7], opened);
    assert_eq!(heard[7..], closed);
    // The confirm's wait ended as the confirm went; the question's mark is gone with it.
    let ended = the_dialogs_wait(&zellij, false);
    assert_eq!(ended.1["requestId"], dialog.1["requestId"]);
    wait_for_title(&zellij, pi.pane, "pi-gated");
}

/// The plugin's `ask-popup:blocked` for a Pi dialog's wait (its id `pi-dialog-…`) as the
/// listener heard it, `active` or its end, waited for.
fn the_dialogs_wait(zellij: &Zellij, active: bool) -> (String, Value) {
    let until = zellij.until(ANSWER);
    loop {
        let heard = heard(zellij);
        let found = heard.iter().find(|(name, p)| {
            name == "ask-popup:blocked"
                && p["active"] == active
                && p["requestId"]
                    .as_str()
                    .is_some_and(|id| id.starts_with("pi-dialog-"))
        });
        if let Some(found) = found {
            return found.clone();
        }
        assert!(
            Instant::now() < until,
            "no ask-popup:blocked active={active} for a Pi dialog; heard {heard:#?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits until another extension heard `n` events on Pi's bus.
fn wait_for_heard(pi: &Pi, zellij: &Zellij, n: usize) {
    let until = zellij.until(ANSWER);
    while pi.heard().len() < n {
        assert!(
            Instant::now() < until,
            "heard only {:#?}; screen:\n{}",
            pi.heard(),
            zellij.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
