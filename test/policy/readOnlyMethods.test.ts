import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isReadOnlyMethod } from "../../src/policy/readOnlyMethods.js";

describe("isReadOnlyMethod", () => {
  test("GET, HEAD and OPTIONS are read-only in any case", () => {
    for (const method of ["GET", "HEAD", "OPTIONS", "get", "Head", "options"]) assert.equal(isReadOnlyMethod(method), true, method);
  });

  test("every other method is a write, including unknown and empty ones", () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "CONNECT", "TRACE", "PROPFIND", "GETX", " GET", ""])
      assert.equal(isReadOnlyMethod(method), false, JSON.stringify(method));
  });
});
