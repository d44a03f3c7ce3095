// Pi's own dialogs, for when the popup cannot be used (not inside Zellij, the command missing,
// the popup closed): one select per question, with the rows the popup adds itself.
import { AbortedError } from "./command.ts";
import { emptyResponses, type Answer, type Outcome } from "./envelope.ts";
import { isBlank, normaliseNewlines, type Question, type Questionnaire } from "./questionnaire.ts";
import { shared } from "./shared.ts";

/** The part of Pi's `ctx.ui` the fallback uses. */
export type DialogUI = {
  select(title: string, options: string[], opts?: { signal?: AbortSignal; timeout?: number }): Promise<string | undefined>;
  input(title: string, placeholder?: string, opts?: { signal?: AbortSignal; timeout?: number }): Promise<string | undefined>;
};

/** The row that ends a multi-select question. */
export const DONE_ROW = "Done";
/** Pi fires a dialog's timeout on a one-second tick, never early; allow for clock rounding. */
const TIMEOUT_SLACK_MS = 20;

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}

/** An option as its row shows it: the label, and its description after ` — `. */
function optionRow(option: Question["options"][number]): string {
  const description = oneLine(option.description).trim();
  return description === "" ? oneLine(option.label) : `${oneLine(option.label)} — ${description}`;
}

/** Rows as Pi's select returns them (by text): made distinct so a pick maps back to one row. */
function distinct(rows: string[]): string[] {
  const seen = new Set<string>();
  return rows.map((row) => {
    let unique = row;
    while (seen.has(unique)) unique += "\u200b";
    seen.add(unique);
    return unique;
  });
}

function title(q: Questionnaire, index: number): string {
  const question = q.questions[index];
  const count = q.questions.length > 1 ? ` ${index + 1}/${q.questions.length}` : "";
  return `[${question.header}${count}] ${question.question}`;
}

type Step<T> = { value: T } | { timedOut: true } | { cancelled: true };

/**
 * Asks every question in turn. Resolves with the outcome (answers, a decline, a chat request,
 * a timeout); rejects with AbortedError when `signal` aborts. The questionnaire's `timeout`
 * applies to the first dialog only: once the user has acted, nothing times out (as in the popup,
 * where the first key stops the countdown).
 */
export async function askInDialogs(
  ui: DialogUI,
  q: Questionnaire,
  signal: AbortSignal | undefined,
): Promise<Outcome> {
  const responses = emptyResponses(q.questions.length);
  let timeoutMs = q.timeout;

  async function dialog<T extends string>(show: (opts: { signal?: AbortSignal; timeout?: number }) => Promise<T | undefined>): Promise<Step<T>> {
    if (signal?.aborted) throw new AbortedError();
    const timeout = timeoutMs;
    timeoutMs = undefined;
    const started = Date.now();
    const value = await show(timeout === undefined ? { signal } : { signal, timeout });
    if (signal?.aborted) throw new AbortedError();
    if (value !== undefined) return { value };
    if (timeout !== undefined && Date.now() - started >= timeout - TIMEOUT_SLACK_MS) return { timedOut: true };
    return { cancelled: true };
  }

  const ended = (step: Step<unknown>): Outcome =>
    "timedOut" in step ? { type: "timedOut", responses } : { type: "declined", responses };

  for (let index = 0; index < q.questions.length; index++) {
    const question = q.questions[index];
    const heading = title(q, index);
    const typed = async (): Promise<Step<string>> => {
      const step = await dialog((opts) => ui.input(heading, undefined, opts));
      return "value" in step ? { value: normaliseNewlines(step.value) } : step;
    };

    if (!question.multiSelect) {
      const rows = distinct([...question.options.map(optionRow), shared.labels.freeform, shared.labels.chat]);
      const step = await dialog((opts) => ui.select(heading, rows, opts));
      if (!("value" in step)) return ended(step);
      const picked = rows.indexOf(step.value);
      const options = question.options.length;
      if (picked === options + 1) return { type: "chat", question: index, responses };
      let answer: Answer;
      if (picked === options) {
        const text = await typed();
        if (!("value" in text)) return ended(text);
        answer = { kind: "custom", text: text.value };
      } else if (picked >= 0) {
        answer = { kind: "option", option: picked };
      } else {
        return { type: "declined", responses }; // a row we never offered: treat as no answer
      }
      responses.answers[index] = answer;
      continue;
    }

    // Multi-select: a checklist asked again after every toggle, until Done.
    const ticked = new Set<number>();
    let text: string | undefined;
    for (;;) {
      const boxes = question.options.map((option, k) => `${ticked.has(k) ? "[x]" : "[ ]"} ${optionRow(option)}`);
      const freeform = text === undefined ? shared.labels.freeform : `${shared.labels.freeform} → ${oneLine(text)}`;
      const rows = distinct([...boxes, freeform, shared.labels.chat, DONE_ROW]);
      const step = await dialog((opts) => ui.select(`${heading}\n(pick options to tick them, then ${DONE_ROW})`, rows, opts));
      if (!("value" in step)) return ended(step);
      const picked = rows.indexOf(step.value);
      const options = question.options.length;
      if (picked >= 0 && picked < options) {
        if (ticked.has(picked)) ticked.delete(picked);
        else ticked.add(picked);
        continue;
      }
      if (picked === options) {
        const typedText = await typed();
        if (!("value" in typedText)) return ended(typedText);
        text = isBlank(typedText.value) ? undefined : typedText.value;
        continue;
      }
      if (picked === options + 1) return { type: "chat", question: index, responses };
      break; // Done
    }
    if (ticked.size > 0 || text !== undefined) {
      const sorted = [...ticked].sort((a, b) => a - b);
      responses.answers[index] = text === undefined ? { kind: "multi", ticked: sorted } : { kind: "multi", ticked: sorted, text };
    }
  }
  return { type: "submitted", responses };
}
