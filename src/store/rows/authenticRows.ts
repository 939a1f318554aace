import type { JournalSealer, RowValue } from "../../journal/createJournalSealer.js";
import type { UnauthenticRow } from "../Store.js";

/**
 * A table whose rows grant authority, declared once for both SQL backends: which columns are its
 * primary key, which decide what a row grants (the MAC covers exactly these, with the table's name
 * and the key), and how a failing row is named to the owner (never secret material). Every row of
 * such a table carries a `mac` column written with the row and checked before the row grants
 * anything (see src/store/README.md, "Rows that grant authority").
 */
export interface AuthenticTable {
  readonly table: string;
  readonly key: readonly string[];
  readonly columns: readonly string[];
  /**
   * Columns added after rows were first MAC'd: covered when they hold a value, left out of the MAC
   * input while NULL (what they meant before they existed), so older rows keep their MAC without a
   * re-sealing that would also bless a row changed without the key. Setting or clearing one without
   * the key still fails the MAC, since a column present and a column absent are different inputs.
   */
  readonly optionalColumns: readonly string[];
  /** How `errand doctor` and `errand journal verify` name a row of this table. */
  name(row: Readonly<Record<string, unknown>>): string;
}

/** Declares a table whose rows grant authority (one call per table). */
export function authenticTable(
  table: string,
  key: readonly string[],
  columns: readonly string[],
  name?: (row: Readonly<Record<string, unknown>>) => string,
  optionalColumns: readonly string[] = [],
): AuthenticTable {
  return { table, key, columns, optionalColumns, name: name ?? ((row) => key.map((k) => String(row[k])).join("/")) };
}

function valueOf(row: Readonly<Record<string, unknown>>, column: string): RowValue {
  const value = row[column];
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "bigint") return Number(value);
  throw new TypeError(`row MAC: ${column} holds a value that is neither text, a safe integer nor null`);
}

function pick(row: Readonly<Record<string, unknown>>, columns: readonly string[]): Record<string, RowValue> {
  const picked: Record<string, RowValue> = {};
  for (const column of columns) picked[column] = valueOf(row, column);
  return picked;
}

/** The MAC a row of `table` must carry (computed from the row's own columns, `mac` aside). */
export function rowMacOf(sealer: JournalSealer, table: AuthenticTable, row: Readonly<Record<string, unknown>>): string {
  const present = table.optionalColumns.filter((column) => valueOf(row, column) !== null);
  return sealer.rowMac(table.table, pick(row, table.key), pick(row, [...table.columns, ...present]));
}

/** True when the row's stored `mac` is the one its columns call for; false for anything else (a missing or malformed MAC included). */
export function isAuthenticRow(sealer: JournalSealer, table: AuthenticTable, row: Readonly<Record<string, unknown>>): boolean {
  const stored = row["mac"];
  if (typeof stored !== "string") return false;
  try {
    return sealer.macEquals(rowMacOf(sealer, table, row), stored);
  } catch {
    return false;
  }
}

/** The row when it passes its MAC; undefined when there is none, or it fails (then `refused` learns which row it was). */
export function checkedRow<R>(sealer: JournalSealer, table: AuthenticTable, row: R | undefined, refused: Map<string, UnauthenticRow>): R | undefined {
  if (row === undefined) return undefined;
  if (isAuthenticRow(sealer, table, row as Record<string, unknown>)) return row;
  const named = { table: table.table, id: table.name(row as Record<string, unknown>) };
  refused.set(`${named.table} ${named.id}`, named);
  return undefined;
}

/** The rows of one table that fail their MAC, named by table and id (each backend reads the rows its own way). */
export function unauthenticIn(sealer: JournalSealer, table: AuthenticTable, rows: readonly Record<string, unknown>[]): UnauthenticRow[] {
  return rows.filter((row) => !isAuthenticRow(sealer, table, row)).map((row) => ({ table: table.table, id: table.name(row) }));
}

export const OWNER_SECRET_TABLE = authenticTable("owner_secret", ["id"], ["encoded", "updated_ms"], () => "the owner password");
/**
 * API tokens. The scope is not under the MAC: it is bound by the kind the token's hash was made
 * under (src/interfaces/http/rest/requireApiToken.ts). The expiry is (an optional column: tokens
 * made before expiries existed never expire), so a later or cleared expiry grants nothing; the last
 * use is not, as it grants nothing.
 */
export const API_TOKENS_TABLE = authenticTable("api_tokens", ["token_id"], ["name", "token_hash", "created_ms", "revoked_ms"], undefined, ["expires_ms"]);
/** A short, non-secret handle for a keyed hash used as a primary key (a token's or a code's). */
const hashHandle = (value: unknown): string => `${String(value).slice(0, 8)}…`;

export const OAUTH_CLIENTS_TABLE = authenticTable(
  "oauth_clients",
  ["client_id"],
  ["secret_hash", "auth_method", "client_name", "redirect_uris", "metadata_json", "created_ms", "last_grant_ms"],
);
export const OAUTH_CODES_TABLE = authenticTable(
  "oauth_codes",
  ["code_hash"],
  ["client_id", "redirect_uri", "code_challenge", "scopes", "resource", "expires_ms", "used_ms", "family_id"],
  (row) => `code ${hashHandle(row["code_hash"])} of client ${String(row["client_id"])}`,
);
export const OAUTH_FAMILIES_TABLE = authenticTable(
  "oauth_families",
  ["family_id"],
  ["client_id", "scopes", "resource", "generation", "created_ms", "expires_ms", "revoked_ms", "revoked_reason"],
);
export const OAUTH_TOKENS_TABLE = authenticTable(
  "oauth_tokens",
  ["token_hash"],
  ["family_id", "kind", "generation", "expires_ms", "used_ms", "created_ms"],
  (row) => `${String(row["kind"])} token ${hashHandle(row["token_hash"])} of family ${String(row["family_id"])}`,
);
export const SECRETS_TABLE = authenticTable("secrets", ["name"], ["sites_json", "source_kind", "sealed", "created_ms", "updated_ms"]);

/**
 * A site's definition: the origins its saved session may be used on and its login settings. The
 * session columns are not under the MAC: the session itself is sealed with the site's name, origins
 * and definition time as associated data (src/sites), so it opens only for the definition it was saved under.
 */
export const SITES_TABLE = authenticTable(
  "sites",
  ["name"],
  ["origins_json", "login_url", "logged_in_selector", "login_hosts_json", "defined_ms", "created_ms"],
  (row) => `site ${String(row["name"])}`,
);

/**
 * The owner's standing grants on a site: what risk and which secrets tasks on it may run with
 * unattended, until when, and whether it was revoked. Every column that decides what it grants is
 * under the MAC, so a widened risk, an added secret, a later expiry or a cleared revocation grants nothing.
 */
export const SITE_GRANTS_TABLE = authenticTable(
  "site_grants",
  ["grant_id"],
  ["site", "site_defined_ms", "risk", "secrets_json", "via", "created_ms", "expires_ms", "revoked_ms"],
  (row) => `grant ${String(row["grant_id"])} on site ${String(row["site"])}`,
);

/** Every table whose rows grant authority and carry a MAC, in the order doctor and journal verify report them. */
export const AUTHENTIC_TABLES: readonly AuthenticTable[] = [
  OWNER_SECRET_TABLE,
  API_TOKENS_TABLE,
  OAUTH_CLIENTS_TABLE,
  OAUTH_CODES_TABLE,
  OAUTH_FAMILIES_TABLE,
  OAUTH_TOKENS_TABLE,
  SECRETS_TABLE,
  SITES_TABLE,
  SITE_GRANTS_TABLE,
];
