import { SECRETS_TABLE, isAuthenticRow } from "../../rows/authenticRows.js";
import type { NewSecretRecord, SecretRecord, SecretSourceKind } from "../../SecretStore.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { sealedUpsert } from "../authenticRowWrite.js";
import type { GuardedWrite } from "../batchGuard.js";
import { applyGuarded, guard, joinWrites } from "../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD } from "../journalHead.js";
import type { LibsqlContext } from "../libsqlContext.js";
import type { LibsqlStatement } from "../LibsqlClientLike.js";
import { statement } from "../LibsqlClientLike.js";
import { firstRowIn, queryRow, queryRows } from "../libsqlRows.js";
import { optimisticWrite } from "../optimisticWrite.js";

interface SecretRow {
  name: string;
  sites_json: string;
  source_kind: SecretSourceKind;
  sealed: string;
  created_ms: number;
  updated_ms: number;
  mac: string | null;
}

const SELECT_SECRET = "SELECT * FROM secrets WHERE name = ?";

function toRecord(ctx: LibsqlContext, row: SecretRow): SecretRecord {
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

/** A guard that holds while the secret is as read: absent, or with the same MAC and change time. */
function secretUnchanged(name: string, row: SecretRow | undefined): LibsqlStatement {
  return row === undefined
    ? guard("NOT EXISTS (SELECT 1 FROM secrets WHERE name = ?)", name)
    : guard("EXISTS (SELECT 1 FROM secrets WHERE name = ? AND updated_ms = ? AND mac IS ?)", name, row.updated_ms, row.mac);
}

export async function readSecret(ctx: LibsqlContext, name: string): Promise<SecretRecord | null> {
  const row = await queryRow<SecretRow>(ctx.client, SELECT_SECRET, name);
  return row === undefined ? null : toRecord(ctx, row);
}

export async function listSecrets(ctx: LibsqlContext): Promise<SecretRecord[]> {
  return (await queryRows<SecretRow>(ctx.client, "SELECT * FROM secrets ORDER BY name")).map((row) => toRecord(ctx, row));
}

/** Creates or replaces a secret (sealed, its row MAC'd) and journals secret_changed with its name, sites and source kind, never the value. */
export function putSecret(ctx: LibsqlContext, record: NewSecretRecord): Promise<{ created: boolean; record: SecretRecord }> {
  return optimisticWrite(ctx, `storing secret ${record.name}`, async () => {
    const [rowResult, headResult] = await ctx.client.batch([statement(SELECT_SECRET, record.name), SELECT_HEAD], "read");
    const before = firstRowIn<SecretRow>(rowResult);
    const now = ctx.clock();
    const row = {
      name: record.name,
      sites_json: JSON.stringify(record.sites),
      source_kind: record.sourceKind,
      sealed: record.sealed,
      created_ms: before?.created_ms ?? now,
      updated_ms: now,
    };
    const write: GuardedWrite = { guards: [secretUnchanged(record.name, before)], writes: [sealedUpsert(ctx, SECRETS_TABLE, row)] };
    const body = { name: record.name, change: before === undefined ? "created" : "updated", sites: record.sites, sourceKind: record.sourceKind };
    const journaled = appendJournalEvent(ctx, requireHead(ctx, headIn(headResult)), { type: "secret_changed", operationId: null, body }, now).write;
    await applyGuarded(ctx.client, `storing secret ${record.name}`, joinWrites(write, journaled));
    return { created: before === undefined, record: { ...record, createdMs: row.created_ms, updatedMs: now, authentic: true } };
  });
}

/** Deletes a secret and journals secret_changed (deleted, with the sites it had). */
export function deleteSecret(ctx: LibsqlContext, name: string): Promise<boolean> {
  return optimisticWrite(ctx, `deleting secret ${name}`, async () => {
    const [rowResult, headResult] = await ctx.client.batch([statement(SELECT_SECRET, name), SELECT_HEAD], "read");
    const before = firstRowIn<SecretRow>(rowResult);
    if (before === undefined) return false;
    const { sites, sourceKind } = toRecord(ctx, before);
    const write: GuardedWrite = { guards: [secretUnchanged(name, before)], writes: [statement("DELETE FROM secrets WHERE name = ?", name)] };
    const journaled = appendJournalEvent(
      ctx,
      requireHead(ctx, headIn(headResult)),
      { type: "secret_changed", operationId: null, body: { name, change: "deleted", sites, sourceKind } },
      ctx.clock(),
    ).write;
    await applyGuarded(ctx.client, `deleting secret ${name}`, joinWrites(write, journaled));
    return true;
  });
}
