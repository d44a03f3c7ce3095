//! End to end with `ask-popup mcp` and two real MCP clients: the Codex CLI, its model replaced by
//! a scripted Responses API server that calls the tool and the server configured from
//! `ask-popup setup codex` as the README says; and the MCP Python SDK, a client independent of
//! the Rust SDK the server is written with, for the protocol's own parts (the listed schema,
//! progress, cancellation, a client that goes away). The notify command's timers in the
//! long-lived server are tested with the server driven over stdio by the test itself.

use crate::agents::{
    allow_once, deny_with_a_note, heard, heard_of_one_question, marked, new_pane,
    pick_the_second_option_of_each, question, shell_quote, status, text_of, wait_for_title,
    wait_until_nothing_pending, zellij_on_path,
};
use crate::command::{command, setup_write};
use crate::harness::{agent_bin, outside_zellij, Options, Zellij};
use crate::model::{responses, ModelServer};
use crate::ANSWER;
use ask_popup::setup;
use ask_popup_protocol::envelope::{self, Answer, Outcome, Responses};
use ask_popup_protocol::request;
use ask_popup_protocol::tool;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

const DATABASE: &str = "Which database?";
const LANGUAGE: &str = "Which language?";

fn database() -> Value {
    json!({"questions": [question(DATABASE, "DB", &["Postgres", "SQLite"], false)]})
}

fn language() -> Value {
    json!({"questions": [question(LANGUAGE, "Lang", &["Rust", "Go"], false)]})
}

fn picked(option: usize) -> Outcome {
    let mut responses = Responses::empty(1);
    responses.answers[0] = Some(Answer::Option(option));
    Outcome::Submitted(responses)
}

/// A JSON Schema without the keywords Codex leaves out of the tools it declares.
fn without_limits(mut schema: Value) -> Value {
    if let Some(object) = schema.as_object_mut() {
        for keyword in ["maxItems", "maxLength", "minimum"] {
            object.remove(keyword);
        }
        for value in object.values_mut() {
            *value = without_limits(value.take());
        }
    }
    schema
}

fn q(path: &Path) -> String {
    shell_quote(&path.to_string_lossy())
}

/// `codex exec` running in a pane of `zellij`, its model asking the tool with `arguments`.
struct Codex {
    name: String,
    pane: u32,
    model: ModelServer,
}

/// More of Codex's setup: `features` added to its `[features]` table, `flags` before its
/// prompt, whether it runs without the Zellij variables (as outside Zellij), and whether it
/// starts without a prompt (the test types one).
#[derive(Default)]
struct Extra {
    features: &'static str,
    flags: &'static str,
    outside_zellij: bool,
    no_prompt: bool,
    /// Codex's `approval_policy` (`never` when empty).
    approval_policy: &'static str,
    /// Whether setup also installs the permission prompts' hook (`--approvals`).
    approvals: bool,
}

/// How Codex runs: `codex exec` (its output to files), or its interactive UI in the pane.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Run {
    Exec,
    Interactive,
}

impl Codex {
    fn start(zellij: &Zellij, name: &str, arguments: Value) -> Codex {
        Codex::launch(zellij, name, arguments, Run::Exec, None)
    }

    /// With `tool_timeout_s`, the server's `tool_timeout_sec` is that instead of the setup's.
    fn launch(
        zellij: &Zellij,
        name: &str,
        arguments: Value,
        run: Run,
        tool_timeout_s: Option<u64>,
    ) -> Codex {
        let model = ModelServer::start(responses::calling(tool::NAME, arguments));
        // The hook setup installs is trusted by flag: the MCP tool is what these tests ask.
        let extra = Extra {
            flags: "--dangerously-bypass-hook-trust",
            ..Extra::default()
        };
        Codex::launch_with(zellij, name, model, run, tool_timeout_s, &extra)
    }

    /// Codex on `model`, as `extra` says.
    fn launch_with(
        zellij: &Zellij,
        name: &str,
        model: ModelServer,
        run: Run,
        tool_timeout_s: Option<u64>,
        extra: &Extra,
    ) -> Codex {
        let Extra {
            features,
            flags,
            outside_zellij,
            no_prompt,
            approval_policy,
            approvals,
        } = extra;
        let approval_policy = if approval_policy.is_empty() {
            "never"
        } else {
            approval_policy
        };
        let dir = zellij.scratch().join(name);
        let (home, codex_home, tmp, work) = (
            dir.join("home"),
            dir.join("codex"),
            dir.join("tmp"),
            dir.join("work"),
        );
        for d in [&home, &codex_home, &tmp, &work] {
            std::fs::create_dir_all(d).expect("create Codex's dirs");
        }
        // A provider on the scripted server, no retries, and nothing that reaches the network
        // (the curated-plugin sync, the analytics export, the update check).
        let config = format!(
            "model = \"scripted-model\"\n\
             model_provider = \"scripted\"\n\
             approval_policy = \"{approval_policy}\"\n\
             sandbox_mode = \"read-only\"\n\
             check_for_update_on_startup = false\n\
             \n\
             [features]\nplugins = false\n{features}\n\
             [analytics]\nenabled = false\n\n\
             [model_providers.scripted]\n\
             name = \"Scripted\"\n\
             base_url = \"{url}/v1\"\n\
             env_key = \"SCRIPTED_API_KEY\"\n\
             wire_api = \"responses\"\n\
             request_max_retries = 0\n\
             stream_max_retries = 0\n",
            url = model.url(),
        );
        let config_path = codex_home.join("config.toml");
        std::fs::write(&config_path, config).expect("write config.toml");
        // The server's table merged in by `ask-popup setup codex --write`, as a user does.
        let setup = if *approvals {
            "codex --approvals"
        } else {
            "codex"
        };
        setup_write(setup, &[("HOME", &home), ("CODEX_HOME", &codex_home)]);
        let written = std::fs::read_to_string(&config_path).expect("config.toml");
        assert!(
            written.contains(&setup::codex_snippet(&command().to_string_lossy())),
            "{written}"
        );
        if let Some(seconds) = tool_timeout_s {
            let written = written.replace(
                "tool_timeout_sec = 3600",
                &format!("tool_timeout_sec = {seconds}"),
            );
            std::fs::write(&config_path, written).expect("write config.toml");
        }
        let how = match run {
            Run::Exec => format!(
                "exec --skip-git-repo-check 'Ask me.' </dev/null >{} 2>{}",
                q(&dir.join("out.txt")),
                q(&dir.join("err.txt"))
            ),
            // No app-server daemon left running after the test.
            Run::Interactive if *no_prompt => format!("--no-daemon {flags}"),
            Run::Interactive => format!("--no-daemon {flags} 'Ask me.'"),
        };
        // The interactive UI fetches an announcement from the web at start, which no setting
        // turns off: a proxy on a closed loopback port keeps it on the machine, the model
        // server stays direct.
        let line = format!(
            "cd {work} && env -u TMUX -u TMUX_PANE {outside}{path}HOME={home} CODEX_HOME={codex_home} \
             TMPDIR={tmp} SCRIPTED_API_KEY=scripted-key HTTPS_PROXY=http://127.0.0.1:9 \
             HTTP_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost {codex} {how}; \
             exec sleep 1000",
            work = q(&work),
            path = zellij_on_path(),
            home = q(&home),
            codex_home = q(&codex_home),
            tmp = q(&tmp),
            codex = q(&agent_bin("codex")),
            outside = if *outside_zellij {
                "-u ZELLIJ -u ZELLIJ_SESSION_NAME -u ZELLIJ_PANE_ID "
            } else {
                ""
            },
        );
        let pane = new_pane(zellij, name, &line);
        Codex {
            name: name.to_owned(),
            pane,
            model,
        }
    }

    /// The tool's output Codex sent its model: the parts of its `function_call_output`.
    fn output(&self, zellij: &Zellij) -> Vec<String> {
        self.model.wait_for(
            "the function_call_output",
            ANSWER,
            responses::function_call_output,
            || zellij.screen(),
        )
    }

    /// The tool's own text, the last part of the output (after Codex's `Wall time` part).
    fn text(&self, zellij: &Zellij) -> String {
        let parts = self.output(zellij);
        parts.last().cloned().unwrap_or_default()
    }

    fn asked(&self, zellij: &Zellij, question: &str) {
        zellij.wait_for_screen(&format!("{}'s question", self.name), ANSWER, |s| {
            s.contains("codex asks") && s.contains(question)
        });
    }
}

#[test]
fn codex_gets_a_pick_from_the_popup_as_the_plugin_wrote_it() {
    let zellij = Zellij::start();
    let codex = Codex::start(&zellij, "codex-one", database());
    codex.asked(&zellij, DATABASE);
    wait_for_title(&zellij, codex.pane, &marked("codex-one"));
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("SQLite focused", ANSWER, |s| s.contains("❯ 2. SQLite"));
    zellij.send_keys(&["Enter"]);
    // Codex hands the model the tool's text byte for byte, after its own timing line.
    let parts = codex.output(&zellij);
    assert_eq!(
        parts.last().map(String::as_str),
        Some(text_of(&database(), &picked(1)).as_str()),
        "{parts:?}"
    );
    assert!(parts.len() <= 2, "{parts:?}");
    // The tool as the model saw it: the library's description; the schema's limits.
    let declared = responses::declared_tool(&codex.model.requests(), tool::NAME).expect("declared");
    assert_eq!(declared["description"], tool::DESCRIPTION);
    // Codex passes the schema on without its upper limits and minimum; the descriptions say
    // them, and the validator holds to them.
    assert_eq!(
        declared["parameters"],
        without_limits(tool::mcp_parameters())
    );
    // The skill setup installed is offered to the model.
    assert!(
        crate::model::lists_the_skill(&codex.model.requests()),
        "Codex did not offer its model the ask-user skill"
    );
    wait_for_title(&zellij, codex.pane, "codex-one");
}

#[test]
fn codexs_interactive_ui_gets_a_pick_from_the_popup() {
    let zellij = Zellij::start();
    let codex = Codex::launch(&zellij, "codex-ui", database(), Run::Interactive, None);
    codex.asked(&zellij, DATABASE);
    wait_for_title(&zellij, codex.pane, &marked("codex-ui"));
    zellij.send_keys(&["Enter"]);
    assert_eq!(codex.text(&zellij), text_of(&database(), &picked(0)));
    // Codex's own screen shows the call done and the model's last words.
    zellij.wait_for_screen("Codex's screen after the call", ANSWER, |s| {
        s.contains("ask-popup.ask_user_question") && s.contains("Done.")
    });
    wait_for_title(&zellij, codex.pane, "codex-ui");
}

#[test]
fn codex_gets_a_decline_and_a_validation_error() {
    let zellij = Zellij::start();
    let declining = Codex::start(&zellij, "codex-no", database());
    declining.asked(&zellij, DATABASE);
    zellij.send_keys(&["Esc"]);
    assert_eq!(declining.text(&zellij), envelope::DECLINED_TEXT);

    // A questionnaire the validator rejects is answered without showing anything.
    let mut reserved = database();
    reserved["questions"][0]["options"][0]["label"] = json!("Other");
    let rejected = Codex::start(&zellij, "codex-bad", reserved.clone());
    let error = request::parse(&reserved.to_string()).expect_err("a reserved label");
    assert_eq!(rejected.text(&zellij), error.to_string());
    assert!(!zellij.screen().contains("codex asks"));
    assert_eq!(status(&zellij)["pending"], json!([]));
}

#[test]
fn a_call_that_outlives_codexs_tool_timeout_leaves_the_popup() {
    let zellij = Zellij::start_with(Options::default().with_listener());
    // Loads the listener before anything is said.
    assert_eq!(heard(&zellij), Vec::new());
    let codex = Codex::launch(&zellij, "codex-late", database(), Run::Exec, Some(4));
    codex.asked(&zellij, DATABASE);
    wait_for_title(&zellij, codex.pane, &marked("codex-late"));
    // Nobody answers: Codex gives up on the call (notifications/cancelled), and the question
    // leaves the popup, the mark comes off and the wait closes once.
    wait_until_nothing_pending(&zellij);
    wait_for_title(&zellij, codex.pane, "codex-late");
    // The model hears it from Codex: the call timed out (no answer, no decline).
    let text = codex.text(&zellij);
    assert!(text.contains("timed out awaiting tools/call"), "{text}");
    // The wait opened and closed once, and the question ended withdrawn.
    let asked = heard_of_one_question(&zellij, "ask-popup:cancelled");
    assert_eq!(asked[1].1["active"], true);
    assert_eq!(asked[3].1["active"], false);
    assert_eq!(asked[5].1["reason"], "aborted");
}

#[test]
fn stopping_codex_while_it_waits_takes_its_question_back() {
    let zellij = Zellij::start();
    let codex = Codex::start(&zellij, "codex-stop", database());
    codex.asked(&zellij, DATABASE);
    wait_for_title(&zellij, codex.pane, &marked("codex-stop"));
    let asking = asking_from(zellij.session(), codex.pane);
    assert!(
        asking.iter().any(|l| l.contains(" mcp")),
        "no MCP server seen: {asking:?}"
    );
    // Ctrl+C in Codex's pane: Codex ends, and stops its MCP servers on the way out.
    let out = zellij.action(&[
        "write",
        "--pane-id",
        &format!("terminal_{}", codex.pane),
        "3",
    ]);
    assert!(out.status.success(), "write Ctrl+C: {out:?}");
    wait_until_nothing_pending(&zellij);
    wait_for_title(&zellij, codex.pane, "codex-stop");
    // Nothing of the call is left running: no `ask-popup mcp`, no `zellij pipe` to the plugin.
    let until = zellij.until(ANSWER);
    loop {
        let left = asking_from(zellij.session(), codex.pane);
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < until, "still running: {left:?}");
        thread::sleep(Duration::from_millis(200));
    }
}

/// The command lines of the processes started from pane `pane` of `session` that talk to
/// ask-popup (read from /proc, so that other tests' processes do not count).
fn asking_from(session: &str, pane: u32) -> Vec<String> {
    let session = format!("ZELLIJ_SESSION_NAME={session}");
    let pane = format!("ZELLIJ_PANE_ID={pane}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let dir = entry.ok()?.path();
            let environ = std::fs::read(dir.join("environ")).ok()?;
            let mut vars = environ.split(|b| *b == 0);
            let ours =
                vars.clone().any(|v| v == session.as_bytes()) && vars.any(|v| v == pane.as_bytes());
            let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (ours && cmdline.contains("ask-popup")).then_some(cmdline)
        })
        .collect()
}

#[test]
fn two_codex_panes_asking_at_once_each_get_their_own_answer() {
    let zellij = Zellij::start();
    let first = Codex::start(&zellij, "codex-a", database());
    let second = Codex::start(&zellij, "codex-b", language());
    wait_for_title(&zellij, first.pane, &marked("codex-a"));
    wait_for_title(&zellij, second.pane, &marked("codex-b"));
    // Whichever shows first: SQLite for the database, Go for the language.
    pick_the_second_option_of_each(
        &zellij,
        "codex asks",
        &[(DATABASE, "SQLite"), (LANGUAGE, "Go")],
    );
    assert_eq!(first.text(&zellij), text_of(&database(), &picked(1)));
    assert_eq!(second.text(&zellij), text_of(&language(), &picked(1)));
    wait_for_title(&zellij, first.pane, "codex-a");
    wait_for_title(&zellij, second.pane, "codex-b");
}

/// The MCP Python SDK client (`tests/e2e/mcp_client.py`) against `ask-popup mcp`.
struct PythonClient {
    out: PathBuf,
}

impl PythonClient {
    /// Runs the client with `args` in a new pane of `zellij` (so the server is in the session).
    fn start(zellij: &Zellij, name: &str, args: &[&str]) -> PythonClient {
        let dir = zellij.scratch().join(name);
        std::fs::create_dir_all(&dir).expect("the client's dir");
        let out = dir.join("report.json");
        let args: Vec<String> = args.iter().map(|a| shell_quote(a)).collect();
        let line = format!(
            "cd {dir} && exec env {path}ASK_POPUP_MCP_ENV_VARS={vars} {python} {client} \
             {server} {out} {args}",
            dir = q(&dir),
            path = zellij_on_path(),
            vars = setup::MCP_ENV_VARS.join(","),
            python = q(&agent_bin("mcp-python")),
            client = q(&client_script()),
            server = q(&command()),
            out = q(&out),
            args = args.join(" "),
        );
        new_pane(zellij, name, &line);
        PythonClient { out }
    }

    /// Whether the client has written its report (it does once its session is over).
    fn done(&self) -> bool {
        self.out.exists()
    }

    /// Waits until the client has heard `count` progress notifications of its call (it notes
    /// each in `<report>.progress` as it comes).
    fn wait_for_progress(&self, zellij: &Zellij, count: usize) {
        let heard = PathBuf::from(format!("{}.progress", self.out.display()));
        let until = zellij.until(ANSWER);
        loop {
            let lines = std::fs::read_to_string(&heard).map_or(0, |text| text.lines().count());
            if lines >= count {
                return;
            }
            assert!(
                Instant::now() < until,
                "the MCP client heard {lines} progress notifications, not {count}\n{}",
                zellij.screen()
            );
            thread::sleep(Duration::from_millis(100));
        }
    }

    fn report(&self, zellij: &Zellij) -> Value {
        let until = zellij.until(ANSWER);
        while !self.done() {
            assert!(
                Instant::now() < until,
                "the MCP client wrote no report\n{}",
                zellij.screen()
            );
            thread::sleep(Duration::from_millis(100));
        }
        let text = std::fs::read_to_string(&self.out).expect("read the report");
        serde_json::from_str(&text).expect("the report is JSON")
    }
}

fn client_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/mcp_client.py")
}

#[test]
fn an_mcp_python_client_lists_the_tool_as_the_library_declares_it() {
    // Outside Zellij: listing needs no popup, and a call answers no_ui at once.
    let temp = tempfile::Builder::new()
        .prefix("ask-popup-mcp-list-")
        .tempdir()
        .expect("a dir");
    let dir = temp.path();
    let run = |mode: &[&str]| -> Value {
        let out = dir.join(format!("{}.json", mode[0]));
        let ran = outside_zellij(&mut Command::new(agent_bin("mcp-python")), dir)
            .arg(client_script())
            .arg(command())
            .arg(&out)
            .args(mode)
            .output()
            .expect("run the MCP client");
        assert!(ran.status.success(), "{ran:?}");
        serde_json::from_str(&std::fs::read_to_string(&out).expect("the report")).expect("JSON")
    };
    let listed = run(&["list"]);
    assert_eq!(listed["initialize"]["serverInfo"]["name"], "ask-popup");
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(2));
    let declared = &listed["tools"][0];
    assert_eq!(declared["name"], tool::NAME);
    assert_eq!(declared["description"], tool::DESCRIPTION);
    assert_eq!(declared["inputSchema"], tool::mcp_parameters());
    assert_eq!(declared["annotations"]["readOnlyHint"], true);
    assert_eq!(declared["annotations"]["destructiveHint"], false);
    // Fetching the answer to a question asked without waiting (`wait` false).
    let answer = &listed["tools"][1];
    assert_eq!(answer["name"], tool::ANSWER_NAME);
    assert_eq!(answer["description"], tool::ANSWER_DESCRIPTION);
    assert_eq!(answer["inputSchema"], tool::answer_parameters());

    let called = run(&["call", &database().to_string()]);
    let result = &called["result"];
    assert_eq!(result["isError"], true);
    assert_eq!(result["content"][0]["text"], envelope::NO_UI_TEXT);
    assert_eq!(result.get("structuredContent"), None);
}

#[test]
fn an_mcp_python_client_hears_progress_while_the_user_thinks_and_gets_the_text_alone() {
    let zellij = Zellij::start();
    let client = PythonClient::start(&zellij, "py-call", &["call", &database().to_string()]);
    zellij.wait_for_screen("the client's question", ANSWER, |s| {
        s.contains("mcp asks") && s.contains(DATABASE)
    });
    // The user takes a while: until the client has heard two progress notifications.
    client.wait_for_progress(&zellij, 2);
    zellij.send_keys(&["Enter"]);
    let report = client.report(&zellij);
    let result = &report["result"];
    assert_eq!(result["isError"], false);
    assert_eq!(
        result["content"][0]["text"],
        text_of(&database(), &picked(0)).as_str()
    );
    // The text alone: no structured content that a client could hand its model instead.
    assert_eq!(result["content"].as_array().map(Vec::len), Some(1));
    assert_eq!(result.get("structuredContent"), None);
    // Progress came every few seconds, rising, saying what it waits for.
    let progress = report["progress"].as_array().expect("a list");
    assert!(progress.len() >= 2, "{progress:?}");
    let values: Vec<f64> = progress
        .iter()
        .filter_map(|p| p["progress"].as_f64())
        .collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    assert!(progress[0]["message"]
        .as_str()
        .is_some_and(|m| m.contains("Waiting for the user")));
}

#[test]
fn an_mcp_client_that_cancels_or_goes_away_takes_its_question_back() {
    let zellij = Zellij::start();
    // Cancelled: the client gives up after 3 s and keeps its session open a little longer.
    let client = PythonClient::start(
        &zellij,
        "py-cancel",
        &["cancel", &database().to_string(), "3"],
    );
    zellij.wait_for_screen("the client's question", ANSWER, |s| {
        s.contains("mcp asks") && s.contains(DATABASE)
    });
    wait_until_nothing_pending(&zellij);
    assert!(
        !client.done(),
        "the question left only when the client's session ended, not when it cancelled"
    );
    let report = client.report(&zellij);
    assert_eq!(report["gave_up"], true);
    assert!(report.get("result").is_none(), "{report}");

    // Gone: the client is killed while the question waits.
    let gone = PythonClient::start(&zellij, "py-gone", &["call", &language().to_string()]);
    zellij.wait_for_screen("the second client's question", ANSWER, |s| {
        s.contains("mcp asks") && s.contains(LANGUAGE)
    });
    let killed = Command::new("pkill")
        .args(["-KILL", "-f", &gone.out.to_string_lossy()])
        .status()
        .expect("run pkill");
    assert!(killed.success(), "no client to kill");
    wait_until_nothing_pending(&zellij);
}

/// `ask-popup mcp` as if run from a pane of `zellij`, driven over stdio by the test itself
/// (newline-delimited JSON-RPC), with these variables set.
struct StdioServer {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    messages: std::sync::mpsc::Receiver<Value>,
}

impl StdioServer {
    fn start(zellij: &Zellij, vars: &[(&str, &str)]) -> StdioServer {
        let mut server = zellij.in_session(&command());
        server
            .arg("mcp")
            .envs(vars.iter().copied())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        let mut child = server.spawn().expect("run ask-popup mcp");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("the server's stdout");
        let (tx, messages) = std::sync::mpsc::channel();
        thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(message) = serde_json::from_str::<Value>(&line) {
                    if tx.send(message).is_err() {
                        break;
                    }
                }
            }
        });
        StdioServer {
            child,
            stdin,
            messages,
        }
    }

    fn send(&mut self, message: Value) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("the server's stdin is open");
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// The response to request `id` (notifications on the way are skipped).
    fn response(&self, zellij: &Zellij, id: u64) -> Value {
        let until = zellij.until(ANSWER);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if message["id"] == id => return message,
                Ok(_) => {}
                Err(e) => panic!(
                    "no response to request {id} ({e}); screen:\n{}",
                    zellij.screen()
                ),
            }
        }
    }

    fn call(&mut self, id: u64, arguments: &Value) {
        self.call_tool(id, tool::NAME, arguments);
    }

    fn call_tool(&mut self, id: u64, name: &str, arguments: &Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}));
    }

    /// `initialize` as client `name`, answered, and `initialized`.
    fn initialize(&mut self, zellij: &Zellij, name: &str) {
        self.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": name, "version": "1"}}}),
        );
        self.response(zellij, 1);
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    /// Closes stdin (the client goes away) and waits for the server to end.
    fn close(mut self, zellij: &Zellij) {
        drop(self.stdin.take());
        let until = zellij.until(ANSWER);
        while self
            .child
            .try_wait()
            .expect("the server's status")
            .is_none()
        {
            assert!(Instant::now() < until, "the server never ended");
            thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn an_mcp_server_notifies_of_a_call_left_waiting_never_of_one_answered_first() {
    // The server outlives its calls, and so would a call's timer that its answer did not stop.
    const DELAY: Duration = Duration::from_secs(10);
    let zellij = Zellij::start();
    let dir = zellij.scratch();
    let notify = crate::command::notify_command(&dir, "");
    let mut server = StdioServer::start(
        &zellij,
        &[
            (ask_popup::notify::COMMAND_VAR, notify.as_str()),
            (ask_popup::notify::DELAY_VAR, "10"),
        ],
    );
    server.initialize(&zellij, "notifier");

    // The first call is answered before its delay.
    let first = Instant::now();
    server.call(2, &database());
    zellij.wait_for_screen("the first call's question", ANSWER, |s| {
        s.contains("notifier asks") && s.contains(DATABASE)
    });
    zellij.send_keys(&["Enter"]);
    let response = server.response(&zellij, 2);
    assert_eq!(
        response["result"]["content"][0]["text"],
        text_of(&database(), &picked(0)).as_str()
    );
    assert!(
        first.elapsed() < DELAY,
        "the answer took {:?}, longer than the delay: this test needs a less busy machine",
        first.elapsed()
    );

    // The second waits until it is notified of: the first call's timer, had it outlived its
    // call, would have run before.
    server.call(3, &language());
    zellij.wait_for_screen("the second call's question", ANSWER, |s| {
        s.contains("notifier asks") && s.contains(LANGUAGE)
    });
    let document = crate::command::wait_for_file(
        &zellij,
        &dir.join("doc.json"),
        "the notify command never ran",
    );
    let document: Value = serde_json::from_str(&document).expect("the document is JSON");
    assert_eq!(document["agent"], "notifier");
    assert_eq!(document["headers"], json!(["Lang"]), "{document}");
    assert_eq!(document["questions"][0]["question"], LANGUAGE);
    assert_eq!(document["session"], zellij.session());
    zellij.send_keys(&["Enter"]);
    let response = server.response(&zellij, 3);
    assert_eq!(
        response["result"]["content"][0]["text"],
        text_of(&language(), &picked(0)).as_str()
    );
    server.close(&zellij);
    let runs = std::fs::read_to_string(dir.join("runs")).expect("runs");
    assert_eq!(runs, "run\n", "one notification, for the call left waiting");
}

#[test]
fn an_mcp_client_asks_without_waiting_and_gets_the_answer_later() {
    let zellij = Zellij::start();
    let client = PythonClient::start(&zellij, "later", &["later", &database().to_string()]);
    // The question is in the popup, and the client already has its id and "not yet".
    zellij.wait_for_screen("the question asked for later", ANSWER, |s| {
        s.contains("Which database?")
    });
    let asked = client.out.with_extension("json.asked");
    let until = zellij.until(ANSWER);
    while !asked.exists() {
        assert!(Instant::now() < until, "the client never had its id");
        thread::sleep(Duration::from_millis(100));
    }
    let first: Value =
        serde_json::from_str(&std::fs::read_to_string(&asked).expect("asked")).expect("JSON");
    let text = first["asked"]["content"][0]["text"]
        .as_str()
        .expect("a text");
    assert!(text.contains("requestId is \""), "{text}");
    assert_ne!(first["asked"]["isError"], true);
    let id = text
        .split("requestId is \"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap();
    assert_eq!(
        first["at_once"]["content"][0]["text"],
        tool::waiting_text(id)
    );
    // The user answers: the client, waiting in get_user_answer, gets the envelope's text.
    zellij.wait_until_keys_count();
    zellij.send_keys(&["Down"]);
    zellij.send_keys(&["Enter"]);
    let report = client.report(&zellij);
    let answer = &report["answer"];
    assert_ne!(answer["isError"], true, "{report}");
    let text = answer["content"][0]["text"].as_str().expect("a text");
    assert!(text.contains("=\"SQLite\""), "{text}");
}

/// The children of process `pid`, with their states (`Z`: ended, not reaped), from /proc.
fn children_of(pid: u32) -> Vec<(u32, char)> {
    let mut children = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().and_then(|s| s.chars().next());
        let ppid = fields.next().and_then(|p| p.parse::<u32>().ok());
        let child = head.split_whitespace().next().and_then(|p| p.parse().ok());
        if let (Some(state), Some(ppid), Some(child)) = (state, ppid, child) {
            if ppid == pid {
                children.push((child, state));
            }
        }
    }
    children
}

#[test]
fn an_mcp_server_reaps_the_process_of_a_question_asked_for_later() {
    let zellij = Zellij::start();
    let mut server = StdioServer::start(&zellij, &[]);
    server.initialize(&zellij, "later");
    // By the tool's older name, which asks without waiting as `wait` false does.
    server.call_tool(2, tool::LATER_NAME, &database());
    let asked = server.response(&zellij, 2);
    let text = asked["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let id = text
        .split("requestId is \"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap_or_else(|| panic!("no id in {asked}"))
        .to_owned();
    zellij.wait_for_screen("the question asked for later", ANSWER, |s| {
        s.contains("later asks") && s.contains(DATABASE)
    });
    zellij.wait_until_keys_count();
    zellij.send_keys(&["Enter"]);
    server.call_tool(
        3,
        tool::ANSWER_NAME,
        &json!({"requestId": id, "waitSeconds": 30}),
    );
    let answer = server.response(&zellij, 3);
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("=\"Postgres\""), "{answer}");
    // The process that waited for the answer ends and is reaped: nothing of it stays behind
    // the server. (An ended process is a zombie for the moment before its parent reaps it; one
    // never reaped stays one.)
    let server_pid = server.child.id();
    let until = zellij.until(ANSWER);
    loop {
        let children = children_of(server_pid);
        if children.is_empty() {
            break;
        }
        assert!(
            Instant::now() < until,
            "left behind `ask-popup mcp` (Z: ended, never reaped): {children:?}"
        );
        thread::sleep(Duration::from_millis(100));
    }
    server.close(&zellij);
}

/// Codex's own `request_user_input` arguments: one question on the database.
fn codex_question() -> Value {
    json!({"questions": [{
        "id": "db",
        "header": "DB",
        "question": DATABASE,
        "options": [
            {"label": "Postgres", "description": "Postgres, described"},
            {"label": "SQLite", "description": "SQLite, described"},
        ],
    }]})
}

/// Codex's interactive UI offering `request_user_input` outside Plan mode (the
/// `default_mode_request_user_input` feature), the hook `setup codex --write` installs run
/// without Codex's trust review (a test's fresh CODEX_HOME has nobody to trust it).
fn codex_asking_itself(zellij: &Zellij, name: &str, outside_zellij: bool) -> Codex {
    let extra = Extra {
        features: "default_mode_request_user_input = true\n",
        flags: "--dangerously-bypass-hook-trust",
        outside_zellij,
        ..Extra::default()
    };
    codex_calling_its_tool(zellij, name, &extra)
}

/// Codex's interactive UI whose model calls `request_user_input` when it is offered.
fn codex_calling_its_tool(zellij: &Zellij, name: &str, extra: &Extra) -> Codex {
    let model = ModelServer::start(responses::calling_function(
        ask_popup::hooks::codex::TOOL,
        codex_question(),
    ));
    Codex::launch_with(zellij, name, model, Run::Interactive, None, extra)
}

/// What Codex hands its model for a call its hook denied with `reason` (the hook leaves off a
/// last full stop, which Codex adds).
fn denied(reason: &str) -> String {
    format!(
        "Tool call blocked by PreToolUse hook: {}. Tool: {}",
        reason.strip_suffix('.').unwrap_or(reason),
        ask_popup::hooks::codex::TOOL
    )
}

#[test]
fn codexs_own_question_tool_is_answered_in_the_popup() {
    let zellij = Zellij::start();
    let extra = Extra {
        features: "default_mode_request_user_input = true\n",
        outside_zellij: false,
        ..Extra::default()
    };
    let codex = codex_calling_its_tool(&zellij, "codex-own", &extra);
    // As a user does after `setup codex --write`: Codex asks to review the new hook first.
    let pane = format!("terminal_{}", codex.pane);
    zellij.wait_for_screen("Codex's hook review", ANSWER, |s| {
        s.contains("Hooks need review") && s.contains("Trust all and continue")
    });
    let out = zellij.action(&["write-chars", "--pane-id", &pane, "2"]);
    assert!(out.status.success(), "write 2: {out:?}");
    zellij.wait_for_screen("trusting chosen", ANSWER, |s| {
        s.contains("› 2. Trust all and continue")
    });
    let out = zellij.action(&["write-chars", "--pane-id", &pane, "\r"]);
    assert!(out.status.success(), "write Enter: {out:?}");
    codex.asked(&zellij, DATABASE);
    wait_for_title(&zellij, codex.pane, &marked("codex-own"));
    zellij.send_keys(&["Down"]);
    zellij.wait_for_screen("SQLite focused", ANSWER, |s| s.contains("❯ 2. SQLite"));
    zellij.send_keys(&["Enter"]);
    // The answers as Codex's own dialog gives them, in the denial's reason Codex hands on.
    let answers = json!({"answers": {"db": {"answers": ["SQLite"]}}});
    assert_eq!(
        codex.text(&zellij),
        denied(&format!("{}{answers}", ask_popup::hooks::codex::ANSWERED))
    );
    wait_for_title(&zellij, codex.pane, "codex-own");
}

#[test]
fn codexs_own_question_declined_in_the_popup_tells_the_model() {
    let zellij = Zellij::start();
    let codex = codex_asking_itself(&zellij, "codex-own-no", false);
    codex.asked(&zellij, DATABASE);
    zellij.send_keys(&["Esc"]);
    assert_eq!(codex.text(&zellij), denied(envelope::DECLINED_TEXT));
}

#[test]
fn outside_zellij_codex_asks_its_own_question_itself() {
    let zellij = Zellij::start();
    let codex = codex_asking_itself(&zellij, "codex-own-out", true);
    // Codex's own dialog, in its pane: the popup never shows.
    zellij.wait_for_screen("Codex's own dialog", ANSWER, |s| {
        s.contains(DATABASE) && s.contains("SQLite")
    });
    assert!(!zellij.screen().contains("codex asks"));
    assert_eq!(status(&zellij)["pending"], json!([]));
    // Answered there (Enter in Codex's pane), the model gets Codex's own answer, not a denial.
    let out = zellij.action(&[
        "write",
        "--pane-id",
        &format!("terminal_{}", codex.pane),
        "13",
    ]);
    assert!(out.status.success(), "write Enter: {out:?}");
    // The same form the popup's answers take in the hook's reason.
    assert_eq!(
        codex.text(&zellij),
        json!({"answers": {"db": {"answers": ["Postgres"]}}}).to_string()
    );
}

#[test]
fn codexs_own_question_in_plan_mode_is_answered_in_the_popup() {
    let zellij = Zellij::start();
    // Codex as it comes (the tool only in Plan mode): switched to Plan mode, then asked.
    let extra = Extra {
        flags: "--dangerously-bypass-hook-trust",
        no_prompt: true,
        ..Extra::default()
    };
    let codex = codex_calling_its_tool(&zellij, "codex-plan", &extra);
    let pane = format!("terminal_{}", codex.pane);
    zellij.wait_for_screen("Codex ready", ANSWER, |s| s.contains("OpenAI Codex"));
    // Each step waits for Codex to show the last one.
    let steps: [(&str, &str); 4] = [
        ("/plan", "/plan"),
        ("\r", "for Plan mode"),
        ("Ask me.", "Ask me."),
        ("\r", "codex asks"),
    ];
    for (chars, shown) in steps {
        let out = zellij.action(&["write-chars", "--pane-id", &pane, chars]);
        assert!(out.status.success(), "write {chars:?}: {out:?}");
        zellij.wait_for_screen(&format!("{shown:?} on screen"), ANSWER, |s| {
            s.contains(shown)
        });
    }
    codex.asked(&zellij, DATABASE);
    zellij.send_keys(&["Enter"]);
    let answers = json!({"answers": {"db": {"answers": ["Postgres"]}}});
    assert_eq!(
        codex.text(&zellij),
        denied(&format!("{}{answers}", ask_popup::hooks::codex::ANSWERED))
    );
}

/// The command the scripted model asks Codex to run, which needs the user's approval.
const CODEX_COMMAND: &str = "touch approved && echo approved-by-the-popup";
const CODEX_APPROVAL: &str =
    "Allow codex to use Bash: touch approved && echo approved-by-the-popup?";

/// Codex's interactive UI asking to run `CODEX_COMMAND` outside its read-only sandbox (which
/// its `on-request` policy asks the user about), its permission prompt in the popup.
fn codex_asking_for_approval(zellij: &Zellij, name: &str) -> Codex {
    let model = ModelServer::start(responses::calling_function(
        "exec_command",
        json!({"cmd": CODEX_COMMAND, "sandbox_permissions": "require_escalated",
               "justification": "Say it was approved"}),
    ));
    let extra = Extra {
        flags: "--dangerously-bypass-hook-trust",
        approval_policy: "on-request",
        approvals: true,
        ..Extra::default()
    };
    let codex = Codex::launch_with(zellij, name, model, Run::Interactive, None, &extra);
    codex.asked(zellij, CODEX_APPROVAL);
    // Codex offers no rule to allow always; the focus starts on Deny.
    zellij.wait_for_screen("the approval", ANSWER, |s| {
        s.contains("❯ Deny") && s.contains(CODEX_COMMAND) && !s.contains("Allow always")
    });
    codex
}

#[test]
fn codexs_permission_prompt_allowed_in_the_popup_runs_the_command() {
    let zellij = Zellij::start();
    let codex = codex_asking_for_approval(&zellij, "codex-allow");
    allow_once(&zellij);
    let output = codex.output(&zellij).join("\n");
    assert!(output.contains("approved-by-the-popup"), "{output:?}");
}

#[test]
fn codexs_permission_prompt_denied_with_a_note_gives_the_model_the_note() {
    let zellij = Zellij::start();
    let codex = codex_asking_for_approval(&zellij, "codex-deny");
    deny_with_a_note(&zellij, "use the staging registry", "Deny");
    let output = codex.output(&zellij).join("\n");
    assert!(
        output.contains("The user denied this: use the staging registry"),
        "{output:?}"
    );
    assert!(
        !output.contains("approved-by-the-popup"),
        "it ran: {output:?}"
    );
}

#[test]
fn closing_codexs_approval_leaves_its_own_prompt_to_decide() {
    let zellij = Zellij::start();
    let codex = codex_asking_for_approval(&zellij, "codex-own-prompt");
    zellij.send_keys(&["Esc"]);
    wait_until_nothing_pending(&zellij);
    zellij.wait_for_screen("Codex's own prompt", ANSWER, |s| {
        s.contains("Would you like to run the following command?") && !s.contains("codex asks")
    });
    assert_eq!(
        responses::function_call_output(&codex.model.requests()),
        None
    );
}
