/** The REST API's endpoints: listed once, for the router's test, the OpenAPI document and capabilities. */
export const REST_ENDPOINTS = [
  { method: "POST", path: "/v1/operations", operationId: "submitTask", summary: "Queue a task (idempotent per operationId)." },
  { method: "GET", path: "/v1/operations/{operationId}", operationId: "inspectOperation", summary: "Where an operation stands: phase, attempts, lease." },
  {
    method: "POST",
    path: "/v1/operations/{operationId}/collect",
    operationId: "collectOperation",
    summary: "Status and, once finished, the receipt; optionally wait.",
  },
  {
    method: "GET",
    path: "/v1/operations/{operationId}/artifacts/{index}",
    operationId: "getArtifact",
    summary: "One artifact (screenshot or download) of a finished operation: its bytes, checked against the receipt's sha256.",
  },
  { method: "POST", path: "/v1/operations/{operationId}/cancel", operationId: "cancelOperation", summary: "Cancel an operation (once per controlActionId)." },
  { method: "POST", path: "/v1/runner", operationId: "runQueue", summary: "Run the queue in this server; wait up to waitSeconds." },
  {
    method: "POST",
    path: "/v1/look",
    operationId: "lookAtPage",
    summary: "Outline a page under the read_only policy: forms, fields, buttons with checked selectors.",
  },
  {
    method: "POST",
    path: "/v1/providers/{name}/smoke",
    operationId: "smokeProvider",
    summary: "Run the fixed read-only smoke task on a configured cloud provider (operator tokens only); PASS makes it OPERATIONAL.",
  },
  { method: "GET", path: "/v1/status", operationId: "getStatus", summary: "Operations per phase, queue, journal, breakers, providers, sites." },
  {
    method: "GET",
    path: "/v1/capabilities",
    operationId: "getCapabilities",
    summary:
      "What this server is and holds calls to: tools, routes, task actions and their fields' bounds, wait bounds, body and page-text caps, providers (as errand_capabilities).",
  },
  { method: "GET", path: "/v1/openapi.json", operationId: "getOpenApi", summary: "This API's OpenAPI 3.1 document." },
] as const;
