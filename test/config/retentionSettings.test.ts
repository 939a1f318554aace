// ERRAND_COMPACT_AFTER and ERRAND_KEEP_MIGRATION_BACKUPS: defaults, accepted values, and refusals that
// name the variable and the rule (a typo must never fall back to a default or compact too early).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError, resolveRuntimeConfig } from "../../src/config/runtimeConfig.js";
import { formatDuration } from "../../src/config/formatDuration.js";
import { parseDuration } from "../../src/config/parseDuration.js";
import { DAY, HOUR } from "../../src/config/units.js";

const HOME = { ERRAND_HOME: "/tmp/errand-retention-settings" };

describe("ERRAND_COMPACT_AFTER", () => {
  test("defaults to 30 days; takes a duration of at least a day, or off", () => {
    assert.equal(resolveRuntimeConfig(HOME).compactAfterMs, 30 * DAY);
    assert.equal(resolveRuntimeConfig({ ...HOME, ERRAND_COMPACT_AFTER: "7d" }).compactAfterMs, 7 * DAY);
    assert.equal(resolveRuntimeConfig({ ...HOME, ERRAND_COMPACT_AFTER: " 36h " }).compactAfterMs, 36 * HOUR);
    assert.equal(resolveRuntimeConfig({ ...HOME, ERRAND_COMPACT_AFTER: "1d" }).compactAfterMs, DAY);
    assert.equal(resolveRuntimeConfig({ ...HOME, ERRAND_COMPACT_AFTER: "12w" }).compactAfterMs, 84 * DAY);
    for (const off of ["off", "OFF", "Off"]) assert.equal(resolveRuntimeConfig({ ...HOME, ERRAND_COMPACT_AFTER: off }).compactAfterMs, null);
    assert.equal(resolveRuntimeConfig({ ...HOME, ERRAND_COMPACT_AFTER: "" }).compactAfterMs, 30 * DAY, "empty is unset");
  });

  test("shorter than a day, or not a duration, is refused naming the variable, the rule and the way to turn it off", () => {
    for (const [raw, why] of [
      ["6m", /shorter than a day/],
      ["23h", /shorter than a day/],
      ["0d", /shorter than a day/],
      ["30 days", /^(?![\s\S]*shorter)/],
      ["1.5d", /^(?![\s\S]*shorter)/],
      ["never", /^(?![\s\S]*shorter)/],
    ] as const) {
      assert.throws(
        () => resolveRuntimeConfig({ ...HOME, ERRAND_COMPACT_AFTER: raw }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.startsWith(`ERRAND_COMPACT_AFTER="${raw}" is not usable`) &&
          error.message.includes("at least 1d") &&
          error.message.includes('"off"') &&
          why.test(error.message),
        raw,
      );
    }
  });

  test("a duration is logged as it is written", () => {
    for (const text of ["30d", "36h", "2w", "90s", "15m", "1500ms"]) assert.equal(formatDuration(parseDuration(text) ?? -1), text);
    assert.equal(formatDuration(14 * DAY), "2w");
    assert.equal(formatDuration(HOUR), "1h");
  });
});

describe("ERRAND_KEEP_MIGRATION_BACKUPS", () => {
  test("defaults to 3; 1 to 1000; 0 or a non-integer is refused naming the variable", () => {
    assert.equal(resolveRuntimeConfig(HOME).keepMigrationBackups, 3);
    assert.equal(resolveRuntimeConfig({ ...HOME, ERRAND_KEEP_MIGRATION_BACKUPS: "1" }).keepMigrationBackups, 1);
    assert.equal(resolveRuntimeConfig({ ...HOME, ERRAND_KEEP_MIGRATION_BACKUPS: "10" }).keepMigrationBackups, 10);
    for (const raw of ["0", "-1", "two", "1001"]) {
      assert.throws(
        () => resolveRuntimeConfig({ ...HOME, ERRAND_KEEP_MIGRATION_BACKUPS: raw }),
        (error: unknown) =>
          error instanceof ConfigError &&
          new RegExp(`^ERRAND_KEEP_MIGRATION_BACKUPS="${raw}" is not usable: give an integer from 1 to 1000`).test(error.message),
        raw,
      );
    }
  });
});
