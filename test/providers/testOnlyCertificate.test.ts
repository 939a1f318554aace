import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:https";
import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * `acceptAnyCertificateForTests` (createLocalProvider) lets an attack test serve https from a
 * self-signed loopback site. Nothing a task, an environment variable or a command-line flag says
 * may switch it on: tried from the outside, through the real `errand run` process, against a
 * self-signed https site that counts every request it decrypts (it must see none).
 */
let home: string;
let site: Server;
let origin: string;
let decrypted = 0;
let handshakes = 0;

function errand(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/interfaces/cli/main.ts", ...args], {
      env: { ...process.env, ERRAND_HOME: home, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

function taskFile(extra: Record<string, unknown> = {}): string {
  const file = join(home, `${randomUUID()}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      schemaVersion: "errand.task.v1",
      operationId: randomUUID(),
      risk: "read_only",
      target: { url: `${origin}/` },
      steps: [{ action: "expect_text", text: "self-signed", timeoutMs: 2_000 }],
      ...extra,
    }),
  );
  return file;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith(".ts") ? [full] : [];
  });
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), "errand-cert-"));
  const dir = mkdtempSync(join(tmpdir(), "errand-cert-tls-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "pipe" },
  );
  site = createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (_req, res) => {
    decrypted += 1;
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><p>self-signed</p>");
  });
  site.on("connection", () => (handshakes += 1));
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  origin = `https://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

after(async () => {
  site.closeAllConnections();
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

describe("the test-only certificate switch is out of reach", () => {
  test("only tests set acceptAnyCertificateForTests: no file under src/ passes it", () => {
    const setters = sourceFiles("src").filter(
      (file) => !file.endsWith("localProvider.ts") && readFileSync(file, "utf8").includes("acceptAnyCertificateForTests"),
    );
    assert.deepEqual(setters, []);
    // localProvider only reads it; it never derives it from its environment.
    const provider = readFileSync("src/providers/local/localProvider.ts", "utf8");
    assert.doesNotMatch(provider, /env\[[^\]]*(CERT|TLS|INSECURE)/i);
  });

  test("no task field, environment variable or flag makes errand run accept a self-signed site", async () => {
    const allow = ["--allow-private", origin.slice("https://".length)];
    const loose = {
      NODE_TLS_REJECT_UNAUTHORIZED: "0",
      acceptAnyCertificateForTests: "true",
      ERRAND_ACCEPT_ANY_CERTIFICATE_FOR_TESTS: "1",
      ERRAND_IGNORE_HTTPS_ERRORS: "1",
      ERRAND_INSECURE: "1",
    };

    const field = await errand(["run", taskFile({ acceptAnyCertificateForTests: true }), ...allow, "--json"], loose);
    assert.equal(field.code, 2, `a task field should be refused as unknown: ${field.stdout} ${field.stderr}`);
    assert.match(field.stdout + field.stderr, /unknown_field/);

    for (const flag of ["--accept-any-certificate-for-tests", "--acceptAnyCertificateForTests", "--ignore-https-errors", "--insecure"]) {
      const refused = await errand(["run", taskFile(), ...allow, flag], loose);
      assert.equal(refused.code, 2, `${flag} should be an unknown option: ${refused.stdout} ${refused.stderr}`);
    }
    assert.equal(handshakes, 0, "a refused run still connected to the site");

    const plain = await errand(["run", taskFile(), ...allow, "--json"], loose);
    assert.notEqual(plain.code, 0, `errand accepted the self-signed site: ${plain.stdout}`);
    assert.doesNotMatch(plain.stdout, /"status":\s*"PASS"/);
    assert.ok(handshakes >= 1, "control: errand never tried the site, so zero decrypted requests would prove nothing");
    assert.equal(decrypted, 0, "a request was sent over a TLS connection errand should have refused");
  });
});
