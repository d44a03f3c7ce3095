// Validation parity: for every payload of the fixture, the extension (Pi's schema check, then
// `normalise` and `validate`) ends as the plugin's validator does (`ask_popup::request::parse`):
// the same normalised questionnaire, or the same error code, text and envelope line.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { rejection, toLine } from "../src/envelope.ts";
import { normalise, payloadError, validate } from "../src/questionnaire.ts";
import { parameters } from "../src/schema.ts";
import { shared } from "../src/shared.ts";
import { fixture, piCheck } from "./support.ts";

/** The codes the extension's `payloadError` and `validate` can answer with: it has the texts of
 * these only. */
const checkedByExtension = new Set(Object.values(shared.errors).map((error) => error.code));

let check: Awaited<ReturnType<typeof piCheck>>;
before(async () => {
  check = await piCheck();
});

/** The arguments `execute` gets for `payload`, or undefined when Pi's schema check refuses it. */
function reaching(payload: unknown): unknown {
  try {
    return check(parameters, structuredClone(payload));
  } catch (error) {
    assert.match(String(error), /Validation failed for tool "ask_user_question"/);
    return undefined;
  }
}

describe("validation parity with the plugin", () => {
  test("the fixture has cases", () => {
    assert.ok(fixture.validation.length >= 40, `only ${fixture.validation.length} cases`);
  });

  for (const c of fixture.validation) {
    test(c.name, () => {
      const q = normalise(structuredClone(c.payload));
      const invalid = payloadError(structuredClone(c.payload)) ?? validate(q);
      const reached = reaching(c.payload);
      if (c.accepted !== undefined) {
        assert.notEqual(reached, undefined, "Pi's schema refuses a payload the plugin accepts");
        assert.deepEqual(reached, c.payload, "Pi changed the arguments before execute");
        assert.equal(invalid, undefined, `the extension refuses it (${invalid?.code})`);
        assert.deepEqual(q, c.accepted);
        return;
      }
      const rejected = c.rejected;
      assert.ok(rejected, "a case is accepted or rejected");
      if (checkedByExtension.has(rejected.code)) {
        // The extension checks this itself (even where Pi's schema would refuse it first).
        assert.deepEqual(invalid, { code: rejected.code, text: rejected.text });
        assert.equal(toLine(rejection(invalid)), rejected.line);
      } else {
        // A limit the TypeBox schema enforces (options, header and label lengths, timeout):
        // Pi refuses the call, or converts it (a timeout's fraction is cut off), before
        // `execute`; the extension never sees this payload.
        assert.notDeepEqual(reached, c.payload, `Pi's schema lets through what the plugin refuses with ${rejected.code}`);
      }
    });
  }
});

describe("what the model reads", () => {
  test("the schema Pi sends is the library's, field for field", () => {
    assert.deepEqual(JSON.parse(JSON.stringify(parameters)), shared.parameters);
  });
});
