import type { OperationRecord } from "./operationRecord.js";

/**
 * A live operation as a backend read (and locked) it: its record, its stored task document, and the
 * backend's own row, which a decision hands back with what to write, so the backend applies the
 * decision to the very row it read. Core never looks inside `row`.
 */
export interface LiveOperation<Row> {
  row: Row;
  operation: OperationRecord;
  taskJson: string;
}
