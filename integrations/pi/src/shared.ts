// A typed view of shared.json, which is GENERATED from the Rust library (`ask_popup::tool::
// pi_shared()`): the tool's name, description and JSON Schema, the limits, the reserved labels,
// and every error code and model-facing text the extension itself writes. Never retype those here.
import sharedJson from "./shared.json" with { type: "json" };

export type SharedError = { code: string; text: string };

// A field described only where its name and limits do not say it all.
type Described = { description?: string };

export type Shared = {
  name: string;
  description: string;
  /** The line Pi's system prompt gives the tool among the others. */
  snippet: string;
  parameters: {
    properties: {
      questions: Described & {
        minItems: number;
        items: {
          properties: {
            question: Described;
            header: Described;
            options: Described & {
              items: {
                properties: { label: Described; description: Described; preview: Described };
              };
            };
            multiSelect: Described;
          };
        };
      };
      timeout: Described;
    };
  };
  limits: {
    maxQuestions: number;
    minOptions: number;
    maxOptions: number;
    maxHeaderChars: number;
    maxLabelChars: number;
    minTimeoutMs: number;
  };
  labels: { reserved: string[]; freeform: string; chat: string };
  errors: {
    noQuestions: SharedError;
    tooManyQuestions: SharedError;
    duplicateQuestion: SharedError;
    emptyOptions: SharedError;
    reservedLabel: SharedError;
    duplicateOptionLabel: SharedError;
    /** `{path}` in the text names the field. */
    emptyField: SharedError;
    /** `{path}`, `{expected}` and `{found}` in the text name the field, its type and the value's. */
    wrongType: SharedError;
    noUi: SharedError;
    noCustomUi: SharedError;
    timedOut: SharedError;
  };
  expected: { string: string; boolean: string };
  typeNames: Record<"null" | "boolean" | "number" | "string" | "array" | "object", string>;
  popupUnavailable: string[];
  texts: { answeredPrefix: string; answeredSuffix: string; declined: string; noInput: string };
};

export const shared = sharedJson as unknown as Shared;
