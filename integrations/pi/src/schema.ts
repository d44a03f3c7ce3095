// The tool's parameters as TypeBox: the seed schema, its limits and descriptions taken from
// shared.json, so the JSON Schema Pi sends the model equals the library's `parameters()`.
import { Type } from "typebox";
import { shared } from "./shared.ts";

const limits = shared.limits;
const questions = shared.parameters.properties.questions;
const question = questions.items.properties;
const option = question.options.items.properties;

export const parameters = Type.Object({
  questions: Type.Array(
    Type.Object({
      question: Type.String({ description: question.question.description }),
      header: Type.String({
        description: question.header.description,
        maxLength: limits.maxHeaderChars,
      }),
      options: Type.Array(
        Type.Object({
          label: Type.String({
            description: option.label.description,
            maxLength: limits.maxLabelChars,
          }),
          description: Type.String({ description: option.description.description }),
          preview: Type.Optional(Type.String({ description: option.preview.description })),
        }),
        {
          description: question.options.description,
          minItems: limits.minOptions,
          maxItems: limits.maxOptions,
        },
      ),
      multiSelect: Type.Optional(Type.Boolean({ description: question.multiSelect.description })),
    }),
    {
      description: questions.description,
      minItems: questions.minItems,
      maxItems: limits.maxQuestions,
    },
  ),
  timeout: Type.Optional(
    Type.Integer({
      description: shared.parameters.properties.timeout.description,
      minimum: limits.minTimeoutMs,
    }),
  ),
});
