// The deploy files against the code: the systemd unit's settings are serve's options, it passes
// systemd-analyze verify, it keeps its hardening; the Dockerfile and compose file name only
// variables errand reads; the Dockerfile passes a linter and runs a Node line errand supports.
// (Docker cannot build or run here; these are static checks.)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SERVE_FLAG_ENV, serveCommand } from "../../src/interfaces/cli/commands/serve.js";
import { parseTrustedProxies } from "../../src/interfaces/http/clientAddress.js";
import { validate as validateDockerfile } from "dockerfile-utils";

const read = (name: string) => readFileSync(new URL(`../../deploy/${name}`, import.meta.url), "utf8");
const unit = read("errand.service");
const scratch = mkdtempSync(join(tmpdir(), "errand-deploy-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Every line `Key=value` of the unit (comments dropped), in order. */
function directives(text: string): [string, string][] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#") && !l.startsWith("[") && l.includes("="))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]);
}

function sourceText(dir: string): string {
  return readdirSync(dir)
    .map((entry) => join(dir, entry))
    .map((path) => (statSync(path).isDirectory() ? sourceText(path) : path.endsWith(".ts") ? readFileSync(path, "utf8") : ""))
    .join("\n");
}
const SOURCE = sourceText(new URL("../../src", import.meta.url).pathname);

describe("deploy/errand.service", () => {
  const all = directives(unit);
  const values = (key: string) => all.filter(([k]) => k === key).map(([, v]) => v);

  test("every serve flag has an ERRAND_* variable, and the unit's variables are serve's", () => {
    assert.deepEqual(Object.keys(SERVE_FLAG_ENV).sort(), Object.keys(serveCommand.options).sort(), "a variable for every flag, and no variable without a flag");
    const environment = new Map(values("Environment").map((v) => [v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1)]));
    for (const name of ["ERRAND_HOST", "ERRAND_PORT", "ERRAND_LOG_FORMAT"]) assert.ok(environment.has(name), name);
    const known = new Set(Object.values(SERVE_FLAG_ENV));
    for (const name of environment.keys()) assert.ok(known.has(name) || SOURCE.includes(`"${name}"`), `${name} is a variable errand reads`);
    assert.equal(environment.get("ERRAND_HOST"), "127.0.0.1", "behind a reverse proxy or tunnel, errand listens on loopback");
    const exec = values("ExecStart")[0] ?? "";
    assert.match(exec, / serve$/);
    for (const flag of exec.match(/--[a-z-]+/g) ?? []) assert.ok(flag.slice(2) in serveCommand.options, flag);
  });

  test("runs as its own unprivileged user with its state directory and the hardening the issue asks for", () => {
    assert.equal(values("User")[0], "errand");
    assert.equal(values("StateDirectory")[0], "errand");
    assert.equal(values("StateDirectoryMode")[0], "0700");
    for (const [key, value] of [
      ["NoNewPrivileges", "yes"],
      ["ProtectSystem", "strict"],
      ["ProtectHome", "yes"],
      ["PrivateTmp", "yes"],
      ["RestrictSUIDSGID", "yes"],
      ["CapabilityBoundingSet", ""],
      ["IPAddressAllow", "localhost"],
    ]) {
      assert.deepEqual(values(key ?? ""), [value], key);
    }
    const denied = (values("IPAddressDeny")[0] ?? "").split(/\s+/);
    for (const range of ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "fc00::/7", "fe80::/10"])
      assert.ok(denied.includes(range), range);
    assert.ok(!denied.some((r) => r.startsWith("127.") || r === "::1/128"), "loopback stays reachable");
  });

  test(
    "systemd-analyze verify accepts it without a warning",
    { skip: spawnSync("systemd-analyze", ["--version"]).status === 0 ? false : "systemd-analyze is not installed" },
    () => {
      const copy = join(scratch, "errand.service");
      copyFileSync(new URL("../../deploy/errand.service", import.meta.url), copy);
      const result = spawnSync("systemd-analyze", ["verify", copy], { encoding: "utf8" });
      assert.equal(result.status, 0, result.stderr);
      const warnings = result.stderr.split("\n").filter((l) => l.includes("errand.service"));
      assert.deepEqual(warnings, [], result.stderr);
    },
  );
});

describe("deploy/Dockerfile and deploy/compose.yaml", () => {
  const dockerfile = read("Dockerfile");
  const compose = read("compose.yaml");

  test("every stage is the official Node image of one LTS line that package.json's engines admit and CI runs the store tests on; Chromium from Debian, no Debian Node.js", () => {
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1] ?? "");
    assert.ok(froms.length >= 1, "a FROM line");
    assert.equal(new Set(froms).size, 1, `one image for every stage: ${froms.join(", ")}`);
    const image = /^node:(\d+)-trixie-slim$/.exec(froms[0] ?? "");
    assert.ok(image !== null, `${froms[0]} is node:<major>-trixie-slim (Debian 13, whose Chromium the image installs)`);
    const major = Number(image[1]);
    assert.equal(major % 2, 0, `Node ${major} is an even (long-term support) line`);
    const engines = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines: { node: string } }).engines.node;
    const floor = /^>=\s*(\d+)(?:\.\d+){0,2}$/.exec(engines.trim());
    assert.ok(floor !== null, `package.json engines.node "${engines}" is read as ">=N" here; teach this test its new form`);
    assert.ok(major >= Number(floor[1]), `Node ${major} satisfies engines ${engines}`);
    const ciMajors =
      /NODE_MAJORS="\$\{ERRAND_CI_NODE_MAJORS:-([\d ]+)\}"/.exec(readFileSync(new URL("../../.ci/other-nodes", import.meta.url), "utf8"))?.[1]?.split(" ") ??
      [];
    assert.ok(ciMajors.includes(String(major)), `CI's other-nodes runs the store tests on Node ${major} (it runs ${ciMajors.join(", ")})`);
    const installs = [...dockerfile.matchAll(/apt-get install -y --no-install-recommends ([^\\\n]+)/g)].map((m) => (m[1] ?? "").trim().split(/\s+/));
    assert.ok(
      installs.some((packages) => packages.includes("chromium")),
      "Chromium from Debian",
    );
    assert.ok(
      !installs.some((packages) => packages.includes("nodejs") || packages.includes("npm")),
      "Debian's own Node.js (20 in trixie, past its end of life) is not installed beside the image's",
    );
  });

  test("the Dockerfile passes a Dockerfile linter (dockerfile-utils, every finding counts)", () => {
    const findings = validateDockerfile(dockerfile).map(
      (d) => `line ${d.range.start.line + 1}: ${typeof d.message === "string" ? d.message : d.message.value}`,
    );
    assert.deepEqual(findings, []);
    // The linter is live: it finds what a typo would bring.
    assert.ok(validateDockerfile(dockerfile.replace("COPY src ./src", "COPPY src ./src")).length > 0);
  });

  test("the image runs as a non-root user and probes /healthz", () => {
    const user = [...dockerfile.matchAll(/^USER (\S+)/gm)].map((m) => m[1]).at(-1);
    assert.ok(user !== undefined && user !== "root" && user !== "0", `USER ${String(user)}`);
    assert.match(dockerfile, /HEALTHCHECK[\s\S]*\/healthz/);
  });

  test("compose puts a TLS reverse proxy in front and publishes no errand port; every ERRAND_* name is one errand reads", () => {
    assert.match(compose, /^ {2}caddy:/m);
    assert.match(read("Caddyfile"), /reverse_proxy errand:8787/);
    const errandService = compose.slice(compose.indexOf("  errand:"), compose.indexOf("  caddy:"));
    assert.doesNotMatch(errandService, /^\s+ports:/m, "only the proxy is reachable from outside");
    const names = new Set([...`${compose}\n${dockerfile}\n${unit}\n${read("errand.env.example")}`.matchAll(/\b(ERRAND_[A-Z_]+)\b/g)].map((m) => m[1] ?? ""));
    names.delete("ERRAND_DOMAIN"); // compose's own variable for Caddy, not errand's
    for (const name of names) {
      const base = name.endsWith("_FILE") ? name.slice(0, -5) : name;
      assert.ok(SOURCE.includes(`"${name}"`) || SOURCE.includes(`"${base}"`), `${name} is read by errand`);
    }
  });
});

describe("the client's address behind the shipped proxies", () => {
  // Without ERRAND_TRUSTED_PROXIES every client looks like the proxy, and one stranger's wrong
  // owner passwords lock the owner out: each topology must trust exactly its proxy.
  const strangers = ["203.0.113.9", "198.51.100.7", "10.9.9.9", "2001:db8::1"];

  test("compose trusts Caddy's fixed address on its pinned network, and nothing else", () => {
    const compose = read("compose.yaml");
    const errandService = compose.slice(compose.indexOf("  errand:"), compose.indexOf("  caddy:"));
    const caddyService = compose.slice(compose.indexOf("  caddy:"), compose.search(/^secrets:/m));
    const trusted = /^\s+ERRAND_TRUSTED_PROXIES: "([^"]+)"/m.exec(errandService)?.[1];
    assert.ok(trusted !== undefined, "the errand service sets ERRAND_TRUSTED_PROXIES");
    const caddyAddress = /ipv4_address: (\S+)/.exec(caddyService)?.[1] ?? "";
    const subnet = /subnet: (\S+)/.exec(compose.slice(compose.search(/^networks:/m)))?.[1] ?? "";
    assert.ok(parseTrustedProxies(subnet).has(caddyAddress), `Caddy's ${caddyAddress} lies in the pinned ${subnet}`);
    const proxies = parseTrustedProxies(trusted);
    assert.ok(proxies.has(caddyAddress), `${trusted} covers Caddy's ${caddyAddress}`);
    for (const other of strangers) assert.ok(!proxies.has(other), `${other} is not trusted`);
    assert.match(errandService, /networks:\s+- edge/, "errand is on Caddy's network");
  });

  test("the systemd unit listens on loopback and trusts only a proxy or tunnel on the same host", () => {
    const environment = new Map(
      directives(unit)
        .filter(([k]) => k === "Environment")
        .map(([, v]) => [v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1)]),
    );
    assert.equal(environment.get("ERRAND_HOST"), "127.0.0.1");
    const proxies = parseTrustedProxies(environment.get("ERRAND_TRUSTED_PROXIES"));
    assert.ok(proxies.has("127.0.0.1") && proxies.has("::1"), "a same-host proxy's X-Forwarded-For is read");
    for (const other of strangers) assert.ok(!proxies.has(other), `${other} is not trusted`);
    assert.match(read("errand.env.example"), /^#?ERRAND_TRUSTED_PROXIES=/m, "the environment file shows where a remote proxy goes");
  });

  test("every proxy or tunnel snippet in the docs starts errand with ERRAND_TRUSTED_PROXIES, and nginx passes X-Forwarded-For", () => {
    let snippets = 0;
    for (const doc of ["CHATGPT_SETUP.md", "OPERATIONS.md"]) {
      const text = readFileSync(new URL(`../../docs/${doc}`, import.meta.url), "utf8");
      for (const block of text.split("```").filter((_, i) => i % 2 === 1)) {
        if (!/reverse_proxy|proxy_pass|serve --public-url/.test(block)) continue;
        snippets += 1;
        assert.match(block, /ERRAND_TRUSTED_PROXIES=127\.0\.0\.1/, `${doc}: this snippet sets ERRAND_TRUSTED_PROXIES:\n${block}`);
        if (block.includes("proxy_pass"))
          assert.match(block, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/, `${doc}: nginx passes the client's address`);
      }
    }
    assert.ok(snippets >= 4, `${snippets} snippets checked`);
  });
});
