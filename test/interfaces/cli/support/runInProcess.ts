// What the in-process CLI tests share: the in-process runner (test/support/errandInProcess.ts), a
// minimal environment, and the --json envelope's shape.
export { errandInProcess } from "../../../support/errandInProcess.js";
export type { CliRun } from "../../../support/errandInProcess.js";

/** A minimal environment for a run: no ERRAND_* from the test's own environment leaks in. */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ["PATH", "HOME", "LANG", "TZ"]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

/** The keys every --json output has, in this order (docs/CLI.md); operationId only where relevant. */
export const ENVELOPE_KEYS = ["ok", "status", "receipt", "error", "data"] as const;

export interface Envelope {
  ok: boolean;
  status: string;
  operationId?: string;
  receipt: Record<string, unknown> | null;
  error: { code: string; message: string; problems?: { code: string; path: string; message: string }[]; handle?: Record<string, unknown> } | null;
  data: Record<string, unknown>;
}

/** Parses one line of --json output and checks it has exactly the envelope's keys. */
export function parseEnvelope(stdout: string): Envelope {
  const lines = stdout.trimEnd().split("\n");
  if (lines.length !== 1) throw new Error(`--json printed ${lines.length} lines, not one object:\n${stdout}`);
  const value = JSON.parse(lines[0] ?? "") as Envelope;
  const keys = Object.keys(value).filter((k) => k !== "operationId");
  if (keys.join(",") !== ENVELOPE_KEYS.join(",")) throw new Error(`not the envelope's keys: ${Object.keys(value).join(",")}`);
  if (typeof value.ok !== "boolean" || typeof value.status !== "string") throw new Error("ok must be a boolean and status a string");
  if (value.error !== null && (typeof value.error.code !== "string" || typeof value.error.message !== "string"))
    throw new Error("error must be {code, message}");
  return value;
}
