// ERRAND_REQUEST_LIMIT: how long a fetch-handler platform lets one request's work run. Unset, nothing
// cuts a request; a value is a duration within its bounds, and anything else stops errand at start.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError } from "../../src/config/configError.js";
import { REQUEST_LIMIT_BOUNDS, resolveRequestLimit } from "../../src/config/requestLimit.js";

test("ERRAND_REQUEST_LIMIT: unset or empty means no limit; a duration is read in ms", () => {
  assert.equal(resolveRequestLimit({}), null);
  assert.equal(resolveRequestLimit({ ERRAND_REQUEST_LIMIT: "" }), null);
  assert.equal(resolveRequestLimit({ ERRAND_REQUEST_LIMIT: "60s" }), 60_000);
  assert.equal(resolveRequestLimit({ ERRAND_REQUEST_LIMIT: "15m" }), 900_000);
  assert.equal(resolveRequestLimit({ ERRAND_REQUEST_LIMIT: "1s" }), REQUEST_LIMIT_BOUNDS.min);
  assert.equal(resolveRequestLimit({ ERRAND_REQUEST_LIMIT: "1d" }), REQUEST_LIMIT_BOUNDS.max);
});

test("ERRAND_REQUEST_LIMIT: a bare number, a fraction, off, or a value out of bounds is refused, naming the setting", () => {
  for (const raw of ["60", "1.5m", "off", "999ms", "2d", "-5s", "60 seconds"]) {
    assert.throws(
      () => resolveRequestLimit({ ERRAND_REQUEST_LIMIT: raw }),
      (error: unknown) => error instanceof ConfigError && /^ERRAND_REQUEST_LIMIT=".*" is not usable: .*1s to 1d/.test(error.message),
      raw,
    );
  }
});
