// clients/python's own tests (python3 -m unittest discover -v in clients/python), run by Node's test
// runner so CI runs them: each Python test becomes a subtest here with its result (pass, fail with its
// report, skip with its reason), and the whole run fails when unittest fails. The live tests start
// their own `errand serve` (this Node and tsx, handed down) unless ERRAND_URL and ERRAND_TOKEN name
// a server. Without python3 (3.11 or newer) the suite is skipped with a notice saying so.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";

const CLIENT_DIR = fileURLToPath(new URL("../../clients/python/", import.meta.url));
const PYTHON = process.env["ERRAND_TEST_PYTHON"] ?? "python3";

function pythonUnavailable(): string | null {
  const probe = spawnSync(PYTHON, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) return `${PYTHON} is not installed or does not run`;
  const [major, minor] = probe.stdout.trim().split(".").map(Number);
  if (major !== 3 || (minor ?? 0) < 11) return `${PYTHON} is ${probe.stdout.trim()}; the client needs 3.11 or newer`;
  return null;
}

interface PythonResult {
  name: string;
  outcome: "ok" | "FAIL" | "ERROR" | "skipped";
  reason: string;
}

/**
 * Each test `unittest -v` announced ("test_x (tests.mod.Class.test_x) ... "), with its outcome: failed
 * when a FAIL/ERROR report names it (subtests included), else skipped or ok from its own lines (a test
 * that writes to stderr splits its line, so the outcome is looked for up to the next test's header).
 */
function parseVerbose(output: string): { results: PythonResult[]; reports: Map<string, string>; summary: string } {
  const reports = new Map<string, string>();
  for (const block of output.split(/^={70}$/m).slice(1)) {
    const head = /^(FAIL|ERROR): \w+ \(([\w.]+)\)/m.exec(block);
    if (head?.[2] !== undefined) reports.set(head[2], `${reports.get(head[2]) ?? ""}${block.trim().slice(0, 4000)}\n`);
  }
  const beforeReports = output.split(/^={70}$/m)[0] ?? "";
  const headers = [...beforeReports.matchAll(/^(test\w*) \(([\w.]+)\) \.\.\. /gm)];
  const results: PythonResult[] = [];
  headers.forEach((header, index) => {
    const name = header[2] ?? "";
    if (results.some((r) => r.name === name)) return; // a subtest's own line repeats its test's name
    const segment = beforeReports.slice((header.index ?? 0) + header[0].length, headers[index + 1]?.index ?? beforeReports.length);
    const skipped = /skipped '(.*)'$/m.exec(segment);
    if (reports.has(name)) results.push({ name, outcome: "FAIL", reason: "" });
    else if (skipped !== null) results.push({ name, outcome: "skipped", reason: skipped[1] ?? "" });
    else if (/(^|\s)ok$/m.test(segment)) results.push({ name, outcome: "ok", reason: "" });
    else results.push({ name, outcome: "ERROR", reason: "no result line" });
  });
  const summary = [/^Ran \d+ tests? in [\d.]+s$/m.exec(output)?.[0], /^(OK|FAILED)\b.*$/m.exec(output)?.[0]].filter(Boolean).join(", ");
  return { results, reports, summary };
}

const unavailable = pythonUnavailable();
if (unavailable !== null) process.stderr.write(`notice: skipping the Python client's tests: ${unavailable}\n`);

describe("clients/python (stdlib-only Python client)", { skip: unavailable ?? false }, () => {
  test("python3 -m unittest discover passes in clients/python", { timeout: 900_000 }, async (t) => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ERRAND_TEST_NODE: process.execPath,
      ERRAND_TEST_TSX: import.meta.resolve("tsx"),
      PYTHONDONTWRITEBYTECODE: "1",
      PYTHONUNBUFFERED: "1",
    };
    delete env["NODE_OPTIONS"];
    const child = spawn(PYTHON, ["-m", "unittest", "discover", "-v"], { cwd: CLIENT_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", resolve);
    });
    const { results, reports, summary } = parseVerbose(output);
    for (const result of results) {
      await t.test(`python: ${result.name}`, result.outcome === "skipped" ? { skip: result.reason || true } : {}, () => {
        if (result.outcome !== "ok") assert.fail(reports.get(result.name) ?? `${result.outcome} (see the unittest output)`);
      });
    }
    t.diagnostic(`python3 -m unittest: ${summary || "no summary line"}`);
    assert.equal(code, 0, `unittest exited ${code}:\n${output.slice(-6000)}`);
    assert.ok(results.length > 0 && /^OK\b/m.test(output), `no test ran:\n${output.slice(-3000)}`);
  });
});
