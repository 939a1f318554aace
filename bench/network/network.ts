// What network safety costs.
// (a) Cached preflight verdicts per second: preflightUrl over a few thousand URLs (several hundred
//     names) with the DNS-over-HTTPS resolver pointed at a JSON DoH server on 127.0.0.1 started here,
//     its cache warmed first so that only the cached path is timed (the DoH server's query count is
//     checked not to move), and with the static resolver; baseline: bare `new URL()` parses of the
//     same URLs, in the same rounds.
// (b) Egress proxy overhead: a page on a 127.0.0.1 site with 50 same-site subresources (20 images,
//     15 scripts, 15 stylesheets; the site runs in a child process and is admitted by an operator
//     allowance) loaded in a fresh context of Debian Chromium through a fresh egress proxy (started
//     per context, as buildExecutor does), against the same page in a fresh context without a proxy;
//     alternating ABBA, N runs each after warm-up loads.
// Usage: npx tsx bench/network/network.ts [runs=40] [urls=4000] [hosts=800] [rounds=15]
import { fork } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import { createDohResolver } from "../../src/policy/dohResolver.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { preflightUrl } from "../../src/policy/preflightUrl.js";
import type { Resolver } from "../../src/policy/resolver.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { startEgressProxy } from "../../src/providers/local/egressProxy.js";
import { findChromium } from "../../src/providers/local/findChromium.js";
import { LOCKED_DOWN_CHROMIUM_ARGS } from "../../src/providers/local/chromiumLaunch.js";

const runs = Number(process.argv[2] ?? 40);
const urlCount = Number(process.argv[3] ?? 4000);
const hostCount = Number(process.argv[4] ?? 800);
const rounds = Number(process.argv[5] ?? 15);
const WARMUP_LOADS = 3;
const PARSE_REPEAT = 10;

// The bench must end by itself even if a browser or socket hangs.
const watchdog = setTimeout(() => {
  console.error("network bench: still running after 20 minutes, giving up");
  process.exit(2);
}, 20 * 60_000);
watchdog.unref();

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

// ---------------------------------------------------------------------------------------------
// (a) cached preflight verdicts per second

/** Public answers only: 93.184.x.y and 2606:2800:220:x::y, distinct per host. */
function answersFor(index: number): { a: string; aaaa: string } {
  return { a: `93.184.${(index >> 8) & 255}.${index & 255}`, aaaa: `2606:2800:220:${(index >> 8).toString(16)}::${(index & 255).toString(16)}` };
}
const hostName = (i: number): string => `shop-${i}.bench-errand.org`;

async function startDohServer(): Promise<{ endpoint: string; queries(): number; close(): Promise<void> }> {
  let queries = 0;
  const index = new Map(Array.from({ length: hostCount }, (_, i) => [hostName(i), i] as const));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://doh");
    const name = (url.searchParams.get("name") ?? "").toLowerCase();
    const type = url.searchParams.get("type");
    queries += 1;
    const i = index.get(name);
    const body =
      i === undefined
        ? { Status: 3, Answer: [] }
        : {
            Status: 0,
            Answer: [type === "AAAA" ? { name, type: 28, TTL: 3600, data: answersFor(i).aaaa } : { name, type: 1, TTL: 3600, data: answersFor(i).a }],
          };
    res.writeHead(200, { "content-type": "application/dns-json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/dns-query`,
    queries: () => queries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Ordinary public URLs in the spellings pages use: both schemes, mixed case, a trailing dot, an explicit default port, paths and queries. */
function buildUrls(): string[] {
  const urls: string[] = [];
  for (let j = 0; j < urlCount; j += 1) {
    const host = hostName(j % hostCount);
    const spelled = j % 7 === 0 ? host.toUpperCase() : j % 11 === 0 ? `${host}.` : host;
    const scheme = j % 3 === 0 ? "http" : "https";
    const port = j % 13 === 0 ? (scheme === "http" ? ":80" : ":443") : "";
    urls.push(`${scheme}://${spelled}${port}/catalog/${j % 97}/item-${j}?ref=bench&page=${j % 5}#top`);
  }
  return urls;
}

async function preflightRates(): Promise<void> {
  const doh = await startDohServer();
  try {
    const urls = buildUrls();
    const dohResolver = createDohResolver({ endpoint: doh.endpoint });
    const staticResolver = createStaticResolver(
      Object.fromEntries(Array.from({ length: hostCount }, (_, i) => [hostName(i), [answersFor(i).a, answersFor(i).aaaa]])),
    );

    // Warm the DoH cache (and the JIT): every name is asked once here, never again below.
    for (const resolver of [dohResolver, staticResolver]) {
      for (const url of urls) {
        const verdict = await preflightUrl(url, { resolver });
        if (verdict.verdict !== "allow") throw new Error(`warm-up: ${url} blocked: ${verdict.code} ${verdict.reason}`);
      }
    }
    const queriesAfterWarmup = doh.queries();
    if (queriesAfterWarmup !== 2 * hostCount) throw new Error(`warm-up asked the DoH server ${queriesAfterWarmup} times, expected ${2 * hostCount}`);

    let sink = 0;
    const passes: Record<"parse" | "doh" | "static", () => Promise<void>> = {
      // A parse is ~100 times cheaper than a verdict: repeat it so the pass lasts long enough to time.
      parse: () => {
        for (let r = 0; r < PARSE_REPEAT; r += 1) for (const url of urls) sink += new URL(url).href.length;
        return Promise.resolve();
      },
      doh: async () => {
        for (const url of urls) {
          const verdict = await preflightUrl(url, { resolver: dohResolver });
          if (verdict.verdict !== "allow") throw new Error(`${url}: ${verdict.code}`);
          sink += verdict.addresses.length;
        }
      },
      static: async () => {
        for (const url of urls) {
          const verdict = await preflightUrl(url, { resolver: staticResolver });
          if (verdict.verdict !== "allow") throw new Error(`${url}: ${verdict.code}`);
          sink += verdict.addresses.length;
        }
      },
    };
    const rates: Record<keyof typeof passes, number[]> = { parse: [], doh: [], static: [] };
    const order: (keyof typeof passes)[] = ["parse", "doh", "static"];
    for (let round = 0; round < rounds + 1; round += 1) {
      // Rotate the order so that no kind always runs first (or right after a garbage-heavy pass).
      for (let k = 0; k < order.length; k += 1) {
        const kind = order[(round + k) % order.length] ?? "parse";
        const t = performance.now();
        await passes[kind]();
        const seconds = (performance.now() - t) / 1000;
        if (round > 0) rates[kind].push((urls.length * (kind === "parse" ? PARSE_REPEAT : 1)) / seconds);
      }
    }
    if (doh.queries() !== queriesAfterWarmup)
      throw new Error(`the timed passes asked the DoH server ${doh.queries() - queriesAfterWarmup} times: not the cached path`);

    const parse = median(rates.parse);
    const cached = median(rates.doh);
    const fixed = median(rates.static);
    console.log(`(a) preflight: ${urls.length} URLs over ${hostCount} names, ${rounds} timed rounds (median of rounds), sink ${sink % 10}`);
    console.log(`  new URL() parses/s              ${fmt(parse)}`);
    console.log(`  preflightUrl, DoH cached, /s    ${fmt(cached)}   ratio to parse ${(cached / parse).toFixed(3)}   ${(1e6 / cached).toFixed(1)} us/verdict`);
    console.log(`  preflightUrl, static map, /s    ${fmt(fixed)}   ratio to parse ${(fixed / parse).toFixed(3)}   ${(1e6 / fixed).toFixed(1)} us/verdict`);
    console.log(`  DoH server queries: ${queriesAfterWarmup} during warm-up, ${doh.queries() - queriesAfterWarmup} during the timed rounds`);
  } finally {
    await doh.close();
  }
}

// ---------------------------------------------------------------------------------------------
// (b) egress proxy overhead on a page with 50 subresources

type SiteInfo = { port: number; origin: string; images: number; scripts: number; stylesheets: number };
type SiteCounts = { hits: number; connections: number };

/** The site runs in a child process (siteProcess.ts), like a real site it shares no event loop with the proxy. */
async function startSiteProcess(): Promise<{ info: SiteInfo; hits(): Promise<SiteCounts>; close(): Promise<void> }> {
  // fork() passes on this process's execArgv, so the child loads TypeScript the same way (tsx).
  const child = fork(fileURLToPath(new URL("./siteProcess.ts", import.meta.url)), { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const info = await new Promise<SiteInfo>((resolve, reject) => {
    child.once("message", (m) => resolve(m as SiteInfo));
    child.once("exit", (code) => reject(new Error(`site process exited (${code}) before it was ready`)));
  });
  return {
    info,
    hits: () =>
      new Promise<SiteCounts>((resolve) => {
        child.once("message", (m) => resolve(m as SiteCounts));
        child.send("hits");
      }),
    close: async () => {
      if (child.connected) child.disconnect();
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

type Sample = { total: number; setup: number; load: number; teardown: number; cpu: number; upstream: number; siteConnections: number };

async function proxyOverhead(): Promise<void> {
  const site = await startSiteProcess();
  const { origin, port, images, scripts, stylesheets } = site.info;
  const subresources = images + scripts + stylesheets;
  const allow = parseAllowPrivate([`127.0.0.1:${port}`]);
  if (!allow.ok) throw new Error(allow.errors.map((e) => e.message).join("; "));
  const allowPrivate = allow.value;
  // The site is an IP literal admitted by the allowance, so the proxy never asks its resolver.
  const resolver: Resolver = createStaticResolver({});
  const executablePath = findChromium(process.env);
  let browser: Browser | null = null;
  try {
    if (executablePath === null) throw new Error("no Chromium found (findChromium)");
    browser = await chromium.launch({ executablePath, headless: true, args: [...LOCKED_DOWN_CHROMIUM_ARGS], timeout: 30_000 });
    const b = browser;

    /** One page load in a fresh context; proxied: through a fresh egress proxy for that context, as buildExecutor does. */
    async function once(proxied: boolean): Promise<Sample> {
      const before = await site.hits();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const proxy = proxied ? await startEgressProxy({ resolver, allowPrivate }) : null;
      let t1 = 0;
      let t2 = 0;
      let t3 = 0;
      const context = await b
        .newContext({ serviceWorkers: "block", acceptDownloads: false, ...(proxy === null ? {} : { proxy: { server: proxy.url } }) })
        .catch(async (error: unknown) => {
          await proxy?.close();
          throw error;
        });
      try {
        const page = await context.newPage();
        t1 = performance.now();
        await page.goto(`${origin}/`, { waitUntil: "load" });
        t2 = performance.now();
        // Not timed: prove every subresource arrived and was used.
        const seen = await page.evaluate(() => ({
          scripts: (window as unknown as { __loaded?: number }).__loaded ?? 0,
          images: Array.from(document.images).filter((img) => img.complete && img.naturalWidth > 0).length,
          sheets: Array.from(document.styleSheets).filter((sheet) => sheet.cssRules.length > 0).length,
        }));
        if (seen.scripts !== scripts || seen.images !== images || seen.sheets !== stylesheets)
          throw new Error(`page incomplete (${proxied ? "proxied" : "direct"}): ${JSON.stringify(seen)}`);
      } finally {
        t3 = performance.now();
        await context.close();
        await proxy?.close();
      }
      const t4 = performance.now();
      const cpu = process.cpuUsage(cpu0);
      const after = await site.hits();
      const requests = after.hits - before.hits;
      if (requests !== subresources + 1) throw new Error(`the site saw ${requests} requests, expected ${subresources + 1}`);
      const stats = proxy?.stats() ?? { allowed: 0, blocked: 0 };
      if (proxy !== null && (stats.allowed < subresources + 1 || stats.blocked !== 0))
        throw new Error(`proxy stats ${JSON.stringify(stats)}: the traffic did not all go through the proxy`);
      return {
        total: t2 - t0 + (t4 - t3),
        setup: t1 - t0,
        load: t2 - t1,
        teardown: t4 - t3,
        cpu: (cpu.user + cpu.system) / 1000,
        upstream: stats.allowed,
        siteConnections: after.connections - before.connections,
      };
    }

    for (let i = 0; i < WARMUP_LOADS; i += 1) {
      await once(false);
      await once(true);
    }
    const direct: Sample[] = [];
    const proxied: Sample[] = [];
    for (let i = 0; i < runs; i += 1) {
      // ABBA: neither side always goes first.
      if (i % 2 === 0) {
        direct.push(await once(false));
        proxied.push(await once(true));
      } else {
        proxied.push(await once(true));
        direct.push(await once(false));
      }
    }
    const pick = (xs: Sample[], k: keyof Sample): number => median(xs.map((x) => x[k]));
    const row = (label: string, k: keyof Sample): string =>
      `  ${label.padEnd(40)} ${pick(proxied, k).toFixed(1).padStart(7)} ms ${pick(direct, k).toFixed(1).padStart(7)} ms   ratio ${(pick(proxied, k) / pick(direct, k)).toFixed(3)}`;
    console.log(`(b) egress proxy: page with ${subresources} subresources on ${origin}, ${runs} runs each, alternating; medians, proxied then direct`);
    console.log(row("total (fresh context, load, close)", "total"));
    console.log(row("  setup (proxy start, context, page)", "setup"));
    console.log(row("  goto until load", "load"));
    console.log(row("  teardown (context and proxy close)", "teardown"));
    console.log(row("CPU of this process (client + proxy)", "cpu"));
    console.log(`  target: total ratio <= 1.2`);
    console.log(
      `  connections the site accepted per load (median): proxied ${pick(proxied, "siteConnections")}, direct ${pick(direct, "siteConnections")}; requests the proxy allowed per proxied load ${pick(proxied, "upstream")}`,
    );
  } finally {
    await browser?.close();
    await site.close();
  }
}

try {
  await preflightRates();
  await proxyOverhead();
} finally {
  clearTimeout(watchdog);
}
