import type { ErrorCode } from "../errors/errorCodes.js";
import type { Problem } from "../errors/result.js";
import { pointer } from "./jsonPointer.js";

export type JsonObject = Record<string, unknown>;

/** With the u flag a surrogate pair is one code point, so this matches only an unpaired half. */
const LONE_SURROGATE = /\p{Cs}/u;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Collects problems while reading fields of untrusted JSON. Every read checks the type and bounds
 * and records a coded problem with the field's JSON Pointer instead of throwing.
 */
export class FieldReader {
  readonly problems: Problem[] = [];

  report(code: ErrorCode, path: string, message: string): void {
    this.problems.push({ code, path, message });
  }

  /** Reports every key of `object` that is not in `known`, at the key's own path. */
  rejectUnknownKeys(object: JsonObject, known: readonly string[], base: string, where: string): void {
    for (const key of Object.keys(object)) {
      if (!known.includes(key)) {
        this.report("unknown_field", pointer(base, key), `${where} has no field "${clip(key)}"; allowed fields are ${known.join(", ")}.`);
      }
    }
  }

  string(object: JsonObject, key: string, base: string, bounds: { min?: number; max: number; required: boolean }): string | undefined {
    const path = pointer(base, key);
    if (!Object.hasOwn(object, key)) {
      if (bounds.required) this.report("missing_field", path, `"${key}" is required.`);
      return undefined;
    }
    const value = object[key];
    if (typeof value !== "string") {
      this.report("invalid_type", path, `"${key}" must be a string, not ${describeType(value)}.`);
      return undefined;
    }
    if (LONE_SURROGATE.test(value)) {
      // RFC 8785 canonical JSON (and so the digest) is defined only for well-formed Unicode text.
      this.report("invalid_type", path, `"${key}" must be valid Unicode text; it holds an unpaired surrogate (U+D800 to U+DFFF).`);
      return undefined;
    }
    if (value.length < (bounds.min ?? 0)) {
      this.report("too_short", path, `"${key}" must not be empty.`);
      return undefined;
    }
    if (value.length > bounds.max) {
      this.report("too_long", path, `"${key}" is ${value.length} characters; the limit is ${bounds.max}.`);
      return undefined;
    }
    return value;
  }

  boolean(object: JsonObject, key: string, base: string, fallback: boolean): boolean {
    if (!Object.hasOwn(object, key)) return fallback;
    const value = object[key];
    if (typeof value !== "boolean") {
      this.report("invalid_type", pointer(base, key), `"${key}" must be true or false, not ${describeType(value)}.`);
      return fallback;
    }
    return value;
  }

  choice<T extends string>(object: JsonObject, key: string, base: string, allowed: readonly T[], fallback?: T): T | undefined {
    const path = pointer(base, key);
    if (!Object.hasOwn(object, key)) {
      if (fallback === undefined) this.report("missing_field", path, `"${key}" is required: one of ${allowed.join(", ")}.`);
      return fallback;
    }
    const value = object[key];
    if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
      const shown = typeof value === "string" ? `"${clip(value)}"` : describeType(value);
      this.report("invalid_enum", path, `"${key}" must be one of ${allowed.join(", ")}; got ${shown}.`);
      return fallback;
    }
    return value as T;
  }

  integer(object: JsonObject, key: string, base: string, bounds: { min: number; max: number }, unit = "milliseconds"): number | undefined {
    if (!Object.hasOwn(object, key)) return undefined;
    const value = object[key];
    if (typeof value !== "number" || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
      this.report("invalid_number", pointer(base, key), `"${key}" must be a whole number of ${unit} from ${bounds.min} to ${bounds.max}.`);
      return undefined;
    }
    return wholeNumber(value);
  }

  object(object: JsonObject, key: string, base: string, required: boolean): JsonObject | undefined {
    const path = pointer(base, key);
    if (!Object.hasOwn(object, key)) {
      if (required) this.report("missing_field", path, `"${key}" is required.`);
      return undefined;
    }
    const value = object[key];
    if (!isJsonObject(value)) {
      this.report("invalid_type", path, `"${key}" must be an object, not ${describeType(value)}.`);
      return undefined;
    }
    return value;
  }

  array(object: JsonObject, key: string, base: string, required: boolean): unknown[] | undefined {
    const path = pointer(base, key);
    if (!Object.hasOwn(object, key)) {
      if (required) this.report("missing_field", path, `"${key}" is required.`);
      return undefined;
    }
    const value = object[key];
    if (!Array.isArray(value)) {
      this.report("invalid_type", path, `"${key}" must be an array, not ${describeType(value)}.`);
      return undefined;
    }
    return value as unknown[];
  }
}

/** Keeps echoed user text short in messages. */
export function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * A whole number as a normalized task holds it: -0 (which a caller's object can hold and JSON text
 * cannot) is 0, so a task reads the same whether it arrives as a value or as text.
 */
export function wholeNumber(value: number): number {
  return value === 0 ? 0 : value;
}
