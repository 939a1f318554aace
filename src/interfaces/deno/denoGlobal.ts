/**
 * The part of Deno's runtime API the Deno entries use, declared here because errand is type-checked
 * by tsc against Node's types; Deno itself supplies the real object.
 */
export interface DenoServeInfo {
  remoteAddr: { hostname: string; port: number };
}

export interface DenoRuntime {
  env: { toObject(): Record<string, string> };
  args: string[];
  serve(
    options: { hostname: string; port: number; signal?: AbortSignal; onListen?: (address: { hostname: string; port: number }) => void },
    handler: (request: Request, info: DenoServeInfo) => Response | Promise<Response>,
  ): { finished: Promise<void> };
  addSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  exit(code: number): never;
}

/** Deno's global object; the entries run only under Deno, where it always exists. */
export function deno(): DenoRuntime {
  return (globalThis as unknown as { Deno: DenoRuntime }).Deno;
}
