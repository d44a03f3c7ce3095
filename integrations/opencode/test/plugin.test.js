// The plugin's decisions and its flow, on Node's own test runner: opencode's questions as the
// popup's questionnaire, the popup's envelope as opencode's answers, which endings leave the
// question to opencode's dialog, and the events: a question asked, answered in the popup or in
// opencode's dialog, a session stopped. `ask-popup` is a fake command in a temporary folder.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import plugin, { answersOf, decide, questionnaireOf, shared } from "../ask-popup.js";

const dir = mkdtempSync(join(tmpdir(), "ask-popup-opencode-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const DB = {
  question: "Which database?",
  header: "Database",
  options: [
    { label: "Postgres", description: "Relational" },
    { label: "SQLite", description: "Embedded" },
  ],
};
const FEATURES = {
  question: "Which features?",
  header: "Features",
  multiple: true,
  options: [
    { label: "Auth", description: "Logins" },
    { label: "Search", description: "Full text" },
    { label: "Export", description: "CSV" },
  ],
};

function envelope(text, details) {
  return JSON.stringify({ content: [{ type: "text", text }], details });
}

/** A fake `ask-popup` that records its arguments and stdin, then prints `stdout` (after
 * `delay` seconds, during which SIGTERM makes it print `onTerm` instead). The trap comes
 * first: a SIGTERM sent as soon as the log exists finds it. */
function fakeCommand(name, stdout, { delay = 0, onTerm = "" } = {}) {
  const path = join(dir, name);
  const log = join(dir, `${name}.log`);
  writeFileSync(`${path}.out`, `${stdout}\n`);
  writeFileSync(`${path}.term`, `${onTerm}\n`);
  writeFileSync(
    path,
    `#!/bin/sh
trap "cat '${path}.term'; echo terminated >> '${log}.term'; exit 1" TERM
printf '%s\\n' "$*" > '${log}'
cat >> '${log}'
i=0; while [ $i -lt ${delay * 10} ]; do sleep 0.1; i=$((i+1)); done
cat '${path}.out'
`,
  );
  chmodSync(path, 0o755);
  return { path, log };
}

/** opencode's client as the plugin uses it: its HTTP client's post, recorded. */
function fakeClient() {
  const posts = [];
  return {
    posts,
    client: {
      _client: {
        post: async (request) => {
          posts.push(request);
          return { data: true, response: { ok: true, status: 200 } };
        },
      },
    },
  };
}

async function until(what, done, ms = 5000) {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("opencode's questions become the popup's questionnaire", () => {
  assert.deepEqual(questionnaireOf([DB, FEATURES]), {
    questions: [
      { ...DB, multiSelect: false },
      {
        question: FEATURES.question,
        header: FEATURES.header,
        options: FEATURES.options,
        multiSelect: true,
      },
    ],
  });
});

test("the envelope's answers become opencode's lists of labels, a typed answer one of them", () => {
  const details = {
    answers: [
      { questionIndex: 0, question: DB.question, kind: "custom", answer: "DuckDB" },
      { questionIndex: 1, question: FEATURES.question, kind: "multi", answer: null, selected: ["Auth", "Export", "and SSO"] },
    ],
    cancelled: false,
  };
  assert.deepEqual(answersOf(JSON.parse(envelope("t", details)), 2), [["DuckDB"], ["Auth", "Export", "and SSO"]]);
  // A question left unanswered, and an answer to a question that is not there.
  const some = { answers: [{ questionIndex: 1, kind: "option", answer: "Search" }, { questionIndex: 7, kind: "option", answer: "x" }] };
  assert.deepEqual(answersOf(JSON.parse(envelope("t", some)), 2), [[], ["Search"]]);
});

test("the endings the library names leave the question to opencode's dialog; the others answer it", () => {
  assert.equal(shared.agent, "opencode");
  for (const code of ["no_ui", "zellij_not_found", "no_reply", "busy", "dismissed", "header_too_long", "too_many_options"]) {
    assert.ok(shared.fallback.includes(code), code);
    assert.deepEqual(decide(envelope("Error", { answers: [], cancelled: true, error: code }), 1), { leave: code });
  }
  for (const code of ["timed_out", "aborted", "superseded"]) assert.ok(!shared.fallback.includes(code), code);
  assert.deepEqual(decide(envelope("Questionnaire timed out", { answers: [], cancelled: true, error: "timed_out" }), 1), {
    reply: { answers: [[]], text: "Questionnaire timed out" },
  });
  assert.deepEqual(decide(envelope("User declined to answer questions", { answers: [], cancelled: true }), 1), {
    reply: { answers: [[]], text: "User declined to answer questions" },
  });
  assert.deepEqual(decide("", 1), { leave: "ask-popup printed no envelope" });
  assert.deepEqual(decide("not json\n", 1), { leave: "ask-popup printed no envelope" });
});

test("a question answered in the popup is answered in opencode, and the model reads the popup's text", async () => {
  const text = 'User has answered your questions: "Which database?"="SQLite". user notes: one file. You can now continue with the user\'s answers in mind.';
  const answered = envelope(text, {
    answers: [{ questionIndex: 0, question: DB.question, kind: "option", answer: "SQLite", notes: "one file" }],
    cancelled: false,
    requestId: "que_1",
  });
  const command = fakeCommand("answers", answered);
  const { client, posts } = fakeClient();
  const hooks = await plugin.server({ client }, {}, { ASK_POPUP_COMMAND: command.path });
  await hooks.event({
    event: { type: "question.asked", properties: { id: "que_1", sessionID: "ses_1", questions: [DB], tool: { messageID: "msg_1", callID: "call_1" } } },
  });
  await until("the reply", () => posts.length === 1);
  assert.deepEqual(posts[0].path, { requestID: "que_1" });
  assert.equal(posts[0].url, "/question/{requestID}/reply");
  assert.deepEqual(posts[0].body, { answers: [["SQLite"]] });
  const [args, ...stdin] = readFileSync(command.log, "utf8").split("\n");
  assert.equal(args, "ask --agent opencode --id que_1");
  assert.deepEqual(JSON.parse(stdin.join("\n")), questionnaireOf([DB]));
  // The question tool's output, once opencode has the answers: the popup's text.
  const output = { title: "Asked 1 question", output: 'User has answered your questions: "Which database?"="SQLite".', metadata: {} };
  await hooks["tool.execute.after"]({ tool: "question", sessionID: "ses_1", callID: "call_1", args: {} }, output);
  assert.equal(output.output, text);
  // Another tool's output, or the next call's, is left alone.
  const other = { output: "x" };
  await hooks["tool.execute.after"]({ tool: "question", sessionID: "ses_1", callID: "call_1", args: {} }, other);
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_1", callID: "call_2", args: {} }, other);
  assert.equal(other.output, "x");
});

test("when the popup cannot reach the user, opencode is not answered: its own dialog asks", async () => {
  const command = fakeCommand("no-ui", envelope("Error: UI not available", { answers: [], cancelled: true, error: "no_ui" }));
  const { client, posts } = fakeClient();
  const hooks = await plugin.server({ client }, {}, { ASK_POPUP_COMMAND: command.path });
  await hooks.event({ event: { type: "question.asked", properties: { id: "que_2", sessionID: "ses_1", questions: [DB] } } });
  await until("the command ran", () => existsSync(command.log));
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(posts, []);
  // No command at all: the same.
  const missing = await plugin.server({ client }, {}, { ASK_POPUP_COMMAND: join(dir, "no-such-command") });
  await missing.event({ event: { type: "question.asked", properties: { id: "que_3", sessionID: "ses_1", questions: [DB] } } });
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(posts, []);
});

test("an answer in opencode's dialog, or the session stopping, takes the question out of the popup", async () => {
  for (const [name, ending] of [
    ["replied", { type: "question.replied", properties: { sessionID: "ses_1", requestID: "que_4", answers: [["Postgres"]] } }],
    ["rejected", { type: "question.rejected", properties: { sessionID: "ses_1", requestID: "que_4" } }],
    ["idle", { type: "session.idle", properties: { sessionID: "ses_1" } }],
  ]) {
    const withdrawn = envelope("The question was withdrawn by the agent before the user answered.", { answers: [], cancelled: true, error: "aborted" });
    const command = fakeCommand(`waits-${name}`, envelope("late", { answers: [], cancelled: false }), { delay: 20, onTerm: withdrawn });
    const { client, posts } = fakeClient();
    const hooks = await plugin.server({ client }, {}, { ASK_POPUP_COMMAND: command.path });
    await hooks.event({ event: { type: "question.asked", properties: { id: "que_4", sessionID: "ses_1", questions: [DB] } } });
    await until("the command ran", () => existsSync(command.log));
    // Another session's end leaves it waiting.
    await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_other" } } });
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(!existsSync(`${command.log}.term`), name);
    await hooks.event({ event: ending });
    await until(`${name}: the command stopped`, () => existsSync(`${command.log}.term`));
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(posts, [], name);
  }
});

test("a permission prompt answered in the popup is answered in opencode with its decision", async () => {
  const { approvals, approvalIn } = await import("../ask-popup.js");
  const approvalsPlugin = (await import("../ask-popup-approvals.js")).default;
  assert.equal(approvalsPlugin.id, "ask-popup-approvals");
  assert.equal(approvalsPlugin.server, approvals);
  const permission = {
    id: "per_1", sessionID: "ses_1", permission: "bash", patterns: ["touch x"], always: ["touch *"],
    metadata: { command: "touch x" }, tool: { messageID: "msg_1", callID: "call_1" },
  };
  for (const [printed, reply] of [
    ['{"reply":"once"}', { reply: "once" }],
    ['{"reply":"always"}', { reply: "always" }],
    ['{"reply":"reject","message":"The user denied this: not now"}', { reply: "reject", message: "The user denied this: not now" }],
  ]) {
    const command = fakeCommand(`approval-${reply.reply}`, printed);
    const { client, posts } = fakeClient();
    const hooks = await approvals({ client }, {}, { ASK_POPUP_COMMAND: command.path });
    await hooks.event({ event: { type: "permission.asked", properties: permission } });
    await until("the reply", () => posts.length === 1);
    assert.equal(posts[0].url, "/permission/{requestID}/reply");
    assert.deepEqual(posts[0].path, { requestID: "per_1" });
    assert.deepEqual(posts[0].body, reply);
    const [args, ...stdin] = readFileSync(command.log, "utf8").split("\n");
    assert.equal(args, "opencode-approval");
    assert.deepEqual(JSON.parse(stdin.join("\n")), permission);
  }
  // Nothing decided, or anything but a reply opencode knows, is no reply: its prompt decides.
  assert.equal(approvalIn(""), undefined);
  assert.equal(approvalIn('{"reply":"yes"}'), undefined);
  assert.equal(approvalIn('{"content":[{"type":"text","text":"x"}],"details":{}}'), undefined);
  assert.deepEqual(approvalIn('{"reply":"once","message":"m"}'), { reply: "once" });
  const silent = fakeCommand("approval-silent", "");
  const { client, posts } = fakeClient();
  const hooks = await approvals({ client }, {}, { ASK_POPUP_COMMAND: silent.path });
  await hooks.event({ event: { type: "permission.asked", properties: { ...permission, id: "per_2" } } });
  await until("the command ran", () => existsSync(silent.log));
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(posts, []);
});

test("a permission prompt answered in opencode, or its session stopping, leaves the popup", async () => {
  const { approvals } = await import("../ask-popup.js");
  for (const [name, ending] of [
    ["replied", { type: "permission.replied", properties: { sessionID: "ses_1", requestID: "per_3", reply: "once" } }],
    ["idle", { type: "session.idle", properties: { sessionID: "ses_1" } }],
  ]) {
    const command = fakeCommand(`approval-waits-${name}`, '{"reply":"once"}', { delay: 20 });
    const { client, posts } = fakeClient();
    const hooks = await approvals({ client }, {}, { ASK_POPUP_COMMAND: command.path });
    await hooks.event({ event: { type: "permission.asked", properties: { id: "per_3", sessionID: "ses_1", permission: "bash" } } });
    await until("the command ran", () => existsSync(command.log));
    await hooks.event({ event: ending });
    await until(`${name}: the command stopped`, () => existsSync(`${command.log}.term`));
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(posts, [], name);
  }
});
