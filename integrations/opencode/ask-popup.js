// ask-popup for opencode: opencode's own `question` tool answered in the ask-popup Zellij popup.
//
// When opencode's model calls `question`, opencode opens its own dialog and announces the
// question (`question.asked`). This plugin puts the same questions to the popup through
// `ask-popup ask --agent opencode` (which marks opencode's pane, `$ZELLIJ_PANE_ID`, while it
// waits) and answers opencode with what the user chose there; the model then reads the popup's
// own text (notes, "Chat about this", a decline) in place of opencode's. Whichever dialog is
// answered first wins: an answer in opencode's dialog takes the question back out of the popup.
// When the popup cannot reach the user (not inside Zellij, no `ask-popup` command, the popup
// closed, too many questions waiting, a question it refuses) the plugin leaves the question to
// opencode's dialog, which is open already.
//
// What comes from the Rust library, never typed here: the agent's name and the endings after
// which opencode's dialog asks (./ask-popup/shared.json, written by `ask-popup`'s tests).
//
// Plain JavaScript, one file: opencode loads every `*.js` and `*.ts` of its plugin folder as a
// plugin, and Node's test runner loads this file as it is.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

/** `{ agent, fallback }`: see ./ask-popup/shared.json. */
export const shared = JSON.parse(readFileSync(new URL("./ask-popup/shared.json", import.meta.url), "utf8"));

/** opencode's tool whose questions the popup answers. */
export const QUESTION_TOOL = "question";

/** How long an `ask-popup ask` that is told to stop gets to withdraw its question. */
const WITHDRAW_GRACE_MS = 5000;

/** opencode's questions as the popup's questionnaire (its `custom` answers are the popup's
 * `Type something.` row, which every question has). */
export function questionnaireOf(questions) {
  return {
    questions: questions.map((q) => ({
      question: q.question,
      header: q.header,
      options: (q.options ?? []).map((o) => ({ label: o.label, description: o.description ?? "" })),
      multiSelect: q.multiple === true,
    })),
  };
}

/** The envelope in what `ask-popup ask` printed: its last line that is a JSON object with a
 * `content` list and a `details` object. */
export function envelopeIn(stdout) {
  return lastObjectIn(
    stdout,
    (value) =>
      Array.isArray(value.content) &&
      value.content.length > 0 &&
      typeof value.details === "object" &&
      value.details !== null,
  );
}

/** The last line of `stdout` that is a JSON object `accept` takes, or undefined. */
function lastObjectIn(stdout, accept) {
  const lines = stdout.split("\n").filter((line) => line.trim() !== "");
  for (let i = lines.length - 1; i >= 0; i--) {
    let value;
    try {
      value = JSON.parse(lines[i]);
    } catch {
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    if (accept(value)) return value;
  }
  return undefined;
}

/** The envelope's text, as the model of every other agent reads it. */
export function textOf(envelope) {
  return envelope.content.map((part) => (typeof part.text === "string" ? part.text : "")).join("\n");
}

/** What opencode is told for each question: the labels picked, or the text typed (opencode's
 * answers are lists of labels, a typed answer one of them); nothing for a question left
 * unanswered. */
export function answersOf(envelope, count) {
  const answers = Array.from({ length: count }, () => []);
  for (const given of envelope.details.answers ?? []) {
    const slot = answers[given.questionIndex];
    if (slot === undefined) continue;
    if (Array.isArray(given.selected)) slot.push(...given.selected.filter((s) => typeof s === "string"));
    else if (typeof given.answer === "string") slot.push(given.answer);
  }
  return answers;
}

/**
 * What to do with what `ask-popup ask` printed: `{ reply: { answers, text } }` to answer opencode
 * (and give its model `text`), or `{ leave: reason }` to leave the question to opencode's dialog.
 */
export function decide(stdout, count) {
  const envelope = envelopeIn(stdout);
  if (envelope === undefined) return { leave: "ask-popup printed no envelope" };
  const error = envelope.details.error;
  if (typeof error === "string" && shared.fallback.includes(error)) return { leave: error };
  return { reply: { answers: answersOf(envelope, count), text: textOf(envelope) } };
}

/** The `ask-popup` command: `$ASK_POPUP_COMMAND`, else the one on PATH. */
export function commandOf(env = process.env) {
  const command = env.ASK_POPUP_COMMAND;
  return command !== undefined && command.trim() !== "" ? command : "ask-popup";
}

/** Runs `command ask --agent opencode --id <id>` with `payload` on its stdin: resolves with its
 * stdout ("" when it could not run). `stop()` withdraws the question (SIGTERM, then SIGKILL). */
export function askThroughCommand(command, id, payload) {
  return runCommand(command, ["ask", "--agent", shared.agent, "--id", id], payload);
}

/** Runs `command` with `args` and `payload` on its stdin, as `askThroughCommand` says. */
export function runCommand(command, args, payload) {
  let child;
  const done = new Promise((resolve) => {
    try {
      child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve("");
      return;
    }
    const out = [];
    child.stdout?.on("data", (chunk) => out.push(chunk));
    child.stdin?.on("error", () => {}); // EPIPE when the command exits before reading it all
    child.on("error", () => resolve(""));
    child.on("close", () => resolve(Buffer.concat(out).toString("utf8")));
    child.stdin?.end(payload);
  });
  const stop = () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), WITHDRAW_GRACE_MS).unref?.();
  };
  return { done, stop };
}

/** Answers the pending question `requestID` through opencode's own client (the server's
 * `POST /question/{requestID}/reply`, which opencode's SDK of this version offers no method
 * for): true when opencode took the answers. */
export async function replyToOpencode(client, requestID, answers) {
  return postReply(client, "/question/{requestID}/reply", requestID, { answers });
}

/** Posts `body` to opencode's server at `url` (with `{requestID}` in it) through its own
 * client: true when opencode took it. */
async function postReply(client, url, requestID, body) {
  const http = client?._client;
  if (typeof http?.post !== "function") return false;
  try {
    const result = await http.post({ url, path: { requestID }, body, headers: { "Content-Type": "application/json" } });
    return result?.error === undefined && (result?.response?.ok ?? true);
  } catch {
    return false;
  }
}

/** The decision `ask-popup opencode-approval` printed: its last line that is a JSON object whose
 * `reply` is one of opencode's (`once`, `always`, `reject`), or undefined (nothing decided:
 * opencode's own prompt decides). */
export function approvalIn(stdout) {
  const value = lastObjectIn(stdout, (v) => ["once", "always", "reject"].includes(v.reply));
  if (value === undefined) return undefined;
  const reply = { reply: value.reply };
  if (value.reply === "reject" && typeof value.message === "string") reply.message = value.message;
  return reply;
}

/** Answers opencode's permission request `requestID` (the server's
 * `POST /permission/{requestID}/reply`): true when opencode took the reply. */
export async function replyToPermission(client, requestID, reply) {
  return postReply(client, "/permission/{requestID}/reply", requestID, reply);
}

/** What each plugin has put to the popup, by opencode's request id, and what ends it early: an
 * answer in opencode's own dialog (`end`), its session stopping (`sessionEvent`), opencode
 * exiting. `wait` runs `asked` (`{ done, stop }` of `runCommand`) and resolves with its stdout,
 * or undefined when it was ended meanwhile (then there is nothing to say). */
function waits() {
  /** By request id: `{ sessionID, stop, over }`. */
  const asking = new Map();
  process.once("exit", () => {
    for (const asked of asking.values()) asked.stop();
  });
  function end(requestID) {
    const asked = asking.get(requestID);
    if (asked === undefined) return;
    asked.over = true;
    asked.stop();
  }
  return {
    has: (requestID) => asking.has(requestID),
    async wait(requestID, sessionID, run) {
      const asked = { sessionID, stop: run.stop, over: false };
      asking.set(requestID, asked);
      const stdout = await run.done;
      asking.delete(requestID);
      return asked.over ? undefined : stdout;
    },
    end,
    /** Ends what a stopped session asked; false for an event that is no session's end. */
    sessionEvent(type, properties) {
      const idle =
        (type === "session.idle" && typeof properties.sessionID === "string") ||
        (type === "session.status" && properties.status?.type === "idle");
      if (!idle) return false;
      for (const [requestID, asked] of asking) if (asked.sessionID === properties.sessionID) end(requestID);
      return true;
    },
  };
}

/** opencode's permission prompts asked in the popup (the plugin `ask-popup-approvals.js`, which
 * `ask-popup setup opencode --approvals --write` puts beside this one): each `permission.asked`
 * goes to `ask-popup opencode-approval`, which asks and prints the decision, and opencode is
 * answered with it; nothing printed leaves the decision to opencode's own prompt, open all along.
 * An answer there (`permission.replied`), or the session stopping, takes the question out of
 * the popup. */
export async function approvals({ client }, _options, env = process.env) {
  const asking = waits();

  async function ask(permission) {
    if (typeof permission?.id !== "string" || asking.has(permission.id)) return;
    const run = runCommand(commandOf(env), ["opencode-approval"], JSON.stringify(permission));
    const stdout = await asking.wait(permission.id, permission.sessionID, run);
    if (stdout === undefined) return;
    const reply = approvalIn(stdout);
    if (reply !== undefined) await replyToPermission(client, permission.id, reply);
  }

  return {
    event: async ({ event }) => {
      const properties = event?.properties ?? {};
      if (asking.sessionEvent(event?.type, properties)) return;
      switch (event?.type) {
        case "permission.asked":
          void ask(properties);
          break;
        case "permission.replied":
          asking.end(properties.requestID);
          break;
      }
    },
  };
}

/** The plugin: opencode calls it once per project it opens. */
export async function server({ client }, _options, env = process.env) {
  /** Questions put to the popup. */
  const asking = waits();
  /** The popup's text for a question tool call answered from it, by opencode's call id. */
  const texts = new Map();

  async function ask(request) {
    const questions = Array.isArray(request.questions) ? request.questions : [];
    if (questions.length === 0 || asking.has(request.id)) return;
    const asked = askThroughCommand(commandOf(env), request.id, JSON.stringify(questionnaireOf(questions)));
    const stdout = await asking.wait(request.id, request.sessionID, asked);
    // Answered in opencode's dialog meanwhile, or the session stopped: nothing to say.
    if (stdout === undefined) return;
    const next = decide(stdout, questions.length);
    if (!("reply" in next)) return; // opencode's dialog, open all along, asks
    const callID = request.tool?.callID;
    if (callID !== undefined) texts.set(callID, next.reply.text);
    if (!(await replyToOpencode(client, request.id, next.reply.answers)) && callID !== undefined) {
      texts.delete(callID);
    }
  }

  return {
    event: async ({ event }) => {
      const properties = event?.properties ?? {};
      if (asking.sessionEvent(event?.type, properties)) return;
      switch (event?.type) {
        case "question.asked":
          void ask(properties);
          break;
        case "question.replied":
        case "question.rejected":
          asking.end(properties.requestID);
          break;
      }
    },
    "tool.execute.after": async (input, output) => {
      if (input?.tool !== QUESTION_TOOL) return;
      const text = texts.get(input.callID);
      if (text === undefined) return;
      texts.delete(input.callID);
      output.output = text;
    },
  };
}

export default { id: "ask-popup", server };
