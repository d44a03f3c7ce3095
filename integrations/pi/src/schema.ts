// The tool's parameters as TypeBox: the seed schema, its limits and descriptions taken from
// shared.json, so the JSON Schema Pi sends the model equals the library's `parameters()`.
import { Type } from "typebox";
import { shared } from "./shared.ts";

const limits = shared.limits;
const questions = shared.parameters.properties.questions;
const question = questions.items.properties;
const option = question.options.items.properties;

/** A field's description, where the library gives one. */
const described = (field: { description?: string }) =>
  field.description === undefined ? {} : { description: field.description };

export const parameters = Type.Object({
  questions: Type.Array(
    Type.Object({
      question: Type.String(described(question.question)),
      header: Type.String({
        ...described(question.header),
        maxLength: limits.maxHeaderChars,
      }),
      options: Type.Array(
        Type.Object({
          label: Type.String({
            ...described(option.label),
            maxLength: limits.maxLabelChars,
          }),
          description: Type.String(described(option.description)),
          preview: Type.Optional(Type.String(described(option.preview))),
        }),
        {
          ...described(question.options),
          minItems: limits.minOptions,
          maxItems: limits.maxOptions,
        },
      ),
      multiSelect: Type.Optional(Type.Boolean(described(question.multiSelect))),
    }),
    {
      ...described(questions),
      minItems: questions.minItems,
      maxItems: limits.maxQuestions,
    },
  ),
  timeout: Type.Optional(
    Type.Integer({
      ...described(shared.parameters.properties.timeout),
      minimum: limits.minTimeoutMs,
    }),
  ),
});
