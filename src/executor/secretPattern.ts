/**
 * Finds one secret value in text the way real pages and protocols spell it, so it can be scrubbed
 * from output and recognized in outgoing requests. What counts is not only the whole value but
 * every run of at least min(8, length) consecutive characters of it (RUN_CHARS): a page that echoes
 * the value without its first character has still shown 21 of 22 characters. Each run is found
 * - case-insensitively (CSS text-transform, a site that upper-cases what it echoes);
 * - ignoring whitespace and line breaks between its characters, and in the value itself (the value
 *   split across elements, collapsed or doubled spaces, a trailing newline read from a file),
 *   including encoded whitespace ("+" and %20 of form encoding, &nbsp;, \n in JSON);
 * - with each character raw, percent-encoded (once or twice, either hex case), as an HTML numeric
 *   or named entity, or JSON-escaped, in any mix;
 * - in base64 and base64url at each of the three byte alignments, so it is found inside a longer
 *   encoded blob (an Authorization: Basic header) as well as alone.
 *
 * How: the value's runs are the windows of RUN_CHARS characters (a longer run is the union of the
 * windows it contains), held in a trie. The text is read once, left to right: at each position
 * every way a character can be spelled there is tried against the trie, and a whitespace run
 * between two characters is skipped in one step (its end is remembered per position). A state
 * (position, trie node) is explored once for the whole text, whichever start reached it first, so
 * the work is linear in the text for a given value, with no regular-expression backtracking a
 * hostile page could provoke. Only the characters of a run are matched, never the whitespace
 * around it, so scrubbing cannot eat neighbouring text. The value is kept only inside the tries.
 */
export class SecretPattern {
  private readonly tries: Trie[] = [];

  constructor(value: string) {
    const compact = codePoints(value.replace(/\s+/gu, "")).map(foldCode);
    if (compact.length > 0) this.tries.push(windowTrie([compact], Math.min(RUN_CHARS, compact.length), sameCode));
    const bytes = Buffer.from(value, "utf8");
    // The base64 characters that carry RUN_CHARS whole bytes of the value, at the worst alignment.
    const runBytes = Math.min(RUN_CHARS, bytes.length);
    const window = Math.max(MIN_BASE64_CORE, Math.min(...[0, 1, 2].map((o) => Math.floor(((o + runBytes) * 8) / 6) - Math.ceil((o * 8) / 6))));
    // Too short a core would match ordinary words; short values are refused upstream anyway.
    const cores = base64Cores(bytes)
      .filter((core) => core.length >= MIN_BASE64_CORE)
      .map((core) => codePoints(core).map((code) => base64Code(foldCode(code))));
    if (cores.length > 0) this.tries.push(windowTrie(cores, window, base64Code));
  }

  /** True when the text carries a run of the value in any spelling this pattern knows. */
  test(text: string): boolean {
    return this.tries.some((trie) => scan(text, trie, true).length > 0);
  }

  /** Replaces every spelling of every run of the value with `replacement`. */
  replace(text: string, replacement: string): string {
    const spans = mergeSpans(this.tries.flatMap((trie) => scan(text, trie, false)));
    if (spans.length === 0) return text;
    let out = "";
    let at = 0;
    for (const [start, end] of spans) {
      out += text.slice(at, start) + replacement;
      at = end;
    }
    return out + text.slice(at);
  }
}

/** The shortest run of a value that is scrubbed and refused: a whole value shorter than this is matched whole. */
export const RUN_CHARS = 8;
const MIN_BASE64_CORE = 6;

/** One trie node: a character of a run (as a case-folded code point); `accept` where a whole window ends. */
interface TrieNode {
  id: number;
  depth: number;
  children: Map<number, TrieNode>;
  /** The children whose character can also begin a separator ("+", "%", "&", "\\"). */
  separatorChildren: number[];
  accept: boolean;
}

interface Trie {
  root: TrieNode;
  size: number;
  /** Maps a character as read from the text (already case-folded) to the trie's alphabet. */
  map: (code: number) => number;
}

/** Every `window`-character substring of each sequence (or the whole sequence, when shorter). */
function windowTrie(sequences: number[][], window: number, map: (code: number) => number): Trie {
  const node = (id: number, depth: number): TrieNode => ({ id, depth, children: new Map(), separatorChildren: [], accept: false });
  const trie: Trie = { root: node(0, 0), size: 1, map };
  for (const sequence of sequences) {
    const length = Math.min(window, sequence.length);
    for (let start = 0; start + length <= sequence.length; start += 1) {
      let at = trie.root;
      for (let index = start; index < start + length; index += 1) {
        const code = sequence[index] ?? 0;
        let child = at.children.get(code);
        if (child === undefined) {
          child = node(trie.size, at.depth + 1);
          trie.size += 1;
          at.children.set(code, child);
          if (SEPARATOR_STARTS.includes(code)) at.separatorChildren.push(code);
        }
        at = child;
      }
      at.accept = true;
    }
  }
  return trie;
}

/** A separator unit (code -1), or a character unit (a case-folded code point), ending at `end`. */
interface Unit {
  end: number;
  code: number;
}

const SEPARATOR = -1;
const PLUS = 0x2b;
const PERCENT_SIGN = 0x25;
const AMPERSAND = 0x26;
const BACKSLASH = 0x5c;
/** Characters a separator unit can start with; before one of them the whitespace run may also stop early. */
const SEPARATOR_STARTS = [PLUS, PERCENT_SIGN, AMPERSAND, BACKSLASH];
/**
 * The (position, node) states a scan has explored: an open-addressing table sized to the text (at
 * most 2^16 slots), emptied when half full (forgetting a state only costs exploring it again, never
 * a missed match).
 */
class StateSet {
  private readonly bits: number;
  private readonly positions: Int32Array;
  private readonly nodes: Int32Array;
  private size = 0;

  constructor(textLength: number) {
    this.bits = Math.min(16, Math.max(6, Math.ceil(Math.log2(textLength + 1)) + 1));
    this.positions = new Int32Array(1 << this.bits).fill(-1);
    this.nodes = new Int32Array(1 << this.bits);
  }

  /** Adds the state; false when it was there already. */
  add(position: number, node: number): boolean {
    const slots = this.positions.length;
    if (this.size >= slots / 2) {
      this.positions.fill(-1);
      this.size = 0;
    }
    let slot = (Math.imul(position, 0x9e3779b1) ^ Math.imul(node, 0x85ebca6b)) >>> (32 - this.bits);
    for (;;) {
      const at = this.positions[slot] ?? -1;
      if (at === -1) break;
      if (at === position && this.nodes[slot] === node) return false;
      slot = (slot + 1) & (slots - 1);
    }
    this.positions[slot] = position;
    this.nodes[slot] = node;
    this.size += 1;
    return true;
  }
}

/**
 * The spans [start, end) of the text that spell a window of the trie (the first one only, when
 * `first`). Positions are visited left to right; from each, every character unit starting there
 * is followed into the trie, and after each character the next one may follow directly, after the
 * whole whitespace run (separator units) that starts there, or, for a character that can itself
 * begin a separator ("+", "%", "&", "\\"), at its first place inside that run. A (position, node)
 * state reached again is not explored again: whatever it reaches was marked from an earlier start.
 */
function scan(text: string, trie: Trie, first: boolean): [number, number][] {
  const spans: [number, number][] = [];
  const map = trie.map;
  const runEnd = new Map<number, number>();
  const firstInRun = new Map<number, number>();
  const seen = new StateSet(text.length);
  let found = false;

  /** The end of the whitespace run (separator units, one after another) that starts at `position`. */
  const separatorEnd = (position: number): number => {
    if (!mayStartSeparator(text.charCodeAt(position))) return position;
    const cached = runEnd.get(position);
    if (cached !== undefined) return cached;
    const chain: number[] = [];
    let at = position;
    let end = position;
    for (;;) {
      const known = runEnd.get(at);
      if (known !== undefined) {
        end = known;
        break;
      }
      chain.push(at);
      const next = separatorAt(text, at);
      if (next < 0) {
        end = at;
        break;
      }
      at = next;
    }
    for (const visited of chain) runEnd.set(visited, end);
    return end;
  };

  /** The first position from `position` along its whitespace run (itself included) where `code` is written raw, or -1. */
  const firstInSeparators = (position: number, code: number): number => {
    const chain: number[] = [];
    let at = position;
    let result: number;
    for (;;) {
      const known = firstInRun.get(at * 4 + SEPARATOR_STARTS.indexOf(code));
      if (known !== undefined) {
        result = known;
        break;
      }
      chain.push(at);
      if (text.charCodeAt(at) === code) {
        result = at;
        break;
      }
      const next = separatorAt(text, at);
      if (next < 0) {
        result = -1;
        break;
      }
      at = next;
    }
    for (const visited of chain) firstInRun.set(visited * 4 + SEPARATOR_STARTS.indexOf(code), result);
    return result;
  };

  const mark = (start: number, end: number): void => {
    found = true;
    const last = spans[spans.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else spans.push([start, end]);
  };

  /** Follows every character unit at `position` from `node`. */
  const step = (start: number, position: number, node: TrieNode): void => {
    const unit = text.charCodeAt(position);
    if (Number.isNaN(unit) || isSpace(unit)) return;
    if (!mayStartSeparator(unit) && !isSurrogate(unit)) {
      const child = node.children.get(map(foldCode(unit)));
      if (child !== undefined) visit(start, position + 1, child);
      return;
    }
    for (const each of unitsAt(text, position)) {
      if (each.code === SEPARATOR) continue;
      const child = node.children.get(map(each.code));
      if (child !== undefined) visit(start, each.end, child);
      if (found && first) return;
    }
  };

  const visit = (start: number, position: number, node: TrieNode): void => {
    if (found && first) return;
    // A first character is reached from at most a few starts; deeper states are remembered.
    if (node.depth > 1) {
      if (!seen.add(position, node.id)) return;
    }
    if (node.accept) {
      mark(start, position);
      if (first) return;
    }
    if (node.children.size === 0) return;
    step(start, position, node);
    const end = separatorEnd(position);
    if (end !== position) step(start, end, node);
    for (const code of node.separatorChildren) {
      const at = firstInSeparators(position, code);
      if (at >= 0 && at !== position && at !== end) step(start, at, node);
    }
  };

  const root = trie.root;
  for (let start = 0; start < text.length; start += 1) {
    // The common case without a call: a plain character, then a plain character that goes nowhere.
    const unit = text.charCodeAt(start);
    if (isPlain(unit)) {
      const child = root.children.get(map(foldCode(unit)));
      if (child === undefined) continue;
      const next = text.charCodeAt(start + 1);
      if (!child.accept && isPlain(next) && !child.children.has(map(foldCode(next)))) continue;
      visit(start, start + 1, child);
    } else step(start, start, root);
    if (found && first) break;
  }
  return spans;
}

function mergeSpans(spans: [number, number][]): [number, number][] {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** True for a UTF-16 unit that may begin something other than one plain character: an encoding, a separator, a surrogate pair. */
function mayStartSeparator(unit: number): boolean {
  return unit === PLUS || unit === PERCENT_SIGN || unit === AMPERSAND || unit === BACKSLASH || isSpace(unit);
}

/** A UTF-16 unit that is one whole character and neither whitespace nor the start of an encoding. */
function isPlain(unit: number): boolean {
  return !Number.isNaN(unit) && !mayStartSeparator(unit) && !isSurrogate(unit);
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

/** JavaScript's \s, for one code point. */
function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

const PERCENT_ONCE = /%([0-9a-f]{2})/iy;
const PERCENT_TWICE = /%25([0-9a-f]{2})/iy;
const DECIMAL_ENTITY = /&#0*([0-9]{1,7});/iy;
const HEX_ENTITY = /&#x0*([0-9a-f]{1,6});/iy;
const NAMED_ENTITY = /&(amp|lt|gt|quot|apos|nbsp);/iy;
const JSON_ESCAPE = /\\(["\\/nrt])/y;
const JSON_UNICODE = /\\u([0-9a-f]{4})/iy;
const NAMED: Record<string, number> = { amp: 0x26, lt: 0x3c, gt: 0x3e, quot: 0x22, apos: 0x27, nbsp: 0xa0 };
const JSON_CHARS: Record<string, number> = { '"': 0x22, "\\": 0x5c, "/": 0x2f, n: 0x0a, r: 0x0d, t: 0x09 };

/** Where the separator unit starting at `position` ends, or -1 when none starts there. */
function separatorAt(text: string, position: number): number {
  const unit = text.charCodeAt(position);
  if (unit === PLUS || isSpace(unit)) return position + 1;
  if (!mayStartSeparator(unit)) return -1;
  for (const unit of unitsAt(text, position)) if (unit.code === SEPARATOR) return unit.end;
  return -1;
}

/**
 * Every unit that starts at `position`: the raw character; for "%", "&" and "\\" the character an
 * encoding there spells. Whitespace, in any spelling, is a separator unit; "+" is both a character
 * and a separator (form encoding of a space).
 */
function unitsAt(text: string, position: number): Unit[] {
  const raw = text.codePointAt(position);
  if (raw === undefined) return [];
  const units: Unit[] = [unitOf(raw, position + (raw > 0xffff ? 2 : 1))];
  if (raw === PLUS) units.push({ end: position + 1, code: SEPARATOR });
  else if (raw === PERCENT_SIGN) units.push(...percentUnits(text, position));
  else if (raw === AMPERSAND) {
    const decimal = matchAt(DECIMAL_ENTITY, text, position);
    if (decimal !== null) pushCodePoint(units, Number.parseInt(decimal[1] ?? "", 10), position + decimal[0].length);
    const hex = matchAt(HEX_ENTITY, text, position);
    if (hex !== null) pushCodePoint(units, Number.parseInt(hex[1] ?? "", 16), position + hex[0].length);
    const named = matchAt(NAMED_ENTITY, text, position);
    if (named !== null) pushCodePoint(units, NAMED[(named[1] ?? "").toLowerCase()] ?? -1, position + named[0].length);
  } else if (raw === BACKSLASH) {
    const escape = matchAt(JSON_ESCAPE, text, position);
    if (escape !== null) pushCodePoint(units, JSON_CHARS[escape[1] ?? ""] ?? -1, position + escape[0].length);
    const unicode = matchAt(JSON_UNICODE, text, position);
    if (unicode !== null) {
      const high = Number.parseInt(unicode[1] ?? "", 16);
      const low = high >= 0xd800 && high <= 0xdbff ? matchAt(JSON_UNICODE, text, position + 6) : null;
      const lowCode = low === null ? 0 : Number.parseInt(low[1] ?? "", 16);
      if (low !== null && lowCode >= 0xdc00 && lowCode <= 0xdfff) pushCodePoint(units, 0x10000 + ((high - 0xd800) << 10) + (lowCode - 0xdc00), position + 12);
      else pushCodePoint(units, high, position + 6);
    }
  }
  return units;
}

/** "%XX" or "%25XX" sequences (each form on its own) spelling one UTF-8 character; "%a0" alone is a space. */
function percentUnits(text: string, position: number): Unit[] {
  const units: Unit[] = [];
  for (const pattern of [PERCENT_ONCE, PERCENT_TWICE]) {
    const bytes: number[] = [];
    let at = position;
    for (;;) {
      const match = matchAt(pattern, text, at);
      if (match === null) break;
      bytes.push(Number.parseInt(match[1] ?? "", 16));
      at += match[0].length;
      if (bytes.length >= utf8Length(bytes[0] ?? 0)) break;
    }
    if (bytes.length === 0) continue;
    if (bytes.length === 1 && bytes[0] === 0xa0) {
      units.push({ end: at, code: SEPARATOR });
      continue;
    }
    if (bytes.length !== utf8Length(bytes[0] ?? 0)) continue;
    const decoded = Buffer.from(bytes).toString("utf8");
    const code = decoded.codePointAt(0);
    if (code === undefined || code === 0xfffd || decoded.length !== (code > 0xffff ? 2 : 1)) continue;
    units.push(unitOf(code, at));
  }
  return units;
}

function utf8Length(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  return 2;
}

function pushCodePoint(units: Unit[], code: number, end: number): void {
  if (!Number.isInteger(code) || code < 0 || code > 0x10ffff) return;
  units.push(unitOf(code, end));
}

function unitOf(code: number, end: number): Unit {
  return { end, code: isSpace(code) ? SEPARATOR : foldCode(code) };
}

function matchAt(pattern: RegExp, text: string, position: number): RegExpExecArray | null {
  pattern.lastIndex = position;
  return pattern.exec(text);
}

function codePoints(text: string): number[] {
  return [...text].map((character) => character.codePointAt(0) ?? 0);
}

const folded = new Map<number, number>();

/** Case folding for one code point (lower case, when that is one code point too): the comparison is case-insensitive. */
function foldCode(code: number): number {
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
  const known = folded.get(code);
  if (known !== undefined) return known;
  const lower = String.fromCodePoint(code).toLowerCase();
  const single = lower.codePointAt(0) ?? code;
  const result = lower.length === (single > 0xffff ? 2 : 1) ? single : code;
  folded.set(code, result);
  return result;
}

function sameCode(code: number): number {
  return code;
}

/** base64url's two characters are base64's, for comparing cores. */
function base64Code(code: number): number {
  if (code === 0x2d) return PLUS;
  if (code === 0x5f) return 0x2f;
  return code;
}

/**
 * The base64 characters that depend only on the value's bytes, for the value starting at byte
 * offset 0, 1 and 2 of a longer encoded input (the characters shared with neighbouring bytes are
 * dropped), so any base64 text that contains the value contains one of these cores, and any that
 * contains a run of it contains a run of one of them.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores = new Set<string>();
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const first = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    if (end > first) cores.add(encoded.slice(first, end));
  }
  return [...cores];
}
