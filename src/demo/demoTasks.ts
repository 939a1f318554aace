import { randomUUID } from "node:crypto";

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

/** The demo's approved write: changes the display name, typing the password from an env var. */
export function demoWriteTask(origin: string, passwordVar: string): unknown {
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
      { action: "fill_secret", selector: "#password", envVar: passwordVar },
      { action: "click", selector: "#save" },
      { action: "expect_url", url: `${origin}/saved` },
      { action: "expect_text", selector: "#result", text: "Display name is now Grace" },
    ],
  };
}
