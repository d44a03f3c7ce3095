// What the extension's tests share: the parity fixture the Rust library writes (tests/pi_parity.rs),
// Pi's own check of tool arguments, and fake `ask-popup` commands in a temporary folder.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Answer, Outcome, Responses } from "../src/envelope.ts";
import type { Questionnaire } from "../src/questionnaire.ts";
import parity from "./parity.json" with { type: "json" };

export type ValidationCase = {
  name: string;
  payload: unknown;
  accepted?: Questionnaire;
  rejected?: { code: string; text: string; line: string };
};
/** An outcome as the fixture writes it: an unanswered question is `null`. */
export type FixtureOutcome = Omit<Outcome, "responses"> & {
  responses: Omit<Responses, "answers"> & { answers: (Answer | null)[] };
};
export type EnvelopeCase = {
  name: string;
  payload: unknown;
  outcome: FixtureOutcome;
  requestId?: string;
  line: string;
};

export const fixture = parity as unknown as {
  validation: ValidationCase[];
  envelopes: EnvelopeCase[];
  /** Endings without a questionnaire (`no_ui`, `no_custom_ui`), as the library writes them. */
  errors: { code: string; line: string }[];
  /** Lines `ask-popup ask --id call_9` prints for endings other than answers. */
  commandLines: { name: string; line: string }[];
};

/** The fixture's outcome as the extension's `Outcome` (an unanswered question is `undefined`). */
export function outcomeOf(o: FixtureOutcome): Outcome {
  const answers = o.responses.answers.map((a) => a ?? undefined);
  return { ...o, responses: { ...o.responses, answers } } as Outcome;
}

/** The node_modules of Pi's pinned install, which scripts/test-pi-extension.sh puts on NODE_PATH. */
export function piModules(): string {
  const dirs = (process.env.NODE_PATH ?? "").split(delimiter).filter((dir) => dir !== "");
  const dir = dirs.find((d) => existsSync(join(d, "@earendil-works/pi-ai/package.json")));
  if (dir === undefined) {
    throw new Error("Pi's node_modules is not on NODE_PATH: run these tests with `bash scripts/test-pi-extension.sh`");
  }
  return dir;
}

type PiCheck = (parameters: unknown, args: unknown) => unknown;

/** Package `name` of Pi's install, imported as Pi imports it (its `exports["."].import`). */
async function piPackage(name: string): Promise<any> {
  const dir = join(piModules(), name);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  return import(pathToFileURL(join(dir, pkg.exports["."].import)).href);
}

/**
 * Pi's own check of a tool call's arguments (`validateToolArguments` of @earendil-works/pi-ai:
 * pi-schema's coercion, then its check), which runs before the tool's `execute`. Returns the
 * arguments `execute` gets; throws Pi's "Validation failed" error for arguments that never reach it.
 */
export async function piCheck(): Promise<PiCheck> {
  const ai = await piPackage("@earendil-works/pi-ai");
  return (parameters, args) =>
    ai.validateToolArguments(
      { name: "ask_user_question", parameters },
      { type: "toolCall", id: "call", name: "ask_user_question", arguments: args },
    );
}

/** Pi's validator, `@earendil-works/pi-schema` (draft 2020-12, no eval): its `compile`. */
export async function piSchema(): Promise<{
  compile: (schema: unknown, options?: { coerce?: boolean }) => {
    check: (value: unknown) => boolean;
    errors: (value: unknown) => { path: string; keyword: string; message: string }[];
  };
}> {
  return piPackage("@earendil-works/pi-schema");
}

/** A temporary folder, removed by `remove`. */
export function tempDir(): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), "pi-ask-popup-test-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * A fake `ask-popup` at `<dir>/<name>`: records its arguments (`<command>.args`, one a line) and
 * stdin (`<command>.stdin`), runs `body` (sh), then prints `prints` (if given) and exits with
 * `exit`.
 */
export function fakeCommand(
  dir: string,
  name: string,
  { prints, exit = 0, body = "" }: { prints?: string; exit?: number; body?: string },
): string {
  const path = join(dir, name);
  if (prints !== undefined) writeFileSync(`${path}.out`, prints);
  const script = [
    "#!/bin/sh",
    `printf '%s\\n' "$@" > "$0.args"`,
    `cat > "$0.stdin"`,
    body,
    prints === undefined ? "" : `cat "$0.out"`,
    `exit ${exit}`,
    "",
  ].join("\n");
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return path;
}

/** What a fake command recorded: its arguments and stdin, or undefined if it never ran. */
export function ran(command: string): { args: string[]; stdin: string } | undefined {
  if (!existsSync(`${command}.args`)) return undefined;
  const args = readFileSync(`${command}.args`, "utf8").split("\n").slice(0, -1);
  const stdin = existsSync(`${command}.stdin`) ? readFileSync(`${command}.stdin`, "utf8") : "";
  return { args, stdin };
}

/** Whether process `pid` still runs (a zombie has ended). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    // No /proc: signal 0 says whether it exists.
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** Waits until `check` holds, for at most `ms`; returns whether it did. */
export async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
