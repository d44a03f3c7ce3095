// The questionnaire as the plugin reads it (line breaks normalised, blank previews dropped, a
// blank header shown as `Q<n>`), and the runtime checks in the seed's order.
import { shared, type SharedError } from "./shared.ts";

export type QuestionOption = { label: string; description: string; preview?: string };
export type Question = {
  question: string;
  header: string;
  options: QuestionOption[];
  multiSelect: boolean;
};
export type Questionnaire = { questions: Question[]; timeout?: number };

/** Rust's `str::trim().is_empty()`: only Unicode White_Space (not U+FEFF, as JS's trim would). */
export function isBlank(text: string): boolean {
  return /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/.test(text);
}

/** CRLF and lone CR become LF, as the plugin does with every string. */
export function normaliseNewlines(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n/g, "\n").replace(/\r/g, "\n") : text;
}

function str(value: unknown): string {
  return typeof value === "string" ? normaliseNewlines(value) : "";
}

/** The parameters (already checked against the TypeBox schema by Pi) as the plugin reads them. */
export function normalise(params: unknown): Questionnaire {
  const root = (params ?? {}) as Record<string, unknown>;
  const items = Array.isArray(root.questions) ? root.questions : [];
  const questions = items.map((item, index): Question => {
    const q = (item ?? {}) as Record<string, unknown>;
    const header = str(q.header);
    const options = (Array.isArray(q.options) ? q.options : []).map((o): QuestionOption => {
      const opt = (o ?? {}) as Record<string, unknown>;
      const preview = str(opt.preview);
      const option: QuestionOption = { label: str(opt.label), description: str(opt.description) };
      if (!isBlank(preview)) option.preview = preview;
      return option;
    });
    return {
      question: str(q.question),
      header: isBlank(header) ? `Q${index + 1}` : header,
      options,
      // `allowMultiple` is the plugin's alias of `multiSelect`, read when there is no `multiSelect`.
      multiSelect: typeof q.multiSelect === "boolean" ? q.multiSelect : q.allowMultiple === true,
    };
  });
  const questionnaire: Questionnaire = { questions };
  if (typeof root.timeout === "number") questionnaire.timeout = root.timeout;
  return questionnaire;
}

function typeName(value: unknown): string {
  const names = shared.typeNames;
  if (value === null) return names.null;
  if (Array.isArray(value)) return names.array;
  switch (typeof value) {
    case "boolean":
      return names.boolean;
    case "number":
      return names.number;
    case "string":
      return names.string;
    default:
      return names.object;
  }
}

function fieldError(error: SharedError, path: string, expected = "", found = ""): SharedError {
  const text = error.text.replace("{path}", path).replace("{expected}", expected).replace("{found}", found);
  return { code: error.code, text };
}

/**
 * What the plugin refuses as `invalid_payload` in parameters that pass Pi's schema, in the order
 * the plugin reads them: a blank question or label, and the aliases it reads (`allowMultiple`,
 * when there is no `multiSelect`; `context`) of the wrong type.
 */
export function payloadError(params: unknown): SharedError | undefined {
  const { errors, expected } = shared;
  const root = (params ?? {}) as Record<string, unknown>;
  const items = Array.isArray(root.questions) ? root.questions : [];
  for (const [i, item] of items.entries()) {
    const q = (item ?? {}) as Record<string, unknown>;
    const path = `questions[${i}]`;
    if (typeof q.question === "string" && isBlank(normaliseNewlines(q.question))) {
      return fieldError(errors.emptyField, `${path}.question`);
    }
    const multi = q.multiSelect ?? null;
    const alias = q.allowMultiple ?? null;
    if (multi === null && alias !== null && typeof alias !== "boolean") {
      return fieldError(errors.wrongType, `${path}.allowMultiple`, expected.boolean, typeName(alias));
    }
    const context = q.context ?? null;
    if (context !== null && typeof context !== "string") {
      return fieldError(errors.wrongType, `${path}.context`, expected.string, typeName(context));
    }
    const options = Array.isArray(q.options) ? q.options : [];
    for (const [j, option] of options.entries()) {
      const label = ((option ?? {}) as Record<string, unknown>).label;
      if (typeof label === "string" && isBlank(normaliseNewlines(label))) {
        return fieldError(errors.emptyField, `${path}.options[${j}].label`);
      }
    }
  }
  return undefined;
}

/** The first rule the questionnaire breaks, in the seed's order, or undefined. */
export function validate(q: Questionnaire): SharedError | undefined {
  const { errors, limits, labels } = shared;
  const questions = q.questions;
  if (questions.length === 0) return errors.noQuestions;
  if (questions.length > limits.maxQuestions) return errors.tooManyQuestions;
  if (questions.some((a, i) => questions.slice(0, i).some((b) => b.question === a.question))) {
    return errors.duplicateQuestion;
  }
  if (questions.some((question) => question.options.length < limits.minOptions)) {
    return errors.emptyOptions;
  }
  if (questions.some((question) => question.options.some((o) => labels.reserved.includes(o.label)))) {
    return errors.reservedLabel;
  }
  for (const question of questions) {
    const seen = new Set<string>();
    for (const option of question.options) {
      if (seen.has(option.label)) return errors.duplicateOptionLabel;
      seen.add(option.label);
    }
  }
  return undefined;
}
