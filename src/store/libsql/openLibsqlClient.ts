import { createClient } from "@libsql/client";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";

export interface LibsqlFileOptions {
  /** A `file:` URL of the database (created when absent; its directory must exist). */
  url: string;
  /** How long one statement waits inside SQLite for another connection's lock (ms) before SQLITE_BUSY; kept short, the store retries asynchronously. */
  busyTimeoutMs?: number;
}

/**
 * The one place that creates a `@libsql/client` client: for a local `file:` database (another
 * process or a test opens the same file). WAL, so readers never wait for the writer; its durability
 * is SQLite's default synchronous=FULL for every commit the client makes. Elsewhere (Val Town) the
 * platform hands the store its client instead.
 */
export async function openLibsqlClient(options: LibsqlFileOptions): Promise<LibsqlClientLike> {
  if (!options.url.startsWith("file:")) throw new Error(`openLibsqlClient opens a local file: URL only, not ${options.url.split(":")[0] ?? ""}:`);
  // One connection per client: the binding runs every call synchronously, so a pool of them gains
  // nothing inside one process; another process, or another client, is another connection.
  const client = createClient({ url: options.url, timeout: options.busyTimeoutMs ?? 1000, concurrency: 1 });
  try {
    await client.execute({ sql: "PRAGMA journal_mode = WAL", args: [] });
    return client;
  } catch (error) {
    client.close();
    throw error;
  }
}
