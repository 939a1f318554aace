import { SITES_TABLE } from "../rows/authenticRows.js";
import type { Migration } from "./migrations.js";

/**
 * Migration 15: a site's definition (its origins and login settings) carries a MAC under the master
 * key (rows/authenticRows), so origins widened in the database grant nothing: the site is then absent
 * to tasks and named by doctor and journal verify. Existing rows are MAC'd with the key in this
 * migration's transaction.
 */
export const AUTHENTIC_SITES_MIGRATION: Migration = {
  version: 15,
  name: "sites authenticated",
  sql: `
ALTER TABLE sites ADD COLUMN mac TEXT;
`,
  authenticates: [SITES_TABLE],
};
