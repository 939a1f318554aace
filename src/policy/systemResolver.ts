import { lookup } from "node:dns/promises";
import type { Resolver, ResolveResult } from "./resolver.js";

export interface SystemResolverOptions {
  /** Milliseconds before a lookup counts as failed. Default 5 s. */
  timeoutMs?: number;
}

/**
 * The operating system's resolver (getaddrinfo, so /etc/hosts and search domains apply). Meant for
 * operators whose network needs it; the default is DNS-over-HTTPS, which the host cannot steer.
 */
export function createSystemResolver(options: SystemResolverOptions = {}): Resolver {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return {
    name: "system",
    async resolve(host: string, signal?: AbortSignal): Promise<ResolveResult> {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<ResolveResult>((resolve) => {
        timer = setTimeout(() => resolve({ error: "timeout" }), timeoutMs);
        signal?.addEventListener("abort", () => resolve({ error: "timeout", detail: "aborted" }), { once: true });
      });
      const answer = lookup(host, { all: true, verbatim: true }).then(
        (found): ResolveResult => (found.length === 0 ? { error: "no_answer" } : { addresses: found.map((a) => a.address) }),
        (error: unknown): ResolveResult => {
          const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
          if (code === "ENOTFOUND") return { error: "nxdomain" };
          if (code === "ENODATA") return { error: "no_answer" };
          return { error: "failure", detail: code === "" ? "lookup failed" : code };
        },
      );
      try {
        return await Promise.race([answer, deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
