/** What became of a tunnel the gate held. */
export type TunnelJudgement = { admitted: true } | { admitted: false; code: string; reason: string };

export interface TunnelGateOptions {
  /** Hosts the task names itself (its target and allowedHosts): tunnels there are never held. */
  preadmitted: (host: string) => boolean;
  /** How long a tunnel waits for a request the in-browser guard let through; then it is refused. */
  holdMs: number;
}

/**
 * Holds the browser's tunnels to a host until errand's in-browser guard has judged a request there.
 *
 * Chromium 156 opens a tunnel to a top-level navigation's host when the navigation starts, before
 * the navigation's request reaches Playwright's request interception (net-log: an HTTP stream job
 * with `is_preconnect: true` and the navigation's URL, 20-50 ms before route() sees the request; no
 * switch or feature of the shipped build turns it off). So a navigation errand stops would still
 * put a TCP connection and a TLS ClientHello on the wire to the off-list host. The egress proxy
 * cannot tell that tunnel from a subresource's, but the guard can: it sees each request before the
 * browser connects for it. A tunnel to a host the task does not name therefore goes through only
 * once the guard let a request to that host:port through (`admit`); a navigation the guard stopped
 * refuses the tunnels held for it (`dismiss`); a tunnel nobody asked for is refused after `holdMs`.
 * Subresources from other public hosts stay allowed (pages use CDNs): their request is judged
 * first, so their tunnel is admitted at once.
 */
export class TunnelGate {
  private readonly admitted = new Set<string>();
  private readonly waiting = new Map<string, Set<(judgement: TunnelJudgement) => void>>();

  constructor(private readonly options: TunnelGateOptions) {}

  /** The guard let a request to host:port through: its tunnels (held now or opened later) may go. */
  admit(host: string, port: number): void {
    const key = gateKey(host, port);
    this.admitted.add(key);
    this.settle(key, { admitted: true });
  }

  /** The guard stopped a navigation to host:port: refuse the tunnels held for it now (later ones wait again). */
  dismiss(host: string, port: number, code: string, reason: string): void {
    const key = gateKey(host, port);
    if (!this.admitted.has(key)) this.settle(key, { admitted: false, code, reason });
  }

  /** Waits until the tunnel to host:port may go, or why not. Immediate for the task's hosts and admitted ones. */
  wait(host: string, port: number): Promise<TunnelJudgement> {
    const key = gateKey(host, port);
    if (this.options.preadmitted(bareHost(host)) || this.admitted.has(key)) return Promise.resolve({ admitted: true });
    return new Promise((resolve) => {
      const waiters = this.waiting.get(key) ?? new Set();
      this.waiting.set(key, waiters);
      const timer = setTimeout(() => {
        waiters.delete(finish);
        resolve({
          admitted: false,
          code: "preconnect_blocked",
          reason: `the browser opened a connection to ${host}:${port} on its own (a speculative connection, as for a navigation that was stopped), and no request there was let through within ${this.options.holdMs} ms`,
        });
      }, this.options.holdMs);
      const finish = (judgement: TunnelJudgement): void => {
        clearTimeout(timer);
        resolve(judgement);
      };
      waiters.add(finish);
    });
  }

  /** Refuses every held tunnel (the session is ending). */
  refuseAll(code: string, reason: string): void {
    for (const key of [...this.waiting.keys()]) this.settle(key, { admitted: false, code, reason });
  }

  private settle(key: string, judgement: TunnelJudgement): void {
    const waiters = this.waiting.get(key);
    if (waiters === undefined) return;
    this.waiting.delete(key);
    for (const finish of waiters) finish(judgement);
  }
}

/** The port a URL's connection goes to: its own, or its scheme's default (https/wss 443, http/ws 80). */
export function urlHostPort(url: string): { host: string; port: number } | null {
  try {
    const parsed = new URL(url);
    const secure = parsed.protocol === "https:" || parsed.protocol === "wss:";
    return { host: parsed.hostname, port: parsed.port === "" ? (secure ? 443 : 80) : Number(parsed.port) };
  } catch {
    return null;
  }
}

function gateKey(host: string, port: number): string {
  return `${bareHost(host)}:${port}`;
}

/** A URL hostname (IPv6 in brackets) lowercased and without one trailing dot, as the allowlist compares hosts. */
function bareHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}
