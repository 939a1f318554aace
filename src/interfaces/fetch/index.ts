/**
 * errand for hosts where nothing outlives a request (Deno, Val Town): the fetch handler, the
 * interval entry, and the adapter that turns Val Town's std/sqlite into errand's libSQL client.
 * Published as `errand/fetch`; none of it loads SQLite's native binding or a browser library until
 * a path that needs one runs.
 */
export { openFetchErrand } from "./openFetchErrand.js";
export type { FetchErrand, FetchErrandOptions } from "./openFetchErrand.js";
export { runDueWork, DEFAULT_DUE_WORK_BUDGET_MS } from "./runDueWork.js";
export type { DueWorkReport } from "./runDueWork.js";
export { valTownSqliteClient } from "../../store/libsql/valTownSqliteClient.js";
