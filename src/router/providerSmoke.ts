import { randomUUID } from "node:crypto";
import type { Problem } from "../errors/result.js";
import type { AttemptContext, ExecuteTask } from "../executor/executeTaskTypes.js";
import type { CloudProviderName } from "../providers/providerNames.js";
import type { EphemeralEvidence, Receipt } from "../receipt/receiptTypes.js";
import type { ProviderStore } from "../store/ProviderStore.js";
import type { Task } from "../task/taskTypes.js";
import { validateTask } from "../task/validateTask.js";

/** Error codes that show the smoke reached the provider, so its outcome says something about it. */
const REACHED_PROVIDER = new Set([
  "provider_unavailable",
  "provider_auth_failed",
  "provider_capacity",
  "step_failed",
  "expectation_failed",
  "timeout",
  "navigation_blocked",
  "method_blocked",
]);

/** The provider's state after a smoke: OPERATIONAL on PASS, UNVERIFIED when it reached the provider otherwise, else unchanged. */
export interface SmokeVerdict {
  name: CloudProviderName;
  state: "OPERATIONAL" | "UNVERIFIED" | "unchanged";
  verified: boolean;
  message: string;
}

export interface SmokeOutcome {
  receipt: Receipt;
  ephemeral: EphemeralEvidence;
  verdict: SmokeVerdict;
}

export type SmokeTaskCheck =
  { ok: true; task: Task } | { ok: false; kind: "invalid"; problems: Problem[] } | { ok: false; kind: "not_read_only"; risk: string };

/**
 * The operator's smoke task as it runs on NAME: under a fresh operationId (a smoke runs again and
 * again, each its own operation), pinned to that provider alone, and read_only (it runs unattended).
 */
export function smokeTaskFor(raw: Record<string, unknown>, name: CloudProviderName): SmokeTaskCheck {
  const checked = validateTask({ ...raw, operationId: randomUUID(), provider: name });
  if (!checked.ok) return { ok: false, kind: "invalid", problems: checked.errors };
  if (checked.value.risk !== "read_only") return { ok: false, kind: "not_read_only", risk: checked.value.risk };
  return { ok: true, task: checked.value };
}

/**
 * Runs the smoke task through the routed executor (the network preflight and every guard a task
 * gets) and records its verdict: the one home of provider activation, for the CLI, MCP and REST.
 */
export async function runProviderSmoke(
  deps: { execute: ExecuteTask; store: Pick<ProviderStore, "recordSmoke">; digest: (task: Task) => string },
  name: CloudProviderName,
  task: Task,
  context: Pick<AttemptContext, "signal" | "onProgress">,
): Promise<SmokeOutcome> {
  const { receipt, ephemeral } = await deps.execute(task, {
    requestDigest: deps.digest(task),
    attempt: 1,
    beforeMutationBoundary: () => Promise.resolve(),
    ...context,
  });
  return { receipt, ephemeral, verdict: await recordSmokeVerdict(deps.store, name, receipt) };
}

/** Records the smoke when it reached the provider: PASS makes it OPERATIONAL, anything else UNVERIFIED. */
async function recordSmokeVerdict(store: Pick<ProviderStore, "recordSmoke">, name: CloudProviderName, receipt: Receipt): Promise<SmokeVerdict> {
  const passed = receipt.status === "PASS" && receipt.provider === name;
  const reached = passed || (receipt.provider === name && (receipt.status === "FAIL" || REACHED_PROVIDER.has(receipt.error?.code ?? "")));
  if (!reached) {
    return {
      name,
      state: "unchanged",
      verified: false,
      message: `The smoke did not reach ${name} (${receipt.error?.code ?? receipt.status}); its state is unchanged. See "errand provider list".`,
    };
  }
  await store.recordSmoke({ provider: name, operationId: receipt.operationId, status: receipt.status, errorCode: receipt.error?.code ?? null });
  if (passed)
    return { name, state: "OPERATIONAL", verified: true, message: `${name} passed its smoke and is now OPERATIONAL: "provider": "auto" tasks may use it.` };
  return {
    name,
    state: "UNVERIFIED",
    verified: false,
    message: `${name} did not pass its smoke (${receipt.status}${receipt.error === null ? "" : `, ${receipt.error.code}`}); it is UNVERIFIED and auto routing will not use it.`,
  };
}
