import { API_TOKENS_TABLE, OWNER_SECRET_TABLE } from "../rows/authenticRows.js";
import type { Migration } from "./migrations.js";

/**
 * Migration 11: the owner password and API tokens carry a MAC under the master key (rows/authenticRows),
 * revocation included. SQL cannot compute MACs: the rows that exist are given theirs by errand with
 * the key, in this migration's transaction (`authenticates`), so a store opened without the key
 * cannot apply it.
 */
export const AUTHENTIC_ROWS_MIGRATION: Migration = {
  version: 11,
  name: "owner password and API tokens authenticated",
  sql: `
ALTER TABLE owner_secret ADD COLUMN mac TEXT;
ALTER TABLE api_tokens ADD COLUMN mac TEXT;
`,
  authenticates: [OWNER_SECRET_TABLE, API_TOKENS_TABLE],
};
