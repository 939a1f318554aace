import { createHmac } from "node:crypto";
import { ErrandError } from "../errors/errandError.js";

/** The hash functions RFC 6238 names; otpauth URIs spell them SHA1, SHA256, SHA512. */
export const TOTP_ALGORITHMS = ["SHA1", "SHA256", "SHA512"] as const;
export type TotpAlgorithm = (typeof TOTP_ALGORITHMS)[number];

/** A TOTP seed and its parameters (RFC 6238): the key bytes never leave the secrets module. */
export interface TotpSeed {
  /** The shared key, base32 (RFC 4648, upper case, no padding). */
  key: string;
  digits: number;
  /** Time step in seconds. */
  period: number;
  algorithm: TotpAlgorithm;
}

const MIN_KEY_BYTES = 10;
const MAX_KEY_BYTES = 128;
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** Why a TOTP seed is refused; the message names the parameter and never quotes the key. */
export class TotpSeedError extends ErrandError {
  constructor(message: string) {
    super("invalid_totp_seed", message);
  }
}

/**
 * Reads what the owner pasted: an `otpauth://totp/...` URI (secret, and optional digits, period,
 * algorithm) or a bare base32 key (then 6 digits, 30 s, SHA1). Spaces and dashes in a bare key are
 * ignored, as authenticator setup pages print them. Anything else is refused with the parameter
 * at fault: a seed errand cannot use must never be stored.
 */
export function parseTotpSeed(raw: string): TotpSeed {
  const text = raw.trim();
  if (/^otpauth:/i.test(text)) return parseOtpauth(text);
  return { key: normalizeKey(text, "the base32 key"), digits: 6, period: 30, algorithm: "SHA1" };
}

function parseOtpauth(text: string): TotpSeed {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TotpSeedError("the otpauth URI cannot be parsed; paste it whole (otpauth://totp/Label?secret=...)");
  }
  if (url.host.toLowerCase() !== "totp")
    throw new TotpSeedError(`the otpauth URI is of type "${url.host.slice(0, 20)}"; errand types time-based codes only (otpauth://totp/...)`);
  const secret = url.searchParams.get("secret");
  if (secret === null || secret === "") throw new TotpSeedError("the otpauth URI has no secret= parameter");
  const digits = integerParam(url, "digits", 6);
  if (digits < 6 || digits > 8) throw new TotpSeedError(`digits=${digits} is not usable: a TOTP code has 6, 7 or 8 digits`);
  const period = integerParam(url, "period", 30);
  if (period < 15 || period > 300) throw new TotpSeedError(`period=${period} is not usable: give a time step from 15 to 300 seconds (30 is usual)`);
  const algorithm = (url.searchParams.get("algorithm") ?? "SHA1").toUpperCase();
  if (!(TOTP_ALGORITHMS as readonly string[]).includes(algorithm))
    throw new TotpSeedError(`algorithm=${algorithm.slice(0, 20)} is not usable: give SHA1, SHA256 or SHA512`);
  return { key: normalizeKey(secret, "secret="), digits, period, algorithm: algorithm as TotpAlgorithm };
}

function integerParam(url: URL, name: string, fallback: number): number {
  const value = url.searchParams.get(name);
  if (value === null || value === "") return fallback;
  if (!/^\d{1,4}$/.test(value)) throw new TotpSeedError(`${name}=${value.slice(0, 20)} is not a whole number`);
  return Number(value);
}

function normalizeKey(raw: string, what: string): string {
  const key = raw.replace(/[\s-]/g, "").replace(/=+$/, "").toUpperCase();
  if (key === "") throw new TotpSeedError(`${what} is empty`);
  const bad = [...key].findIndex((c) => !BASE32.includes(c));
  if (bad !== -1) throw new TotpSeedError(`${what} is not base32: character ${bad + 1} is not one of A-Z and 2-7`);
  const bytes = Math.floor((key.length * 5) / 8);
  if (bytes < MIN_KEY_BYTES) throw new TotpSeedError(`${what} holds ${bytes} bytes; a TOTP key has at least ${MIN_KEY_BYTES} (RFC 4226 asks for 16 or more)`);
  if (bytes > MAX_KEY_BYTES) throw new TotpSeedError(`${what} holds ${bytes} bytes; at most ${MAX_KEY_BYTES} are accepted`);
  return key;
}

function decodeBase32(key: string): Buffer {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of key) {
    value = (value << 5) | BASE32.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The code for the time step that holds `nowMs` (RFC 6238 with RFC 4226's dynamic truncation). */
export function totpCode(seed: TotpSeed, nowMs: number): string {
  const key = decodeBase32(seed.key);
  const counter = Math.floor(nowMs / 1000 / seed.period);
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(seed.algorithm.toLowerCase(), key).update(message).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** seed.digits).padStart(seed.digits, "0");
}

/** Whether an opened payload's seed has the shape parseTotpSeed produces (a record is checked when read). */
export function isTotpSeed(value: unknown): value is TotpSeed {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v["key"] === "string" &&
    /^[A-Z2-7]+$/.test(v["key"]) &&
    typeof v["digits"] === "number" &&
    [6, 7, 8].includes(v["digits"]) &&
    typeof v["period"] === "number" &&
    Number.isInteger(v["period"]) &&
    v["period"] >= 15 &&
    v["period"] <= 300 &&
    (TOTP_ALGORITHMS as readonly unknown[]).includes(v["algorithm"])
  );
}
