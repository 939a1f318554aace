import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { generateProgram } from "../../src/program/generateProgram.js";
import type { GeneratedProgram, ProgramResult } from "../../src/program/programTypes.js";
import { validateTask } from "../../src/task/validateTask.js";
import type { Task } from "../../src/task/taskTypes.js";

const DEFAULTS = { taskMs: 30_000, stepMs: 10_000 };

function task(partial: Record<string, unknown>): Task {
  const result = validateTask({
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    risk: "read_only",
    target: { url: "https://shop.example/" },
    ...partial,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

function generated(result: ProgramResult): GeneratedProgram {
  if (!result.ok) throw new Error(`refused: ${result.refusal.message}`);
  return result.value;
}

function refusal(result: ProgramResult): { path: string; message: string } {
  if (result.ok) throw new Error("expected a refusal, got a program");
  return result.refusal;
}

/** Every way a value could break out of a string or a script if it were ever spliced into code. */
const HOSTILE = [
  `"); fetch("https://evil.example/x"); ("`,
  `'); process.exit(1); ('`,
  "` + globalThis.pwned + `",
  "${globalThis.pwned = 1}",
  "</script><script>alert(1)</script>",
  "line\u2028separator\u2029paragraph",
  "back\\slash\\\\ and \\u0041 and \\",
  "*/ }; export default 1; /*",
  `${"x".repeat(9_000)}-end`,
].join(" | ");

/** A task that uses every action program mode supports, with `value` in every free-text field. */
function everyAction(value: string, host = "shop.example"): Task {
  return task({
    target: { url: `https://${host}/` },
    allowedHosts: ["*.cdn.example"],
    risk: "reversible_write",
    approved: true,
    steps: [
      { action: "goto", url: `https://${host}/search?q=${encodeURIComponent(value.slice(0, 200))}` },
      { action: "wait_for", selector: "#q" },
      { action: "wait_for", url: `https://${host}/search`, match: "prefix" },
      { action: "fill", selector: "#q", value },
      { action: "type", selector: "#q2", text: value },
      { action: "select", selector: "#country", value },
      { action: "press", key: "Enter", selector: "#q" },
      { action: "press", key: "Tab" },
      { action: "check", selector: "#agree" },
      { action: "uncheck", selector: "#news" },
      { action: "click", selector: "#go" },
      { action: "extract_text", selector: "#title", name: "title" },
      { action: "extract_text", selector: "li", name: "items", all: true, max: 5 },
      { action: "extract_attribute", selector: "#title", attribute: "title", name: "tip" },
      { action: "expect_text", text: value, match: "contains" },
      { action: "expect_text", text: value, selector: "#title", match: "exact" },
      { action: "expect_url", url: `https://${host}/`, match: "prefix" },
      { action: "expect_count", selector: "li", count: 3, match: "at_least" },
    ],
  });
}

async function compiles(code: string): Promise<void> {
  // Importing the module defines its default export without calling it: a syntax check.
  const module = (await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`)) as { default: unknown };
  assert.equal(typeof module.default, "function");
}

describe("generateProgram", () => {
  it("gives byte-identical code for two tasks that differ only in their values, and the hostile values stay in params", async () => {
    const plain = generated(generateProgram(everyAction("hello"), DEFAULTS));
    const hostile = generated(generateProgram(everyAction(HOSTILE, "other.example"), DEFAULTS));
    assert.equal(hostile.code, plain.code);
    for (const piece of HOSTILE.split(" | ")) assert.ok(!hostile.code.includes(piece.slice(0, 40)), `the code holds a value: ${piece.slice(0, 40)}`);
    assert.ok(!hostile.code.includes("other.example") && !hostile.code.includes("cdn.example"));
    // The values are there, whole, as data.
    const steps = hostile.params.steps;
    assert.deepEqual(steps[3], { action: "fill", selector: "#q", value: HOSTILE });
    assert.deepEqual(steps[4], { action: "type", selector: "#q2", text: HOSTILE });
    assert.deepEqual((JSON.parse(JSON.stringify(hostile.params)) as typeof hostile.params).steps[14], {
      action: "expect_text",
      text: HOSTILE,
      match: "contains",
    });
    assert.deepEqual(hostile.params.hosts, { exact: ["other.example"], patterns: ["*.cdn.example"], ports: [] });
    assert.equal(hostile.params.readOnly, false);
    await compiles(hostile.code);
  });

  it("chooses templates by the set of actions only: order and repetition of steps leave the code unchanged", () => {
    const a = generated(
      generateProgram(
        task({
          steps: [
            { action: "click", selector: "#a" },
            { action: "expect_url", url: "https://shop.example/", match: "exact" },
          ],
        }),
        DEFAULTS,
      ),
    );
    const b = generated(
      generateProgram(
        task({
          steps: [
            { action: "expect_url", url: "https://shop.example/x", match: "prefix" },
            { action: "click", selector: "#b" },
            { action: "click", selector: "#c" },
          ],
        }),
        DEFAULTS,
      ),
    );
    assert.equal(a.code, b.code);
    assert.ok(!a.code.includes("handlers.fill ="), "a program carries only the handlers its actions need");
  });

  it("carries the task's rules as data: read_only, the methods it may send, the hosts, the time and the bounds", async () => {
    const program = generated(
      generateProgram(
        task({
          allowedHosts: ["api.example"],
          timeouts: { taskMs: 20_000, stepMs: 2_000 },
          steps: [{ action: "expect_text", text: "Shop", match: "contains" }],
        }),
        DEFAULTS,
      ),
    );
    assert.equal(program.params.readOnly, true);
    assert.deepEqual(program.params.readOnlyMethods, ["GET", "HEAD", "OPTIONS"]);
    assert.deepEqual(program.params.hosts, { exact: ["shop.example"], patterns: ["api.example"], ports: [] });
    assert.equal(program.params.taskMs, 20_000);
    assert.equal(program.params.stepMs, 2_000);
    assert.equal(program.params.limits.valueChars, 10_000);
    assert.equal(generated(generateProgram(task({ steps: [{ action: "expect_text", text: "Shop", match: "contains" }] }), DEFAULTS)).params.taskMs, 30_000);
    await compiles(program.code);
  });

  it("refuses, with the reason, every task it could not run as CDP mode would, and never gives part of a program", () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [
        { risk: "reversible_write", approved: true, secretApproval: true, steps: [{ action: "fill_secret", selector: "#password", secret: "SHOP_PASSWORD" }] },
        "/steps/0/action",
        /secret's value into the provider's VM/,
      ],
      [{ risk: "reversible_write", approved: true, steps: [{ action: "upload", selector: "#f", file: "invoice.pdf" }] }, "/steps/0/action", /upload/],
      [{ site: "shop", steps: [{ action: "expect_url", url: "https://shop.example/", match: "prefix" }] }, "/site", /cookies to the provider's VM/],
      [{ evidence: { screenshots: "final" }, steps: [{ action: "expect_url", url: "https://shop.example/", match: "prefix" }] }, "/evidence", /screenshots/],
      [{ steps: [{ action: "click", selector: "#b", frame: ["#pay"] }] }, "/steps/0/frame", /frame/],
      [{ steps: [{ action: "click", selector: "#b", then: "follow_new_tab" }] }, "/steps/0/then", /new tab/],
      [{ steps: [{ action: "click", selector: "text=Sign in" }] }, "/steps/0/selector", /text= engine/],
      [{ steps: [{ action: "click", selector: "#menu >> li" }] }, "/steps/0/selector", />> chain/],
      [{ steps: [{ action: "click", selector: "//button" }] }, "/steps/0/selector", /XPath/],
      [{ steps: [{ action: "click", selector: '"Sign in"' }] }, "/steps/0/selector", /quoted text/],
      [{ steps: [{ action: "expect_count", selector: "li:visible", count: 1, match: "exact" }] }, "/steps/0/selector", /:visible/],
      [{ steps: [{ action: "extract_text", selector: 'p:has-text("x")', name: "p" }] }, "/steps/0/selector", /:has-text/],
      [{ steps: [{ action: "extract_text", selector: 'p:t\\65xt("x")', name: "p" }] }, "/steps/0/selector", /:text/],
    ];
    for (const [partial, path, message] of cases) {
      let input: Task;
      try {
        input = task(partial);
      } catch {
        // A task the validator refuses never reaches the generator: build it as the validator would have.
        input = { ...task({ steps: [{ action: "expect_url", url: "https://shop.example/", match: "prefix" }] }), ...(partial as Partial<Task>) };
      }
      const refused = refusal(generateProgram(input, DEFAULTS));
      assert.equal(refused.path, path, JSON.stringify(partial));
      assert.match(refused.message, message);
    }
  });

  it("refuses reading the value attribute even if a task got past the validator", () => {
    const base = task({ steps: [{ action: "extract_attribute", selector: "#q", attribute: "title", name: "t" }] });
    const forged: Task = { ...base, steps: [{ action: "extract_attribute", selector: "#q", attribute: "VALUE", name: "t" }] };
    assert.equal(refusal(generateProgram(forged, DEFAULTS)).path, "/steps/0/attribute");
  });

  it("accepts plain CSS, attribute selectors and escapes included", () => {
    for (const selector of [
      "#go",
      "form > button[type=submit]",
      "a[href^='/cart']",
      "li:nth-child(2)",
      'input[name="q"]',
      "div.card:not(.hidden) p",
      "#a\\:b",
    ]) {
      assert.ok(generateProgram(task({ steps: [{ action: "click", selector }] }), DEFAULTS).ok, selector);
    }
  });
});
