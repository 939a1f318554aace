/**
 * The closed set of error codes errand reports. Each line says when it is used.
 * Adding a code means adding it here and to docs/ERRORS.md (a test checks they agree).
 */
export const ERROR_CODES = {
  // input: the task document itself
  invalid_json: "The input is not parseable JSON.",
  task_too_large: "The task exceeds the 256 KiB size bound.",
  invalid_type: "A field has the wrong JSON type.",
  missing_field: "A required field is absent.",
  unknown_field: "A field that the schema does not define is present (nothing is silently dropped).",
  unsupported_schema_version: "schemaVersion is not one this errand understands.",
  invalid_operation_id: "operationId is not a UUID.",
  invalid_url: "A URL is not a WHATWG-valid absolute URL.",
  url_scheme_not_allowed: "A URL uses a scheme other than http: or https:.",
  too_long: "A string exceeds its length bound.",
  too_short: "A string or list is shorter than its minimum (for example an empty selector).",
  too_many: "A list exceeds its item bound (steps, allowedHosts).",
  invalid_enum: "A field holds a value outside its allowed set.",
  unknown_action: "A step names an action that errand does not have (there is no JavaScript or shell action).",
  value_attribute_forbidden: "extract_attribute may not read the value attribute (it could leak what was typed).",
  invalid_secret_name: "A secret name (fill_secret's secret or envVar, or errand secret's NAME) does not match ^[A-Za-z][A-Za-z0-9_]{0,63}$.",
  conflicting_fields:
    "Two fields that cannot be given together are both given (fill_secret takes secret or envVar; wait_for takes selector and state, or url and match).",
  internal_selector_engine:
    "A selector uses Playwright's internal:control engine (internal:control=enter-frame enters a frame without the frame field's host check).",
  use_fill_secret: "A fill or type step targets a password, secret, token or one-time-code field.",
  text_selector_with_secret:
    "A task with fill_secret has a selector that matches on text or on part of an attribute (text engines, :has-text, XPath, roles by name, ^= *= $=).",
  invalid_allowed_host: "An allowedHosts entry is not a plain hostname or *.hostname pattern.",
  invalid_output_name: "An extract step's name is not a simple identifier.",
  duplicate_output_name: "Two extract steps write the same output name.",
  invalid_attribute: "extract_attribute.attribute is not an attribute name.",
  invalid_number: "A number is not an integer within its bounds.",
  invalid_site:
    "A site name (a task's site, or errand site's NAME) or an errand site add setting (origin, login URL, logged-in selector, login host) is not valid.",
  invalid_file_name:
    "An upload's file name (or errand file's NAME) is not a plain name: a path separator, \"..\", a NUL, an absolute path or other characters than letters, digits, '.', '-' and '_'.",
  upload_needs_write: "An upload step is in a read_only task: uploading a file is a write.",
  // policy: the task is well formed but errand refuses to act on it as given
  approval_required: "A reversible_write or consequential task lacks approved: true.",
  secret_approval_required: "A task with fill_secret lacks secretApproval: true.",
  approval_denied: "The owner denied a task that was awaiting approval (ERRAND_OWNER_APPROVAL); nothing ran.",
  approval_expired: "A task waited for the owner's approval longer than ERRAND_APPROVAL_TTL; nothing ran, and a late approval no longer runs it.",
  approval_not_pending: "errand approve/deny (or the owner console) named an operation that is not awaiting the owner's approval.",
  secret_unknown: "fill_secret names a secret the owner has not declared with errand secret set (refused at submit; checked again before any browser opens).",
  file_unknown:
    "An upload names a file the owner has not added with errand file add (refused at submit; checked again when the step runs), or an earlier download of the attempt that errand did not keep.",
  file_too_large: "errand file add was given a file larger than 10 MiB.",
  file_unreadable: "An owner file's stored record does not open under this master key or does not hash to what it records.",
  secret_missing: "A declared secret's source (its --from-env variable or --from-file file) is unset, empty or unreadable when it is used.",
  secret_unreadable: "A declared secret's stored record cannot be decrypted: another master key, or the row was modified.",
  secret_site_mismatch:
    "The secret is bound to no origin the task can reach (refused at submit), or the frame holding fill_secret's field has an origin it is not bound to; nothing was typed.",
  invalid_totp_seed:
    "errand secret set --totp was given a seed it cannot use (not an otpauth://totp URI or base32 key, or digits, period or algorithm out of range).",
  secret_egress_blocked: "A request carrying a typed secret to an origin the secret is not bound to was aborted.",
  invalid_secret_site: "A --site is not an http(s) origin (or one leading wildcard label); paths, queries and user names are refused.",
  secret_source_refused: "A secret's source is refused: errand's own (ERRAND_*) or a provider credential variable, or a file under ERRAND_HOME.",
  secret_value_refused: "A secret value is refused: shorter than 8 characters without whitespace, longer than 4096, or holding control characters.",
  site_unknown: "A task names a site the owner has not set up with errand site add (or errand site show/remove names none).",
  site_target_outside: "A site task's target is not on one of the site's origins; the site's session is never loaded for it.",
  login_required:
    "The site's saved session is missing or no longer logged in (its logged-in check failed before any step); the person logs in at the owner console's login page for the site, then the task is tried again.",
  session_egress_blocked:
    "A site task's page tried to reach an origin outside the site on a host the site's cookies would be sent to (another port or scheme); the request was aborted.",
  network_blocked: "A URL's destination is refused by the network policy.",
  userinfo_blocked: "A URL carries a user name or password; credentials in URLs are refused.",
  port_blocked: "A destination port is not the scheme's default (80/443) and no operator allowance names it.",
  ip_blocked: "A destination IP lies in a special-purpose range (loopback, private, link-local, reserved, IPv4-in-IPv6, outside 2000::/3, ...).",
  name_blocked: "A host name is refused by name whatever DNS says (localhost, metadata, internal, single-label or malformed names).",
  host_not_allowed: "A URL's host matches none of the allowed hosts.",
  dns_failed: "A host name did not resolve (NXDOMAIN, no answer, timeout or resolver failure); errand fails closed.",
  dns_private_answer: "A host name resolved to at least one address that is not public.",
  navigation_blocked: "A goto names a host outside the task's hosts (refused at submit), or the browser tried to leave them.",
  configuration_error: "errand itself is not configured to run this (for example no Chromium).",
  // execution
  step_failed: "A step could not be performed (element missing, not fillable, ...).",
  expectation_failed: "An expect_text or expect_url check did not hold.",
  timeout: "A step ran out of its own time (its element never appeared or never took the action), or the task's time ran out.",
  task_timeout:
    "The task's whole budget (timeouts.taskMs) ran out while a step was still within its own time, or before the first step began; error.timing names the phase (navigation, waiting, acting) and the time waited for the browser.",
  cancelled: "The operation was cancelled.",
  internal_error: "errand failed in a way it did not anticipate; the message says where.",
  method_blocked: "A read_only task's browser tried to send a request other than GET/HEAD/OPTIONS.",
  document_too_large: "A page errand fetched for the browser was larger than ERRAND_MAX_DOCUMENT_BYTES (default 10 MiB); errand stopped reading it.",
  download_too_large:
    "A file a step downloaded from the task's hosts would take the attempt's downloads past ERRAND_DOWNLOAD_MAX_BYTES (default 20 MiB) or past 4 files; it was refused and counted, nothing of it kept, and the task failed at that step.",
  webrtc_blocked: "A WebRTC connection (TURN relay or ICE-TCP candidate) reached the egress proxy; errand's tasks never use WebRTC, so it was refused.",
  session_closed: "The browser sent something after the task's session ended (an unload handler, beacon or keepalive fetch); the egress proxy refused it.",
  preconnect_blocked:
    "The browser opened a connection to a host on its own (a speculative connection, as for a navigation errand stopped) and no request there was let through in time; the egress proxy refused it.",
  // providers
  provider_unconfigured: "The chosen provider has no credential configured.",
  provider_unverified: "Routing (provider auto) found configured cloud providers, but none has passed errand provider smoke.",
  provider_auth_failed: "The provider refused errand's credential (401/403).",
  provider_capacity: "The provider is at its concurrency or rate limit (429); try later.",
  provider_unavailable: "The provider or browser failed (5xx, connect failure, crash, provider timeout).",
  circuit_open: "The provider's circuit breaker is open after repeated failures.",
  budget_exhausted: "The provider's monthly budget cap would be passed by another session.",
  // identity and storage
  identity_mismatch: "The same operationId was submitted with a different request digest, or is taken by an operation the caller may not see.",
  key_error: "The digest key file is missing, malformed or too short.",
  key_rotation_refused:
    "errand key rotate or key retire changed nothing: operations are unfinished, the journal or a stored row fails its MAC, a sealed value does not open under the key in force, or the key named is not a former key.",
  operation_not_found: "No operation (and no tombstone of one) that the caller may see has this operationId.",
  artifact_refused:
    "The store refused an operation's artifacts: the operation is unknown, or they pass the per-operation caps (4 artifacts, 2 MiB); nothing was kept.",
  artifact_not_found:
    "No artifact with this index is kept for the operation: its receipt lists none there, it expired (evidenceRetention minimal keeps them for ERRAND_RESULT_TTL) or the operation was compacted.",
  artifact_mismatch: "A kept artifact does not open under this master key or its bytes do not match the SHA-256 its receipt records; it is not served.",
  lease_expired:
    "An attempt's lease ran out before its runner renewed it: the runner crashed, was killed or lost the database, or was alive but starved of CPU for longer than the lease (then it says so itself).",
  journal_quota_exceeded: "The journal has reached its storage quota; compact it before submitting more.",
  journal_tampered: "The journal or an operation's stored state does not match its MACs.",
  store_busy: "The database stayed locked by other errand processes for too long.",
  store_schema_too_new: "The database was written by a newer errand than this one.",
  store_unavailable: "The PostgreSQL database named by ERRAND_DATABASE_URL (or --database-url) cannot be reached, refused errand's login, or does not exist.",
  usage: "The command line is malformed.",
  // HTTP (errand serve)
  unauthorized: "An HTTP request carried no bearer token, or one that is unknown, expired, revoked or issued for another resource.",
  rate_limited: "Too many failed authentications or registrations from one address; wait for Retry-After.",
  request_too_large: "An HTTP request body is over its size limit.",
  not_found: "No HTTP endpoint answers this path and method.",
  forbidden_host: "The Host header names a host this server does not serve (DNS rebinding defence).",
  forbidden_origin: "A request to /mcp carries an Origin header that is neither errand's own nor listed in ERRAND_MCP_ALLOWED_ORIGINS.",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** A code from outside this list (the network policy's, say) as one of errand's, or the fallback when it is not one. */
export function asErrorCode(code: string, fallback: ErrorCode): ErrorCode {
  return Object.hasOwn(ERROR_CODES, code) ? (code as ErrorCode) : fallback;
}
