/**
 * Finds one secret value in text the way real pages and protocols spell it, so it can be scrubbed
 * from output and recognized in outgoing requests:
 *
 * - case-insensitively (CSS text-transform, a site that upper-cases what it echoes);
 * - ignoring whitespace and line breaks inside the match, and in the value itself (the value split
 *   across elements, collapsed or doubled spaces, a trailing newline read from a file), including
 *   encoded whitespace ("+" and %20 of form encoding, &nbsp;, \n in JSON);
 * - each character raw, percent-encoded (once or twice, either hex case), as an HTML numeric or
 *   named entity, or JSON-escaped, in any mix;
 * - base64 and base64url of the value at each of the three byte alignments, so it is found inside
 *   a longer encoded blob (an Authorization: Basic header) as well as alone.
 *
 * Only the characters of the value are matched; the pattern never spans more than one spelling of
 * the value, so scrubbing it cannot eat neighbouring text. Values are kept only inside the RegExp.
 */
export class SecretPattern {
  private readonly patterns: RegExp[];

  constructor(value: string) {
    const compact = [...value.replace(/\s+/gu, "")];
    const sources: string[] = [];
    if (compact.length > 0) sources.push(joinWithSeparators(compact.map((literal) => ({ pattern: characterAlternatives(literal), literal }))));
    for (const core of base64Cores(Buffer.from(value, "utf8"))) {
      // Too short a core would match ordinary words; short values are refused upstream anyway.
      if (core.length >= MIN_BASE64_CORE) sources.push(joinWithSeparators([...core].map((literal) => ({ pattern: base64CharacterAlternatives(literal), literal }))));
    }
    this.patterns = sources.map((source) => new RegExp(source, "giu"));
  }

  /** True when the text carries the value in any spelling this pattern knows. */
  test(text: string): boolean {
    return this.patterns.some((pattern) => {
      pattern.lastIndex = 0;
      return pattern.test(text);
    });
  }

  /** Replaces every spelling of the value with `replacement`. */
  replace(text: string, replacement: string): string {
    let out = text;
    for (const pattern of this.patterns) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, replacement);
    }
    return out;
  }
}

const MIN_BASE64_CORE = 6;

/** One unit of whitespace, raw or encoded, allowed between any two characters of a match. */
const SEPARATOR_UNIT = `(?:\\s|\\+|%(?:25)?(?:20|09|0a|0d|a0|c2%(?:25)?a0)|&nbsp;|&#0*(?:9|10|13|32|160);|&#x0*(?:9|a|d|20|a0);|\\\\[nrt]|\\\\u00(?:09|0a|0d|20|a0))`;

/** Characters a separator unit can start with; before one of them the whitespace run may also stop early. */
const SEPARATOR_STARTS = new Set(["%", "&", "\\", "+"]);

/**
 * Joins per-character patterns with optional whitespace between them. The whitespace run is
 * greedy and then atomic (a lookahead capture and a backreference, JavaScript's stand-in for a
 * possessive quantifier), so a page cannot make the matcher backtrack through long runs of spaces
 * or "+" signs: matching stays linear per position. Only before a character that could itself
 * begin a separator (%, &, backslash, +) is a second, equally atomic run tried: one that stops at
 * the first place that character matches, so a value holding "+" or "%20" still matches; that
 * branch exists only where the value holds such characters.
 * Every character pattern is a (?:...) group, so a backreference is never followed by a digit.
 */
function joinWithSeparators(characters: { pattern: string; literal: string }[]): string {
  let source = characters[0]?.pattern ?? "";
  let group = 1;
  for (let index = 1; index < characters.length; index += 1) {
    const next = characters[index] ?? { pattern: "", literal: "" };
    if (!SEPARATOR_STARTS.has(next.literal)) {
      source += `(?=(${SEPARATOR_UNIT}*))\\${group}${next.pattern}`;
      group += 1;
      continue;
    }
    source += `(?:(?=(${SEPARATOR_UNIT}*))\\${group}${next.pattern}|(?=((?:(?!${next.pattern})${SEPARATOR_UNIT})*))\\${group + 1}${next.pattern})`;
    group += 2;
  }
  return source;
}

const NAMED_ENTITIES: Record<string, string[]> = {
  "&": ["&amp;"],
  "<": ["&lt;"],
  ">": ["&gt;"],
  '"': ["&quot;"],
  "'": ["&apos;"],
};
const JSON_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "/": "\\/" };

function characterAlternatives(character: string): string {
  const alternatives = new Set<string>([escapeRegExp(character)]);
  const bytes = [...Buffer.from(character, "utf8")].map((byte) => byte.toString(16).padStart(2, "0"));
  alternatives.add(bytes.map((hex) => `%${hex}`).join(""));
  alternatives.add(bytes.map((hex) => `%25${hex}`).join(""));
  const codePoint = character.codePointAt(0) ?? 0;
  alternatives.add(`&#0*${codePoint};`);
  alternatives.add(`&#x0*${codePoint.toString(16)};`);
  for (const named of NAMED_ENTITIES[character] ?? []) alternatives.add(escapeRegExp(named));
  const json = JSON_ESCAPES[character];
  if (json !== undefined) alternatives.add(escapeRegExp(json));
  alternatives.add(utf16Units(character).map((unit) => `\\\\u${unit}`).join(""));
  return `(?:${[...alternatives].join("|")})`;
}

function base64CharacterAlternatives(character: string): string {
  if (character === "+") return "(?:\\+|-|%2b|%252b)";
  if (character === "/") return "(?:\\/|_|%2f|%252f)";
  if (character === "=") return "(?:=|%3d|%253d)";
  return `(?:${escapeRegExp(character)})`;
}

/**
 * The base64 characters that depend only on the value's bytes, for the value starting at byte
 * offset 0, 1 and 2 of a longer encoded input (the characters shared with neighbouring bytes are
 * dropped), so any base64 text that contains the value contains one of these cores.
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

function utf16Units(character: string): string[] {
  const units: string[] = [];
  for (let i = 0; i < character.length; i += 1) units.push(character.charCodeAt(i).toString(16).padStart(4, "0"));
  return units;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
