/**
 * Polls `find` until it returns something truthy and returns that; fails naming `what` after
 * `timeoutMs`. For end-to-end tests that wait on real servers: a deadline, never a fixed sleep.
 */
export async function until<T>(
  find: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
  describe?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${describe ? `; ${describe()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
