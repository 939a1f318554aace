// Builds dist/ for running and packing: removes the old dist/src (so a deleted source leaves no stale
// module behind), compiles src/ with tsconfig.build.json (no source maps or declarations: the package
// ships JavaScript only, so there is nothing a map could point at), and records the build in
// dist/src/buildInfo.json ({version, commit}), which `errand --version`, errand_capabilities and
// errand_build_info report. The commit is `git rev-parse HEAD` with "-dirty" when the work tree has
// uncommitted changes, or "unknown" outside a git checkout (a build from a release tarball).
// BUILD_COMMIT_SHA (40 hex digits) names it where git is absent, as in deploy/Dockerfile's build.
// Uses only Node built-ins and the TypeScript compiler in node_modules.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

function git(args) {
  const result = spawnSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function buildCommit() {
  const given = process.env.BUILD_COMMIT_SHA ?? "";
  if (/^[0-9a-f]{40}$/.test(given)) return given;
  const head = git(["rev-parse", "--verify", "HEAD"]);
  if (head === undefined || !/^[0-9a-f]{40}$/.test(head)) return "unknown";
  const changes = git(["status", "--porcelain", "--untracked-files=no", "--", "src"]);
  return changes === undefined || changes === "" ? head : `${head}-dirty`;
}

rmSync("dist/src", { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const { version } = JSON.parse(readFileSync("package.json", "utf8"));
const info = { version, commit: buildCommit() };
mkdirSync("dist/src", { recursive: true });
writeFileSync("dist/src/buildInfo.json", `${JSON.stringify(info)}\n`);
console.error(`build: dist/ for errand ${info.version} (commit ${info.commit})`);
