import { createClient } from "@libsql/client";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";

export interface LibsqlClientOptions {
  /** A `file:` URL of a local database (created when absent; its directory must exist), or a libSQL server's `libsql://` / `https://` URL. */
  url: string;
  /** The server's token (a `file:` database takes none). */
  authToken?: string;
  /** How long one statement waits inside SQLite for another connection's lock (ms) before SQLITE_BUSY; kept short, the store retries asynchronously. */
  busyTimeoutMs?: number;
}

/**
 * The one place that creates a `@libsql/client` client. A local `file:` database (another process
 * or a test opens the same file) runs in WAL, so readers never wait for the writer; its durability is
 * SQLite's default synchronous=FULL for every commit the client makes. A libSQL server (sqld, Turso)
 * keeps its own journal. A platform that hands errand its own client (Val Town) never comes here.
 */
export async function openLibsqlClient(options: LibsqlClientOptions): Promise<LibsqlClientLike> {
  const local = options.url.startsWith("file:");
  if (!local && !/^(?:libsql|https?):\/\//.test(options.url)) {
    throw new Error(`openLibsqlClient opens file:, libsql:// or https:// URLs, not ${options.url.split(":")[0] ?? ""}:`);
  }
  // One connection per client: the binding runs every call synchronously, so a pool of them gains
  // nothing inside one process; another process, or another client, is another connection.
  const client = createClient({
    url: options.url,
    ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
    ...(local ? { timeout: options.busyTimeoutMs ?? 1000 } : {}),
    concurrency: 1,
  });
  if (!local) return client;
  try {
    await client.execute({ sql: "PRAGMA journal_mode = WAL", args: [] });
    return client;
  } catch (error) {
    client.close();
    throw error;
  }
}
