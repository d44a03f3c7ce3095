// Envelope parity: for every questionnaire and outcome of the fixture, the extension's
// `outcome(...)` written with `toLine` is the line the plugin writes
// (`ask_popup::envelope::outcome`), byte for byte; the same for its rejections without a
// questionnaire (`no_ui`, `no_custom_ui`).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { emptyResponses, outcome, rejection, toLine } from "../src/envelope.ts";
import { normalise, validate } from "../src/questionnaire.ts";
import { shared } from "../src/shared.ts";
import { fixture, outcomeOf } from "./support.ts";

describe("envelope parity with the plugin", () => {
  test("the fixture has cases", () => {
    assert.ok(fixture.envelopes.length >= 20, `only ${fixture.envelopes.length} cases`);
    assert.deepEqual(
      fixture.errors.map((e) => e.code),
      ["no_ui", "no_custom_ui"],
    );
  });

  for (const c of fixture.envelopes) {
    test(c.name, () => {
      const q = normalise(structuredClone(c.payload));
      assert.equal(validate(q), undefined);
      assert.equal(toLine(outcome(q, outcomeOf(c.outcome), c.requestId)), c.line);
    });
  }

  for (const e of fixture.errors) {
    test(`the ${e.code} rejection`, () => {
      const error = Object.values(shared.errors).find((candidate) => candidate.code === e.code);
      assert.ok(error, `shared.json has no ${e.code}`);
      assert.equal(toLine(rejection(error)), e.line);
    });
  }

  test("emptyResponses is the library's Responses::empty", () => {
    const declined = fixture.envelopes.find((c) => c.name === "declined with nothing");
    assert.ok(declined);
    const { responses } = outcomeOf(declined.outcome);
    assert.deepEqual(emptyResponses(responses.answers.length), responses);
  });
});
