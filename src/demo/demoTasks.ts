import { randomUUID } from "node:crypto";

/** The name under which the demo declares its password (errand secret set), bound to the demo site's origin. */
export const DEMO_SECRET_NAME = "errand_demo_password";

/** The demo's read-only task: reads the status page and proves what it read with expectations. */
export function demoReadTask(origin: string): unknown {
  return {
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    label: "demo: read account status",
    target: { url: `${origin}/` },
    risk: "read_only",
    steps: [
      { action: "wait_for", selector: "#status" },
      { action: "extract_text", selector: "#status", name: "status" },
      { action: "extract_attribute", selector: "#owner", attribute: "data-plan", name: "plan" },
      { action: "expect_text", selector: "#title", text: "Library account", match: "exact" },
      { action: "expect_text", selector: "#status", text: "all 3 books returned" },
      { action: "expect_url", url: `${origin}/` },
    ],
  };
}

/** The demo's approved write: changes the display name, typing the declared secret `secretName`. */
export function demoWriteTask(origin: string, secretName: string): unknown {
  return {
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    label: "demo: change display name",
    target: { url: `${origin}/settings` },
    risk: "reversible_write",
    approved: true,
    secretApproval: true,
    steps: [
      { action: "fill", selector: "#display-name", value: "Grace" },
      { action: "fill_secret", selector: "#password", secret: secretName },
      { action: "click", selector: "#save" },
      { action: "expect_url", url: `${origin}/saved` },
      { action: "expect_text", selector: "#result", text: "Display name is now Grace" },
    ],
  };
}

/**
 * The same write aimed at a look-alike settings page on another origin (as a prompt-injected
 * assistant might): the secret is bound to the real site only, so errand types nothing and the
 * operation ends BLOCKED with secret_site_mismatch.
 */
export function demoLookalikeTask(lookalikeOrigin: string, secretName: string): unknown {
  return {
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    label: "demo: the same secret on a look-alike site",
    target: { url: `${lookalikeOrigin}/settings` },
    risk: "reversible_write",
    approved: true,
    secretApproval: true,
    steps: [
      { action: "fill_secret", selector: "#password", secret: secretName },
      { action: "fill", selector: "#display-name", value: "Mallory" },
      { action: "click", selector: "#save" },
      { action: "expect_text", selector: "#result", text: "Display name is now Mallory" },
    ],
  };
}
