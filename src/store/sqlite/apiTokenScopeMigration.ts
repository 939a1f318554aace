import type { Migration } from "./migrations.js";

/**
 * Migration 14: an API token's scope, "own" (the operations it submitted) or "all" (an operator
 * token). Tokens made before it keep seeing only their own. The scope shown here is for listing:
 * what a token may see is decided by the keyed hash it was stored under (src/interfaces/http/rest/
 * requireApiToken.ts), which an edit of this column cannot change.
 */
export const API_TOKEN_SCOPE_MIGRATION: Migration = {
  version: 14,
  name: "API token scopes",
  sql: `ALTER TABLE api_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'own' CHECK (scope IN ('own', 'all'));`,
};
