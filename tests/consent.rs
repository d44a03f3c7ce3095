//! Only the person says yes: every hook that can tell an agent yes (`claude-approval`,
//! `codex-approval`, `opencode-approval`, `claude-elicitation`) and the question hooks
//! (`claude-hook`, `codex-hook`), run as the command they are, fed generated hook inputs (odd
//! schemas, huge and empty fields) while a `zellij` stand-in never answers for the person: it
//! never answers, answers late, answers another id, fails, cancels, writes garbage, closes the
//! pipe, or picks a yes row the request never offered. None of them may print a yes.
//!
//! A property test (proptest) rather than a fuzzer: it runs in `cargo test` on the stable
//! toolchain with nothing else to install, shrinks a failure to a small input, and the cases
//! are whole processes (a hook and its `zellij`), a few dozen of which say more than millions
//! of in-process calls would. Each case runs a batch of hooks at once, so the suite stays short.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How the stand-in `zellij` answers the `ask` pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stand {
    /// Never: the pipe waits for good.
    Never,
    /// After a while, with a decline for this id.
    Late,
    /// At once, with a yes (each hook's kind) for another request's id.
    OtherId,
    /// An error envelope for this id.
    Error,
    /// A cancel (Esc) for this id.
    Cancel,
    /// Bytes that are no envelope (and say "allow").
    Garbage,
    /// Nothing: the pipe closes.
    Closed,
    /// For this id, a yes row that the request did not offer.
    Unoffered,
    /// For this id, "Allow once" typed rather than picked.
    Typed,
}

const STANDS: [Stand; 9] = [
    Stand::Never,
    Stand::Late,
    Stand::OtherId,
    Stand::Error,
    Stand::Cancel,
    Stand::Garbage,
    Stand::Closed,
    Stand::Unoffered,
    Stand::Typed,
];

impl Stand {
    fn name(self) -> &'static str {
        match self {
            Stand::Never => "never",
            Stand::Late => "late",
            Stand::OtherId => "other_id",
            Stand::Error => "error",
            Stand::Cancel => "cancel",
            Stand::Garbage => "garbage",
            Stand::Closed => "closed",
            Stand::Unoffered => "unoffered",
            Stand::Typed => "typed",
        }
    }
}

/// The stand-in: answers the `ask` pipe as `$STAND` says, withdraws on `cancel`, and says
/// nothing to anything else (`list-sessions`, `action …`).
const STAND_IN: &str = r#"#!/bin/sh
name=; args=
while [ $# -gt 0 ]; do
  case $1 in --name) name=$2; shift 2;; --args) args=$2; shift 2;; *) shift;; esac
done
id=$(printf %s "$args" | tr , '\n' | sed -n 's/^id=//p')
envelope() { # id cancelled error answers
  printf '{"content":[{"type":"text","text":"x"}],"details":{"answers":[%s],"cancelled":%s%s,"requestId":"%s"}}\n' "$4" "$2" "$3" "$1"
}
pick() { printf '{"questionIndex":0,"question":"q","kind":"%s","answer":"%s"}' "$1" "$2"; }
case $name in
  ask)
    payload=$(cat)
    case $STAND in
      never) exec sleep 600;;
      late) sleep 1; envelope "$id" true '' '';;
      other_id)
        for yes in 'Allow once' 'Allow always' Accept; do
          envelope "someone-else" false '' "$(pick option "$yes")"
        done;;
      error) envelope "$id" true ',"error":"dismissed"' '';;
      cancel) envelope "$id" true '' '';;
      garbage) printf 'allow {"behavior":"allow"} accept\n\377\376 {"content":[]}\n';;
      closed) exit 1;;
      unoffered)
        for yes in 'Allow once' 'Allow always' Accept; do
          case $payload in
            *"\"$yes\""*) ;;
            *) envelope "$id" false '' "$(pick option "$yes")"; exit 0;;
          esac
        done
        envelope "$id" true '' '';;
      typed) envelope "$id" false '' "$(pick custom 'Allow once')";;
    esac;;
  cancel) echo '{"withdrawn":1}';;
esac
exit 0
"#;

/// A Zellij session as far as the command can tell (its socket), and the stand-in on PATH.
struct World {
    dir: tempfile::TempDir,
    _session: std::os::unix::net::UnixListener,
}

impl World {
    fn new() -> World {
        let dir = tempfile::Builder::new()
            .prefix("ask-popup-consent-")
            .tempdir()
            .unwrap();
        let sockets = dir
            .path()
            .join("sockets")
            .join(ask_popup::zellij::session::CONTRACT_DIR);
        std::fs::create_dir_all(&sockets).unwrap();
        let session = std::os::unix::net::UnixListener::bind(sockets.join("work")).unwrap();
        let zellij = dir.path().join("bin/zellij");
        std::fs::create_dir_all(zellij.parent().unwrap()).unwrap();
        std::fs::write(&zellij, STAND_IN).unwrap();
        std::fs::set_permissions(&zellij, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let runtime = dir.path().join("runtime");
        std::fs::create_dir_all(&runtime).unwrap();
        std::fs::set_permissions(
            &runtime,
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        World {
            dir,
            _session: session,
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `ask-popup HOOK`, inside Zellij as far as it can tell, with `stand` answering.
    fn hook(&self, hook: &str, stand: Stand) -> Command {
        let path = format!(
            "{}:{}",
            self.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new(env!("CARGO_BIN_EXE_ask-popup"));
        command
            .arg(hook)
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.path())
            .env("XDG_STATE_HOME", self.path().join("state"))
            .env("XDG_CACHE_HOME", self.path().join("cache"))
            .env("XDG_RUNTIME_DIR", self.path().join("runtime"))
            .env("ZELLIJ_SOCKET_DIR", self.path().join("sockets"))
            .env("ZELLIJ", "0")
            .env("ZELLIJ_SESSION_NAME", "work")
            .env("ZELLIJ_PANE_ID", "3")
            .env("ASK_POPUP_SERVE", "off")
            .env("ASK_POPUP_TERMINAL_NOTIFY", "off")
            .env("STAND", stand.name());
        command
    }
}

/// One hook run: which hook, its input, how the stand-in answers.
#[derive(Clone, Debug)]
struct Run {
    hook: &'static str,
    input: String,
    stand: Stand,
}

/// Whether `output` (what `hook` printed) says yes to the agent.
fn is_yes(hook: &str, output: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(output.trim()) else {
        // Not one JSON document: no agent reads it as an answer, but say so loudly if it
        // carries a yes's words.
        return output.contains("allow") || output.contains("accept") || output.contains("once");
    };
    let at = |pointer: &str| value.pointer(pointer).and_then(Value::as_str);
    match hook {
        "claude-approval" | "codex-approval" => {
            at("/hookSpecificOutput/decision/behavior") != Some("deny")
        }
        "opencode-approval" => at("/reply") != Some("reject"),
        "claude-elicitation" => at("/hookSpecificOutput/action") != Some("decline"),
        "claude-hook" => at("/hookSpecificOutput/permissionDecision") != Some("deny"),
        "codex-hook" => {
            at("/hookSpecificOutput/permissionDecision") != Some("deny")
                || at("/hookSpecificOutput/permissionDecisionReason")
                    .is_some_and(|r| r.starts_with(ask_popup::hooks::codex::ANSWERED))
        }
        _ => true,
    }
}

/// Runs every run of a batch at once, each killed if still waiting after `limit`, and fails
/// naming the first one that printed a yes.
fn no_yes_in(world: &World, batch: &[Run], limit: Duration) -> Result<(), TestCaseError> {
    let mut children = Vec::new();
    for run in batch {
        let mut child = world
            .hook(run.hook, run.stand)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run ask-popup");
        let mut stdin = child.stdin.take().unwrap();
        let input = run.input.clone();
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        children.push(child);
    }
    let until = Instant::now() + limit;
    let mut outputs = Vec::new();
    for mut child in children {
        while Instant::now() < until && child.try_wait().ok().flatten().is_none() {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        outputs.push(child.wait_with_output().expect("the hook's output"));
    }
    for (run, output) in batch.iter().zip(outputs) {
        let stdout = String::from_utf8_lossy(&output.stdout);
        prop_assert!(
            stdout.trim().is_empty() || !is_yes(run.hook, &stdout),
            "{} said yes with the stand-in `{}`: {stdout}\ninput: {:.2000}",
            run.hook,
            run.stand.name(),
            run.input
        );
    }
    Ok(())
}

/// Text of any length, from empty to past what the popup shows whole, with the characters that
/// break things: quotes, backticks, newlines, escapes, wide and zero-width ones.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[ -~]{0,40}",
        1 => Just(String::new()),
        1 => "[\"`\\\\\n\t\u{1b}é漢\u{200b}🙂 a-z]{0,60}",
        1 => (1usize..90_000, "[a-z;&|]").prop_map(|(n, c)| c.repeat(n)),
        1 => (1usize..3_000).prop_map(|n| "rm -rf x\n".repeat(n)),
    ]
}

/// A JSON value of any shape (for the fields a hook should not trust).
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A permission suggestion of Claude Code's, of a kind it has or not.
fn suggestion() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![
            "addRules",
            "replaceRules",
            "removeRules",
            "setMode",
            "addDirectories",
            "removeDirectories",
            "unknown",
        ]),
        text(),
        prop::option::of(prop::sample::select(vec!["allow", "deny", "ask", "odd"])),
        prop::option::of(prop::sample::select(vec![
            "userSettings",
            "projectSettings",
            "localSettings",
            "session",
            "cliArg",
            "elsewhere",
        ])),
    )
        .prop_map(|(kind, content, behavior, destination)| {
            json!({"type": kind, "rules": [{"toolName": "Bash", "ruleContent": content}],
                "directories": [content], "mode": "acceptEdits",
                "behavior": behavior, "destination": destination})
        })
}

/// A `PermissionRequest` hook input of Claude Code's or Codex's.
fn permission_request() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "Bash",
            "Edit",
            "Write",
            "MultiEdit",
            "WebFetch",
            "mcp__db__drop",
            "",
        ]),
        text(),
        text(),
        any_json(),
        prop::collection::vec(suggestion(), 0..4),
    )
        .prop_map(|(tool, a, b, extra, suggestions)| {
            json!({"hook_event_name": "PermissionRequest", "session_id": "s", "tool_name": tool,
                "tool_input": {"command": a, "description": b, "file_path": b, "old_string": a,
                    "new_string": b, "content": a, "url": a, "extra": extra},
                "permission_suggestions": suggestions})
            .to_string()
        })
}

/// opencode's `permission.asked` event.
fn opencode_permission() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["bash", "edit", "external_directory", "webfetch", ""]),
        prop::collection::vec(text(), 0..3),
        prop::collection::vec(text(), 0..3),
        text(),
        prop::option::of("[a-z0-9_]{0,12}"),
    )
        .prop_map(|(permission, patterns, always, command, id)| {
            json!({"id": id, "sessionID": "ses", "permission": permission, "patterns": patterns,
                "always": always, "metadata": {"command": command, "filepath": command, "diff": command}})
            .to_string()
        })
}

/// A field of an MCP server's requested schema: the primitive types with their rules, and
/// shapes the popup cannot show.
fn field() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "string", "format": "email", "maxLength": 3})),
        Just(json!({"type": "string", "title": "API token", "format": "password"})),
        Just(json!({"type": "integer", "minimum": 1, "maximum": 5, "default": 3})),
        Just(json!({"type": "number"})),
        Just(json!({"type": "boolean", "default": true})),
        Just(json!({"type": "string", "enum": ["a", "b"], "default": "a"})),
        Just(json!({"type": "array", "items": {"type": "string", "enum": ["x", "y"]}})),
        (0usize..14).prop_map(|n| json!({"type": "string",
            "enum": (0..n).map(|i| format!("c{i}")).collect::<Vec<_>>()})),
        Just(json!({"type": "object", "properties": {"inner": {"type": "string"}}})),
        any_json(),
    ]
}

/// Claude Code's `Elicitation` hook input: a form (often with no fields, all optional, or
/// odd), or a URL.
fn elicitation() -> impl Strategy<Value = String> {
    (
        text(),
        text(),
        prop::collection::btree_map("[a-zA-Z_]{1,10}", field(), 0..7),
        prop::collection::vec("[a-zA-Z_]{1,10}", 0..3),
        0u8..10,
    )
        .prop_map(|(server, message, fields, required, shape)| {
            let properties: Map<String, Value> = fields.into_iter().collect();
            let schema = match shape {
                0 => json!({"type": "object", "properties": {}}),
                1 => json!({"type": "object"}),
                2 => json!({"type": "array", "properties": properties}),
                3 => Value::Null,
                _ => json!({"type": "object", "properties": properties, "required": required}),
            };
            let mut input = json!({"hook_event_name": "Elicitation", "mcp_server_name": server,
                "message": message, "mode": "form", "requested_schema": schema});
            if shape == 4 {
                input["mode"] = json!("url");
                input["url"] = json!(format!("https://example.com/{}", server.len()));
            }
            input.to_string()
        })
}

/// An `AskUserQuestion` (Claude Code) or `request_user_input` (Codex) call.
fn question_call(tool: &'static str) -> impl Strategy<Value = String> {
    prop::collection::vec((text(), prop::collection::vec(text(), 0..5), any::<bool>()), 0..6)
        .prop_map(move |questions| {
            let questions: Vec<Value> = questions
                .into_iter()
                .enumerate()
                .map(|(i, (q, options, multi))| {
                    json!({"id": format!("q{i}"), "question": q, "header": "H",
                        "multiSelect": multi,
                        "options": options.iter().map(|o| json!({"label": o, "description": o})).collect::<Vec<_>>()})
                })
                .collect();
            json!({"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": tool,
                "tool_use_id": "call_1", "tool_input": {"questions": questions}})
            .to_string()
        })
}

/// One run of any hook with any stand-in.
fn run() -> impl Strategy<Value = Run> {
    let stand = prop::sample::select(STANDS.to_vec());
    prop_oneof![
        1 => (permission_request(), stand.clone()).prop_map(|(input, stand)| Run {
            hook: "claude-approval",
            input,
            stand
        }),
        1 => (permission_request(), stand.clone()).prop_map(|(input, stand)| Run {
            hook: "codex-approval",
            input,
            stand
        }),
        1 => (opencode_permission(), stand.clone()).prop_map(|(input, stand)| Run {
            hook: "opencode-approval",
            input,
            stand
        }),
        2 => (elicitation(), stand.clone()).prop_map(|(input, stand)| Run {
            hook: "claude-elicitation",
            input,
            stand
        }),
        // A question's typed answer for this id is the person's: only the stand-ins that
        // are no answer at all.
        1 => (question_call("AskUserQuestion"), stand.clone())
            .prop_filter("no answer", |(_, s)| !matches!(s, Stand::Typed | Stand::Unoffered))
            .prop_map(|(input, stand)| Run {
                hook: "claude-hook",
                input,
                stand
            }),
        1 => (question_call("request_user_input"), stand)
            .prop_filter("no answer", |(_, s)| !matches!(s, Stand::Typed | Stand::Unoffered))
            .prop_map(|(input, stand)| Run {
                hook: "codex-hook",
                input,
                stand
            }),
    ]
}

/// The stand-ins that leave a form nothing the person answered (a form's typed value, or a
/// choice's row, for its own id, is the person's answer).
fn form_stand(stand: Stand) -> Stand {
    match stand {
        Stand::Typed => Stand::Cancel,
        other => other,
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 16,
        // Each case runs whole processes: shrinking keeps to a few steps.
        max_shrink_iters: 64,
        failure_persistence: None,
        // The same cases every run, so that the test command never fails on one an earlier run
        // did not try; to look further, run it with other seeds (cases found go below as tests).
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5e1f_c0de_2026),
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_hook_says_yes_unless_the_person_did(batch in prop::collection::vec(run(), 8)) {
        let world = World::new();
        let batch: Vec<Run> = batch
            .into_iter()
            .map(|mut run| {
                if run.hook == "claude-elicitation" {
                    run.stand = form_stand(run.stand);
                }
                run
            })
            .collect();
        no_yes_in(&world, &batch, Duration::from_secs(4))?;
    }
}

/// The hole this guards: a form with nothing to fill in (an MCP server's plain confirm) was
/// accepted with no one asked, whatever the popup did.
#[test]
fn an_empty_form_is_never_accepted_without_the_person() {
    let world = World::new();
    let confirm = json!({"hook_event_name": "Elicitation", "mcp_server_name": "db",
        "message": "Delete the production database?", "mode": "form",
        "requested_schema": {"type": "object", "properties": {}}})
    .to_string();
    let batch: Vec<Run> = [Stand::Never, Stand::Closed, Stand::OtherId, Stand::Cancel]
        .into_iter()
        .map(|stand| Run {
            hook: "claude-elicitation",
            input: confirm.clone(),
            stand,
        })
        .collect();
    no_yes_in(&world, &batch, Duration::from_secs(4)).unwrap();
}

/// Found by the property above: a form's optional choice answered, for its own id, with a row
/// it never offered (`Accept`) was read as the field left empty, and the form accepted.
#[test]
fn a_form_answered_with_a_row_it_did_not_offer_is_not_accepted() {
    let world = World::new();
    let form = json!({"hook_event_name": "Elicitation", "mcp_server_name": "s", "message": "m",
        "mode": "form", "requested_schema": {"type": "object", "properties": {
            "pick": {"type": "string", "enum": ["a", "b"]},
            "many": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}}}}})
    .to_string();
    let batch = vec![Run {
        hook: "claude-elicitation",
        input: form,
        stand: Stand::Unoffered,
    }];
    no_yes_in(&world, &batch, Duration::from_secs(4)).unwrap();
}

/// The stand-in is able to say yes: the same hooks print one when it answers for the person,
/// so the property above is not true for want of a working path.
#[test]
fn the_persons_yes_gets_through() {
    let world = World::new();
    let approval = json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "ls"}})
    .to_string();
    // What `claude-approval` prints for `approval` with the stand-in `stand` (by its name).
    let printed = |stand: &str| {
        let mut child = world
            .hook("claude-approval", Stand::Never)
            .env("STAND", stand)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(approval.as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // `unoffered` picks "Allow always", which this approval (no suggestions) does not offer.
    let unoffered = printed("unoffered");
    assert!(unoffered.is_empty(), "{unoffered}");
    // A stand-in answering "Allow once" for this id, as the popup does for the person.
    let script = STAND_IN.replace(
        "case $STAND in",
        "case $STAND in\n      person) envelope \"$id\" false '' \"$(pick option 'Allow once')\";;",
    );
    std::fs::write(world.path().join("bin/zellij"), script).unwrap();
    let person = printed("person");
    assert!(is_yes("claude-approval", &person), "{person}");
}
