import { randomBytes } from "node:crypto";
import { createExecutor } from "../executor/createExecutor.js";
import type { ExecuteTask } from "../executor/executeTaskTypes.js";
import { scopeAllowances } from "../policy/scopeAllowances.js";
import { hostMatchesPattern } from "../task/normalizeHostPattern.js";
import { startEgressProxy } from "../providers/local/egressProxy.js";
import { createLocalProvider } from "../providers/local/localProvider.js";
import type { SessionProxy } from "../providers/local/localProvider.js";
import type { BrowserProvider, SessionScope } from "../providers/providerTypes.js";
import type { SecretVault } from "../secrets/secretTypes.js";
import { operatorNetworkPolicy } from "./operatorNetworkPolicy.js";
import type { OperatorNetworkPolicy } from "./operatorNetworkPolicy.js";

/** Per-step time when neither the step nor the task sets one. */
export const DEFAULT_STEP_TIMEOUT_MS = 10_000;

export interface BuiltExecutor {
  execute: ExecuteTask;
  provider: BrowserProvider;
  shutdown(): Promise<void>;
}

/**
 * Wires an executor on the local provider alone (the demo): the network policy with the operator's
 * private allowances (flags plus ERRAND_ALLOW_PRIVATE), the configured resolver and the owner's
 * declared secrets.
 */
export function buildExecutor(env: NodeJS.ProcessEnv, allowPrivateFlags: readonly string[], browserTimeoutMs: number, secrets: SecretVault): BuiltExecutor {
  const policy = operatorNetworkPolicy(env, allowPrivateFlags);
  const provider = createGuardedLocalProvider(env, policy);
  const execute = createExecutor({
    provider,
    guard: policy.guard,
    secrets,
    defaultTaskTimeoutMs: browserTimeoutMs,
    defaultStepTimeoutMs: DEFAULT_STEP_TIMEOUT_MS,
  });
  return { execute, provider, shutdown: () => provider.shutdown() };
}

export interface GuardedLocalOptions {
  onNotice?: (message: string) => void;
  maxDocumentBytes?: number;
  maxDownloadBytes?: number;
  /** Keep a spare context and page ready between tasks (long-lived processes: serve, runner --watch). */
  keepSpare?: boolean;
}

/**
 * The local provider with layer 3: every request of every context goes through its own egress
 * filter, which resolves, checks and dials the very address it checked.
 */
export function createGuardedLocalProvider(env: NodeJS.ProcessEnv, policy: OperatorNetworkPolicy, extra: GuardedLocalOptions = {}): BrowserProvider {
  return createLocalProvider({
    env,
    ...(extra.maxDocumentBytes === undefined ? {} : { maxDocumentBytes: extra.maxDocumentBytes }),
    ...(extra.maxDownloadBytes === undefined ? {} : { maxDownloadBytes: extra.maxDownloadBytes }),
    proxyForSession: (scope) => startSessionProxy(policy, scope),
    ...(extra.keepSpare === true ? { spareProxy: () => startUnscopedSessionProxy(policy) } : {}),
    ...(extra.onNotice === undefined ? {} : { onNotice: extra.onNotice }),
  });
}

/**
 * The egress proxy for one task: the operator's allowances narrowed to the hosts the task names,
 * and writes refused for a read_only task. Every local session gets its proxy from here.
 */
export async function startSessionProxy(policy: OperatorNetworkPolicy, scope: SessionScope): Promise<SessionProxy> {
  const proxy = await startUnscopedSessionProxy(policy);
  proxy.scopeTo(scope);
  return proxy;
}

/**
 * An egress proxy for a task not known yet (a spare context kept ready): it refuses everything
 * until `scopeTo` narrows it to the task, exactly as startSessionProxy would have started it.
 */
export async function startUnscopedSessionProxy(policy: OperatorNetworkPolicy): Promise<SessionProxy & { scopeTo(scope: SessionScope): void }> {
  // Only pages (User-Agent) and errand's own clients (this credential) may use the proxy: WebRTC may not.
  const credentials = { username: "errand", password: randomBytes(18).toString("base64url") };
  const proxy = await startEgressProxy({ resolver: policy.resolver, callers: credentials, scopeLater: true });
  return {
    server: proxy.url,
    credentials,
    scopeTo(scope: SessionScope) {
      // The browser's tunnels to hosts the task does not name wait for the in-browser guard (TunnelGate).
      const preadmitted = (host: string) => scope.hosts.some((pattern) => hostMatchesPattern(host, pattern));
      proxy.scopeTo({ allowPrivate: scopeAllowances(policy.allowPrivate, scope.hosts), readOnly: scope.readOnly, holdTunnels: { preadmitted } });
    },
    blocked: () => proxy.blocked(),
    admit: (host, port) => proxy.admit(host, port),
    dismiss: (host, port, code, reason) => proxy.dismiss(host, port, code, reason),
    seal: () => proxy.seal(),
    close: () => proxy.close(),
  };
}
