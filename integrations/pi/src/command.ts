// Asking through the `ask-popup ask` command: the questionnaire on its stdin, the envelope the
// plugin wrote on its stdout. Pi's abort signal stops the command with SIGTERM, which withdraws
// the question from the popup.
import { spawn, type ChildProcess } from "node:child_process";

/** How long an aborted command gets to withdraw its question before it is killed. */
const WITHDRAW_GRACE_MS = 5000;

export type CommandEnvelope = { content: { type: "text"; text: string }[]; details: Record<string, unknown> };

export type CommandResult =
  /** The command answered: the envelope as the plugin (or the command) wrote it. */
  | { kind: "envelope"; envelope: CommandEnvelope }
  /** The command could not run, or printed no envelope. */
  | { kind: "unavailable"; reason: string };

export class AbortedError extends Error {
  constructor() {
    super("ask_user_question aborted by user");
    this.name = "AbortError";
  }
}

/** The envelope in what the command printed: the last line that is a JSON object shaped like one. */
export function envelopeIn(stdout: string): CommandEnvelope | undefined {
  const lines = stdout.split("\n").filter((line) => line.trim() !== "");
  for (let i = lines.length - 1; i >= 0; i--) {
    let value: unknown;
    try {
      value = JSON.parse(lines[i]);
    } catch {
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    const { content, details } = value as { content?: unknown; details?: unknown };
    if (!Array.isArray(content) || content.length === 0) continue;
    if (typeof details !== "object" || details === null || Array.isArray(details)) continue;
    return { content: content as CommandEnvelope["content"], details: details as Record<string, unknown> };
  }
  return undefined;
}

/**
 * Runs `command ask --agent pi --id <id>` with `payload` on its stdin. Resolves with the envelope
 * or `unavailable`; rejects with `AbortedError` when `signal` aborts (after the command has
 * withdrawn its question and exited, or been killed).
 */
export function askThroughCommand(
  command: string,
  id: string,
  payload: string,
  signal: AbortSignal | undefined,
): Promise<CommandResult> {
  if (signal?.aborted) return Promise.reject(new AbortedError());
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(command, ["ask", "--agent", "pi", "--id", id], { stdio: ["pipe", "pipe", "pipe"] });
    } catch (error) {
      resolve({ kind: "unavailable", reason: `cannot run ${command}: ${String(error)}` });
      return;
    }
    const stdout: Buffer[] = [];
    let settled = false;
    let spawnError: Error | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    // Pi leaves with process.exit() on SIGHUP/SIGTERM: take the question back on the way out.
    const onExit = () => {
      child.kill("SIGTERM");
    };
    const onAbort = () => {
      child.kill("SIGTERM");
      killTimer = setTimeout(() => child.kill("SIGKILL"), WITHDRAW_GRACE_MS);
      killTimer.unref?.();
    };
    const finish = (result: () => void) => {
      if (settled) return;
      settled = true;
      if (killTimer) clearTimeout(killTimer);
      signal?.removeEventListener("abort", onAbort);
      process.removeListener("exit", onExit);
      result();
    };
    process.on("exit", onExit);
    signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", () => {}); // drained, not shown
    child.stdin?.on("error", () => {}); // EPIPE when the command exits before reading it all
    child.on("error", (error) => {
      spawnError = error;
      // A command that never started emits no "close" on every Node version.
      if (child.pid === undefined) {
        finish(() =>
          signal?.aborted
            ? reject(new AbortedError())
            : resolve({ kind: "unavailable", reason: `cannot run ${command}: ${error.message}` }),
        );
      }
    });
    child.on("close", (code, sig) => {
      finish(() => {
        if (signal?.aborted) return reject(new AbortedError());
        if (spawnError) return resolve({ kind: "unavailable", reason: `cannot run ${command}: ${spawnError.message}` });
        const envelope = envelopeIn(Buffer.concat(stdout).toString("utf8"));
        if (envelope) return resolve({ kind: "envelope", envelope });
        resolve({ kind: "unavailable", reason: `${command} printed no envelope (exit ${code ?? sig})` });
      });
    });
    child.stdin?.end(payload);
  });
}

/**
 * While a Pi dialog that is not in the popup waits on the user (any extension's `ctx.ui`
 * prompt), `command blocked --agent pi --id <id>` marks this pane as waiting, as a question in
 * the popup does, until it is stopped. Returns what stops it (once; safe to call again). Outside
 * Zellij nothing runs.
 */
export function markBlocked(command: string, id: string, env: NodeJS.ProcessEnv = process.env): () => void {
  if (!env.ZELLIJ && !env.ZELLIJ_SESSION_NAME) return () => {};
  let child: ChildProcess;
  try {
    child = spawn(command, ["blocked", "--agent", "pi", "--id", id], { stdio: "ignore" });
  } catch {
    return () => {};
  }
  child.on("error", () => {}); // not installed: nothing is marked
  // Pi leaves with process.exit() on SIGHUP/SIGTERM: take the mark off on the way out.
  const onExit = () => {
    child.kill("SIGTERM");
  };
  process.on("exit", onExit);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    process.removeListener("exit", onExit);
    child.kill("SIGTERM");
  };
}
