// Interim operator tool until `errand provider smoke` lands with the router: runs the smoke task
// (docs/SMOKE_TASK.json by default) on ONE cloud provider under the real network policy and
// prints the receipt as JSON. Exit codes follow receipt statuses (0 PASS, 1 FAIL, 3 PARTIAL,
// 4 BLOCKED, 5 UNCERTAIN). It records nothing: promotion to OPERATIONAL is still by hand.
// Usage: node --import tsx scripts/provider-smoke.ts <kernel|browserless|browserbase|steel> [task.json] [--allow-private HOST:PORT]...
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createExecutor } from "../src/executor/createExecutor.js";
import { createPolicyNetworkGuard } from "../src/executor/policyNetworkGuard.js";
import { EXIT } from "../src/interfaces/cli/exitCodes.js";
import { createDohResolver } from "../src/policy/dohResolver.js";
import { parseAllowPrivate } from "../src/policy/parseAllowPrivate.js";
import { createSystemResolver } from "../src/policy/systemResolver.js";
import { CLOUD_PROVIDER_NAMES, createCloudProvider, isCloudProviderName } from "../src/providers/createCloudProvider.js";
import { validateTask } from "../src/task/validateTask.js";

const args = process.argv.slice(2);
const allow: string[] = [];
const positional: string[] = [];
for (let i = 0; i < args.length; i += 1) {
  if (args[i] === "--allow-private") allow.push(args[(i += 1)] ?? "");
  else positional.push(args[i] ?? "");
}
const [name, taskFile = "docs/SMOKE_TASK.json"] = positional;
if (name === undefined || !isCloudProviderName(name)) {
  console.error(`usage: provider-smoke <${CLOUD_PROVIDER_NAMES.join("|")}> [task.json] [--allow-private HOST:PORT]...`);
  process.exit(EXIT.usage);
}
const allowances = parseAllowPrivate([...allow, ...(process.env["ERRAND_ALLOW_PRIVATE"] ?? "").split(",")]);
if (!allowances.ok) {
  console.error(allowances.errors.map((e) => e.message).join("; "));
  process.exit(EXIT.usage);
}
const raw = JSON.parse(readFileSync(taskFile, "utf8")) as Record<string, unknown>;
// A smoke is run again and again: each run is its own operation.
const checked = validateTask({ ...raw, operationId: randomUUID(), provider: name });
if (!checked.ok) {
  console.error(JSON.stringify(checked.errors, null, 2));
  process.exit(EXIT.usage);
}
const provider = createCloudProvider(name, { env: process.env, onEvent: (event) => console.error(`${event.provider}: ${event.message}`) });
const missing = provider.missingConfiguration();
if (missing !== null) console.error(missing);
const resolver = process.env["ERRAND_RESOLVER"] === "system" ? createSystemResolver() : createDohResolver(process.env["ERRAND_DOH_URL"] ? { endpoint: process.env["ERRAND_DOH_URL"] } : {});
const execute = createExecutor({ provider, guard: createPolicyNetworkGuard({ resolver, allowPrivate: allowances.value }), env: process.env, defaultTaskTimeoutMs: 25_000, defaultStepTimeoutMs: 10_000 });
const { receipt } = await execute(checked.value, { requestDigest: "smoke", attempt: 1, signal: new AbortController().signal, beforeMutationBoundary: () => Promise.resolve() });
console.log(JSON.stringify(receipt, null, 2));
const codes: Record<string, number> = { PASS: EXIT.pass, FAIL: EXIT.fail, PARTIAL: EXIT.partial, BLOCKED: EXIT.blocked, UNCERTAIN: EXIT.uncertain, CANCELLED: EXIT.cancelled };
process.exit(codes[receipt.status] ?? EXIT.fail);
