/** A configuration value errand cannot use; the message names the variable and what it accepts. */
export class ConfigError extends Error {
  readonly code = "configuration_error" as const;
}
