// A strict reader of the Prometheus text exposition format (0.0.4) for tests: every sample belongs
// to a family declared by # HELP and # TYPE before it, names and label names are legal, label
// values are quoted and escaped, values are numbers, no series appears twice, and histograms and
// summaries use only their suffixes. Returns the samples; throws naming the first bad line.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== "") {
    const match = /^([^=]+)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/.exec(rest);
    if (match === null) throw new Error(`bad labels in: ${line}`);
    const [whole, name = "", value = ""] = match;
    if (!LABEL.test(name)) throw new Error(`bad label name ${name} in: ${line}`);
    if (name in labels) throw new Error(`label ${name} twice in: ${line}`);
    labels[name] = value.replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1");
    rest = rest.slice(whole.length);
  }
  return labels;
}

export function parsePrometheusText(text: string): Sample[] {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const types = new Map<string, string>();
  const helped = new Set<string>();
  const seen = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "") continue;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (comment !== null) {
      const [, kind, name = "", rest = ""] = comment;
      if (!NAME.test(name)) throw new Error(`bad metric name in: ${line}`);
      if (kind === "HELP") {
        if (helped.has(name)) throw new Error(`HELP twice for ${name}`);
        helped.add(name);
      } else {
        if (!TYPES.has(rest)) throw new Error(`bad type in: ${line}`);
        if (types.has(name)) throw new Error(`TYPE twice for ${name}`);
        types.set(name, rest);
      }
      continue;
    }
    if (line.startsWith("#")) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/.exec(line);
    if (sample === null) throw new Error(`bad sample line: ${line}`);
    const [, name = "", labelText = "", rawValue = ""] = sample;
    const value = rawValue === "+Inf" ? Infinity : rawValue === "-Inf" ? -Infinity : rawValue === "NaN" ? NaN : Number(rawValue);
    if (Number.isNaN(value) && rawValue !== "NaN") throw new Error(`bad value in: ${line}`);
    const family = [name, name.replace(/_(bucket|sum|count)$/, "")].find((candidate) => types.has(candidate));
    if (family === undefined) throw new Error(`sample before its TYPE: ${line}`);
    const type = types.get(family);
    if (family !== name && type !== "histogram" && type !== "summary") throw new Error(`suffix on a ${type}: ${line}`);
    if (!helped.has(family)) throw new Error(`no HELP for ${family}`);
    const labels = parseLabels(labelText, line);
    if (name.endsWith("_bucket") && type === "histogram" && labels["le"] === undefined) throw new Error(`bucket without le: ${line}`);
    const key = `${name}{${Object.entries(labels)
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(",")}}`;
    if (seen.has(key)) throw new Error(`series twice: ${line}`);
    seen.add(key);
    samples.push({ name, labels, value });
  }
  return samples;
}
