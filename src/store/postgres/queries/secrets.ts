import type { NewSecretRecord, SecretRecord, SecretSourceKind } from "../../SecretStore.js";
import { SECRETS_TABLE, isAuthenticRow } from "../../rows/authenticRows.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { sealRow } from "../authenticTablePg.js";
import type { PgTx } from "../pgContext.js";

interface SecretRow {
  name: string;
  sites_json: string;
  source_kind: SecretSourceKind;
  sealed: string;
  created_ms: number;
  updated_ms: number;
}

function toRecord(tx: PgTx, row: SecretRow): SecretRecord {
  return {
    name: row.name,
    sites: JSON.parse(row.sites_json) as string[],
    sourceKind: row.source_kind,
    sealed: row.sealed,
    createdMs: row.created_ms,
    updatedMs: row.updated_ms,
    authentic: isAuthenticRow(tx.ctx.sealer, SECRETS_TABLE, row as unknown as Record<string, unknown>),
  };
}

export async function selectSecret(tx: PgTx, name: string, lock = false): Promise<SecretRecord | null> {
  const row = await tx.one<SecretRow>(`SELECT * FROM secrets WHERE name = $1${lock ? " FOR UPDATE" : ""}`, [name]);
  return row === undefined ? null : toRecord(tx, row);
}

export async function listSecrets(tx: PgTx): Promise<SecretRecord[]> {
  return (await tx.rows<SecretRow>("SELECT * FROM secrets ORDER BY name")).map((row) => toRecord(tx, row));
}

/** Creates or replaces a secret (sealed by src/secrets; never a value here) and journals secret_changed with its name, sites and source kind. */
export async function upsertSecret(tx: PgTx, record: NewSecretRecord): Promise<{ created: boolean; record: SecretRecord }> {
  const before = await selectSecret(tx, record.name, true);
  await tx.run(
    `INSERT INTO secrets (name, sites_json, source_kind, sealed, created_ms, updated_ms)
     VALUES ($1, $2, $3, $4, $5, $5)
     ON CONFLICT (name) DO UPDATE SET sites_json = excluded.sites_json, source_kind = excluded.source_kind,
       sealed = excluded.sealed, updated_ms = excluded.updated_ms`,
    [record.name, JSON.stringify(record.sites), record.sourceKind, record.sealed, tx.now],
  );
  await sealRow(tx, SECRETS_TABLE, [record.name]);
  const row = await tx.one<SecretRow>("SELECT * FROM secrets WHERE name = $1", [record.name]);
  if (row === undefined) throw new Error(`secret ${record.name} vanished inside its own transaction`);
  const body = { name: record.name, change: before === null ? "created" : "updated", sites: record.sites, sourceKind: record.sourceKind };
  await appendJournalEvent(tx, { type: "secret_changed", operationId: null, body }, tx.now);
  return { created: before === null, record: toRecord(tx, row) };
}

/** Deletes a secret and journals secret_changed (deleted, with the sites it had). */
export async function deleteSecret(tx: PgTx, name: string): Promise<boolean> {
  const before = await tx.one<SecretRow>("DELETE FROM secrets WHERE name = $1 RETURNING *", [name]);
  if (before === undefined) return false;
  const record = toRecord(tx, before);
  await appendJournalEvent(
    tx,
    { type: "secret_changed", operationId: null, body: { name, change: "deleted", sites: record.sites, sourceKind: record.sourceKind } },
    tx.now,
  );
  return true;
}
