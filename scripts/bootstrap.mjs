// Makes a fresh clone runnable with no other step: installs Debian chromium when it is missing
// (as root, through apt-get), installs npm dependencies when node_modules is missing or older than
// the lockfile, and builds dist/ when it is missing or older than src/. Uses only Node built-ins.
// Everything it prints, installers' logs included, goes to stderr, so stdout carries only what the
// command after it prints (the demo's receipts); each phase says what it did in one line.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const CHROMIUM_PATHS = ["/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

const PHASES = 3;

function phase(n, text) {
  console.error(`bootstrap [${n}/${PHASES}] ${text}`);
}

function run(command, args, label) {
  console.error(`bootstrap: ${label}`);
  // The child's stdout goes to our stderr (fd 2): install logs never mix with the demo's output.
  const result = spawnSync(command, args, { stdio: ["ignore", 2, 2], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (result.status !== 0) {
    console.error(`bootstrap: "${command} ${args.join(" ")}" failed (exit ${result.status ?? "signal"})`);
    process.exit(result.status ?? 1);
  }
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    const info = statSync(full);
    newest = Math.max(newest, info.isDirectory() ? newestMtime(full) : info.mtimeMs);
  }
  return newest;
}

const hasChromium = process.env.CHROME_PATH ? existsSync(process.env.CHROME_PATH) : CHROMIUM_PATHS.some((p) => existsSync(p));
if (hasChromium) phase(1, "chromium: already installed");
else {
  if (process.getuid?.() === 0) {
    run("apt-get", ["update", "-qq"], "updating Debian package lists");
    run("apt-get", ["install", "-y", "-qq", "chromium"], "installing Debian chromium");
    phase(1, "chromium: installed from Debian");
  } else {
    console.error("bootstrap: Chromium is missing. Install it with: sudo apt-get install -y chromium (or set CHROME_PATH).");
    process.exit(1);
  }
}

const lockTime = statSync("package-lock.json").mtimeMs;
const installed = existsSync("node_modules/.package-lock.json") ? statSync("node_modules/.package-lock.json").mtimeMs : 0;
if (installed < lockTime) {
  run("npm", ["ci", "--no-audit", "--no-fund"], "installing npm dependencies");
  phase(2, "npm dependencies: installed (npm ci)");
} else phase(2, "npm dependencies: up to date");

const built = existsSync("dist/src/interfaces/cli/main.js") ? statSync("dist/src/interfaces/cli/main.js").mtimeMs : 0;
if (built < newestMtime("src")) {
  run(process.execPath, ["scripts/build.mjs"], "building dist/");
  phase(3, "dist/: built");
} else phase(3, "dist/: up to date");
