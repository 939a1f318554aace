import { requestDigest } from "../task/requestDigest.js";
import { canonicalJson } from "../task/canonicalJson.js";
import { POLICY_CODES, validateTask } from "../task/validateTask.js";
import { buildApprovalRequest } from "./approvalRequest.js";
import { authenticateView } from "./authenticateView.js";
import { makeHandle } from "./handle.js";
import { journalIdentity } from "./journalAccess.js";
import { decideOwnerApproval } from "./needsOwnerApproval.js";
import { isEnvironmentRefusal } from "./environmentRefusal.js";
import { submitRefusals } from "./submitRefusal.js";
import type { ServiceContext } from "./serviceContext.js";
import type { SubmitAccepted, SubmitResult } from "./serviceTypes.js";
import type { OperationRecord } from "../store/Store.js";
import { statusOfPhase } from "./serviceTypes.js";
import type { Requester } from "./requester.js";
import { OWNER } from "./requester.js";
import { visibleTo } from "./inspectOperation.js";

/**
 * Validates the task, computes its request digest and creates the operation, or returns the one
 * that already holds the id. Same id and same digest: the same operation, nothing created or run
 * again. Same id, different digest: identity_mismatch, with the existing operation's handle. A task
 * the contract refuses (including a missing approval) creates nothing, so it can be fixed and
 * submitted again under the same id; so does a valid task already known to fail (submitRefusal:
 * an off-list goto, a secret the owner never declared or bound to no origin the task reaches),
 * before the owner is asked. A task ERRAND_OWNER_APPROVAL names is created awaiting the
 * owner's approval (nothing claims it until then), and the answer carries what the owner is asked.
 * An operation that ended BLOCKED because of errand's own environment before any browser opened
 * (isEnvironmentRefusal) is reopened by the same request: queued again, with fresh attempts.
 *
 * operationIds are one space for everyone, and the operation records its requester as its submitter.
 * An id that holds an operation the requester may not see (another grant's, or any tombstone for a
 * requester that does not see everyone's) is answered identity_mismatch "taken", the same whatever
 * that operation's request, phase or receipt: nothing is attached, reopened or revealed, and the only
 * thing learnt is that the id is in use (operationIds are random UUIDs, so another's are not guessed).
 */
export async function submitOperation(ctx: ServiceContext, input: unknown, requester: Requester = OWNER): Promise<SubmitResult> {
  const validated = validateTask(input);
  if (!validated.ok) {
    const policyOnly = validated.errors.every((problem) => POLICY_CODES.has(problem.code));
    const first = validated.errors[0];
    return {
      ok: false,
      code: first?.code ?? "invalid_type",
      message: policyOnly
        ? `The task is well formed but not approved: ${first?.message ?? ""} Nothing was queued; submit it again with the approval, under the same operationId.`
        : `The task was refused (${validated.errors.length} problem${validated.errors.length === 1 ? "" : "s"}); nothing was queued. Fix it and submit again under the same operationId.`,
      problems: validated.errors,
    };
  }
  const task = validated.value;
  const refusals = await submitRefusals(task, {
    ...(ctx.secretSites === undefined ? {} : { secretSites: ctx.secretSites }),
    ...(ctx.siteRefusal === undefined ? {} : { siteRefusal: ctx.siteRefusal }),
    ...(ctx.fileKnown === undefined ? {} : { fileKnown: ctx.fileKnown }),
  });
  // A retry of an operation that already exists is answered from it (idempotency), whatever changed since.
  if (refusals.length > 0 && (await ctx.store.readOperation(task.operationId)) === undefined) {
    const first = refusals[0];
    return {
      ok: false,
      code: first?.code ?? "invalid_type",
      message: `The task cannot succeed as it is, so it was refused before the owner was asked: ${first?.message ?? ""}`,
      problems: refusals,
    };
  }
  const identity = await journalIdentity(ctx);
  if (!identity.ok) return identity;

  const digest = requestDigest(ctx.digestKey, task);
  const grants = task.site !== undefined && ctx.siteGrants !== undefined ? await ctx.siteGrants(task.site) : [];
  const decision = decideOwnerApproval(task, ctx.config.ownerApproval, grants, grants.length === 0 ? 0 : await ctx.store.now());
  const created = await ctx.store.createOperation(
    {
      operationId: task.operationId,
      requestDigest: digest,
      risk: task.risk,
      maxAttempts: ctx.config.maxAttempts,
      taskJson: canonicalJson(task),
      details: {
        provider: task.provider,
        steps: task.steps.length,
        evidenceRetention: task.evidenceRetention,
        ...(!decision.needed && decision.grantId !== null ? { grant: decision.grantId } : {}),
      },
      ...(decision.needed ? { approvalTtlMs: ctx.config.approvalTtlMs } : {}),
      submittedBy: requester.submitter,
    },
    ctx.config.journalQuotaBytes,
  );

  switch (created.kind) {
    case "quota_exceeded":
      return {
        ok: false,
        code: "journal_quota_exceeded",
        message: `The journal holds ${created.storedBytes} bytes of its ${created.quotaBytes}-byte quota, so no new operation was accepted and nothing was deleted. Run "errand journal compact --older-than 30d" (or raise ERRAND_JOURNAL_QUOTA_BYTES), then submit again under the same operationId.`,
      };
    case "created":
      if (created.operation.phase === "queued") ctx.workers?.wake();
      return withApproval(
        ctx,
        { ok: true, status: statusOfPhase(created.operation.phase), created: true, handle: makeHandle(created.operation) },
        created.operation,
      );
    case "existing":
    case "compacted": {
      const view = created.kind === "existing" ? await ctx.store.readOperation(task.operationId) : { kind: "compacted" as const, tombstone: created.tombstone };
      if (view === undefined)
        return { ok: false, code: "internal_error", message: `Operation ${task.operationId} vanished while it was being read; submit again.` };
      if (!visibleTo(view, requester)) {
        return {
          ok: false,
          code: "identity_mismatch",
          message: `operationId ${task.operationId} is already taken; nothing was created or run. Submit this task under a new operationId (a fresh random UUID).`,
        };
      }
      const authenticated = authenticateView(view, ctx.sealer, identity.journalId);
      if ("ok" in authenticated) return authenticated;
      if (authenticated.handle.requestDigest !== digest) {
        return {
          ok: false,
          code: "identity_mismatch",
          message: `operationId ${task.operationId} already names a different request (digest ${authenticated.handle.requestDigest}); nothing was created or run. Reuse an operationId only to retry the very same task; choose a new one for a changed task.`,
          handle: authenticated.handle,
        };
      }
      if (authenticated.kind === "compacted")
        return { ok: true, status: statusOfPhase(authenticated.handle.phase), created: false, handle: authenticated.handle };
      const { operation, receipt } = authenticated;
      if (operation.phase === "blocked" && receipt !== undefined && isEnvironmentRefusal(receipt)) {
        // errand's own environment refused it before any browser opened: the same request runs again.
        const reopened = await ctx.store.reopenOperation(
          operation.operationId,
          operation.revision,
          ctx.config.maxAttempts,
          receipt.error?.code ?? "environment",
        );
        if (reopened !== undefined) {
          ctx.workers?.wake();
          return { ok: true, status: statusOfPhase(reopened.phase), created: false, reopened: true, handle: makeHandle(reopened) };
        }
      }
      return withApproval(
        ctx,
        { ok: true, status: statusOfPhase(authenticated.operation.phase), created: false, handle: authenticated.handle },
        authenticated.operation,
      );
    }
  }
}

/** Adds what the owner is asked to approve while the operation waits for it. */
async function withApproval(ctx: ServiceContext, accepted: SubmitAccepted, operation: OperationRecord): Promise<SubmitResult> {
  if (operation.phase !== "awaiting_approval") return accepted;
  const approval = await buildApprovalRequest(ctx, operation);
  return "ok" in approval ? approval : { ...accepted, approval };
}
