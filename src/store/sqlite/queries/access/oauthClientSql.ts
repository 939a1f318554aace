import type { NewOAuthClient, OAuthClientRecord, RegisterClientResult } from "../../../AccessStore.js";
import type { ClientRow } from "../../../rows/accessRows.js";
import { toClient } from "../../../rows/accessRows.js";
import { OAUTH_CLIENTS_TABLE } from "../../../rows/authenticRows.js";
import { authenticRow, sealRow } from "../../authenticTableSql.js";
import type { SqliteContext } from "../../sqliteContext.js";
import { journalAuthChange } from "./authEvent.js";

function selectClientRow(ctx: SqliteContext, clientId: string): ClientRow | undefined {
  return authenticRow(ctx, OAUTH_CLIENTS_TABLE, ctx.sql("SELECT * FROM oauth_clients WHERE client_id = ?").get(clientId) as ClientRow | undefined);
}

/** The client when its row passes its MAC (its redirect URIs, secret hash and method are under it); undefined otherwise. */
export function selectClient(ctx: SqliteContext, clientId: string): OAuthClientRecord | undefined {
  const row = selectClientRow(ctx, clientId);
  return row === undefined ? undefined : toClient(row);
}

function countClients(ctx: SqliteContext): number {
  return (ctx.sql("SELECT count(*) AS n FROM oauth_clients").get() as { n: number }).n;
}

/** The oldest client the owner never approved: the one to forget when the table is full. */
function selectEvictableClient(ctx: SqliteContext): string | undefined {
  const row = ctx.sql("SELECT client_id FROM oauth_clients WHERE last_grant_ms IS NULL ORDER BY created_ms, client_id LIMIT 1").get() as
    { client_id: string } | undefined;
  return row?.client_id;
}

function deleteClient(ctx: SqliteContext, clientId: string): void {
  ctx.sql("DELETE FROM oauth_clients WHERE client_id = ?").run(clientId);
}

function insertClient(ctx: SqliteContext, client: NewOAuthClient, now: number): void {
  ctx
    .sql(
      `INSERT INTO oauth_clients (client_id, secret_hash, auth_method, client_name, redirect_uris, metadata_json, created_ms, last_grant_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`,
    )
    .run(client.clientId, client.secretHash, client.authMethod, client.clientName, JSON.stringify(client.redirectUris), JSON.stringify(client.metadata), now);
  sealRow(ctx, OAUTH_CLIENTS_TABLE, [client.clientId]);
}

/**
 * Marks a client as approved by the owner (it is then never evicted to make room), only when its row
 * is authentic: re-sealing an edited row would bless the edit.
 */
export function markClientGranted(ctx: SqliteContext, clientId: string, now: number): void {
  if (selectClientRow(ctx, clientId) === undefined) return;
  ctx.sql("UPDATE oauth_clients SET last_grant_ms = ? WHERE client_id = ?").run(now, clientId);
  sealRow(ctx, OAUTH_CLIENTS_TABLE, [clientId]);
}

/**
 * Registers a client, first forgetting the oldest never-approved one when `maxClients` are
 * registered, so open registration can neither grow the table without bound nor lock the owner's
 * real client out by filling it.
 */
export function registerClient(ctx: SqliteContext, client: NewOAuthClient, maxClients: number): RegisterClientResult {
  const now = ctx.clock();
  let evicted: string | null = null;
  if (countClients(ctx) >= maxClients) {
    const victim = selectEvictableClient(ctx);
    if (victim === undefined) return { kind: "full" };
    deleteClient(ctx, victim);
    evicted = victim;
  }
  insertClient(ctx, client, now);
  const redirectHosts = [...new Set(client.redirectUris.map(hostOf))];
  journalAuthChange(
    ctx,
    "client_registered",
    { clientId: client.clientId, clientName: client.clientName.slice(0, 100), authMethod: client.authMethod, redirectHosts, evicted },
    now,
  );
  return { kind: "registered", evicted };
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return "?";
  }
}
