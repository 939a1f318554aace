// ERRAND_LEASE_MS has a floor: a lease so short that live, briefly stalled runners lose it is refused
// with an error naming the setting, never silently used.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, MIN_LEASE_MS, resolveRuntimeConfig } from "../../src/config/runtimeConfig.js";

test("a lease shorter than the floor is refused naming ERRAND_LEASE_MS and the minimum; the floor itself is accepted and renewed every third", () => {
  for (const short of ["300", "1000", String(MIN_LEASE_MS - 1)]) {
    assert.throws(
      () => resolveRuntimeConfig({ ERRAND_HOME: "/tmp/errand-lease-floor", ERRAND_LEASE_MS: short }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes(`ERRAND_LEASE_MS="${short}" is too short`) &&
        error.message.includes(`minimum is ${MIN_LEASE_MS}`),
    );
  }
  const config = resolveRuntimeConfig({ ERRAND_HOME: "/tmp/errand-lease-floor", ERRAND_LEASE_MS: String(MIN_LEASE_MS) });
  assert.equal(config.leaseMs, MIN_LEASE_MS);
  assert.equal(config.heartbeatMs, Math.floor(MIN_LEASE_MS / 3));
  assert.throws(
    () => resolveRuntimeConfig({ ERRAND_HOME: "/tmp/errand-lease-floor", ERRAND_LEASE_MS: "2s" }),
    /ERRAND_LEASE_MS="2s" is not usable: give an integer from 2000/,
  );
});
