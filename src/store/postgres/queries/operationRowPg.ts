import type { OperationRow } from "../../rows/operationRows.js";
import type { PgTx } from "../pgContext.js";
import type { RowWithLatestEvent } from "./rowWithLatestEvent.js";
import { selectRowWithLatestEvent } from "./rowWithLatestEvent.js";

/** Reads one operation row by id; `lock` takes its row lock for the rest of the transaction. */
export function selectOperationRow(tx: PgTx, operationId: string, lock = false): Promise<OperationRow | undefined> {
  return tx.one<OperationRow>(`SELECT * FROM operations WHERE operation_id = $1${lock ? " FOR UPDATE" : ""}`, [operationId]);
}

/** The running row the token holds, locked, with its latest event; undefined when the lease was lost (recovered, re-claimed, finished). */
export function selectLeasedRow(tx: PgTx, operationId: string, token: string): Promise<RowWithLatestEvent | undefined> {
  return selectRowWithLatestEvent(tx, ...leasedRowQuery(operationId, token));
}

/** The selection selectLeasedRow makes (for callers that read it together with another). */
export function leasedRowQuery(operationId: string, token: string): [string, unknown[]] {
  return ["SELECT * FROM operations WHERE operation_id = $1 AND phase = 'running' AND lease_token = $2 FOR UPDATE", [operationId, token]];
}
