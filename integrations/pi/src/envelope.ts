// The result envelope, built exactly as the Rust library's `envelope::outcome()` builds it (same
// texts, same keys in the same order, optional keys absent rather than empty), for the answers
// given in Pi's own dialogs. JSON.stringify of these objects gives the plugin's bytes.
import { isBlank, type Questionnaire } from "./questionnaire.ts";
import { shared, type SharedError } from "./shared.ts";

/** How one question was answered (the Rust `Answer`). */
export type Answer =
  | { kind: "option"; option: number }
  | { kind: "custom"; text: string }
  /** Ticked options by index, in option order, plus typed text if any. */
  | { kind: "multi"; ticked: number[]; text?: string };

/** Everything the user left, one entry per question. */
export type Responses = {
  answers: (Answer | undefined)[];
  notes: string[];
  globalNote: string;
};

export type Outcome =
  | { type: "submitted"; responses: Responses }
  | { type: "declined"; responses: Responses }
  | { type: "chat"; question: number; responses: Responses }
  | { type: "timedOut"; responses: Responses };

export type AnswerDetail = {
  questionIndex: number;
  question: string;
  kind: "option" | "custom" | "multi";
  answer: string | null;
  selected?: string[];
  notes?: string;
  preview?: string;
};

export type Details = {
  answers: AnswerDetail[];
  cancelled: boolean;
  globalNote?: string;
  unansweredNotes?: { questionIndex: number; question: string; note: string }[];
  chatRequested?: { questionIndex: number; question: string };
  error?: string;
  requestId?: string;
};

export type Envelope = { content: [{ type: "text"; text: string }]; details: Details };

export function emptyResponses(n: number): Responses {
  return { answers: new Array(n).fill(undefined), notes: new Array(n).fill(""), globalNote: "" };
}

function isEmpty(r: Responses): boolean {
  return r.answers.every((a) => a === undefined) && r.notes.every(isBlank) && isBlank(r.globalNote);
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || isBlank(text) ? undefined : text;
}

/** The envelope line as the plugin writes it: one JSON document and a newline. */
export function toLine(envelope: Envelope): string {
  return `${JSON.stringify(envelope)}\n`;
}

/** A request answered without being shown: `{answers: [], cancelled: true, error}` and its text. */
export function rejection(error: SharedError, requestId?: string): Envelope {
  const details: Details = { answers: [], cancelled: true, error: error.code };
  if (requestId !== undefined) details.requestId = requestId;
  return { content: [{ type: "text", text: error.text }], details };
}

/** The envelope of a questionnaire that was shown (the Rust `envelope::outcome`). */
export function outcome(q: Questionnaire, o: Outcome, requestId?: string): Envelope {
  const r = o.responses;
  const answered = o.type === "submitted" && !isEmpty(r);
  let text: string;
  switch (o.type) {
    case "submitted":
      text = answered
        ? `${shared.texts.answeredPrefix} ${segments(q, r).join(" ")} ${shared.texts.answeredSuffix}`
        : shared.texts.declined;
      break;
    case "declined":
      text = shared.texts.declined;
      break;
    case "chat":
      text = `User picked "${shared.labels.chat}" on question ${o.question + 1}: "${questionText(q, o.question)}".`;
      for (const segment of segments(q, r)) text += ` ${segment}`;
      break;
    case "timedOut":
      text = shared.errors.timedOut.text;
      break;
  }
  const details: Details = { answers: answerDetails(q, r), cancelled: !answered };
  const globalNote = nonEmpty(r.globalNote);
  if (globalNote !== undefined) details.globalNote = globalNote;
  const unanswered = unansweredNotes(q, r);
  if (unanswered.length > 0) details.unansweredNotes = unanswered;
  if (o.type === "chat") {
    details.chatRequested = { questionIndex: o.question, question: questionText(q, o.question) };
  }
  if (o.type === "timedOut") details.error = shared.errors.timedOut.code;
  if (requestId !== undefined) details.requestId = requestId;
  return { content: [{ type: "text", text }], details };
}

function questionText(q: Questionnaire, question: number): string {
  return q.questions[question]?.question ?? "";
}

function label(q: Questionnaire, question: number, option: number): string {
  return q.questions[question]?.options[option]?.label ?? "";
}

function preview(q: Questionnaire, question: number, option: number): string | undefined {
  return q.questions[question]?.options[option]?.preview;
}

/** The labels and text of a multi-select answer, in option order, the typed text last. */
function multiParts(q: Questionnaire, question: number, ticked: number[], text?: string): string[] {
  const parts = ticked.map((option) => label(q, question, option));
  const typed = nonEmpty(text);
  if (typed !== undefined) parts.push(typed);
  return parts;
}

/** The scalar answer as the text shows it: the label, the typed text, or the labels joined. */
function answerText(q: Questionnaire, question: number, answer: Answer): string {
  let text: string;
  switch (answer.kind) {
    case "option":
      text = label(q, question, answer.option);
      break;
    case "custom":
      text = answer.text;
      break;
    case "multi":
      text = multiParts(q, question, answer.ticked, answer.text).join(", ");
      break;
  }
  return text === "" ? shared.texts.noInput : text;
}

function answerDetails(q: Questionnaire, r: Responses): AnswerDetail[] {
  const details: AnswerDetail[] = [];
  r.answers.forEach((answer, question) => {
    if (answer === undefined) return;
    const detail: AnswerDetail = {
      questionIndex: question,
      question: questionText(q, question),
      kind: answer.kind,
      answer: null,
    };
    let selected: string[] = [];
    let shownPreview: string | undefined;
    switch (answer.kind) {
      case "option":
        detail.answer = label(q, question, answer.option);
        shownPreview = preview(q, question, answer.option);
        break;
      case "custom":
        detail.answer = answer.text;
        break;
      case "multi":
        selected = multiParts(q, question, answer.ticked, answer.text);
        break;
    }
    if (selected.length > 0) detail.selected = selected;
    const notes = nonEmpty(r.notes[question]);
    if (notes !== undefined) detail.notes = notes;
    if (shownPreview !== undefined) detail.preview = shownPreview;
    details.push(detail);
  });
  return details;
}

function unansweredNotes(q: Questionnaire, r: Responses): NonNullable<Details["unansweredNotes"]> {
  const notes: NonNullable<Details["unansweredNotes"]> = [];
  r.notes.forEach((note, question) => {
    if (r.answers[question] !== undefined) return;
    const text = nonEmpty(note);
    if (text !== undefined) notes.push({ questionIndex: question, question: questionText(q, question), note: text });
  });
  return notes;
}

/** The text segments in question order (answers, notes on unanswered questions), then the global note. */
function segments(q: Questionnaire, r: Responses): string[] {
  const out: string[] = [];
  q.questions.forEach((_, question) => {
    const note = nonEmpty(r.notes[question]);
    const text = questionText(q, question);
    const answer = r.answers[question];
    if (answer !== undefined) {
      const parts = [`"${text}"="${answerText(q, question, answer)}"`];
      if (answer.kind === "option") {
        const shown = preview(q, question, answer.option);
        if (shown !== undefined) parts.push(`selected preview: ${shown}`);
      }
      if (note !== undefined) parts.push(`user notes: ${note}`);
      out.push(`${parts.join(". ")}.`);
    } else if (note !== undefined) {
      out.push(`note on "${text}": ${note}.`);
    }
  });
  const globalNote = nonEmpty(r.globalNote);
  if (globalNote !== undefined) out.push(`global note: ${globalNote}.`);
  return out;
}
