import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CLOUD_PROVIDER_NAMES, createCloudProvider, isCloudProviderName } from "../../src/providers/createCloudProvider.js";
import { PROVIDER_NAMES } from "../../src/task/taskTypes.js";

const CREDENTIAL = { kernel: "KERNEL_API_KEY", browserless: "BROWSERLESS_TOKEN", browserbase: "BROWSERBASE_API_KEY", steel: "STEEL_API_KEY" } as const;

describe("createCloudProvider", () => {
  it("builds each cloud adapter by name; each is UNCONFIGURED without its credential and names the variable", () => {
    for (const name of CLOUD_PROVIDER_NAMES) {
      const provider = createCloudProvider(name, { env: {} });
      assert.equal(provider.name, name);
      assert.equal(provider.kind, "cloud");
      assert.match(provider.missingConfiguration() ?? "", new RegExp(CREDENTIAL[name]));
      assert.equal(
        createCloudProvider(name, { env: { [CREDENTIAL[name]]: "  " } }).missingConfiguration() === null,
        false,
        "a blank value is not a credential",
      );
      assert.equal(createCloudProvider(name, { env: { [CREDENTIAL[name]]: "k-123456" } }).missingConfiguration(), null);
    }
  });

  it("knows exactly the cloud names the task schema accepts", () => {
    assert.deepEqual([...CLOUD_PROVIDER_NAMES].sort(), PROVIDER_NAMES.filter((n) => n !== "auto" && n !== "local").sort());
    assert.equal(isCloudProviderName("local"), false);
    assert.equal(isCloudProviderName("kernel"), true);
  });
});
