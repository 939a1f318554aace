import type { NewSecretRecord, SecretRecord, SecretStore } from "../SecretStore.js";
import type { PostgresStoreOptions } from "./openPostgresStore.js";
import { openPostgresParts } from "./openPostgresStore.js";
import { PgTransactions } from "./pgTransactions.js";
import { deleteSecret, listSecrets, selectSecret, upsertSecret } from "./queries/secrets.js";

/** The owner's declared secrets on PostgreSQL: only sealed payloads, every change journaled in its transaction. */
export function openPostgresSecretStore(options: PostgresStoreOptions): SecretStore {
  const { pool, ctx, ready } = openPostgresParts(options);
  return new PostgresSecretStore(pool, ctx, ready, options.connectionString, options.busyPatienceMs ?? 30_000);
}

class PostgresSecretStore extends PgTransactions implements SecretStore {
  putSecret(record: NewSecretRecord): Promise<{ created: boolean; record: SecretRecord }> {
    return this.write((tx) => upsertSecret(tx, record));
  }
  readSecret(name: string): Promise<SecretRecord | null> {
    return this.read((tx) => selectSecret(tx, name));
  }
  listSecrets(): Promise<SecretRecord[]> {
    return this.read((tx) => listSecrets(tx));
  }
  deleteSecret(name: string): Promise<boolean> {
    return this.write((tx) => deleteSecret(tx, name));
  }
}
