// The Val Town val files (deploy/valtown) stay wiring that holds nothing of the owner's: each imports
// std/sqlite's val-scoped database and errand's fetch entry (at this package's version) and nothing
// else, reads its settings from the environment as a whole, and contains no string but those two
// import addresses, so no credential, URL or setting can be written into one. The check is tried
// against files that break each rule. The README names every variable a phone setup needs.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DIR = join(ROOT, "deploy/valtown");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const STD_SQLITE = "https://esm.town/v/std/sqlite/main.ts";
const ERRAND_ENTRY = `npm:errand@${VERSION}/fetch`;
const ERRAND_NAMES = new Set(["openFetchErrand", "runDueWork", "valTownSqliteClient"]);

/** What is wrong with a val file's source, one sentence per problem; empty when it is plain wiring. */
function valFileProblems(source: string): string[] {
  const file = ts.createSourceFile("val.ts", source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const problems: string[] = [];
  const importAddresses = new Set<ts.Node>();
  let defaultExports = 0;
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const from = statement.moduleSpecifier.text;
      importAddresses.add(statement.moduleSpecifier);
      const clause = statement.importClause;
      if (from === STD_SQLITE) {
        if (clause?.name === undefined || clause.namedBindings !== undefined) problems.push("std/sqlite is imported other than as its default export");
      } else if (from === ERRAND_ENTRY) {
        const named = clause?.namedBindings;
        if (clause?.name !== undefined || named === undefined || !ts.isNamedImports(named)) problems.push("errand's entry is imported other than by name");
        else for (const element of named.elements) if (!ERRAND_NAMES.has(element.name.text)) problems.push(`imports ${element.name.text} from errand`);
      } else {
        problems.push(`imports ${from}`);
      }
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined) {
      problems.push("re-exports another module");
    }
    const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
    if (modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword) || ts.isExportAssignment(statement)) defaultExports += 1;
  }
  if (defaultExports !== 1) problems.push(`has ${defaultExports} default exports, not one handler`);
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && !importAddresses.has(node))
      problems.push(`holds the string ${JSON.stringify(node.text)}`);
    if (ts.isTemplateExpression(node) || ts.isRegularExpressionLiteral(node)) problems.push(`holds a template or pattern: ${node.getText(file)}`);
    if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || node.expression.getText(file) === "require"))
      problems.push("loads a module at run time");
    if (ts.isIdentifier(node) && node.text === "Deno" && node.parent.getText(file) !== "Deno.env")
      problems.push(`uses Deno other than its environment: ${node.parent.getText(file)}`);
    if (ts.isPropertyAccessExpression(node) && node.getText(file) === "Deno.env" && node.parent.getText(file) !== "Deno.env.toObject")
      problems.push(`reads the environment other than whole: ${node.parent.getText(file)}`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return problems;
}

const valFiles = () =>
  readdirSync(DIR)
    .filter((f) => f.endsWith(".ts"))
    .sort();

test("Val Town vals: deploy/valtown holds the README, the HTTP val and the interval val, nothing else", () => {
  assert.deepEqual(readdirSync(DIR).sort(), ["README.md", "http.ts", "interval.ts"]);
});

test("Val Town vals: each imports only std/sqlite and errand's fetch entry at this version, reads the whole environment, and holds no other string", () => {
  for (const name of valFiles()) {
    const source = readFileSync(join(DIR, name), "utf8");
    assert.deepEqual(valFileProblems(source), [], name);
    assert.ok(source.includes(STD_SQLITE) && source.includes(ERRAND_ENTRY), `${name} wires std/sqlite into errand`);
    assert.match(source, /Deno\.env\.toObject\(\)/, `${name} hands errand the val's environment`);
  }
  assert.match(readFileSync(join(DIR, "http.ts"), "utf8"), /openFetchErrand\(/);
  assert.match(readFileSync(join(DIR, "interval.ts"), "utf8"), /runDueWork\(/);
});

test("Val Town vals: the check refuses a credential, another import, a setting read by name, a template and another version", () => {
  const http = readFileSync(join(DIR, "http.ts"), "utf8");
  const broken: [string, string, RegExp][] = [
    [
      "a provider key written in",
      http.replace("const errand", 'const KERNEL_API_KEY = "sk_live_0123456789";\nconst errand'),
      /holds the string "sk_live_0123456789"/,
    ],
    [
      "a key in the environment object",
      http.replace("Deno.env.toObject()", '{ ...Deno.env.toObject(), BROWSERLESS_TOKEN: "t0ken" }'),
      /holds the string "t0ken"/,
    ],
    ["a number-only secret as a template", http.replace("const errand", "const k = `${1}`;\nconst errand"), /template/],
    ["another package", `import { Hono } from "npm:hono";\n${http}`, /imports npm:hono/],
    ["a module loaded at run time", http.replace("const errand", "const m = await import(STD);\nconst errand"), /loads a module/],
    ["a setting read by name", http.replace("Deno.env.toObject()", "{ K: Deno.env.get(NAME) }"), /reads the environment other than whole/],
    ["another Deno capability", http.replace("const errand", "await Deno.readTextFile(PATH);\nconst errand"), /uses Deno other than its environment/],
    ["another version of errand", http.replace(ERRAND_ENTRY, "npm:errand@0.0.1/fetch"), /imports npm:errand@0\.0\.1\/fetch/],
    [
      "a name errand's entry does not offer",
      http.replace("openFetchErrand, valTownSqliteClient", "openFetchErrand, valTownSqliteClient, createErrand"),
      /imports createErrand/,
    ],
    ["no handler", http.replace("export default function", "function"), /0 default exports/],
  ];
  for (const [what, source, expected] of broken) {
    const problems = valFileProblems(source);
    assert.ok(
      problems.some((p) => expected.test(p)),
      `${what}: ${JSON.stringify(problems)}`,
    );
  }
});

test("Val Town vals: the README names every setting, the MCP address, and that no schedule runs without the interval val", () => {
  const readme = readFileSync(join(DIR, "README.md"), "utf8");
  for (const name of [
    "ERRAND_MASTER_KEY",
    "ERRAND_OWNER_PASSWORD",
    "ERRAND_PUBLIC_URL",
    "KERNEL_API_KEY",
    "BROWSERLESS_TOKEN",
    "BROWSERLESS_BASE_URL",
    "ERRAND_MODE_KERNEL=program",
    "ERRAND_MODE_BROWSERLESS=program",
    "/mcp",
    ERRAND_ENTRY,
    STD_SQLITE,
  ])
    assert.ok(readme.includes(name), `README mentions ${name}`);
  assert.match(readme, /No schedule runs unless/);
  assert.match(readme, /UNVERIFIED/);
});
