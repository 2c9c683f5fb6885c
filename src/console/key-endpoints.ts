import type { ServerResponse } from 'node:http';
import type { Endpoint } from '../http/server.js';
import { MY_KEY_PATH } from '../people/key-page.js';
import { PERSON_IDS } from '../surface-list.js';
import { recordConsoleAct } from './audit-acts.js';
import type { Viewer } from './deps.js';
import { withFlash } from './flash.js';
import type { ConsoleGate } from './gate.js';
import { redirect } from './http-io.js';
import { linkPeople, unlinkPeople } from './people-links.js';

/** The forms of personal API keys: a person's own (`/console/my-key`) and the admins' keys page. */
export function keyEndpoints(gate: ConsoleGate): Endpoint[] {
  const { deps } = gate;
  /** After a key is removed, the person's chat surface shows it (Slack republishes their Home tab); the key is gone either way, so a failure is only logged. */
  const keyRemoved = async (person: string) => {
    try {
      await deps.keyRemoved?.(person);
    } catch (error) {
      deps.logger.warn({ person, err: error }, 'could not show the person on their chat surface that their key was removed');
    }
  };
  /** Checks `raw` with one run API call and stores it sealed for `person`; the page at `back` says what happened. */
  const connectKey = async (person: string, raw: string | null, back: string, res: ServerResponse, viewer: Viewer) => {
    if (!deps.keys) return redirect(res, withFlash(back, 'keys-off'));
    const key = (raw ?? '').trim();
    if (key === '' || key.length > 512 || /\s/.test(key)) return redirect(res, withFlash(back, 'key-bad-key'));
    const checked = await deps.keys.check(key);
    if (checked !== 'accepted') return redirect(res, withFlash(back, `key-${checked}`));
    await deps.keys.people.connect(person, key, deps.clock.now());
    deps.logger.info({ person }, 'personal API key connected in the console');
    await recordConsoleAct(deps, viewer, 'key.connected', person, { person });
    redirect(res, withFlash(back, 'key-connected'));
  };

  return [
    gate.action(`${MY_KEY_PATH}/connect`, 'everyone', async (form, viewer, res) => {
      if (!viewer.person) return redirect(res, withFlash(MY_KEY_PATH, 'no-person'));
      await connectKey(viewer.person.id, form.get('key'), MY_KEY_PATH, res, viewer);
    }),
    gate.action(`${MY_KEY_PATH}/disconnect`, 'everyone', async (_form, viewer, res) => {
      if (!deps.keys) return redirect(res, withFlash(MY_KEY_PATH, 'keys-off'));
      if (!viewer.person) return redirect(res, withFlash(MY_KEY_PATH, 'no-person'));
      const removed = await deps.keys.people.disconnect(viewer.person.id);
      if (removed) {
        deps.logger.info({ person: viewer.person.id }, 'personal API key disconnected in the console');
        await recordConsoleAct(deps, viewer, 'key.removed', viewer.person.id, { person: viewer.person.id });
        await keyRemoved(viewer.person.id);
      }
      redirect(res, withFlash(MY_KEY_PATH, removed ? 'my-key-removed' : 'my-key-absent'));
    }),
    gate.action('/console/keys/connect', 'admins', async (form, viewer, res) => {
      // Any chat surface's person id, stored as the canonical one (`slack:U…` is `U…`).
      const person = PERSON_IDS.parse((form.get('person') ?? '').trim())?.personId;
      if (deps.keys && person === undefined) return redirect(res, withFlash('/console/keys', 'key-bad-person'));
      await connectKey(person ?? '', form.get('key'), '/console/keys', res, viewer);
    }),
    gate.action('/console/keys/link', 'admins', async (form, _viewer, res) => redirect(res, withFlash('/console/keys', await linkPeople(deps, form)))),
    gate.action('/console/keys/unlink', 'admins', async (form, _viewer, res) => redirect(res, withFlash('/console/keys', await unlinkPeople(deps, form)))),
    gate.action('/console/keys/remove', 'admins', async (form, viewer, res) => {
      if (!deps.keys) return redirect(res, withFlash('/console/keys', 'keys-off'));
      const person = form.get('person') ?? '';
      const removed = await deps.keys.people.disconnect(person);
      if (removed) {
        await recordConsoleAct(deps, viewer, 'key.removed', person, { person });
        await keyRemoved(person);
      }
      redirect(res, withFlash('/console/keys', removed ? 'key-removed' : 'key-absent'));
    }),
  ];
}
