import { readFileSync } from "node:fs";

/** errand's version, as --version and the HTTP capabilities report it (kept equal to package.json by a test). */
export const VERSION = "0.1.0";

/**
 * The commit this errand was built from: scripts/build.mjs records it in dist/src/buildInfo.json
 * next to the compiled code. "unknown" when running from source (tsx) or when the build had no git
 * checkout to ask; a build from a work tree with uncommitted source changes ends in "-dirty".
 */
export const BUILD_COMMIT = readBuildCommit(new URL("../../buildInfo.json", import.meta.url));

export function readBuildCommit(file: URL): string {
  try {
    const info = JSON.parse(readFileSync(file, "utf8")) as { commit?: unknown };
    return typeof info.commit === "string" && /^([0-9a-f]{40}(-dirty)?|unknown)$/.test(info.commit) ? info.commit : "unknown";
  } catch {
    return "unknown";
  }
}

/** What `errand --version` prints: the version and the build's commit. */
export function versionLine(): string {
  return `errand ${VERSION} (commit ${BUILD_COMMIT})`;
}
