// pi-ask-popup: the `ask_user_question` tool for the Pi coding agent. The questions go to the
// ask-popup Zellij plugin through the `ask-popup ask` command; when the popup cannot be used
// (not inside Zellij, the command not installed, the popup closed) Pi's own dialogs ask them.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { AbortedError, askThroughCommand, markBlocked } from "./command.ts";
import { commandOf, loadConfig } from "./config.ts";
import { outcome, rejection, type Envelope } from "./envelope.ts";
import {
  ASK_POPUP_BLOCKED_EVENT,
  ASK_POPUP_PROMPT_EVENT,
  HERDR_BLOCKED_EVENT,
  type AskPopupBlockedEventPayload,
  type AskPopupPromptEventPayload,
} from "./events.ts";
import { askInDialogs, type DialogUI } from "./fallback.ts";
import { normalise, payloadError, validate, type Questionnaire } from "./questionnaire.ts";
import { parameters } from "./schema.ts";
import { shared } from "./shared.ts";

/** The `error` codes after which Pi's own dialogs ask instead: the popup could not reach the user.
 * Decided once for every agent in the Rust library (`ErrorCode::next`, `Fallback::PI`). */
const POPUP_UNAVAILABLE = new Set(shared.popupUnavailable);

type ToolResult = { content: { type: "text"; text: string }[]; details: unknown };

function promptPayload(q: Questionnaire): AskPopupPromptEventPayload {
  return {
    questions: q.questions.map((question) => ({
      question: question.question,
      header: question.header,
      multiSelect: question.multiSelect,
      options: question.options.map((option) => ({
        label: option.label,
        description: option.description,
        hasPreview: option.preview !== undefined,
      })),
    })),
  };
}

type DialogContext = { hasUI: boolean; ui?: Partial<DialogUI> };

/** Pi shows one dialog at a time: parallel calls take turns (the popup queues them itself). */
let dialogTurn: Promise<unknown> = Promise.resolve();

/** Pi's own dialogs: the answers as the plugin would have written them. */
async function askInPi(ctx: DialogContext, q: Questionnaire, id: string, signal: AbortSignal | undefined): Promise<Envelope> {
  if (!ctx.hasUI) return rejection(shared.errors.noUi);
  const ui = ctx.ui;
  if (typeof ui?.select !== "function" || typeof ui?.input !== "function") return rejection(shared.errors.noCustomUi);
  const asked = dialogTurn.then(() => askInDialogs(ui as DialogUI, q, signal));
  dialogTurn = asked.catch(() => undefined);
  return outcome(q, await asked, id);
}

export default function piAskPopup(pi: ExtensionAPI) {
  const config = loadConfig();

  const emit = (channel: string, payload: AskPopupPromptEventPayload | AskPopupBlockedEventPayload) => {
    try {
      pi.events.emit(channel, payload);
    } catch {
      // A listener's failure is not the user's answer's.
    }
  };
  const blocked = (active: boolean) => {
    const payload: AskPopupBlockedEventPayload = { active };
    emit(ASK_POPUP_BLOCKED_EVENT, payload);
    emit(HERDR_BLOCKED_EVENT, { ...payload });
  };
  // Pi waits on the user while one of our questions waits, and while any `ctx.ui` prompt of any
  // extension is up (Pi's `ui_prompt_start` / `ui_prompt_end`, one span however many nest; our
  // own questions asked in Pi's dialogs are such prompts too). The blocked pair covers the whole
  // time Pi waits: `true` when it starts, exactly one `false` when nothing is left waiting.
  let asking = 0;
  let prompting = false;
  const waiting = () => asking > 0 || prompting;
  const wait = (change: () => void) => {
    const before = waiting();
    change();
    if (waiting() !== before) blocked(waiting());
  };
  // A Pi dialog is not in the popup, whose plugin marks the pane of a question it shows: the
  // pane is marked through `ask-popup blocked` while one is up.
  let dialogs = 0;
  let unmark: (() => void) | undefined;
  const prompt = (up: boolean) => {
    wait(() => (prompting = up));
    if (up && !unmark) unmark = markBlocked(commandOf(config), `pi-dialog-${process.pid}-${++dialogs}`);
    if (!up && unmark) {
      unmark();
      unmark = undefined;
    }
  };
  if (typeof pi.on === "function") {
    pi.on("ui_prompt_start", () => prompt(true));
    pi.on("ui_prompt_end", () => prompt(false));
  }

  pi.registerTool({
    name: shared.name,
    label: "Ask the user",
    description: config.description ?? shared.description,
    promptSnippet: shared.snippet,
    parameters,
    async execute(toolCallId, params, signal, _onUpdate, ctx): Promise<ToolResult> {
      if (signal?.aborted) throw new AbortedError();
      const q = normalise(params);
      const invalid = payloadError(params) ?? validate(q);
      if (invalid) return rejection(invalid);

      emit(ASK_POPUP_PROMPT_EVENT, promptPayload(q));
      wait(() => asking++);
      try {
        const asked = await askThroughCommand(commandOf(config), toolCallId, JSON.stringify(params), signal);
        if (asked.kind === "envelope") {
          const error = asked.envelope.details.error;
          if (typeof error !== "string" || !POPUP_UNAVAILABLE.has(error)) {
            return { content: asked.envelope.content, details: asked.envelope.details };
          }
        }
        return await askInPi(ctx as unknown as DialogContext, q, toolCallId, signal);
      } finally {
        wait(() => asking--);
      }
    },
  });
}
