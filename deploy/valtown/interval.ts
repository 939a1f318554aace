// errand's optional interval val on Val Town: each run recovers expired leases and runs the work that
// is due (queued, retried, delayed) once, within a budget shorter than a val's run may last. Nothing
// runs on a schedule unless the owner adds this file with an Interval trigger (deploy/valtown/README.md).
import sqlite from "https://esm.town/v/std/sqlite/main.ts";
import { runDueWork, valTownSqliteClient } from "npm:errand@0.1.0/fetch";

/** How long one run may spend starting work (ms): under a val's run limit on Val Town's plans. */
const BUDGET_MS = 50 * 1000;

export default async function (): Promise<void> {
  await runDueWork({ env: Deno.env.toObject(), libsqlClient: valTownSqliteClient(sqlite), budgetMs: BUDGET_MS });
}
