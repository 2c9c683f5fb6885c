/**
 * The service cannot start because of something the operator must fix (a refused token, an
 * unreachable platform at start). Its message says what to do; the CLI prints it without a stack
 * trace and exits 2, like a configuration error.
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
