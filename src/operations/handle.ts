import type { MutationBoundary } from "../receipt/receiptTypes.js";
import type { OperationPhase } from "../store/Store.js";

/**
 * A versioned locator returned fresh by every call: enough to find the operation again and to see
 * where it stands. It is not an authority token: holding one grants nothing.
 */
export interface Handle {
  v: 1;
  operationId: string;
  requestDigest: string;
  /** Increases with every journaled change; a caller keeps the freshest handle it has seen. */
  revision: number;
  phase: OperationPhase;
  mutationBoundary: MutationBoundary;
}

export function makeHandle(state: {
  operationId: string;
  requestDigest: string;
  revision: number;
  phase: OperationPhase;
  mutationBoundary: MutationBoundary;
}): Handle {
  return {
    v: 1,
    operationId: state.operationId,
    requestDigest: state.requestDigest,
    revision: state.revision,
    phase: state.phase,
    mutationBoundary: state.mutationBoundary,
  };
}
