import type { KeyRotationPlan, KeyRotationReport, KeyRotationStore } from "../KeyRotationStore.js";
import { rotateKeyInTransaction } from "../rotateKeyInTransaction.js";
import type { PostgresStoreOptions } from "./openPostgresStore.js";
import { openPostgresParts } from "./openPostgresStore.js";
import { PgTransactions } from "./pgTransactions.js";
import { REKEY_LOCKS, rekeyPg } from "./queries/rekey.js";

/**
 * The key rotation on PostgreSQL: one transaction that first locks every table it touches against
 * writers (queries/rekey.REKEY_LOCKS), so the rotation sees one state and writes one, committed at
 * the end or rolled back on any error. Rows the rotation rewrote leave dead versions behind until
 * PostgreSQL vacuums them (docs/OPERATIONS.md, "Key rotation").
 */
export function openPostgresKeyRotationStore(options: PostgresStoreOptions): KeyRotationStore {
  const { pool, ctx, ready } = openPostgresParts(options);
  return new PostgresKeyRotationStore(pool, ctx, ready, options.connectionString, options.busyPatienceMs ?? 30_000);
}

class PostgresKeyRotationStore extends PgTransactions implements KeyRotationStore {
  rotateKey(plan: KeyRotationPlan): Promise<KeyRotationReport> {
    return this.write(async (tx) => {
      for (const lock of REKEY_LOCKS) await tx.run(lock);
      return rotateKeyInTransaction(rekeyPg(tx), plan);
    });
  }
}
