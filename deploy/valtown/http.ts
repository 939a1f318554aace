// errand's HTTP val on Val Town: the MCP endpoint (<val url>/mcp), OAuth and the owner console, on the
// val's own SQLite database. Wiring only: every setting comes from the val's environment variables
// (deploy/valtown/README.md), and nothing here decides anything.
import sqlite from "https://esm.town/v/std/sqlite/main.ts";
import { openFetchErrand, valTownSqliteClient } from "npm:errand@0.1.0/fetch";

const errand = await openFetchErrand({ env: Deno.env.toObject(), libsqlClient: valTownSqliteClient(sqlite) });

export default function (request: Request): Promise<Response> {
  return errand.fetch(request);
}
