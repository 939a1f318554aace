// The selector rule of a task that types a secret, tried from the attacker's side: a selector that
// matches on text (or on part of an attribute) lets the assistant read an echoed secret back one
// character at a time from which element it picks. Every Playwright engine and CSS extension that
// can do so is tried, alone, nested in :has()/:is()/:not(), behind `>>`, escaped and commented; each
// must be refused with text_selector_with_secret at the step's selector path. The same selectors
// stay valid in tasks without fill_secret, and structural selectors stay valid in secret tasks.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { textMatchingConstruct } from "../../src/task/textMatchingConstruct.js";
import { validateTask } from "../../src/task/validateTask.js";
import { propertyRuns } from "../support/propertyRuns.js";
import { expectValid, minimalTask, problemsOf } from "./taskFixtures.js";

/** One probe per engine or construct Playwright 1.65 offers that can look at text or part of an attribute. */
const ORACLES = [
  'p:text-matches("^a")',
  'p:text-matches("^a", "i")',
  'p:has-text("a")',
  'p:text("a")',
  'p:text-is("a")',
  "text=a",
  'text="a"',
  "text=/^a/",
  '"results for a"',
  "'results for a'",
  'internal:text="a"i',
  'internal:text="a"s',
  'internal:has-text="a"i',
  'internal:has-not-text="a"',
  "has-text=a",
  "text-matches=a",
  "text-is=a",
  "text:light=a",
  "xpath=//p[contains(text(),'a')]",
  "//p[starts-with(., 'a')]",
  "//p[matches(., '^a')]",
  "(//p[contains(., 'a')])[1]",
  "..",
  "xpath:light=//p",
  'div:has(p:text-matches("^a"))',
  'div:has(> p:has-text("a"))',
  'div:is(:text("a"))',
  'li:not(:has-text("a"))',
  ':light(p:text("a"))',
  ':nth-match(p:has-text("a"), 1)',
  'li:right-of(:text("a"))',
  'internal:role=button[name="a"i]',
  'role=button[name="a"]',
  "role=button",
  "#results >> text=a",
  '#results >> p:has-text("a") >> nth=0',
  '#results >> internal:has-text="a"i',
  'internal:has="p >> text=a"',
  'internal:has-not="p >> text=a"',
  'internal:and="p" >> internal:or="li"',
  'internal:chain="p"',
  'internal:label="a"i',
  'internal:attr=[placeholder="a"i]',
  'internal:testid=[data-testid="a"s]',
  "internal:describe=x",
  '_react=Results[query *= "a"]',
  "_vue=results",
  "aria-ref=e1",
  'css=p:has-text("a")',
  'css:light=p:text("a")',
  '*css=p:text("a")',
  'input[value^="a"]',
  'a[href*="q=a"]',
  '[data-echo$="a"]',
  '[data-echo ~= "a"]',
  '[lang|="en"]',
  'input[value^="a" i]',
  'p:t\\65xt("a")',
  'p:TEXT-MATCHES("^a")',
  'p:has-text/**/("a")',
  '[value\\5e="a"]',
  "unknown-engine=a",
];

/** Selectors that look only at structure, ids, classes, whole attribute values and position. */
const STRUCTURAL = [
  "#password",
  'input[name="q"]',
  "input[name=q]",
  '[data-state="open" i]',
  "#results > li:nth-child(2) a",
  "ul.results li:first-child",
  "div:has(> img.logo)",
  ":is(h1, h2).title",
  "button:not([disabled])",
  "id=results",
  "data-testid=result-1",
  "data-test-id=x",
  "data-test=x",
  "#list li >> nth=2",
  "button >> visible=true",
  "form#login button[type=submit]",
];

function secretTask(probe: string): Record<string, unknown> {
  return minimalTask({
    risk: "reversible_write",
    approved: true,
    secretApproval: true,
    steps: [
      { action: "fill_secret", selector: "#q", secret: "PORTAL_PASSWORD" },
      { action: "extract_attribute", selector: probe, attribute: "id", name: "which" },
    ],
  });
}

describe("validateTask: no text-matching selectors in a task that types a secret", () => {
  for (const probe of ORACLES) {
    test(`${probe} → text_selector_with_secret at /steps/1/selector`, () => {
      const problems = problemsOf(secretTask(probe));
      assert.deepEqual(
        problems.map((p) => [p.code, p.path]),
        [["text_selector_with_secret", "/steps/1/selector"]],
      );
      assert.match(problems[0]?.message ?? "", /types a secret \(fill_secret\).*may not match on text/);
    });
  }

  test("every step's selector is held to it, the fill_secret step's own and a wait_for's included, each at its own path", () => {
    const task = minimalTask({
      secretApproval: true,
      steps: [
        { action: "fill_secret", selector: 'input:text("x")', secret: "PORTAL_PASSWORD" },
        { action: "wait_for", selector: "text=a" },
        { action: "click", selector: "#go" },
        { action: "expect_text", text: "Signed in", selector: "//h1" },
        { action: "extract_text", selector: 'p:has-text("b")', name: "b" },
      ],
    });
    assert.deepEqual(
      problemsOf(task).map((p) => p.path),
      ["/steps/0/selector", "/steps/1/selector", "/steps/3/selector", "/steps/4/selector"],
    );
  });

  test("a frame's selector is held to it too, at its own path in either spelling, with no literal-label exception (which iframe a text finds would read the value back)", () => {
    const task = minimalTask({
      risk: "reversible_write",
      approved: true,
      secretApproval: true,
      steps: [
        { action: "fill_secret", selector: "#q", secret: "PORTAL_PASSWORD" },
        { action: "click", frame: 'body:has-text("hunter") iframe', selector: "#go" },
        { action: "expect_text", frame: ["#outer", "text=hunter >> xpath=following::iframe"], selector: "#paid", text: "paid" },
        { action: "click", frame: "text=Pay", selector: "#pay" },
        { action: "click", frame: ["#outer", 'iframe[name="card"]'], selector: "#pay" },
      ],
    });
    assert.deepEqual(
      problemsOf(task).map((p) => [p.code, p.path]),
      [
        ["text_selector_with_secret", "/steps/1/frame"],
        ["text_selector_with_secret", "/steps/2/frame/1"],
        ["text_selector_with_secret", "/steps/3/frame"],
      ],
    );
    for (const frame of ['body:has-text("hunter") iframe', "text=Pay"]) expectValid(minimalTask({ steps: [{ action: "click", frame, selector: "#go" }] }));
  });

  test("an acting step may name its element by one literal label (a login's Sign in button); with a regex, a chain or on a reading step it is refused", () => {
    const steps = (step: Record<string, unknown>) =>
      minimalTask({
        risk: "reversible_write",
        approved: true,
        secretApproval: true,
        steps: [{ action: "fill_secret", selector: 'internal:label="Password"i', secret: "PORTAL_PASSWORD" }, step],
      });
    for (const selector of ["text=Sign in", '"Sign in"', 'internal:text="Sign in"i', 'role=button[name="Sign in"]', 'internal:role=button[name="Sign in"s]']) {
      expectValid(steps({ action: "click", selector }));
    }
    expectValid(steps({ action: "select", selector: 'internal:label="Country"i', value: "fr" }));
    for (const selector of [
      "text=/^a/",
      "role=button[name=/^a/]",
      "#results >> text=a",
      "text=a >> nth=0",
      'p:has-text("a")',
      ':text-matches("^a"), #fallback',
    ]) {
      assert.deepEqual(
        problemsOf(steps({ action: "click", selector })).map((p) => p.code),
        ["text_selector_with_secret"],
        selector,
      );
    }
    for (const action of ["extract_text", "wait_for"]) {
      assert.deepEqual(
        problemsOf(steps({ action, selector: "text=Sign in", ...(action === "extract_text" ? { name: "x" } : {}) })).map((p) => p.code),
        ["text_selector_with_secret"],
        action,
      );
    }
  });

  test("the same selectors are valid in a task without fill_secret (no existing task changes)", () => {
    for (const probe of ORACLES) {
      expectValid(minimalTask({ steps: [{ action: "extract_attribute", selector: probe, attribute: "id", name: "which" }] }));
    }
  });

  test("structural selectors stay valid in a task that types a secret", () => {
    for (const selector of STRUCTURAL) expectValid(secretTask(selector));
  });

  test("wrapping an oracle in :has()/:is()/:not(), a >> chain, or CSS escapes never gets it through", () => {
    const cssOracle = fc.constantFrom('p:text-matches("^a")', 'p:has-text("a")', ':text("a")', ':text-is("a")', 'input[value^="a"]', '[href*="a"]', '[x$="a"]');
    const wrap = fc.constantFrom(
      (s: string) => `div:has(${s})`,
      (s: string) => `:is(${s}, h1)`,
      (s: string) => `li:not(${s})`,
      (s: string) => `#root >> ${s}`,
      (s: string) => `${s} >> nth=0`,
      (s: string) => `css=${s}`,
      (s: string) => s.replace(/t/g, "\\74 "),
      (s: string) => s.replace(/:/g, ":/**/").replace(":/**/", ":"),
      (s: string) => s.toUpperCase(),
    );
    fc.assert(
      fc.property(cssOracle, fc.array(wrap, { minLength: 1, maxLength: 3 }), (oracle, wrappers) => {
        const selector = wrappers.reduce<string>((s, w) => w(s), oracle);
        assert.notEqual(textMatchingConstruct(selector, "extract_attribute"), null, selector);
        const result = validateTask(secretTask(selector));
        assert.ok(!result.ok && result.errors.some((p) => p.code === "text_selector_with_secret"), selector);
      }),
      propertyRuns(200, 20),
    );
  });

  test("never throws, whatever the selector", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), (selector) => {
        const verdict = textMatchingConstruct(selector, "click");
        assert.ok(verdict === null || typeof verdict === "string");
      }),
      propertyRuns(500, 50),
    );
  });
});
