import type { Step } from "../task/taskTypes.js";
import type { Check } from "../receipt/receiptTypes.js";

/** The actions program mode can run; every other action of the closed set is refused (generateProgram). */
export const PROGRAM_ACTIONS = [
  "goto",
  "wait_for",
  "click",
  "fill",
  "type",
  "select",
  "press",
  "check",
  "uncheck",
  "extract_text",
  "extract_attribute",
  "expect_text",
  "expect_url",
  "expect_count",
] as const satisfies readonly Step["action"][];
export type ProgramAction = (typeof PROGRAM_ACTIONS)[number];

/** The runners errand writes programs for: Browserless's /function, Kernel's execute endpoint. */
export type ProgramDialectName = "browserless_function" | "kernel_execute";

/** Bounds the program applies inside the browser, before anything leaves it. */
export interface ProgramLimits {
  /** Characters kept of one extracted value. */
  valueChars: number;
  /** Texts an extract_text with `all` returns when its step names no `max`. */
  listDefault: number;
  /** Characters kept of each text an extract_text with `all` returns. */
  listItemChars: number;
  /** Digits of a list output's number (name.001): as many as the largest list's count has. */
  listNameDigits: number;
  /** Characters kept of what a failed check saw instead. */
  observedChars: number;
  /** Characters kept of an address (the final URL, a blocked request's URL). */
  urlChars: number;
  /** Blocked requests listed one by one; the rest are only counted. */
  blockedEntries: number;
  /** Characters kept of a failure's message. */
  messageChars: number;
}

/** The task's values, as JSON data the program reads (context.params); never part of the code. */
export interface ProgramParams {
  v: 1;
  target: string;
  /** The hosts every request must be on: the target's host exactly, and the task's allowedHosts patterns. */
  hosts: {
    exact: string[];
    patterns: string[];
    /** host:port of each URL the task names with a port other than its scheme's own; no other such port is let through. */
    ports: string[];
  };
  /** True for a read_only task: every request whose method is not in readOnlyMethods is aborted. */
  readOnly: boolean;
  readOnlyMethods: string[];
  taskMs: number;
  stepMs: number;
  steps: Step[];
  limits: ProgramLimits;
}

/** The program and its data: send `code` with `params` as the provider's context. */
export interface GeneratedProgram {
  code: string;
  params: ProgramParams;
}

/** Why a task cannot run as a program: it stays with CDP mode (or is refused there). */
export interface ProgramRefusal {
  /** JSON Pointer to the field that decides it ("" for the whole task). */
  path: string;
  message: string;
}

export type ProgramResult = { ok: true; value: GeneratedProgram } | { ok: false; refusal: ProgramRefusal };

/** A check as the program reports it (the receipt's Check before errand wraps `observed`). */
export type ProgramCheck = Omit<Check, "observed"> & { observed?: string };

/**
 * What the program returns: the evidence errand builds a receipt from. Everything here came from
 * the provider's browser and from the page: errand reads it as untrusted data.
 */
export interface ProgramEvidence {
  v: 1;
  /** "completed" when every step ran and every check held. */
  status: "completed" | "failed";
  /** The HTTP status of the target's document, null when it never answered. */
  targetStatus: number | null;
  steps: { step: number; action: string; status: "passed" | "failed" | "skipped" }[];
  checks: ProgramCheck[];
  /** The first failure; step is null when the target itself did not open. */
  failure: { step: number | null; code: string; message: string } | null;
  outputs: Record<string, string>;
  finalUrl: string;
  blocked: { url: string; method: string; resourceType: string; code: "host_not_allowed" | "method_blocked" }[];
  blockedCount: number;
  popupsClosed: number;
  /** Requests let through. */
  requestsAllowed: number;
  /** Requests let through whose method may change state (the mutation boundary as observed): 0 for a read_only task. */
  writesSent: number;
  durationMs: number;
}
