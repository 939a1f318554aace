import type { Problem } from "../../errors/result.js";
import type { Handle } from "../../operations/handle.js";
import type { Receipt } from "../../receipt/receiptTypes.js";
import { printOut } from "./output.js";

/** What went wrong, when something did: the code from docs/ERRORS.md, a sentence, and details when there are any. */
export interface CliError {
  code: string;
  message: string;
  /** Every problem found in one run (task validation, command-line checks), each with where and why. */
  problems?: readonly (Problem | { path: string; message: string; code: string })[];
  /** The operation that already holds this id (identity_mismatch). */
  handle?: Handle;
}

/**
 * The one shape of every `--json` output (docs/CLI.md): always `ok`, `status`, `receipt`, `error`
 * and `data`, plus `operationId` when the command concerns one operation. `ok` is true exactly when
 * the command exits 0; `status` is the receipt status when there is a receipt, else the command's
 * own one-word outcome; `data` holds what is particular to the command.
 */
export interface JsonEnvelope {
  ok: boolean;
  status: string;
  operationId?: string;
  receipt: Receipt | null;
  error: CliError | null;
  data: Record<string, unknown>;
}

export interface EnvelopeFields {
  ok: boolean;
  status: string;
  operationId?: string | undefined;
  receipt?: Receipt | null | undefined;
  error?: CliError | null | undefined;
  data?: Record<string, unknown> | undefined;
}

/** Builds the envelope with its keys always in the same order. */
export function jsonEnvelope(fields: EnvelopeFields): JsonEnvelope {
  return {
    ok: fields.ok,
    status: fields.status,
    ...(fields.operationId === undefined ? {} : { operationId: fields.operationId }),
    receipt: fields.receipt ?? null,
    error: fields.error ?? null,
    data: fields.data ?? {},
  };
}

/** Prints the envelope as one line of JSON on stdout. */
export function printEnvelope(fields: EnvelopeFields): void {
  printOut(JSON.stringify(jsonEnvelope(fields)));
}
