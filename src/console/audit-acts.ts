/**
 * The console's acts in the audit trail: a key connected or removed, a repair
 * (retry, dismiss), a schedule paused or resumed — who did it (the person signed in with Slack, or the
 * admin token's `console-admin`), on which thing, never anything typed into a form but ids and names.
 */
import type { AuditAct } from '../core/ports/audit.js';
import type { ConsoleDeps, Viewer } from './deps.js';

/** Who the admin token is in the trail: nobody's person id. */
export const CONSOLE_ADMIN = 'console-admin';

/**
 * Records one console act. `target` names what it was done to (it is part of the once key with the
 * session and the time, so a double submit in the same millisecond is one entry). A failure is logged:
 * the act itself is done.
 */
export async function recordConsoleAct(
  deps: Pick<ConsoleDeps, 'store' | 'clock' | 'logger'>,
  viewer: Viewer,
  act: AuditAct,
  target: string,
  detail: Readonly<Record<string, string | number>>,
  runId?: string,
): Promise<void> {
  const at = deps.clock.now();
  try {
    await deps.store.audit.record({
      at,
      act,
      personId: viewer.person?.id ?? CONSOLE_ADMIN,
      surface: 'console',
      ...(runId !== undefined && { runId }),
      detail,
      onceKey: `console:${act}:${target}:${viewer.sid}:${at}`,
    });
  } catch (error) {
    deps.logger.warn({ err: error, act }, 'could not record the audit entry');
  }
}
