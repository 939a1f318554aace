import { OAUTH_CLIENTS_TABLE, OAUTH_CODES_TABLE, OAUTH_FAMILIES_TABLE, OAUTH_TOKENS_TABLE } from "../rows/authenticRows.js";
import type { Migration } from "./migrations.js";

/**
 * Migration 12: OAuth clients, authorization codes, token families and tokens carry a MAC under the
 * master key (rows/authenticRows): redirect URIs, scopes, resource, expiry, use and revocation are
 * all under it. Existing rows are MAC'd by errand with the key in this migration's transaction.
 */
export const AUTHENTIC_OAUTH_MIGRATION: Migration = {
  version: 12,
  name: "OAuth clients, codes, families and tokens authenticated",
  sql: `
ALTER TABLE oauth_clients ADD COLUMN mac TEXT;
ALTER TABLE oauth_codes ADD COLUMN mac TEXT;
ALTER TABLE oauth_families ADD COLUMN mac TEXT;
ALTER TABLE oauth_tokens ADD COLUMN mac TEXT;
`,
  authenticates: [OAUTH_CLIENTS_TABLE, OAUTH_CODES_TABLE, OAUTH_FAMILIES_TABLE, OAUTH_TOKENS_TABLE],
};
