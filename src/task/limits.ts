/** Bounds of task schema v1. Changing one changes the contract: update docs/TASK_SCHEMA.md too. */
export const TASK_LIMITS = {
  urlChars: 2048,
  selectorChars: 1024,
  textChars: 10_000,
  labelChars: 200,
  taskBytes: 256 * 1024,
  minSteps: 1,
  maxSteps: 50,
  maxAllowedHosts: 20,
  hostnameChars: 253,
  attributeChars: 256,
  /** Texts one extract_text with "all" returns: "max" defaults to the first, may be raised to the second. */
  listItems: { default: 50, max: 200 },
  /** Characters kept of each text in such a list (cut inside the browser, before it leaves the page). */
  listItemChars: 2_000,
  /** Largest count an expect_count may name. */
  expectCountMax: 100_000,
  /** Per-step timeout, milliseconds. */
  stepTimeoutMs: { min: 100, max: 120_000 },
  /** Whole-task browser timeout, milliseconds. */
  taskTimeoutMs: { min: 1_000, max: 600_000 },
} as const;

export const SCHEMA_VERSION = "errand.task.v1";

/** Downloads one attempt keeps (receipt/artifactTypes ARTIFACT_LIMITS.downloadCount); an upload's {"download": N} names one of them. */
export const ARTIFACT_DOWNLOAD_COUNT = 4;
