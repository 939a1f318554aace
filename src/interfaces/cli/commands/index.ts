import type { Command } from "../commandContext.js";

/** A command as the CLI knows it before loading it: enough for the help list and for finding it. */
export interface CommandEntry {
  name: string;
  /** The same one-line summary as the command's own (a test checks they agree). */
  summary: string;
  /** Loads the command's module; only the command that runs is loaded, so every start stays fast. */
  load(): Promise<Command>;
}

/** Every CLI command, in the order the help lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  { name: "validate", summary: "check a task and print its normalized form", load: async () => (await import("./validate.js")).validateCommand },
  { name: "canonical", summary: "print the RFC 8785 canonical form of a JSON document", load: async () => (await import("./canonical.js")).canonicalCommand },
  { name: "digest", summary: "print a task's operationId and keyed request digest", load: async () => (await import("./digest.js")).digestCommand },
  { name: "run", summary: "run a task now on a browser and print its receipt", load: async () => (await import("./run.js")).runCommand },
  {
    name: "look",
    summary: "open a page read-only and print its forms, fields and buttons with checked selectors",
    load: async () => (await import("./look.js")).lookCommand,
  },
  {
    name: "preflight",
    summary: "check a URL against the network policy (scheme, port, IP ranges, names, DNS)",
    load: async () => (await import("./preflight.js")).preflightCommand,
  },
  { name: "demo", summary: "run three tasks against a bundled local site and print their receipts", load: async () => (await import("./demo.js")).demoCommand },
  { name: "submit", summary: "queue a task as a durable operation (idempotent by operationId)", load: async () => (await import("./submit.js")).submitCommand },
  {
    name: "approve",
    summary: "approve, as the owner, a task that awaits your approval (shows what it will do first)",
    load: async () => (await import("./approve.js")).approveCommand,
  },
  {
    name: "deny",
    summary: "deny, as the owner, a task that awaits your approval (it ends BLOCKED and never runs)",
    load: async () => (await import("./deny.js")).denyCommand,
  },
  { name: "runner", summary: "run queued operations now (recover expired leases first)", load: async () => (await import("./runner.js")).runnerCommand },
  { name: "inspect", summary: "show an operation's durable state (no browser)", load: async () => (await import("./inspect.js")).inspectCommand },
  { name: "collect", summary: "get an operation's receipt, or say it is still pending", load: async () => (await import("./collect.js")).collectCommand },
  {
    name: "artifact",
    summary: "write an operation's artifact (a screenshot or download its receipt lists) to a file, checked against the receipt's sha256",
    load: async () => (await import("./artifact.js")).artifactCommand,
  },
  {
    name: "cancel",
    summary: "cancel an operation (queued: at once; running: only before its first change)",
    load: async () => (await import("./cancel.js")).cancelCommand,
  },
  {
    name: "status",
    summary: "count operations by phase; show the journal and provider circuits",
    load: async () => (await import("./status.js")).statusCommand,
  },
  { name: "journal", summary: "verify the authenticated journal, or compact old operations", load: async () => (await import("./journal.js")).journalCommand },
  {
    name: "provider",
    summary: "list provider states; run the smoke task that makes a cloud provider OPERATIONAL",
    load: async () => (await import("./provider.js")).providerCommand,
  },
  {
    name: "secret",
    summary: "declare the secrets tasks may type, each bound to the sites it may be typed into",
    load: async () => (await import("./secret.js")).secretCommand,
  },
  { name: "file", summary: "add, list and remove the files upload steps may send, each by name", load: async () => (await import("./file.js")).fileCommand },
  {
    name: "site",
    summary: "set up the sites whose saved login tasks may use, each bound to the origins its session may go to",
    load: async () => (await import("./site.js")).siteCommand,
  },
  {
    name: "serve",
    summary: "serve MCP (OAuth) for ChatGPT and the REST API (API tokens) over HTTP",
    load: async () => (await import("./serve.js")).serveCommand,
  },
  {
    name: "token",
    summary: "create, list or revoke REST API tokens (and revoke every OAuth grant)",
    load: async () => (await import("./token.js")).tokenCommand,
  },
  {
    name: "key",
    summary: "rotate the master key (everything sealed or signed moves to a new one), list the keys, retire a former key",
    load: async () => (await import("./key.js")).keyCommand,
  },
  {
    name: "owner",
    summary: "set the owner password (approves ChatGPT and tasks in the owner console); unlock a lockout",
    load: async () => (await import("./owner.js")).ownerCommand,
  },
  {
    name: "doctor",
    summary: "check this installation (browser, sandbox, resolver, state, key, database, owner, URL, proxy headers, providers)",
    load: async () => (await import("./doctor.js")).doctorCommand,
  },
  {
    name: "migrate",
    summary: "create or upgrade the database schema (SQLite or PostgreSQL) and print its version",
    load: async () => (await import("./migrate.js")).migrateCommand,
  },
  {
    name: "backup",
    summary: "write a consistent copy of the database while errand runs (keep the key apart)",
    load: async () => (await import("./backup.js")).backupCommand,
  },
  {
    name: "restore",
    summary: "restore a backup into an empty ERRAND_HOME and verify its journal",
    load: async () => (await import("./restore.js")).restoreCommand,
  },
];
