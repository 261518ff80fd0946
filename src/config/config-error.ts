/** Thrown at start-up when the environment is invalid; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
