/*
 * The fixed JavaScript that makes errand's program run on Kernel's execute endpoint (POST
 * /browsers/{id}/playwright/execute): the code is the body of a function that Kernel calls with
 * Playwright's `page`, `context` and `browser`, and whatever it returns is the answer's `result`.
 * Kernel takes no data beside the code, so the task's values travel in one string literal holding
 * the params' JSON in base64 (only A-Z, a-z, 0-9, +, / and =), decoded and parsed as JSON, never
 * evaluated: everything else in the code is these constants and the shared templates, so two tasks
 * with the same actions get byte-identical code around that literal.
 *
 * The shared templates are written against Puppeteer's page; `page` here is a small adapter over
 * Playwright's that gives them the calls they use (waitForFunction and evaluate with several
 * arguments, keyboard.sendCharacter, element handles with the same shape).
 */

/** Opens a Kernel program up to the params literal. */
export const KERNEL_OPEN = `return await (async (playwrightPage, playwrightContext, playwrightBrowser) => {
  const paramsBase64 = "`;

/** After the params literal: the params decoded, the page adapter, and the CDP session on the browser target. */
export const KERNEL_SESSION = `";
  const params = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(paramsBase64), (c) => c.charCodeAt(0))));
  // A function of the templates, run in the page with its arguments packed into one (Playwright passes one).
  const packed = (fn) => new Function("first", "rest", "return (" + fn.toString() + ")(first, ...rest);");
  const packedPage = (fn) => new Function("rest", "return (" + fn.toString() + ")(...rest);");
  const elementOf = (element) =>
    element === null
      ? null
      : {
          click: () => element.click(),
          focus: () => element.focus(),
          press: (key) => element.press(key),
          dispose: () => element.dispose(),
          evaluate: (fn, ...rest) => element.evaluate(packed(fn), rest),
        };
  const page = {
    goto: (url, options) => playwrightPage.goto(url, options),
    url: () => playwrightPage.url(),
    evaluate: (fn, ...rest) => playwrightPage.evaluate(packedPage(fn), rest),
    waitForFunction: async (fn, options, ...rest) => {
      const handle = await playwrightPage.waitForFunction(packedPage(fn), rest, { timeout: options.timeout, polling: options.polling });
      return { dispose: () => handle.dispose(), asElement: () => elementOf(handle.asElement()) };
    },
    keyboard: {
      press: (key) => playwrightPage.keyboard.press(key),
      type: (text) => playwrightPage.keyboard.type(text),
      sendCharacter: (text) => playwrightPage.keyboard.insertText(text),
    },
  };
  // Every request of every page of this browser (popups, frames, workers, redirect hops) pauses
  // here first: Fetch enabled on the browser target, not on one page.
  const session = await playwrightBrowser.newBrowserCDPSession();
`;

/** Kernel's guards: every request paused for the judge, the site's pages closed, dialogs dismissed, WebSockets refused. */
export const KERNEL_GUARDS = `  session.on("Fetch.requestPaused", (event) => { judge(event).catch(() => {}); });
  await session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
  // A page the site opens (window.open, target=_blank) is closed; its requests were judged above.
  playwrightContext.on("page", (opened) => {
    if (opened === playwrightPage) return;
    evidence.popupsClosed += 1;
    opened.close().catch(() => {});
  });
  playwrightPage.on("dialog", (dialog) => { dialog.dismiss().catch(() => {}); });
  // WebSockets pass beside Fetch interception, so every document gets a WebSocket that refuses to
  // open, to any host (the task's included), as in the Browserless program.
  await playwrightContext.addInitScript(() => {
    const refuse = function WebSocket() { throw new DOMException("WebSockets are refused in errand's program mode.", "SecurityError"); };
    Object.defineProperty(globalThis, "WebSocket", { value: refuse, writable: false, configurable: false });
  });
`;

/** Closes a Kernel program: the evidence is the result. */
export const KERNEL_CLOSE = `  return evidence;
})(page, context, browser);
`;
