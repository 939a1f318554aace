/**
 * The SQL (the same text for SQLite and PostgreSQL) that finds an operation the stored checkpoint
 * lists that is neither compacted nor still passing through the place and MAC recorded for it: its
 * row and events deleted, or rolled back to before that place. One such id, or none.
 */
export const CHECKPOINT_REGRESSION_SQL = `SELECT c.operation_id AS operation_id FROM journal_checkpoint c
  LEFT JOIN operation_tombstones t ON t.operation_id = c.operation_id
  LEFT JOIN operations o ON o.operation_id = c.operation_id
  LEFT JOIN journal_events e ON e.operation_id = c.operation_id AND e.chain_seq = c.chain_seq
  WHERE t.operation_id IS NULL AND (o.operation_id IS NULL OR o.chain_seq < c.chain_seq OR (c.chain_seq > 0 AND (e.mac IS NULL OR e.mac <> c.chain_mac)))
  LIMIT 1`;
