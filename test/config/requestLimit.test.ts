// ERRAND_REQUEST_LIMIT: how long a fetch-handler platform lets one request's work run. Unset, nothing
// cuts a request; a value is a duration within its bounds, and anything else stops errand at start.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, REQUEST_LIMIT_BOUNDS, resolveRuntimeConfig } from "../../src/config/runtimeConfig.js";

test("ERRAND_REQUEST_LIMIT: unset or empty means no limit; a duration is read in ms", () => {
  assert.equal(resolveRuntimeConfig({ ERRAND_HOME: "/tmp/x" }).requestLimitMs, null);
  assert.equal(resolveRuntimeConfig({ ERRAND_HOME: "/tmp/x", ERRAND_REQUEST_LIMIT: "" }).requestLimitMs, null);
  assert.equal(resolveRuntimeConfig({ ERRAND_HOME: "/tmp/x", ERRAND_REQUEST_LIMIT: "60s" }).requestLimitMs, 60_000);
  assert.equal(resolveRuntimeConfig({ ERRAND_HOME: "/tmp/x", ERRAND_REQUEST_LIMIT: "15m" }).requestLimitMs, 900_000);
  assert.equal(resolveRuntimeConfig({ ERRAND_HOME: "/tmp/x", ERRAND_REQUEST_LIMIT: "1s" }).requestLimitMs, REQUEST_LIMIT_BOUNDS.min);
  assert.equal(resolveRuntimeConfig({ ERRAND_HOME: "/tmp/x", ERRAND_REQUEST_LIMIT: "1d" }).requestLimitMs, REQUEST_LIMIT_BOUNDS.max);
});

test("ERRAND_REQUEST_LIMIT: a bare number, a fraction, off, or a value out of bounds is refused, naming the setting", () => {
  for (const raw of ["60", "1.5m", "off", "999ms", "2d", "-5s", "60 seconds"]) {
    assert.throws(
      () => resolveRuntimeConfig({ ERRAND_HOME: "/tmp/x", ERRAND_REQUEST_LIMIT: raw }),
      (error: unknown) => error instanceof ConfigError && /^ERRAND_REQUEST_LIMIT=".*" is not usable: .*1s to 1d/.test(error.message),
      raw,
    );
  }
});
