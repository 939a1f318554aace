import { OWNER_SUBMITTER } from "../journal/operationEvent.js";

/**
 * Who asks the operations service for something, as far as operations are concerned: what the
 * operations it submits record as their submitter, and whether it sees everyone's.
 *
 * The owner (CLI on the host, owner console) and operator API tokens see every operation. An OAuth
 * grant ("oauth:<token family id>": one per approval, so two people behind one client id are two
 * grants) and an API token ("api:<token id>") see and control only what they submitted; anyone
 * else's operation is answered exactly as an id nobody used.
 */
export interface Requester {
  submitter: string;
  seesAll: boolean;
}

export const OWNER: Requester = { submitter: OWNER_SUBMITTER, seesAll: true };

/** The one rule of visibility between grants. */
export function canSee(requester: Requester, submittedBy: string): boolean {
  return requester.seesAll || requester.submitter === submittedBy;
}
