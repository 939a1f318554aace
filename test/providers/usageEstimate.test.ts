import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  estimateBrowserbaseUsage,
  estimateBrowserlessUsage,
  estimateKernelUsage,
  estimateSteelUsage,
  estimateUsage,
} from "../../src/providers/usageEstimate.js";

describe("usage estimates in each provider's own unit", () => {
  it("Browserless: one unit per started 30 s, per session (31 s = 2 units)", () => {
    assert.equal(estimateBrowserlessUsage(0).amount, 0);
    assert.equal(estimateBrowserlessUsage(1).amount, 1);
    assert.equal(estimateBrowserlessUsage(30_000).amount, 1);
    assert.equal(estimateBrowserlessUsage(31_000).amount, 2);
    assert.equal(estimateBrowserlessUsage(120_000).amount, 4);
    assert.equal(estimateBrowserlessUsage(31_000).unit, "browserless_unit");
  });

  it("Kernel: GB-seconds from whole seconds rounded up, 1 GB headless and 8 GB headful, always marked as an estimate", () => {
    const headless = estimateKernelUsage(10_500, true);
    assert.deepEqual([headless.unit, headless.amount, headless.estimate], ["gb_second", 11, true]);
    assert.equal(headless.usd, 0.000183);
    assert.equal(estimateKernelUsage(10_500, false).amount, 88);
    assert.equal(estimateKernelUsage(0, true).amount, 0);
  });

  it("Browserbase: minutes with a one-minute minimum per session", () => {
    assert.equal(estimateBrowserbaseUsage(0).amount, 0);
    assert.equal(estimateBrowserbaseUsage(5_000).amount, 1);
    assert.equal(estimateBrowserbaseUsage(60_000).amount, 1);
    assert.equal(estimateBrowserbaseUsage(60_001).amount, 2);
  });

  it("Steel: browser-minutes, rounded up", () => {
    assert.equal(estimateSteelUsage(0).amount, 0);
    assert.equal(estimateSteelUsage(1).amount, 1);
    assert.equal(estimateSteelUsage(125_000).amount, 3);
  });

  it("dispatches by provider name, and has nothing to count for the local provider", () => {
    assert.equal(estimateUsage("browserless", 31_000)?.amount, 2);
    assert.equal(estimateUsage("kernel", 2_000)?.amount, 2);
    assert.equal(estimateUsage("kernel", 2_000, { headless: false })?.amount, 16);
    assert.equal(estimateUsage("browserbase", 1)?.amount, 1);
    assert.equal(estimateUsage("steel", 61_000)?.amount, 2);
    assert.equal(estimateUsage("local", 61_000), null);
  });

  it("never goes down as a session gets longer, never bills negative or NaN time", () => {
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e10, noNaN: false }), fc.nat(1e9), (a, extra) => {
        for (const name of ["browserless", "kernel", "browserbase", "steel"]) {
          const base = estimateUsage(name, a);
          const longer = estimateUsage(name, (Number.isFinite(a) && a > 0 ? a : 0) + extra);
          assert.ok(base !== null && longer !== null);
          assert.ok(Number.isFinite(base.amount) && base.amount >= 0);
          assert.ok(longer.amount >= base.amount);
        }
      }),
    );
  });
});
