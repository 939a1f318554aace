import type { ErrorCode } from "../../errors/errorCodes.js";
import type { Handle } from "../../operations/handle.js";
import type { ApprovalRequest, ServiceFailure } from "../../operations/serviceTypes.js";
import type { EphemeralEvidence } from "../../receipt/receiptTypes.js";
import { UNTRUSTED_NOTICE } from "../../receipt/untrustedText.js";
import { exitForFailure } from "./exitCodes.js";
import type { CliError } from "./jsonEnvelope.js";
import { printEnvelope } from "./jsonEnvelope.js";
import { printErr } from "./output.js";

type Failure = ServiceFailure | { code: ErrorCode; message: string; problems?: CliError["problems"]; handle?: Handle };

/**
 * Prints a refused call, as the JSON envelope (`ok: false`, `status: "error"`, `error` with every
 * problem) or as one line per problem on stderr, and returns its exit code.
 */
export function printFailure(failure: Failure, json: boolean, operationId?: string): number {
  const { problems, handle } = failure as { problems?: CliError["problems"]; handle?: Handle };
  if (json) {
    printEnvelope({
      ok: false,
      status: "error",
      operationId: operationId ?? handle?.operationId,
      error: {
        code: failure.code,
        message: failure.message,
        ...(problems === undefined ? {} : { problems }),
        ...(handle === undefined ? {} : { handle }),
      },
    });
  } else {
    printErr(`error: ${failure.message} [${failure.code}]`);
    for (const problem of problems ?? []) printErr(`  ${problem.path === "" ? "(task)" : problem.path}: ${problem.message} [${problem.code}]`);
    if (handle !== undefined) printErr(`  existing: ${describeHandle(handle)}`);
  }
  return exitForFailure(failure.code);
}

export function describeHandle(handle: Handle): string {
  return `${handle.operationId} ${handle.phase} revision ${handle.revision}, boundary ${handle.mutationBoundary.replace("_", " ")}, ${handle.requestDigest}`;
}

/** A successful result without its `ok` marker, as it is printed with --json. */
export function withoutOk<T extends { ok: true }>(result: T): Omit<T, "ok"> {
  const copy: Partial<T> = { ...result };
  delete copy.ok;
  return copy as Omit<T, "ok">;
}

/** The approval object of --json output: the owner console page (when ERRAND_PUBLIC_URL says where errand serve is reached), expiry, summary. */
export function approvalJson(
  env: NodeJS.ProcessEnv,
  operationId: string,
  approval: ApprovalRequest,
): { url: string | null; expiresAt: string; summary: string } {
  const origin = (env["ERRAND_PUBLIC_URL"] ?? "").trim().replace(/\/+$/, "");
  return { url: origin === "" ? null : `${origin}/owner/approvals/${operationId}`, expiresAt: approval.expiresAt, summary: approval.summary };
}

/** Tells the person, in words, that the owner must approve this task and where. */
export function describeApproval(env: NodeJS.ProcessEnv, operationId: string, approval: ApprovalRequest): string {
  const { url } = approvalJson(env, operationId, approval);
  return [
    `awaiting the owner's approval (until ${approval.expiresAt}); nothing has run.`,
    ...approval.summary.split("\n").map((line) => `  ${line}`),
    `Approve on this host with: errand approve ${operationId}   (or deny: errand deny ${operationId})`,
    ...(url === null ? [] : [`or in the owner console: ${url}`]),
  ].join("\n");
}

/**
 * The extracted values of a run or collect for the JSON envelope: whole (a script may need all of
 * a long value), but inside an object that says they are page text (`untrusted: true` and the
 * notice REST and MCP give with theirs). Without values it is passed through unchanged.
 */
export function presentEphemeral(ephemeral: EphemeralEvidence): EphemeralEvidence | (EphemeralEvidence & { untrusted: true; notice: string }) {
  return Object.keys(ephemeral.outputs).length === 0 ? ephemeral : { ...ephemeral, untrusted: true, notice: UNTRUSTED_NOTICE };
}
