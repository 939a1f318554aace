import type { Migration } from "./migrations.js";

/**
 * Migration 8: per-operation journal chains. Each event gets its place in its chain (chain_seq), each
 * operation row the head of its chain and the bytes it counts against the quota, the head row its
 * format and the latest checkpoint's count and digest, and the checkpoint's list gets its table.
 * SQL cannot compute MACs, so the journal is converted by errand with the key the first time a
 * store opens it (journal/upgradeLegacyJournal.ts, sqlite/ensureJournalHead.ts); until then the head
 * says format 1 and no event is appended.
 */
export const JOURNAL_CHAINS_MIGRATION: Migration = {
  version: 8,
  name: "per-operation journal chains and checkpoints",
  sql: `
ALTER TABLE journal_events ADD COLUMN chain_seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX journal_events_chain ON journal_events (operation_id, chain_seq);
ALTER TABLE operations ADD COLUMN chain_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE operations ADD COLUMN chain_mac TEXT NOT NULL DEFAULT '';
ALTER TABLE operations ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE journal_head ADD COLUMN format INTEGER NOT NULL DEFAULT 1;
ALTER TABLE journal_head ADD COLUMN checkpoint_operations INTEGER NOT NULL DEFAULT 0;
ALTER TABLE journal_head ADD COLUMN checkpoint_digest TEXT NOT NULL DEFAULT '';
CREATE TABLE journal_checkpoint (
  operation_id TEXT PRIMARY KEY,
  chain_seq    INTEGER NOT NULL,
  chain_mac    TEXT NOT NULL
);
`,
};
