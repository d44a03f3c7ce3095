// Events pairing: the extension loaded by a fake Pi. Every questionnaire that passes validation
// emits prompt, blocked{active:true} and herdr:blocked{active:true}, then exactly one
// blocked{active:false} and one herdr:blocked{active:false}, however it ends (an answer, no UI,
// the popup closed, Pi's own dialogs, an abort); an invalid one emits nothing.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { rejection, toLine } from "../src/envelope.ts";
import { ASK_POPUP_BLOCKED_EVENT, ASK_POPUP_PROMPT_EVENT, HERDR_BLOCKED_EVENT } from "../src/events.ts";
import piAskPopup from "../src/index.ts";
import { shared } from "../src/shared.ts";
import { fakeCommand, fixture, isRunning, ran, tempDir, until } from "./support.ts";

type Tool = {
  name: string;
  execute: (id: string, params: unknown, signal: AbortSignal | undefined, onUpdate: unknown, ctx: unknown) => Promise<unknown>;
};

const dir = tempDir();
const saved = { command: process.env.ASK_POPUP_COMMAND, config: process.env.XDG_CONFIG_HOME };
/** Pids of fake commands started here, ended at the end if a test left one running. */
const started: number[] = [];

let tool: Tool;
let heard: [string, unknown][] = [];
/** The handlers the extension gave `pi.on`, by event. */
const handlers = new Map<string, ((event: unknown, ctx: unknown) => unknown)[]>();
/** Pi firing `event` to the extension's handlers, as it does around every `ctx.ui` prompt. */
function fire(event: "ui_prompt_start" | "ui_prompt_end", kind = "confirm") {
  const payload = event === "ui_prompt_start" ? { type: event, reason: "ui_prompt", kind, title: "Delete?" } : { type: event, reason: "ui_prompt", kind };
  for (const handler of handlers.get(event) ?? []) handler(payload, {});
}

before(() => {
  // No config file of this machine's user: the extension reads its defaults.
  process.env.XDG_CONFIG_HOME = join(dir.path, "config");
  const pi = {
    registerTool: (registered: Tool) => {
      tool = registered;
    },
    events: { emit: (channel: string, payload: unknown) => heard.push([channel, payload]) },
    on: (event: string, handler: (event: unknown, ctx: unknown) => unknown) => {
      handlers.set(event, [...(handlers.get(event) ?? []), handler]);
    },
  };
  piAskPopup(pi as never);
  assert.equal(tool?.name, shared.name);
});
beforeEach(() => {
  heard = [];
});
after(() => {
  for (const pid of started) if (isRunning(pid)) process.kill(pid, "SIGKILL");
  dir.remove();
  for (const [key, value] of [["ASK_POPUP_COMMAND", saved.command], ["XDG_CONFIG_HOME", saved.config]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

const params = {
  questions: [
    {
      question: "Database?",
      header: "DB",
      options: [
        { label: "Postgres", description: "server", preview: "## Postgres\n\nmature" },
        { label: "SQLite", description: "file" },
      ],
    },
    { question: "Features?", header: "", multiSelect: true, options: [{ label: "Auth", description: "" }, { label: "Search", description: "" }] },
  ],
};

const prompt = {
  questions: [
    {
      question: "Database?",
      header: "DB",
      multiSelect: false,
      options: [
        { label: "Postgres", description: "server", hasPreview: true },
        { label: "SQLite", description: "file", hasPreview: false },
      ],
    },
    {
      question: "Features?",
      header: "Q2",
      multiSelect: true,
      options: [
        { label: "Auth", description: "", hasPreview: false },
        { label: "Search", description: "", hasPreview: false },
      ],
    },
  ],
};

const waiting: [string, unknown][] = [
  [ASK_POPUP_PROMPT_EVENT, prompt],
  [ASK_POPUP_BLOCKED_EVENT, { active: true }],
  [HERDR_BLOCKED_EVENT, { active: true }],
];
const paired: [string, unknown][] = [
  ...waiting,
  [ASK_POPUP_BLOCKED_EVENT, { active: false }],
  [HERDR_BLOCKED_EVENT, { active: false }],
];

function commandLine(name: string): string {
  const found = fixture.commandLines.find((c) => c.name === name);
  assert.ok(found, `no command line ${name}`);
  return found.line;
}

const noUi = { hasUI: false };

describe("events around execute", () => {
  test("an answer from the command", async () => {
    const answered = fixture.envelopes.find((c) => c.name === "every question answered, one of each kind");
    assert.ok(answered);
    const command = fakeCommand(dir.path, "answers", { prints: answered.line });
    process.env.ASK_POPUP_COMMAND = command;
    const result = await tool.execute("toolu_01", params, new AbortController().signal, undefined, noUi);
    assert.deepEqual(result, JSON.parse(answered.line));
    assert.deepEqual(ran(command), { args: ["ask", "--agent", "pi", "--id", "toolu_01"], stdin: JSON.stringify(params) });
    assert.deepEqual(heard, paired);
  });

  test("no command and no UI: no_ui", async () => {
    process.env.ASK_POPUP_COMMAND = join(dir.path, "no-such-command");
    const result = await tool.execute("call_b", params, undefined, undefined, noUi);
    const noUiLine = fixture.errors.find((e) => e.code === "no_ui")?.line;
    assert.equal(toLine(result as never), noUiLine);
    assert.deepEqual(heard, paired);
  });

  test("the popup closed and no UI: no_ui", async () => {
    const command = fakeCommand(dir.path, "dismissed", { prints: commandLine("dismissed"), exit: 1 });
    process.env.ASK_POPUP_COMMAND = command;
    const result = await tool.execute("call_9", params, undefined, undefined, noUi);
    assert.deepEqual(result, rejection(shared.errors.noUi));
    assert.ok(ran(command), "the command ran");
    assert.deepEqual(heard, paired);
  });

  test("an error envelope from the command is handed on", async () => {
    const command = fakeCommand(dir.path, "aborted", { prints: commandLine("aborted"), exit: 1 });
    process.env.ASK_POPUP_COMMAND = command;
    const result = await tool.execute("call_9", params, undefined, undefined, noUi);
    assert.deepEqual(result, JSON.parse(commandLine("aborted")));
    assert.deepEqual(heard, paired);
  });

  test("answered in Pi's own dialogs", async () => {
    process.env.ASK_POPUP_COMMAND = join(dir.path, "no-such-command");
    // SQLite on the first question; on the multi-select one, tick Auth, then Done.
    const picks = [(rows: string[]) => rows[1], (rows: string[]) => rows[0], () => "Done"];
    // Pi's dialogs, each in its own ui_prompt span as Pi shows them.
    const ui = {
      select: async (_title: string, rows: string[]) => {
        fire("ui_prompt_start", "select");
        await new Promise((resolve) => setImmediate(resolve));
        fire("ui_prompt_end", "select");
        return picks.shift()?.(rows);
      },
      input: async () => undefined,
    };
    const result = (await tool.execute("call_g", params, undefined, undefined, { hasUI: true, ui })) as {
      details: { answers: { answer: string | null; selected?: string[] }[]; requestId?: string };
    };
    assert.deepEqual(
      result.details.answers.map((a) => a.answer ?? a.selected),
      ["SQLite", ["Auth"]],
    );
    assert.equal(result.details.requestId, "call_g");
    assert.equal(picks.length, 0, "every dialog was shown");
    assert.deepEqual(heard, paired);
  });

  test("aborted while the command waits: rejects, and the command ends", async () => {
    const command = fakeCommand(dir.path, "waits", {
      body: [
        `echo $$ > "$0.pid"`,
        `trap 'kill $child 2>/dev/null; echo withdrawn > "$0.withdrawn"; exit 143' TERM`,
        `sleep 30 & child=$!`,
        `echo $child > "$0.sleep"`,
        `wait $child`,
      ].join("\n"),
      prints: commandLine("dismissed"),
    });
    process.env.ASK_POPUP_COMMAND = command;
    const abort = new AbortController();
    const execution = tool.execute("call_c", params, abort.signal, undefined, noUi);
    const outcome = execution.then(
      () => "resolved",
      (error: Error) => error,
    );
    assert.ok(await until(() => existsSync(`${command}.sleep`)), "the command started waiting");
    const pid = Number(readFileSync(`${command}.pid`, "utf8"));
    const sleeper = Number(readFileSync(`${command}.sleep`, "utf8"));
    started.push(pid, sleeper);
    assert.deepEqual(heard, waiting, "waiting: prompt and blocked, not yet unblocked");

    const aborted = Date.now();
    abort.abort();
    const ended = await outcome;
    assert.ok(ended instanceof Error, `execute ${String(ended)}`);
    assert.equal(ended.name, "AbortError");
    // Stopped with SIGTERM (which withdraws the question), not killed after the grace period.
    assert.ok(Date.now() - aborted < 4000, "ended before the SIGKILL grace period");
    assert.equal(existsSync(`${command}.withdrawn`), true, "the command got SIGTERM");
    assert.equal(isRunning(pid), false, "the command ended");
    assert.ok(await until(() => !isRunning(sleeper)), "what the command waited on ended");
    assert.deepEqual(heard, paired);
  });

  test("an abort before execute emits nothing", async () => {
    const command = fakeCommand(dir.path, "not-run", { prints: commandLine("dismissed") });
    process.env.ASK_POPUP_COMMAND = command;
    const abort = new AbortController();
    abort.abort();
    await assert.rejects(tool.execute("call_e", params, abort.signal, undefined, noUi), { name: "AbortError" });
    assert.equal(ran(command), undefined);
    assert.deepEqual(heard, []);
  });

  test("an invalid questionnaire emits nothing", async () => {
    const command = fakeCommand(dir.path, "not-asked", { prints: commandLine("dismissed") });
    process.env.ASK_POPUP_COMMAND = command;
    const duplicate = { questions: [params.questions[0], { ...params.questions[1], question: "Database?" }] };
    const result = await tool.execute("call_d", duplicate, undefined, undefined, noUi);
    assert.deepEqual(result, rejection(shared.errors.duplicateQuestion));
    assert.equal(ran(command), undefined);
    assert.deepEqual(heard, []);
  });
});

const blockedPair: [string, unknown][] = [
  [ASK_POPUP_BLOCKED_EVENT, { active: true }],
  [HERDR_BLOCKED_EVENT, { active: true }],
  [ASK_POPUP_BLOCKED_EVENT, { active: false }],
  [HERDR_BLOCKED_EVENT, { active: false }],
];

describe("events around any other Pi dialog (ui_prompt_start / ui_prompt_end)", () => {
  test("another extension's confirm: the blocked pair around it, no prompt", () => {
    fire("ui_prompt_start");
    assert.deepEqual(heard, blockedPair.slice(0, 2));
    fire("ui_prompt_end");
    assert.deepEqual(heard, blockedPair);
  });

  test("a dialog that opens while our question waits and outlasts it: one pair for both", async () => {
    const cmd = fakeCommand(dir.path, "dialog-meanwhile", { prints: commandLine("aborted"), exit: 1 });
    process.env.ASK_POPUP_COMMAND = cmd;
    const asked = tool.execute("call_m", params, undefined, undefined, noUi);
    fire("ui_prompt_start");
    await asked;
    assert.deepEqual(heard, waiting, "the wait ended while the dialog was still up");
    fire("ui_prompt_end");
    assert.deepEqual(heard, paired);
  });

  test("our question asked while another dialog is up: one pair, closed with the dialog", async () => {
    const cmd = fakeCommand(dir.path, "asked-meanwhile", { prints: commandLine("aborted"), exit: 1 });
    process.env.ASK_POPUP_COMMAND = cmd;
    fire("ui_prompt_start");
    await tool.execute("call_n", params, undefined, undefined, noUi);
    fire("ui_prompt_end");
    assert.deepEqual(heard, [
      [ASK_POPUP_BLOCKED_EVENT, { active: true }],
      [HERDR_BLOCKED_EVENT, { active: true }],
      [ASK_POPUP_PROMPT_EVENT, prompt],
      [ASK_POPUP_BLOCKED_EVENT, { active: false }],
      [HERDR_BLOCKED_EVENT, { active: false }],
    ]);
  });
});
