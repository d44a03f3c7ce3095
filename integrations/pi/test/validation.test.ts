// Validation parity: for every payload of the fixture, the extension (Pi's schema check, then
// `normalise` and `validate`) ends as the plugin's validator does (`ask_popup::request::parse`):
// the same normalised questionnaire, or the same error code, text and envelope line.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { rejection, toLine } from "../src/envelope.ts";
import { normalise, payloadError, validate } from "../src/questionnaire.ts";
import { parameters } from "../src/schema.ts";
import { shared } from "../src/shared.ts";
import { fixture, piCheck, piSchema } from "./support.ts";

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

describe("Pi's validator, @earendil-works/pi-schema", () => {
  // Since Pi 1.5 a tool's arguments are checked by pi-schema, which reads the parameters as JSON
  // Schema (draft 2020-12): TypeBox-only features would be ignored. The schema compiles, strictly,
  // and decides every payload of the fixture as the plugin does wherever a limit is the schema's.
  let validator: Awaited<ReturnType<typeof piSchema>> extends { compile: (...a: any[]) => infer V } ? V : never;
  before(async () => {
    const { compile } = await piSchema();
    validator = compile(parameters);
  });

  test("compiles the parameters as they are and as the JSON the model reads", async () => {
    const { compile } = await piSchema();
    const fromJson = compile(JSON.parse(JSON.stringify(parameters)));
    for (const c of fixture.validation) {
      assert.equal(fromJson.check(c.payload), validator.check(c.payload), c.name);
    }
  });

  for (const c of fixture.validation) {
    test(c.name, () => {
      if (c.accepted !== undefined) {
        assert.deepEqual(validator.errors(c.payload), [], "pi-schema refuses a payload the plugin accepts");
        assert.equal(validator.check(c.payload), true);
        return;
      }
      const rejected = c.rejected;
      assert.ok(rejected, "a case is accepted or rejected");
      if (!checkedByExtension.has(rejected.code)) {
        // A limit only the schema enforces: pi-schema must refuse it, or the plugin would be the
        // first to see it.
        assert.equal(validator.check(c.payload), false, `pi-schema lets through what the plugin refuses with ${rejected.code}`);
        assert.notDeepEqual(validator.errors(c.payload), []);
      }
    });
  }
});
