// Screenshots as evidence through the real MCP SDK client over real HTTP, with a real executor on
// local Chromium: errand_run with evidence.screenshots, then errand_collect returns the image as
// MCP image content whose hash is the receipt's; the password field is masked (pixel check on a
// known field); a task that typed a secret has every input masked and its canary is in no result,
// image or REST answer; the REST artifact route serves the same bytes under the same authorization.
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createExecutor } from "../../../src/executor/createExecutor.js";
import { createLocalProvider } from "../../../src/providers/local/localProvider.js";
import { decodePng } from "../../fixtures/decodePng.js";
import type { DecodedPng } from "../../fixtures/decodePng.js";
import { startRecordingServer } from "../../fixtures/fixtureSite.js";
import type { FixtureServer } from "../../fixtures/fixtureSite.js";
import { loopbackGuard } from "../../executor/loopbackGuard.js";
import { memoryVault } from "../../executor/memoryVault.js";
import { carriesCanary } from "../../secrets/support/secretSites.js";
import { CALLBACK, OWNER_PASSWORD, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { obtainGrant } from "./support/oauthDance.js";

type Content = { type: string; text?: string; data?: string; mimeType?: string };
type ToolResult = { isError?: boolean; content: Content[]; structuredContent?: Record<string, unknown> };
type ArtifactRecord = { index: number; mediaType: string; bytes: number; sha256: string };

const CANARY = "Mcp-Canary-Secret-4242";
const html = (body: string) => `<!doctype html><html><head><title>Evidence</title></head><body>${body}</body></html>`;
const FORM = `<style>body{margin:0;background:#fff} input{position:absolute;left:0;width:100%;border:0;padding:0;margin:0;background:#00ff00;color:#000;font-size:40px}</style>
  <input id="pw" type="password" value="pw-value-9917" style="top:0;height:60px">
  <input id="plain" type="text" value="" style="top:100px;height:300px">
  <p style="position:absolute;top:450px">Ready</p>`;
const MASK: [number, number, number] = [255, 0, 255];
const GREEN: [number, number, number] = [0, 255, 0];
const near = (p: [number, number, number], q: [number, number, number]) => p.every((v, i) => Math.abs(v - (q[i] ?? 0)) <= 8);
function regionIs(png: DecodedPng, colour: [number, number, number], box: { x0: number; y0: number; x1: number; y1: number }): boolean {
  for (let y = box.y0; y <= box.y1; y += 4) for (let x = box.x0; x <= box.x1; x += 8) if (!near(png.pixel(x, y), colour)) return false;
  return true;
}
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("screenshots over MCP and REST", { timeout: 180_000 }, () => {
  const provider = createLocalProvider({ env: process.env });
  let site: FixtureServer;
  let server: AppHarness & { origin: string };
  let client: Client;
  const seen: string[] = [];
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    seen.push(JSON.stringify(result));
    for (const part of result.content) if (part.type === "image" && part.data !== undefined) seen.push(Buffer.from(part.data, "base64").toString("latin1"));
    return result;
  };
  const runAndCollect = async (
    task: Record<string, unknown>,
  ): Promise<{ collected: ToolResult; record: ArtifactRecord; image: Buffer; operationId: string }> => {
    const operationId = randomUUID();
    const ran = await call("errand_run", {
      task: { schemaVersion: "errand.task.v1", operationId, target: { url: `${site.origin}/form` }, evidence: { screenshots: "final" }, ...task },
      waitSeconds: 45,
    });
    if (ran.structuredContent?.["status"] === "awaiting_approval") {
      // A task that types a secret waits for the owner (ERRAND_OWNER_APPROVAL's default); the owner approves it here.
      const digest = (ran.structuredContent["handle"] as { requestDigest: string }).requestDigest;
      assert.ok((await server.ops.service.decideApproval(operationId, { approve: true, requestDigest: digest, decidedBy: "owner (test)", via: "cli" })).ok);
      await server.ops.service.runQueue();
    }
    // On a loaded machine errand_run may answer pending (its wait ended first); collect waits for the receipt.
    const collected = await call("errand_collect", { operationId, waitSeconds: 40 });
    assert.equal(collected.isError, undefined, collected.content[0]?.text);
    assert.equal((collected.structuredContent?.["receipt"] as { status?: string } | undefined)?.status, "PASS", collected.content[0]?.text);
    const record = ((collected.structuredContent?.["receipt"] as { artifacts?: ArtifactRecord[] }).artifacts ?? [])[0];
    assert.ok(record !== undefined, collected.content[0]?.text);
    const images = collected.content.filter((c) => c.type === "image");
    assert.equal(images.length, 1, "one image content part");
    assert.equal(images[0]?.mimeType, record.mediaType);
    const image = Buffer.from(images[0]?.data ?? "", "base64");
    return { collected, record, image, operationId };
  };

  before(async () => {
    site = await startRecordingServer("127.0.0.1", { "/form": (_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end(html(FORM)) });
    const execute = createExecutor({
      provider,
      guard: loopbackGuard([site.origin]),
      secrets: memoryVault({ FORM_SECRET: { sites: [site.origin], value: CANARY } }),
      defaultTaskTimeoutMs: 20_000,
      defaultStepTimeoutMs: 3_000,
    });
    server = await startAppServer({ execute });
    // The owner declares the secret the executor's vault holds: submit refuses an undeclared one.
    await server.ops.secrets().set("FORM_SECRET", [site.origin], { kind: "stored", value: CANARY });
    const { accessToken } = await obtainGrant(fetch, server.origin, OWNER_PASSWORD, CALLBACK);
    client = new Client({ name: "screenshot-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }),
    );
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
    await provider.shutdown();
    await site?.close();
  });

  test("errand_collect returns the screenshot as image content whose sha256 is the receipt's; the password field is masked; REST serves the same bytes to an API token only", async () => {
    const { collected, record, image, operationId } = await runAndCollect({ risk: "read_only", steps: [{ action: "expect_text", text: "Ready" }] });
    assert.equal(sha256(image), record.sha256, "the image round-trips with its hash");
    assert.equal(image.length, record.bytes);
    const meta = (collected.structuredContent?.["screenshots"] as Record<string, unknown>[])[0];
    assert.deepEqual(
      meta,
      { index: 0, mimeType: record.mediaType, bytes: record.bytes, sha256: record.sha256 },
      "structured content identifies the image, without its bytes",
    );
    assert.match(collected.content[0]?.text ?? "", /1 screenshot\(s\) attached as images/);
    const png = decodePng(image);
    assert.ok(regionIs(png, MASK, { x0: 2, y0: 2, x1: png.width - 3, y1: 57 }), "the password field holding a known value is uniformly the mask colour");
    assert.ok(regionIs(png, GREEN, { x0: 2, y0: 110, x1: png.width - 3, y1: 390 }), "the empty text field is not masked");

    const url = `${server.origin}/v1/operations/${operationId}/artifacts/0`;
    const rest = await fetch(url, { headers: { authorization: `Bearer ${await server.apiToken("operator", "all")}` } });
    assert.equal(rest.status, 200);
    assert.equal(rest.headers.get("content-type"), record.mediaType);
    assert.equal(rest.headers.get("x-errand-sha256"), record.sha256);
    assert.equal(sha256(Buffer.from(await rest.arrayBuffer())), record.sha256);
    assert.equal((await fetch(url)).status, 401, "no token, no artifact");
    const missing = await fetch(`${server.origin}/v1/operations/${operationId}/artifacts/3`, {
      headers: { authorization: `Bearer ${await server.apiToken("operator", "all")}` },
    });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { code: string } }).error.code, "artifact_not_found");
  });

  test("a task that typed a secret: every input is masked, and the canary is in no MCP result, image or REST answer", async () => {
    const { image, operationId } = await runAndCollect({
      risk: "reversible_write",
      approved: true,
      secretApproval: true,
      steps: [
        { action: "fill_secret", selector: "#pw", secret: "FORM_SECRET" },
        { action: "fill", selector: "#plain", value: "typed by the task" },
        { action: "expect_text", text: "Ready" },
      ],
    });
    const png = decodePng(image);
    assert.ok(regionIs(png, MASK, { x0: 2, y0: 2, x1: png.width - 3, y1: 57 }), "the password field is masked");
    assert.ok(regionIs(png, MASK, { x0: 2, y0: 110, x1: png.width - 3, y1: 390 }), "the text field is masked too");
    const rest = await fetch(`${server.origin}/v1/operations/${operationId}/artifacts/0`, {
      headers: { authorization: `Bearer ${await server.apiToken("operator", "all")}` },
    });
    seen.push(Buffer.from(await rest.arrayBuffer()).toString("latin1"));
    for (const [index, text] of seen.entries()) assert.ok(!carriesCanary(text, CANARY), `result ${index} carries the canary`);
  });
});
