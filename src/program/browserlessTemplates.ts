import type { ProgramAction } from "./programTypes.js";

/*
 * The fixed JavaScript of a Browserless /function program (the open-source server 2.x: an ES module
 * whose default export receives a Puppeteer `page` and the request's `context`, run in a page of
 * the provider's browser). Nothing here is ever built from a task: generateProgram joins these
 * constants, chosen by action, and the program reads every value from context.params.
 *
 * Elements are found only with the DOM's own querySelectorAll, never with Puppeteer's selector
 * extensions, so a selector means plain CSS and nothing else.
 */

/** Opens the program: the guards every program installs before the first page loads, and the helpers the actions share. */
/** Opens a Browserless program: an ES module whose default export gets Puppeteer's page and the request's context. */
export const BROWSERLESS_OPEN = `export default async ({ page, context }) => {
  const params = context.params;
`;

/** Browserless's CDP session on the browser target, through Puppeteer. */
export const BROWSERLESS_SESSION = `  const browser = page.browser();
  // Every request of every page of this browser (popups, frames, workers, redirect hops) pauses
  // here first: Fetch enabled on the browser target, not on one page.
  const session = await browser.target().createCDPSession();
`;

/**
 * The rules every program carries, whichever runner it is written for: the evidence, the bounds,
 * the task's hosts and methods, and the judge of each paused request (on \`session\`, the CDP
 * session on the browser target the runner's opening part made).
 */
export const PROGRAM_RULES = `  const limits = params.limits;
  const started = Date.now();
  const deadline = started + params.taskMs;
  const evidence = { v: 1, status: "completed", targetStatus: null, steps: [], checks: [], failure: null, outputs: {}, finalUrl: "", blocked: [], blockedCount: 0, popupsClosed: 0, requestsAllowed: 0, writesSent: 0, durationMs: 0 };
  const cut = (text, chars) => { const s = String(text); return s.length > chars ? s.slice(0, chars) : s; };
  const space = (text) => String(text).replace(/\\s+/g, " ").trim();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const hostOf = (url) => {
    let parsed;
    try { parsed = new URL(url); } catch { return null; }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
    const host = parsed.hostname;
    return host.endsWith(".") ? host.slice(0, -1) : host;
  };
  // A port other than the scheme's own is let through only on a host:port the task itself named
  // (its target or a goto step), which errand's preflight and the operator's allowance let go.
  const onTaskHosts = (url) => {
    const host = hostOf(url);
    if (host === null) return false;
    const port = new URL(url).port;
    if (port !== "" && !params.hosts.ports.includes(host + ":" + port)) return false;
    return params.hosts.exact.includes(host) || params.hosts.patterns.some((pattern) => (pattern.startsWith("*.") ? host.endsWith(pattern.slice(1)) : host === pattern));
  };
  const readOnlyMethod = (method) => params.readOnlyMethods.includes(String(method).toUpperCase());
  class StepFailure extends Error {
    constructor(code, message) { super(message); this.code = code; }
  }
  const isTimeout = (error) => error !== null && typeof error === "object" && error.name === "TimeoutError";

  const judge = (event) => {
    const request = event.request;
    let code = null;
    if (!onTaskHosts(request.url)) code = "host_not_allowed";
    else if (params.readOnly && !readOnlyMethod(request.method)) code = "method_blocked";
    if (code === null) {
      evidence.requestsAllowed += 1;
      if (!readOnlyMethod(request.method)) evidence.writesSent += 1;
      return session.send("Fetch.continueRequest", { requestId: event.requestId });
    }
    evidence.blockedCount += 1;
    if (evidence.blocked.length < limits.blockedEntries) {
      evidence.blocked.push({ url: cut(request.url, limits.urlChars), method: cut(request.method, 16), resourceType: cut(event.resourceType || "", 32), code });
    }
    return session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" });
  };
`;

/** Browserless's guards: every request paused for the judge, the site's pages closed, dialogs dismissed, WebSockets refused. */
export const BROWSERLESS_GUARDS = `  session.on("Fetch.requestPaused", (event) => { judge(event).catch(() => {}); });
  await session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
  // A page the site opens (window.open, target=_blank) is closed; its requests were judged above.
  const ownTarget = page.target();
  browser.on("targetcreated", (target) => {
    if (target === ownTarget || target.type() !== "page") return;
    evidence.popupsClosed += 1;
    target.page().then((opened) => (opened === null ? undefined : opened.close())).catch(() => {});
  });
  page.on("dialog", (dialog) => { dialog.dismiss().catch(() => {}); });
  // WebSockets pass beside Fetch interception, so every document of the page gets a WebSocket that
  // refuses to open, to any host (the task's included): a program cannot judge a socket's messages.
  // It is a JavaScript-level hold, like CDP mode's (Playwright's routeWebSocket); a worker's sockets
  // are not covered.
  await page.evaluateOnNewDocument(() => {
    const refuse = function WebSocket() { throw new DOMException("WebSockets are refused in errand's program mode.", "SecurityError"); };
    Object.defineProperty(globalThis, "WebSocket", { value: refuse, writable: false, configurable: false });
  });

`;

/** The page helpers every program's actions share (written against Puppeteer's page; Kernel's program adapts Playwright's to it). */
export const PAGE_HELPERS = `  const stepTimeout = (step) => Math.max(1, Math.min(typeof step.timeoutMs === "number" ? step.timeoutMs : params.stepMs, deadline - Date.now()));
  const waitState = (selector, state, timeout) =>
    page.waitForFunction(
      (css, wanted) => {
        const all = document.querySelectorAll(css);
        const element = all[0];
        if (wanted === "detached") return element === undefined;
        if (element === undefined) return wanted === "hidden";
        const box = element.getBoundingClientRect();
        const shown = box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== "hidden";
        if (wanted === "visible") return shown ? element : false;
        if (wanted === "hidden") return !shown;
        return element;
      },
      { timeout, polling: 100 },
      selector,
      state,
    );
  const countOf = (selector) => page.evaluate((css) => document.querySelectorAll(css).length, selector);
  const single = async (selector, timeout, state) => {
    const handle = await waitState(selector, state, timeout);
    const count = await countOf(selector);
    if (count !== 1) {
      await handle.dispose();
      throw new StepFailure("step_failed", count === 0 ? "no element matches the selector any more" : "the selector matches " + count + " elements; a step needs one");
    }
    return handle.asElement();
  };
  const checkOf = (step, index, expected, holds, seen, extra) =>
    holds
      ? { step: index, action: step.action, expected, match: step.match, ...extra, passed: true }
      : { step: index, action: step.action, expected, match: step.match, ...extra, passed: false, observed: cut(space(seen), limits.observedChars) };
  const handlers = {};
`;

/** check and uncheck share one handler (the step's action says which state it wants). */
const SET_CHECKED = `  handlers.check = handlers.uncheck = async (step, index, timeout) => {
    const wanted = step.action === "check";
    const element = await single(step.selector, timeout, "visible");
    const state = () => element.evaluate((box) => (box instanceof HTMLInputElement && (box.type === "checkbox" || box.type === "radio") ? box.checked : null));
    const before = await state();
    if (before === null) throw new StepFailure("step_failed", "the element is not a checkbox or radio");
    if (before !== wanted) await element.click();
    const after = await state();
    await element.dispose();
    if (after !== wanted) throw new StepFailure("step_failed", wanted ? "the element is still unchecked after the click; the page undid it" : "the element is still checked after the click; the page undid it");
  };
`;

/** One handler per action: `(step, index, timeout)`, answering a check for expectations and nothing otherwise. */
export const ACTION_TEMPLATES: Readonly<Record<ProgramAction, string>> = {
  goto: `  handlers.goto = async (step, index, timeout) => {
    if (!onTaskHosts(step.url)) throw new StepFailure("navigation_blocked", "the address is not on one of the task's hosts");
    await page.goto(step.url, { waitUntil: "load", timeout });
  };
`,
  wait_for: `  handlers.wait_for = async (step, index, timeout) => {
    if (typeof step.selector === "string") {
      const handle = await waitState(step.selector, typeof step.state === "string" ? step.state : "visible", timeout);
      await handle.dispose();
      return;
    }
    if (!onTaskHosts(step.url)) throw new StepFailure("navigation_blocked", "the address waited for is not on one of the task's hosts");
    const until = Date.now() + timeout;
    const holds = (seen) => (step.match === "exact" ? seen === step.url : seen.startsWith(step.url));
    while (!holds(page.url())) {
      if (Date.now() >= until) throw new StepFailure("timeout", "the page never was at the address waited for");
      await sleep(100);
    }
  };
`,
  click: `  handlers.click = async (step, index, timeout) => {
    const element = await single(step.selector, timeout, "visible");
    await element.click();
    await element.dispose();
  };
`,
  fill: `  handlers.fill = async (step, index, timeout) => {
    const element = await single(step.selector, timeout, "visible");
    const kind = await element.evaluate((field) => {
      if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) {
        if (field.disabled || field.readOnly) return "disabled";
        field.focus();
        field.select();
        return "field";
      }
      if (field instanceof HTMLElement && field.isContentEditable) {
        field.focus();
        const range = document.createRange();
        range.selectNodeContents(field);
        const selection = getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        return "field";
      }
      return "other";
    });
    await element.dispose();
    if (kind !== "field") throw new StepFailure("step_failed", "the element is not an enabled text field");
    if (step.value === "") await page.keyboard.press("Delete");
    else await page.keyboard.sendCharacter(step.value);
  };
`,
  type: `  handlers.type = async (step, index, timeout) => {
    const element = await single(step.selector, timeout, "visible");
    await element.focus();
    await element.dispose();
    await page.keyboard.type(step.text);
  };
`,
  select: `  handlers.select = async (step, index, timeout) => {
    const element = await single(step.selector, timeout, "visible");
    const until = Date.now() + timeout;
    for (;;) {
      const outcome = await element.evaluate((field, wanted) => {
        if (!(field instanceof HTMLSelectElement)) return "not a <select>";
        const flat = (text) => text.replace(/\\s+/g, " ").trim();
        const options = Array.from(field.options);
        let at = options.findIndex((option) => option.value === wanted);
        if (at < 0) at = options.findIndex((option) => flat(option.label) === flat(wanted));
        if (at < 0) return "missing";
        if (options[at].disabled) return "the option is disabled";
        field.selectedIndex = at;
        field.dispatchEvent(new Event("input", { bubbles: true }));
        field.dispatchEvent(new Event("change", { bubbles: true }));
        return "chosen";
      }, step.value);
      if (outcome === "chosen") break;
      if (outcome !== "missing" || Date.now() >= until) {
        await element.dispose();
        throw new StepFailure("step_failed", outcome === "missing" ? "no option has that value or visible label; nothing was chosen" : outcome + "; nothing was chosen");
      }
      await sleep(100);
    }
    await element.dispose();
  };
`,
  press: `  handlers.press = async (step, index, timeout) => {
    if (typeof step.selector !== "string") {
      await page.keyboard.press(step.key);
      return;
    }
    const element = await single(step.selector, timeout, "visible");
    await element.press(step.key);
    await element.dispose();
  };
`,
  check: SET_CHECKED,
  uncheck: SET_CHECKED,
  extract_text: `  handlers.extract_text = async (step, index, timeout) => {
    if (step.all === true) {
      const first = await waitState(step.selector, "attached", timeout);
      await first.dispose();
      const read = await page.evaluate(
        (css, max, chars) => {
          const elements = Array.from(document.querySelectorAll(css));
          return { count: elements.length, texts: elements.slice(0, max).map((element) => (element instanceof HTMLElement ? element.innerText : element.textContent || "").slice(0, chars)) };
        },
        step.selector,
        typeof step.max === "number" ? step.max : limits.listDefault,
        limits.listItemChars,
      );
      read.texts.forEach((text, at) => {
        evidence.outputs[step.name + "." + String(at + 1).padStart(limits.listNameDigits, "0")] = cut(text, limits.listItemChars);
      });
      evidence.outputs[step.name + ".count"] = String(read.count);
      return;
    }
    const element = await single(step.selector, timeout, "attached");
    const text = await element.evaluate((node, chars) => (node instanceof HTMLElement ? node.innerText : node.textContent || "").slice(0, chars), limits.valueChars);
    await element.dispose();
    evidence.outputs[step.name] = cut(text, limits.valueChars);
  };
`,
  extract_attribute: `  handlers.extract_attribute = async (step, index, timeout) => {
    if (String(step.attribute).toLowerCase() === "value") throw new StepFailure("value_attribute_forbidden", "the value attribute is never read");
    const element = await single(step.selector, timeout, "attached");
    const value = await element.evaluate((node, name, chars) => { const seen = node.getAttribute(name); return seen === null ? null : seen.slice(0, chars); }, step.attribute, limits.valueChars);
    await element.dispose();
    if (value === null) throw new StepFailure("step_failed", "the element has no such attribute");
    evidence.outputs[step.name] = cut(value, limits.valueChars);
  };
`,
  expect_text: `  handlers.expect_text = async (step, index, timeout) => {
    const expected = space(step.text);
    const holds = (seen) => (step.match === "exact" ? space(seen) === expected : space(seen).includes(expected));
    const hasSelector = typeof step.selector === "string";
    const until = Date.now() + timeout;
    let observed = "";
    for (;;) {
      const seen = await page
        .evaluate((css) => { const element = css === null ? document.body : document.querySelector(css); return element === null ? null : element.innerText; }, hasSelector ? step.selector : null)
        .catch((error) => { if (error instanceof Error && /context was destroyed|navigat/i.test(error.message)) return null; throw error; });
      if (seen !== null) {
        observed = seen;
        if (holds(seen)) break;
      } else if (observed === "") observed = hasSelector ? "(no element matches " + step.selector + ")" : "(no page body)";
      if (Date.now() >= until) break;
      await sleep(100);
    }
    return checkOf(step, index, step.text, holds(observed), observed, hasSelector ? { selector: step.selector } : {});
  };
`,
  expect_url: `  handlers.expect_url = async (step, index, timeout) => {
    const holds = (seen) => (step.match === "exact" ? seen === step.url : seen.startsWith(step.url));
    const until = Date.now() + timeout;
    while (!holds(page.url()) && Date.now() < until) await sleep(100);
    const seen = page.url();
    return checkOf(step, index, step.url, holds(seen), seen, {});
  };
`,
  expect_count: `  handlers.expect_count = async (step, index, timeout) => {
    const holds = (seen) => (step.match === "exact" ? seen === step.count : seen >= step.count);
    const until = Date.now() + timeout;
    let seen = await countOf(step.selector);
    while (!holds(seen) && Date.now() < until) {
      await sleep(100);
      seen = await countOf(step.selector);
    }
    return checkOf(step, index, String(step.count), holds(seen), String(seen), { selector: step.selector });
  };
`,
};

/** Ends every program: opens the target, runs the steps in order until the first failure, and completes the evidence. */
export const PROGRAM_EPILOGUE = `  const failWith = (index, error) => {
    const code = error instanceof StepFailure ? error.code : isTimeout(error) ? (Date.now() >= deadline ? "task_timeout" : "timeout") : /ERR_BLOCKED_BY_CLIENT/.test(String(error && error.message)) ? "navigation_blocked" : "step_failed";
    const message = error instanceof Error ? error.message : String(error);
    evidence.status = "failed";
    evidence.failure = { step: index, code, message: cut(message.split("\\n")[0], limits.messageChars) };
  };
  let next = 0;
  try {
    const response = await page.goto(params.target, { waitUntil: "load", timeout: Math.max(1, deadline - Date.now()) });
    evidence.targetStatus = response === null ? null : response.status();
    for (; next < params.steps.length; next += 1) {
      const step = params.steps[next];
      try {
        const handler = Object.prototype.hasOwnProperty.call(handlers, step.action) ? handlers[step.action] : undefined;
        if (handler === undefined) throw new StepFailure("internal_error", "this program has no handler for the step's action");
        if (Date.now() >= deadline) throw new StepFailure("task_timeout", "the task's time ran out before the step began");
        const check = await handler(step, next, stepTimeout(step));
        if (check !== undefined) {
          evidence.checks.push(check);
          if (!check.passed) throw new StepFailure("expectation_failed", "the expectation did not hold; what the page showed is in checks[].observed");
        }
      } catch (error) {
        evidence.steps.push({ step: next, action: step.action, status: "failed" });
        failWith(next, error);
        next += 1;
        break;
      }
      evidence.steps.push({ step: next, action: step.action, status: "passed" });
    }
  } catch (error) {
    if (evidence.failure === null) failWith(null, error);
  }
  for (; next < params.steps.length; next += 1) evidence.steps.push({ step: next, action: params.steps[next].action, status: "skipped" });
  evidence.finalUrl = cut(page.url(), limits.urlChars);
  evidence.durationMs = Date.now() - started;
`;

/** Closes a Browserless program: the evidence as JSON. */
export const BROWSERLESS_CLOSE = `  return { data: evidence, type: "application/json" };
};
`;
