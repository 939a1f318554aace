import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/interfaces/cli/main.ts", import.meta.url));

/** `errand serve` as its own process on a free port, the way an operator starts it; resolves once it listens. */
export function startServeProcess(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcessWithoutNullStreams; origin: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, "serve", "--port", "0"], { env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match !== null && out.includes("Next:")) resolve({ child, origin: match[1] ?? "" });
    });
    child.on("close", (code) => reject(new Error(`errand serve exited ${code}: ${err}`)));
  });
}
