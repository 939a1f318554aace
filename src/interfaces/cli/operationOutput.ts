import type { ErrorCode } from "../../errors/errorCodes.js";
import type { Handle } from "../../operations/handle.js";
import type { ServiceFailure } from "../../operations/serviceTypes.js";
import { POLICY_CODES } from "../../task/validateTask.js";
import { EXIT } from "./exitCodes.js";
import { printErr, printOut } from "./output.js";

/** Failures about errand's own state, not about what the caller sent. */
const STATE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "journal_quota_exceeded",
  "journal_tampered",
  "operation_not_found",
  "internal_error",
  "store_busy",
  "store_schema_too_new",
  "configuration_error",
  "key_error",
]);

/** Exit code for a refused call: 4 for a missing approval (BLOCKED), 1 for errand's state, 2 for bad input (identity_mismatch included). */
export function exitForFailure(code: ErrorCode): number {
  if (POLICY_CODES.has(code)) return EXIT.blocked;
  if (STATE_CODES.has(code)) return EXIT.fail;
  return EXIT.usage;
}

/** Prints a refused call: JSON `{"status":"error","code",...}` or a line per problem, and returns its exit code. */
export function printFailure(failure: ServiceFailure | { code: ErrorCode; message: string }, json: boolean): number {
  const full = failure as ServiceFailure;
  if (json) {
    printOut(
      JSON.stringify({
        status: "error",
        code: failure.code,
        message: failure.message,
        ...(full.problems === undefined ? {} : { problems: full.problems }),
        ...(full.handle === undefined ? {} : { handle: full.handle }),
      }),
    );
  } else {
    printErr(`error: ${failure.message} [${failure.code}]`);
    for (const problem of full.problems ?? []) printErr(`  ${problem.path === "" ? "(task)" : problem.path}: ${problem.message} [${problem.code}]`);
    if (full.handle !== undefined) printErr(`  existing: ${describeHandle(full.handle)}`);
  }
  return exitForFailure(failure.code);
}

export function describeHandle(handle: Handle): string {
  return `${handle.operationId} ${handle.phase} revision ${handle.revision}, boundary ${handle.mutationBoundary.replace("_", " ")}, ${handle.requestDigest}`;
}

/** Prints a JSON document on one line. */
export function printJson(value: unknown): void {
  printOut(JSON.stringify(value));
}

/** A successful result without its `ok` marker, as it is printed with --json. */
export function withoutOk<T extends { ok: true }>(result: T): Omit<T, "ok"> {
  const copy: Partial<T> = { ...result };
  delete copy.ok;
  return copy as Omit<T, "ok">;
}
