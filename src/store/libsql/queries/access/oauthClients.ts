import type { NewOAuthClient, OAuthClientRecord, RegisterClientResult } from "../../../AccessStore.js";
import type { ClientRow } from "../../../rows/accessRows.js";
import { toClient } from "../../../rows/accessRows.js";
import { OAUTH_CLIENTS_TABLE } from "../../../rows/authenticRows.js";
import { authenticRow, rowMacUnchanged, sealedInsert, sealedUpdate } from "../../authenticRowWrite.js";
import type { GuardedWrite } from "../../batchGuard.js";
import { applyGuarded, guard, joinWrites } from "../../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD } from "../../journalHead.js";
import type { LibsqlContext } from "../../libsqlContext.js";
import { statement } from "../../LibsqlClientLike.js";
import { firstRowIn } from "../../libsqlRows.js";
import { optimisticWrite } from "../../optimisticWrite.js";
import { authChange } from "./authChange.js";

export const SELECT_CLIENT = "SELECT * FROM oauth_clients WHERE client_id = ?";

/** The client when its row passes its MAC (its redirect URIs, secret hash and method are under it); undefined otherwise. */
export async function readClient(ctx: LibsqlContext, clientId: string): Promise<OAuthClientRecord | undefined> {
  const row = authenticRow(ctx, OAUTH_CLIENTS_TABLE, firstRowIn<ClientRow>(await ctx.client.execute(statement(SELECT_CLIENT, clientId))));
  return row === undefined ? undefined : toClient(row);
}

/**
 * Marks a client read as `row` as approved by the owner (it is then never evicted to make room), only
 * when that row is authentic: re-sealing an edited row would bless the edit.
 */
export function markClientGranted(ctx: LibsqlContext, row: ClientRow | undefined, now: number): GuardedWrite {
  if (authenticRow(ctx, OAUTH_CLIENTS_TABLE, row) === undefined || row === undefined) return { guards: [], writes: [] };
  return { guards: [rowMacUnchanged(OAUTH_CLIENTS_TABLE, row)], writes: [sealedUpdate(ctx, OAUTH_CLIENTS_TABLE, row, { last_grant_ms: now })] };
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return "?";
  }
}

/**
 * Registers a client, first forgetting the oldest never-approved one when `maxClients` are
 * registered, so open registration can neither grow the table without bound nor lock the owner's
 * real client out by filling it. Guarded on the count and the victim as read.
 */
export function registerClient(ctx: LibsqlContext, client: NewOAuthClient, maxClients: number): Promise<RegisterClientResult> {
  return optimisticWrite(ctx, `registering OAuth client ${client.clientId}`, async (): Promise<RegisterClientResult> => {
    const [countResult, victimResult, headResult] = await ctx.client.batch(
      [
        statement("SELECT count(*) AS n FROM oauth_clients"),
        statement("SELECT client_id FROM oauth_clients WHERE last_grant_ms IS NULL ORDER BY created_ms, client_id LIMIT 1"),
        SELECT_HEAD,
      ],
      "read",
    );
    const count = firstRowIn<{ n: number }>(countResult)?.n ?? 0;
    const victim = firstRowIn<{ client_id: string }>(victimResult)?.client_id;
    const now = ctx.clock();
    const evicting = count >= maxClients;
    if (evicting && victim === undefined) return { kind: "full" };
    const evicted = evicting ? (victim ?? null) : null;
    const write: GuardedWrite = {
      guards: [
        guard("(SELECT count(*) FROM oauth_clients) = ?", count),
        ...(evicted === null ? [] : [guard("EXISTS (SELECT 1 FROM oauth_clients WHERE client_id = ? AND last_grant_ms IS NULL)", evicted)]),
      ],
      writes: [
        ...(evicted === null ? [] : [statement("DELETE FROM oauth_clients WHERE client_id = ?", evicted)]),
        sealedInsert(ctx, OAUTH_CLIENTS_TABLE, {
          client_id: client.clientId,
          secret_hash: client.secretHash,
          auth_method: client.authMethod,
          client_name: client.clientName,
          redirect_uris: JSON.stringify(client.redirectUris),
          metadata_json: JSON.stringify(client.metadata),
          created_ms: now,
          last_grant_ms: null,
        }),
      ],
    };
    const redirectHosts = [...new Set(client.redirectUris.map(hostOf))];
    const journaled = authChange(
      ctx,
      requireHead(ctx, headIn(headResult)),
      "client_registered",
      { clientId: client.clientId, clientName: client.clientName.slice(0, 100), authMethod: client.authMethod, redirectHosts, evicted },
      now,
    );
    await applyGuarded(ctx.client, `registering OAuth client ${client.clientId}`, joinWrites(write, journaled));
    return { kind: "registered", evicted };
  });
}
