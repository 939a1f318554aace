// One operation's store round trips, measured per backend: createOperation, claimNext and
// finishAttempt, one after the other, on errand's SQLite store and on its libSQL store over
// @libsql/client with a local file: database (both with every commit synced to disk). Sequential,
// one connection: the cost of each backend's statements, not contention.
// The two alternate for several rounds and each reports its median round, so a machine busy with
// other work for a while weighs on both alike.
// Usage: node --import tsx bench/store/storeCycle.ts [cycles] [rounds]   (default 300 cycles after 30 warm-up ones, 5 rounds)
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import type { JournalSealer } from "../../src/journal/createJournalSealer.js";
import { openLibsqlClient } from "../../src/store/libsql/openLibsqlClient.js";
import { openLibsqlStore } from "../../src/store/libsql/openLibsqlStore.js";
import { openSqliteStore } from "../../src/store/sqlite/openSqliteStore.js";
import type { Store } from "../../src/store/Store.js";
import { benchReceipt, benchTask } from "../queue/benchSupport.js";

const CYCLES = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 5);
const WARM_UP = 30;
const QUOTA = 1024 * 1024 * 1024;

async function cycle(store: Store): Promise<void> {
  const operationId = randomUUID();
  const requestDigest = `hmac-sha256:${randomBytes(32).toString("hex")}`;
  await store.createOperation(
    { operationId, requestDigest, risk: "read_only", maxAttempts: 2, taskJson: JSON.stringify(benchTask(operationId)), details: {} },
    QUOTA,
  );
  const claimed = await store.claimNext("bench", 60_000);
  if (claimed === undefined) throw new Error("nothing to claim");
  const done = await store.finishAttempt(claimed.lease, (op) => ({
    kind: "finish",
    phase: "completed",
    receipt: benchReceipt(op.operationId, op.requestDigest, op.attempts),
    reason: "attempt_finished",
  }));
  if (done.applied === undefined) throw new Error("the attempt was not finished");
}

type Open = (home: string, sealer: JournalSealer) => Promise<Store>;

/** One round on a fresh database: milliseconds per cycle. */
async function round(open: Open): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), "errand-bench-store-"));
  const store = await open(home, createJournalSealer(randomBytes(32)));
  try {
    for (let i = 0; i < WARM_UP; i += 1) await cycle(store);
    const started = process.hrtime.bigint();
    for (let i = 0; i < CYCLES; i += 1) await cycle(store);
    return Number(process.hrtime.bigint() - started) / 1e6 / CYCLES;
  } finally {
    await store.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const backends: [string, Open][] = [
  ["sqlite (libsql binding)", (home, sealer) => Promise.resolve(openSqliteStore({ path: join(home, "errand.db"), sealer, busyTimeoutMs: 1000 }))],
  [
    "libsql client, file:",
    async (home, sealer) => {
      const url = pathToFileURL(join(home, "errand.db")).href;
      return openLibsqlStore({ client: await openLibsqlClient({ url }), where: url, sealer });
    },
  ],
];
const perCycle = new Map<string, number[]>(backends.map(([name]) => [name, []]));
for (let r = 0; r < ROUNDS; r += 1) {
  for (const [name, open] of r % 2 === 0 ? backends : [...backends].reverse()) perCycle.get(name)?.push(await round(open));
}
for (const [name, rounds] of perCycle) {
  const sorted = [...rounds].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  console.log(
    `${name.padEnd(24)} median ${median.toFixed(2)} ms per cycle (${(1000 / median).toFixed(0)} cycles/s); rounds: ${rounds.map((ms) => ms.toFixed(2)).join(", ")} ms`,
  );
}
