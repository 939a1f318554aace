import type { Migration } from "./migrations.js";

/**
 * Migration 9: who submitted each operation (an OAuth grant, an API token, or the owner). Operations
 * stored before it count as the owner's, which is also what their journal events mean by naming no
 * submitter (journal/authenticateOperationState), so only the owner and operator tokens see them.
 */
export const SUBMITTER_MIGRATION: Migration = {
  version: 9,
  name: "operation submitters",
  sql: `
ALTER TABLE operations ADD COLUMN submitted_by TEXT NOT NULL DEFAULT 'owner';
CREATE INDEX operations_submitter ON operations (submitted_by, updated_ms);
`,
};
