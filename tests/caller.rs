//! The `ask-popup` command as a process, where no Zellij is needed: the Claude Code hook's
//! answers when it has nothing to do, `setup claude` on a real settings file, the other setups,
//! and the MCP server outside Zellij.

use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn ask_popup(args: &[&str], home: Option<&Path>, stdin: &str) -> Output {
    ask_popup_with(args, home, stdin, &[])
}

/// `ask_popup`, with `env` set on top (e.g. a session to be in).
fn ask_popup_with(args: &[&str], home: Option<&Path>, stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ask-popup"));
    command.args(args);
    // Outside Zellij, and on a machine where nobody serves questions from outside: an `ask-popup
    // serve` this user runs (a session of theirs started one) is not asked through.
    for var in [
        "ZELLIJ",
        "ZELLIJ_SESSION_NAME",
        "ZELLIJ_PANE_ID",
        "ASK_POPUP_SOCKET",
    ] {
        command.env_remove(var);
    }
    let runtime = tempfile::tempdir().expect("a runtime dir");
    command.env("XDG_RUNTIME_DIR", runtime.path());
    if let Some(home) = home {
        command.env("HOME", home);
    }
    command.envs(env.iter().copied());
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ask-popup");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("ask-popup's output")
}

/// A dir of this test's own, removed when it is dropped.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("ask-popup-{name}-"))
        .tempdir()
        .expect("a temp dir")
}

fn hook_input(tool: &str) -> String {
    json!({
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"questions": [{"question": "Which database?", "header": "DB",
            "options": [{"label": "Postgres", "description": "x"}, {"label": "SQLite", "description": "y"}],
            "multiSelect": false}]},
        "tool_use_id": "toolu_1",
    })
    .to_string()
}

#[test]
fn the_claude_hook_prints_nothing_when_it_has_nothing_to_answer() {
    let cases = [
        ("another tool", hook_input("Bash"), false),
        (
            "outside Zellij, Claude Code asks itself",
            hook_input("AskUserQuestion"),
            false,
        ),
        ("malformed input", "{not json".to_owned(), true),
        (
            "questions the popup cannot show",
            hook_input("AskUserQuestion").replace("SQLite", "Postgres"),
            true,
        ),
    ];
    for (what, input, says_why) in cases {
        let out = ask_popup(&["claude-hook"], None, &input);
        assert_eq!(out.status.code(), Some(0), "{what}");
        assert!(out.stdout.is_empty(), "{what}: {:?}", out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.lines().count(),
            usize::from(says_why),
            "{what}: {stderr:?}"
        );
    }
}

#[test]
fn setup_claude_prints_the_hook_and_write_merges_it_keeping_a_backup() {
    let dir = temp_dir("setup");
    let home = dir.path();
    let settings = home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let hook = format!("{} claude-hook", env!("CARGO_BIN_EXE_ask-popup"));

    let printed = ask_popup(&["setup", "claude"], Some(home), "");
    assert!(printed.status.success());
    let printed: Value = serde_json::from_slice(&printed.stdout).expect("the snippet is JSON");
    assert_eq!(
        printed["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        hook
    );
    assert!(!settings.exists(), "printing wrote nothing");

    let mine = r#"{"model": "opus", "hooks": {"Stop": []}}"#;
    std::fs::write(&settings, mine).unwrap();
    let out = ask_popup(&["setup", "claude", "--write"], Some(home), "");
    assert!(out.status.success(), "{out:?}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(written["model"], "opus");
    assert_eq!(written["hooks"]["Stop"], json!([]));
    assert_eq!(
        written["hooks"]["PreToolUse"],
        printed["hooks"]["PreToolUse"]
    );
    // MCP servers' forms are questions too: their hook comes with it, for every server.
    assert_eq!(
        printed["hooks"]["Elicitation"][0]["hooks"][0]["command"],
        format!("{} claude-elicitation", env!("CARGO_BIN_EXE_ask-popup"))
    );
    assert_eq!(printed["hooks"]["Elicitation"][0]["matcher"], "*");
    assert_eq!(
        written["hooks"]["Elicitation"],
        printed["hooks"]["Elicitation"]
    );
    assert_eq!(
        std::fs::read_to_string(settings.with_extension("json.bak")).unwrap(),
        mine
    );

    // A file it cannot parse is left as it is.
    std::fs::write(&settings, "{ broken").unwrap();
    let out = ask_popup(&["setup", "claude", "--write"], Some(home), "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{ broken");
    assert!(String::from_utf8_lossy(&out.stderr).contains("left"));
}

#[test]
fn setup_prints_the_mcp_servers_configuration_running_this_command() {
    let exe = env!("CARGO_BIN_EXE_ask-popup");
    let codex = ask_popup(&["setup", "codex"], None, "");
    assert!(codex.status.success(), "{codex:?}");
    // The MCP server's table for config.toml, then the hook for hooks.json.
    let hook = format!("{} codex-hook", ask_popup::setup::shell_word(exe));
    assert_eq!(
        String::from_utf8_lossy(&codex.stdout),
        ask_popup::setup::codex_snippet(exe) + &ask_popup::setup::CODEX_HOOK.snippet(&hook)
    );
    let claude = ask_popup(&["setup", "claude-mcp"], None, "");
    assert!(claude.status.success(), "{claude:?}");
    assert_eq!(
        String::from_utf8_lossy(&claude.stdout),
        ask_popup::setup::claude_mcp_line(exe)
    );
}

#[test]
fn the_mcp_server_answers_what_it_was_asked_before_stdin_closed_and_ends() {
    // Outside Zellij, an initialize, a call answered no_ui at once, and the end of stdin.
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test-client", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask_user_question",
            "arguments": {"questions": [{"question": "Q?", "header": "H",
                "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}]}]}}}),
    ];
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let out = ask_popup(&["mcp"], None, &input);
    assert!(out.status.success(), "{out:?}");
    let replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON-RPC message a line"))
        .collect();
    let call = replies
        .iter()
        .find(|r| r["id"] == 2)
        .unwrap_or_else(|| panic!("no reply to the call: {replies:?}"));
    assert_eq!(call["result"]["isError"], true);
    assert_eq!(
        call["result"]["content"][0]["text"],
        ask_popup_protocol::envelope::NO_UI_TEXT
    );
    // The text alone: no structured content for a client to hand its model instead.
    assert_eq!(call["result"].get("structuredContent"), None);
    assert_eq!(call["result"]["content"].as_array().map(Vec::len), Some(1));
}

#[test]
fn the_mcp_server_ends_without_a_panic_however_its_session_ends() {
    // initialize, initialized, then a list, a call (answered no_ui outside Zellij), or both, then
    // the end of stdin: the session's future completes, and must not be polled again.
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test-client", "version": "1"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "ask_user_question",
        "arguments": {"questions": [{"question": "Q?", "header": "H",
            "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}]}]}}});
    let sessions = [
        vec![&initialize, &initialized, &list],
        vec![&initialize, &initialized, &call],
        vec![&initialize, &initialized, &list, &call],
        vec![&initialize, &initialized],
    ];
    for run in 0..120 {
        let session = &sessions[run % sessions.len()];
        let input: String = session.iter().map(|r| format!("{r}\n")).collect();
        let out = ask_popup(&["mcp"], None, &input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !stderr.contains("panicked"),
            "run {run}, {} messages: {:?}, stderr: {stderr}",
            session.len(),
            out.status
        );
        let replies = String::from_utf8_lossy(&out.stdout).lines().count();
        assert_eq!(replies, session.len() - 1, "run {run}: one reply a request");
    }
}

/// The envelope `ask-popup ask` printed: its text and its error code.
fn ask_envelope(out: &Output) -> (String, String) {
    let envelope: Value = serde_json::from_slice(&out.stdout).expect("one envelope");
    (
        envelope["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_owned(),
        envelope["details"]["error"]
            .as_str()
            .unwrap_or("")
            .to_owned(),
    )
}

#[test]
fn an_argument_that_is_no_questionnaire_is_told_what_is_wrong_with_it() {
    let cases = [
        ("[1]", "got an array"),
        ("", "the payload was empty"),
        ("\"Which?\"", "got a string"),
        ("not json", "is not valid JSON"),
        (
            "missing-file.json",
            "missing-file.json: No such file or directory",
        ),
    ];
    for (arg, says) in cases {
        let out = ask_popup(&["ask", arg], None, "");
        assert_eq!(out.status.code(), Some(1), "{arg:?}");
        let (text, code) = ask_envelope(&out);
        assert_eq!(code, "invalid_payload", "{arg:?}");
        assert!(text.contains(says), "{arg:?}: {text}");
    }
}

#[test]
fn a_questionnaire_too_large_is_told_its_size_however_it_is_sent() {
    let description = "x".repeat(1_126_504 - 120);
    let payload = json!({"questions": [{"question": "Q?", "header": "H", "options": [
        {"label": "A", "description": description}, {"label": "B", "description": "b"}]}]})
    .to_string();
    let size = payload.len();
    let dir = temp_dir("large");
    let file = dir.path().join("questionnaire.json");
    std::fs::write(&file, &payload).unwrap();
    let from_file = ask_popup(&["ask", file.to_str().unwrap()], None, "");
    let from_stdin = ask_popup(&["ask"], None, &payload);
    for (how, out) in [("a file", from_file), ("stdin", from_stdin)] {
        let (text, code) = ask_envelope(&out);
        assert_eq!(code, "payload_too_large", "{how}");
        assert!(text.contains(&format!("is {size} bytes")), "{how}: {text}");
    }
}

#[test]
fn ask_answers_as_soon_as_the_reply_comes_not_when_zellij_pipe_exits() {
    // A `zellij` whose `pipe` prints the reply at once and lingers, as Zellij's CLI does until
    // the plugin lets the pipe go, and says when it has ended.
    let temp = temp_dir("caller");
    let dir = temp.path();
    let zellij = dir.join("zellij");
    let exited = dir.join("zellij-exited");
    let reply = r#"{"content":[{"type":"text","text":"User answered: SQLite"}],"details":{"answers":[],"cancelled":false,"requestId":"r1"}}"#;
    std::fs::write(
        &zellij,
        format!(
            "#!/bin/sh\ncat >/dev/null\necho '{reply}'\nsleep 3\ntouch '{}'\n",
            exited.display()
        ),
    )
    .expect("write the fake zellij");
    std::fs::set_permissions(&zellij, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("make it executable");
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = ask_popup_with(
        &["ask", "--id", "r1", "--agent", "test"],
        Some(dir),
        r#"{"questions":[{"question":"Which?","header":"DB","options":["Postgres","SQLite"]}]}"#,
        &[
            ("PATH", &path),
            ("ZELLIJ", "0"),
            ("ZELLIJ_SESSION_NAME", "test"),
        ],
    );
    let waited = exited.exists();
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{reply}\n"));
    assert!(out.status.success(), "{out:?}");
    assert!(!waited, "it waited for `zellij pipe` to exit");
}

#[test]
fn claude_codes_settings_keep_mcp_calls_in_the_foreground_and_give_back_what_was_there() {
    use ask_popup::setup::{merge_claude_mcp_env, remove_claude_mcp_env, CLAUDE_MCP_ENV};
    let original = "{\n  \"env\": {\n    \"FOO\": \"1\"\n  },\n  \"model\": \"opus\"\n}\n";
    let merged = merge_claude_mcp_env(original).unwrap().expect("a change");
    let value: serde_json::Value = serde_json::from_str(&merged).unwrap();
    assert_eq!(value["env"][CLAUDE_MCP_ENV.0], CLAUDE_MCP_ENV.1);
    assert_eq!(value["env"]["FOO"], "1");
    assert_eq!(value["model"], "opus");
    // Once is enough.
    assert_eq!(merge_claude_mcp_env(&merged).unwrap(), None);
    // Taken out again, the rest stays; a file without it is left alone.
    let removed = remove_claude_mcp_env(&merged).unwrap().expect("a change");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&removed).unwrap(),
        serde_json::from_str::<serde_json::Value>(original).unwrap()
    );
    assert_eq!(remove_claude_mcp_env(original).unwrap(), None);
    // From nothing, and back to no `env` at all.
    let fresh = merge_claude_mcp_env("").unwrap().expect("a change");
    let back = remove_claude_mcp_env(&fresh).unwrap().expect("a change");
    assert_eq!(back, "{}\n");
    // The user's own value is theirs.
    let theirs = "{\"env\": {\"CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS\": \"600000\"}}";
    assert_eq!(remove_claude_mcp_env(theirs).unwrap(), None);
    assert!(merge_claude_mcp_env("[1]").is_err());
}

/// The children of process `pid`, from /proc: each one's pid, name and state (`Z`: ended and
/// not yet reaped).
fn children_of(pid: u32) -> Vec<(u32, String, String)> {
    let mut children = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: the name may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_owned();
        let mut rest = stat[close + 1..].split_whitespace();
        let (Some(state), Some(ppid)) = (rest.next(), rest.next()) else {
            continue;
        };
        if ppid.parse::<u32>().ok() == Some(pid) {
            children.push((child, name, state.to_owned()));
        }
    }
    children
}

#[test]
fn the_mcp_server_reaps_the_cancels_that_take_a_questions_copies_back() {
    // A session nobody is attached to ("home", no metadata) and one somebody is ("other"): the
    // question asked at home is shown in "other" too. The fake `zellij` answers at home at
    // once; the copy in "other" waits until it is taken back; every `cancel` is written down.
    let temp = temp_dir("reaps");
    let dir = temp.path();
    let sockets = dir
        .join("sockets")
        .join(ask_popup::zellij::session::CONTRACT_DIR);
    std::fs::create_dir_all(&sockets).unwrap();
    let _home = std::os::unix::net::UnixListener::bind(sockets.join("home")).expect("home");
    let _other = std::os::unix::net::UnixListener::bind(sockets.join("other")).expect("other");
    let info = dir
        .join("cache/zellij")
        .join(ask_popup::zellij::session::CONTRACT_DIR)
        .join("session_info/other");
    std::fs::create_dir_all(&info).unwrap();
    std::fs::write(info.join("session-metadata.kdl"), "connected_clients 1\n").unwrap();
    let cancels = dir.join("cancels");
    let zellij = dir.join("bin/zellij");
    std::fs::create_dir_all(zellij.parent().unwrap()).unwrap();
    std::fs::write(
        &zellij,
        format!(
            r#"#!/bin/sh
session=home
if [ "$1" = --session ]; then session=$2; shift 2; fi
name=; args=
while [ $# -gt 0 ]; do
  case $1 in --name) name=$2; shift 2;; --args) args=$2; shift 2;; *) shift;; esac
done
case "$session:$name" in
  home:ask)
    id=$(printf %s "$args" | tr , '\n' | sed -n 's/^id=//p')
    cat >/dev/null
    printf '{{"content":[{{"type":"text","text":"User answered"}}],"details":{{"answers":[],"cancelled":false,"requestId":"%s"}}}}\n' "$id";;
  *:ask) exec sleep 60;;
  *:cancel) echo "$session" >>'{cancels}'; echo '{{"withdrawn":1}}';;
esac
"#,
            cancels = cancels.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&zellij, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        zellij.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new(env!("CARGO_BIN_EXE_ask-popup"));
    command
        .arg("mcp")
        .env_clear()
        .env("PATH", &path)
        .env("HOME", dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("ZELLIJ_SOCKET_DIR", dir.join("sockets"))
        .env("ZELLIJ", "0")
        .env("ZELLIJ_SESSION_NAME", "home")
        .env("ASK_POPUP_SERVE", "off")
        .env("ASK_POPUP_TERMINAL_NOTIFY", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut server = command.spawn().expect("run ask-popup mcp");
    let mut stdin = server.stdin.take().expect("stdin");
    let stdout = server.stdout.take().expect("stdout");
    let (lines, replies) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines.send(line);
        }
    });
    let mut send = move |message: Value| {
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .expect("write to the server");
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test-client", "version": "1"}}}),
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "ask_user_question",
        "arguments": {"questions": [{"question": "Q?", "header": "H",
            "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}]}]}}}),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let reply = loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let line = replies.recv_timeout(left).expect("the call's reply");
        let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
        if message["id"] == 2 {
            break message;
        }
    };
    assert_eq!(
        reply["result"]["content"][0]["text"], "User answered",
        "{reply}"
    );

    // Both cancels of the copy in "other" (the one sent when the question ended at home, not
    // waited for, and the copy's own) have run; then no `zellij` is left under the server,
    // not even as a zombie.
    let ran = || {
        std::fs::read_to_string(&cancels)
            .unwrap_or_default()
            .lines()
            .filter(|session| *session == "other")
            .count()
    };
    let left = || {
        children_of(server.id())
            .into_iter()
            .filter(|(_, name, _)| name == "zellij")
            .collect::<Vec<_>>()
    };
    while ran() < 2 || !left().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "{} cancels ran; left under ask-popup mcp: {:?}",
            ran(),
            left()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(send);
    let _ = server.wait();
}
