// Envelope passthrough: `envelopeIn` finds the plugin's envelope among what `ask-popup ask`
// prints and hands it on unchanged, and `askThroughCommand` runs the command and resolves with
// that envelope (or `unavailable` when there is none to run).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { askThroughCommand, envelopeIn, markBlocked } from "../src/command.ts";
import { fakeCommand, fixture, ran, tempDir, until } from "./support.ts";

const dir = tempDir();
after(() => dir.remove());

/** Every line the library writes in the fixture: answers, rejections, the command's own endings. */
const lines: { name: string; line: string }[] = [
  ...fixture.envelopes.map(({ name, line }) => ({ name, line })),
  ...fixture.errors.map(({ code, line }) => ({ name: code, line })),
  ...fixture.commandLines,
  ...fixture.validation.flatMap((c) => (c.rejected ? [{ name: c.name, line: c.rejected.line }] : [])),
];

const answered = fixture.envelopes.find((c) => c.name === "a pick with its preview");
assert.ok(answered);
const line = answered.line;

/** What Zellij 0.45.1's CLI and the command may print around the envelope. */
const listPanes = '[{"id":1,"is_plugin":false,"title":"pi"},{"id":0,"is_plugin":true,"title":"ask-popup"}]';
const errorLine = "Error: There is no active session!";

describe("envelopeIn", () => {
  for (const { name, line } of lines) {
    test(`hands on ${name} unchanged`, () => {
      const envelope = envelopeIn(line);
      assert.deepEqual(envelope, JSON.parse(line));
      assert.equal(`${JSON.stringify(envelope)}\n`, line);
    });
  }

  test("skips lines that are no envelope", () => {
    const stdout = ["", listPanes, errorLine, "   ", line.trimEnd(), "", '{"status":"waiting"}', listPanes, "\t", ""].join("\n");
    assert.deepEqual(envelopeIn(stdout), JSON.parse(line));
  });

  test("takes the last envelope", () => {
    const first = fixture.commandLines[0].line;
    assert.deepEqual(envelopeIn(first + line), JSON.parse(line));
    assert.deepEqual(envelopeIn(line + first), JSON.parse(first));
  });

  test("finds none among objects not shaped like an envelope", () => {
    for (const stdout of [
      "",
      "\n\n",
      `${listPanes}\n${errorLine}\n`,
      '{"content":[],"details":{}}\n',
      '{"content":[{"type":"text","text":"x"}]}\n',
      '{"content":[{"type":"text","text":"x"}],"details":[]}\n',
      '{"content":"x","details":{}}\n',
      `${line.slice(0, 40)}\n`,
    ]) {
      assert.equal(envelopeIn(stdout), undefined, JSON.stringify(stdout));
    }
  });
});

describe("askThroughCommand", () => {
  test("resolves with exactly the envelope the command prints", async () => {
    const command = fakeCommand(dir.path, "answers", { prints: `${listPanes}\n${line}` });
    const payload = JSON.stringify(answered.payload);
    const result = await askThroughCommand(command, "call_1", payload, undefined);
    assert.deepEqual(result, { kind: "envelope", envelope: JSON.parse(line) });
    assert.deepEqual(ran(command), { args: ["ask", "--agent", "pi", "--id", "call_1"], stdin: payload });
  });

  test("hands on an error envelope the command exits 1 with", async () => {
    const dismissed = fixture.commandLines.find((c) => c.name === "dismissed");
    assert.ok(dismissed);
    const command = fakeCommand(dir.path, "dismissed", { prints: dismissed.line, exit: 1 });
    const result = await askThroughCommand(command, "call_9", "{}", new AbortController().signal);
    assert.deepEqual(result, { kind: "envelope", envelope: JSON.parse(dismissed.line) });
  });

  test("a missing command is unavailable", async () => {
    const result = await askThroughCommand(join(dir.path, "no-such-command"), "call_1", "{}", undefined);
    assert.equal(result.kind, "unavailable");
    assert.match(result.kind === "unavailable" ? result.reason : "", /^cannot run .*no-such-command: .*ENOENT/);
  });

  test("a command that prints no envelope is unavailable", async () => {
    const command = fakeCommand(dir.path, "silent", { prints: `${listPanes}\n${errorLine}\n`, exit: 5 });
    const result = await askThroughCommand(command, "call_1", "{}", undefined);
    assert.deepEqual(result, { kind: "unavailable", reason: `${command} printed no envelope (exit 5)` });
  });

  test("an aborted signal rejects without running the command", async () => {
    const command = fakeCommand(dir.path, "never", { prints: line });
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(askThroughCommand(command, "call_1", "{}", aborted.signal), { name: "AbortError" });
    assert.equal(existsSync(`${command}.args`), false);
  });
});

describe("markBlocked", () => {
  test("runs `blocked` for the dialog's id while it is up, and stops it once when told", async () => {
    const command = fakeCommand(dir.path, "marks", {
      body: 'trap \'echo stopped >> "$0.stopped"; exit 0\' TERM; echo $$ > "$0.pid"; while :; do sleep 0.05; done',
    });
    const stop = markBlocked(command, "pi-dialog-1", { ZELLIJ: "0" });
    assert.ok(await until(() => existsSync(`${command}.pid`)));
    assert.deepEqual(ran(command)?.args, ["blocked", "--agent", "pi", "--id", "pi-dialog-1"]);
    assert.equal(existsSync(`${command}.stopped`), false);
    stop();
    stop();
    assert.ok(await until(() => existsSync(`${command}.stopped`)));
  });

  test("outside Zellij runs nothing", async () => {
    const command = fakeCommand(dir.path, "outside", {});
    markBlocked(command, "pi-dialog-2", {})();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(ran(command), undefined);
  });

  test("a command that cannot run marks nothing and throws nothing", async () => {
    const stop = markBlocked(join(dir.path, "no-such-command"), "pi-dialog-3", { ZELLIJ: "0" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    stop();
  });
});
