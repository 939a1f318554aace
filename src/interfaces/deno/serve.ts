// errand on Deno: `deno task serve`. The same HTTP side `errand serve` runs (OAuth, MCP, REST, the
// owner console), as one fetch handler under Deno.serve, on the libSQL store, with the master key
// and owner password from the environment and cloud browsers only. Settings: ERRAND_HOST (default
// 127.0.0.1), ERRAND_PORT (default 8787), and the variables deploy/valtown/README.md lists.
import { ErrandError } from "../../errors/errandError.js";
import { openFetchErrand } from "../fetch/openFetchErrand.js";
import { deno } from "./denoGlobal.js";

const runtime = deno();
const env = runtime.env.toObject();
const host = (env["ERRAND_HOST"] ?? "").trim() || "127.0.0.1";
const portText = (env["ERRAND_PORT"] ?? "").trim() || "8787";
const port = /^\d{1,5}$/.test(portText) && Number(portText) <= 65535 ? Number(portText) : Number.NaN;
if (Number.isNaN(port)) {
  console.error(`errand (Deno): ERRAND_PORT must be a whole number from 0 to 65535, not "${portText.slice(0, 20)}"`);
  runtime.exit(2);
}

const handler = await openFetchErrand({ env, address: { host, port } }).catch((error: unknown) => {
  // errand's own refusals (a missing key, a wrong setting) name their variable; anything else is a bug.
  if (!(error instanceof ErrandError)) throw error;
  console.error(`errand (Deno): ${error.code}: ${error.message}`);
  return runtime.exit(1);
});
const stop = new AbortController();
const server = runtime.serve(
  {
    hostname: host,
    port,
    signal: stop.signal,
    onListen: (address) => {
      console.log(`errand (Deno): listening on http://${address.hostname}:${address.port}`);
      console.log(`MCP URL: ${handler.publicOrigin}/mcp`);
    },
  },
  (request, info) => handler.fetch(request, { remoteAddress: info.remoteAddr.hostname }),
);
for (const signal of ["SIGINT", "SIGTERM"] as const) runtime.addSignalListener(signal, () => stop.abort());
await server.finished;
await handler.close();
console.error("errand (Deno): stopped");
