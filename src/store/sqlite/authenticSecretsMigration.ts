import { SECRETS_TABLE } from "../rows/authenticRows.js";
import type { Migration } from "./migrations.js";

/**
 * Migration 13: declared secrets carry a MAC under the master key (rows/authenticRows) over their
 * name, sites, source kind and sealed payload, so `journal verify` and `doctor` can name a row that
 * was changed without the key. Existing rows are MAC'd by errand with the key in this transaction.
 */
export const AUTHENTIC_SECRETS_MIGRATION: Migration = {
  version: 13,
  name: "declared secrets authenticated",
  sql: `
ALTER TABLE secrets ADD COLUMN mac TEXT;
`,
  authenticates: [SECRETS_TABLE],
};
