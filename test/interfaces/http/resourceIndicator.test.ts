// RFC 8707 resource indicators: /mcp and the bare origin name errand's one protected resource;
// every other URL is another resource and gets invalid_target.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { matchesResource } from "../../../src/interfaces/http/oauth/resourceIndicator.js";

const settings = { mcpResource: "https://errand.example:8443/mcp" };

describe("matchesResource", () => {
  test("the MCP endpoint and the bare origin, with or without a trailing slash or fragment, are this resource", () => {
    for (const value of [
      "https://errand.example:8443/mcp",
      "https://errand.example:8443/mcp/",
      "https://errand.example:8443/mcp#x",
      "https://errand.example:8443",
      "https://errand.example:8443/",
      "HTTPS://ERRAND.example:8443/",
    ]) {
      assert.equal(matchesResource(value, settings), true, value);
    }
  });

  test("another scheme, host, port, path, query, credentials or no URL at all is another resource", () => {
    for (const value of [
      "http://errand.example:8443/",
      "https://errand.example/",
      "https://errand.example:8444/mcp",
      "https://other.example:8443/",
      "https://errand.example:8443/other",
      "https://errand.example:8443/?a=1",
      "https://errand.example:8443/mcp?a=1",
      "https://user:pw@errand.example:8443/",
      "https://errand.example:8443//",
      "errand.example:8443",
      "",
    ]) {
      assert.equal(matchesResource(value, settings), false, value);
    }
  });
});
