import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createSystemResolver } from "../../src/policy/systemResolver.js";

describe("createSystemResolver", () => {
  test("returns addresses through getaddrinfo without any network (an IP literal resolves to itself)", async () => {
    assert.deepEqual(await createSystemResolver().resolve("127.0.0.1"), { addresses: ["127.0.0.1"] });
  });
});
