// The submitter as an authenticated state field: an event stored before errand recorded submitters
// authenticates its row only as the owner's, so no row edit hands such an operation to a grant.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { test } from "node:test";
import { authenticateOperationState } from "../../src/journal/authenticateOperationState.js";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import type { JournalEventRow } from "../../src/journal/journalTypes.js";
import type { OperationStateFields } from "../../src/journal/operationEvent.js";
import { operationEvent } from "../../src/journal/operationEvent.js";
import { operationGenesis, sealChainEvent } from "../../src/journal/sealEvent.js";

const sealer = createJournalSealer(randomBytes(32));
const journalId = randomUUID();

function sealed(body: Record<string, unknown>, operationId: string): JournalEventRow {
  const { event } = sealChainEvent(sealer, journalId, operationGenesis(sealer, journalId, operationId), { type: "operation_created", operationId, body }, 1);
  return { seq: 1, ...event };
}

test("authenticateOperationState: a submitter is checked like every state field, and an event naming none means the owner", () => {
  const operationId = randomUUID();
  const state: OperationStateFields = {
    operationId,
    requestDigest: "d",
    revision: 1,
    phase: "queued",
    mutationBoundary: "not_crossed",
    attempts: 0,
    risk: "read_only",
    maxAttempts: 3,
    cancelRequested: false,
    submittedBy: "oauth:a",
  };
  const current = sealed(operationEvent("operation_created", state).body, operationId);
  assert.ok(authenticateOperationState(state, current, sealer, journalId).ok);
  const handedOver = authenticateOperationState({ ...state, submittedBy: "oauth:b" }, current, sealer, journalId);
  assert.deepEqual(handedOver, { ok: false, reason: "its stored submittedBy differs from its latest journal event" });

  const older: Record<string, unknown> = { ...operationEvent("operation_created", state).body };
  delete older["submittedBy"];
  const legacy = sealed(older, operationId);
  assert.ok(authenticateOperationState({ ...state, submittedBy: "owner" }, legacy, sealer, journalId).ok, "an older operation is the owner's");
  assert.equal(authenticateOperationState(state, legacy, sealer, journalId).ok, false, "and is never a grant's");
});
