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
  invalid_env_var: "fill_secret.envVar is not an environment-variable name.",
  use_fill_secret: "A fill or type step targets a password, secret, token or one-time-code field.",
  invalid_allowed_host: "An allowedHosts entry is not a plain hostname or *.hostname pattern.",
  invalid_output_name: "An extract step's name is not a simple identifier.",
  duplicate_output_name: "Two extract steps write the same output name.",
  invalid_attribute: "extract_attribute.attribute is not an attribute name.",
  invalid_number: "A number is not an integer within its bounds.",
  // policy: the task is well formed but errand refuses to act on it as given
  approval_required: "A reversible_write or consequential task lacks approved: true.",
  secret_approval_required: "A task with fill_secret lacks secretApproval: true.",
  secret_missing: "An environment variable named by fill_secret is not set.",
  network_blocked: "A URL's destination is refused by the network policy.",
  userinfo_blocked: "A URL carries a user name or password; credentials in URLs are refused.",
  port_blocked: "A destination port is not the scheme's default (80/443) and no operator allowance names it.",
  ip_blocked: "A destination IP lies in a special-purpose range (loopback, private, link-local, reserved, IPv4-in-IPv6, outside 2000::/3, ...).",
  name_blocked: "A host name is refused by name whatever DNS says (localhost, metadata, internal, single-label or malformed names).",
  host_not_allowed: "A URL's host matches none of the allowed hosts.",
  dns_failed: "A host name did not resolve (NXDOMAIN, no answer, timeout or resolver failure); errand fails closed.",
  dns_private_answer: "A host name resolved to at least one address that is not public.",
  navigation_blocked: "The browser tried to leave the task's allowed hosts.",
  configuration_error: "errand itself is not configured to run this (for example no Chromium).",
  // execution
  step_failed: "A step could not be performed (element missing, not fillable, ...).",
  expectation_failed: "An expect_text or expect_url check did not hold.",
  timeout: "A step or the whole task ran out of time.",
  cancelled: "The operation was cancelled.",
  internal_error: "errand failed in a way it did not anticipate; the message says where.",
  method_blocked: "A read_only task's browser tried to send a request other than GET/HEAD/OPTIONS.",
  // providers
  provider_unconfigured: "The chosen provider has no credential configured.",
  provider_auth_failed: "The provider refused errand's credential (401/403).",
  provider_capacity: "The provider is at its concurrency or rate limit (429); try later.",
  provider_unavailable: "The provider or browser failed (5xx, connect failure, crash, provider timeout).",
  circuit_open: "The provider's circuit breaker is open after repeated failures.",
  budget_exhausted: "The provider's monthly budget cap would be passed by another session.",
  // identity and storage
  identity_mismatch: "The same operationId was submitted with a different request digest.",
  key_error: "The digest key file is missing, malformed or too short.",
  operation_not_found: "No operation (and no tombstone of one) has this operationId.",
  lease_expired: "The runner holding an attempt stopped renewing its lease (crash, kill, lost database).",
  journal_quota_exceeded: "The journal has reached its storage quota; compact it before submitting more.",
  journal_tampered: "The journal or an operation's stored state does not match its MACs.",
  store_busy: "The database stayed locked by other errand processes for too long.",
  store_schema_too_new: "The database was written by a newer errand than this one.",
  usage: "The command line is malformed.",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
