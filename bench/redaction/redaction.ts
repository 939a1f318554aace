// What finding a secret in text costs (src/executor/secretPattern.ts: every run of 8 or more of its
// characters, in every spelling). A page of ordinary markup and prose of the given size (with
// entities, %-escapes and "+" in it), scrubbed and tested for a 22-character secret and for one of
// the longest length a secret may have (4096, punctuation and encoding syntax among its characters);
// then two hostile pages of the same size: the secret's 7-character prefix repeated (a near miss at
// every position) and long runs of encoded whitespace. Times are CPU milliseconds (process.cpuUsage),
// the median of the rounds, so other work on the machine weighs less than in wall time.
// Usage: npx tsx bench/redaction/redaction.ts [megabytes=5] [rounds=3]
import { Redactor } from "../../src/executor/redactor.js";
import { MAX_SECRET_CHARS } from "../../src/secrets/secretValueRule.js";

const megabytes = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 3);
const size = Math.round(megabytes * 1024 * 1024);

const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
const line = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit; sed do eiusmod tempor 2024. <a href="/search?q=a+b&amp;page=2%20x">Next</a>\n';
const longest = Array.from(
  { length: MAX_SECRET_CHARS },
  (_, i) => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~"[(i * 7919) % 90],
).join("");

function cpuMs(run: () => unknown): number {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const before = process.cpuUsage();
    run();
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? 0;
}

console.log(`page ${(size / 1048576).toFixed(1)} MiB, ${rounds} rounds, median CPU ms`);
for (const [label, secret] of [
  ["22 chars", "Canary Egress 7f3Q zz9x"],
  [`${MAX_SECRET_CHARS} chars`, longest],
] as const) {
  const redactor = new Redactor();
  const compile = cpuMs(() => new Redactor().add(secret));
  redactor.add(secret);
  const pages: [string, string][] = [
    ["ordinary page", fill(line)],
    ["near misses (7-char prefix repeated)", fill(`${secret.slice(0, 7)} `)],
    ["encoded whitespace runs", fill("%20+&nbsp;\\n%2520 ")],
  ];
  console.log(`secret of ${label}: compile ${compile.toFixed(1)}`);
  for (const [name, page] of pages) {
    const scrub = cpuMs(() => redactor.scrub(page));
    const test = cpuMs(() => redactor.carries(page));
    console.log(`  ${name}: scrub ${scrub.toFixed(0)}, carries ${test.toFixed(0)} (${((scrub * 1e6) / page.length).toFixed(0)} ns/char)`);
  }
  const request = `https://cdn.example/assets/app.js?v=2024&session=${"x".repeat(40)} ${"accept-language: en-US,en;q=0.9 ".repeat(20)}`;
  const perRequest = cpuMs(() => {
    for (let i = 0; i < 1000; i += 1) redactor.carries(request);
  });
  console.log(`  a ${request.length}-char request checked: ${(perRequest / 1000).toFixed(3)} ms`);
}
