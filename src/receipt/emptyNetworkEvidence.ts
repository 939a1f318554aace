import type { NetworkEvidence } from "./receiptTypes.js";

/** Network evidence of an attempt in which nothing was blocked (or no browser ran). */
export function emptyNetworkEvidence(): NetworkEvidence {
  return {
    nonGetAborted: 0,
    secretEgressBlocked: 0,
    blockedRequests: 0,
    navigationsBlocked: 0,
    popupsClosed: 0,
    dialogsDismissed: 0,
    downloadsRefused: 0,
    egressBlocked: 0,
    blocked: [],
    preflight: [],
  };
}
