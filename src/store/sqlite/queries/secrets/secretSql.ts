import type { NewSecretRecord, SecretRecord, SecretSourceKind } from "../../../SecretStore.js";
import { SECRETS_TABLE, isAuthenticRow } from "../../../rows/authenticRows.js";
import { appendJournalEvent } from "../../appendJournalEvent.js";
import { sealRow } from "../../authenticTableSql.js";
import type { SqliteContext } from "../../sqliteContext.js";

interface SecretRow {
  name: string;
  sites_json: string;
  source_kind: SecretSourceKind;
  sealed: string;
  created_ms: number;
  updated_ms: number;
}

function toRecord(ctx: SqliteContext, row: SecretRow): SecretRecord {
  return {
    name: row.name,
    sites: JSON.parse(row.sites_json) as string[],
    sourceKind: row.source_kind,
    sealed: row.sealed,
    createdMs: row.created_ms,
    updatedMs: row.updated_ms,
    authentic: isAuthenticRow(ctx.sealer, SECRETS_TABLE, row as unknown as Record<string, unknown>),
  };
}

export function selectSecret(ctx: SqliteContext, name: string): SecretRecord | null {
  const row = ctx.sql("SELECT * FROM secrets WHERE name = ?").get(name) as SecretRow | undefined;
  return row === undefined ? null : toRecord(ctx, row);
}

export function listSecrets(ctx: SqliteContext): SecretRecord[] {
  return (ctx.sql("SELECT * FROM secrets ORDER BY name").all() as SecretRow[]).map((row) => toRecord(ctx, row));
}

/** Creates or replaces a secret and journals secret_changed with its name, sites and source kind (never the value). */
export function upsertSecret(ctx: SqliteContext, record: NewSecretRecord): { created: boolean; record: SecretRecord } {
  const now = ctx.clock();
  const before = selectSecret(ctx, record.name);
  ctx
    .sql(
      `INSERT INTO secrets (name, sites_json, source_kind, sealed, created_ms, updated_ms)
       VALUES (@name, @sites, @kind, @sealed, @now, @now)
       ON CONFLICT (name) DO UPDATE SET sites_json = excluded.sites_json, source_kind = excluded.source_kind,
         sealed = excluded.sealed, updated_ms = excluded.updated_ms`,
    )
    .run({ name: record.name, sites: JSON.stringify(record.sites), kind: record.sourceKind, sealed: record.sealed, now });
  sealRow(ctx, SECRETS_TABLE, [record.name]);
  const body = { name: record.name, change: before === null ? "created" : "updated", sites: record.sites, sourceKind: record.sourceKind };
  appendJournalEvent(ctx, { type: "secret_changed", operationId: null, body }, now);
  const after = selectSecret(ctx, record.name);
  if (after === null) throw new Error(`secret ${record.name} vanished inside its own transaction`);
  return { created: before === null, record: after };
}

/** Deletes a secret and journals secret_changed (deleted, with the sites it had). */
export function deleteSecret(ctx: SqliteContext, name: string): boolean {
  const before = selectSecret(ctx, name);
  if (before === null) return false;
  ctx.sql("DELETE FROM secrets WHERE name = ?").run(name);
  appendJournalEvent(
    ctx,
    { type: "secret_changed", operationId: null, body: { name, change: "deleted", sites: before.sites, sourceKind: before.sourceKind } },
    ctx.clock(),
  );
  return true;
}
