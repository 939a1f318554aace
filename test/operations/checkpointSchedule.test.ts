// The worker pool's journal checkpoint: at most once per interval, and a refused one is not retried at once.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createCheckpointSchedule } from "../../src/operations/checkpointSchedule.js";
import { CheckpointRefusedError } from "../../src/store/storeErrors.js";

describe("checkpoint schedule", () => {
  test("writes a checkpoint once per interval, never before the first interval has passed", async () => {
    let clock = 0;
    let written = 0;
    const tick = createCheckpointSchedule({ writeCheckpoint: () => Promise.resolve((written += 1)) }, 1000, () => clock);
    await tick();
    assert.equal(written, 0, "not at start: a fresh pool has just been verified or has nothing new");
    clock = 999;
    await tick();
    assert.equal(written, 0);
    clock = 1000;
    await tick();
    await tick();
    assert.equal(written, 1, "once per interval however often housekeeping runs");
    clock = 2000;
    await tick();
    assert.equal(written, 2);
  });

  test("a refused checkpoint (tampering found) is reported to the caller and retried only after another interval", async () => {
    let clock = 0;
    let attempts = 0;
    const tick = createCheckpointSchedule(
      {
        writeCheckpoint: () => {
          attempts += 1;
          return Promise.reject(new CheckpointRefusedError("operation x was rolled back"));
        },
      },
      1000,
      () => clock,
    );
    clock = 1000;
    await assert.rejects(tick(), CheckpointRefusedError);
    await tick();
    assert.equal(attempts, 1, "not again in the same interval");
    clock = 2000;
    await assert.rejects(tick(), CheckpointRefusedError);
    assert.equal(attempts, 2);
  });
});
