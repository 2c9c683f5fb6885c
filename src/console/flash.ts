import type { IncomingMessage } from 'node:http';
import { queryOf } from './http-io.js';
import { PERSON_IDS } from '../surface-list.js';
import { LINK_FLASH } from './people-links.js';

/** What an action did, shown once on the page it returns to; codes, so no text travels in the URL. */
const FLASH: Record<string, string> = {
  'cancel-requested': 'Cancel requested: the run stops within seconds, and the people who asked are told.',
  'delivery-retried': 'The message will be sent again now.',
  'delivery-dismissed': 'Dismissed.',
  'trigger-retried': 'The request will be tried again now.',
  'trigger-dismissed': 'Dismissed.',
  'not-failed': 'Nothing to do: it is no longer failed.',
  fired: 'Fired: the run starts within seconds.',
  'fire-skipped': 'Not fired: see the reason among the recent fires.',
  'fire-taken': 'That slot was already fired by another process.',
  paused: 'Paused: its slots are skipped until resumed.',
  resumed: 'Resumed.',
  'already-paused': 'It was already paused.',
  'not-paused': 'It was not paused.',
  'key-connected': 'Connected: the run API accepted the key, and it is stored sealed.',
  'key-refused': 'Not connected: the run API refused this key (401/403). Check that it is a valid personal API key.',
  'key-unavailable': 'Not connected: the run API could not be asked right now. Nothing was stored; try again shortly.',
  'key-bad-person': `Not connected: that is not a person id (${PERSON_IDS.expected()}).`,
  'key-bad-key': 'Not connected: the key is empty, longer than 512 characters, or contains spaces.',
  'key-removed': 'Removed.',
  'key-absent': 'Nothing to remove: no key was connected for that person.',
  'keys-off': 'Personal keys are off: AGENT_BRIDGE_SECRET is not set.',
  ...LINK_FLASH,
  'my-key-removed': 'Disconnected: runs you ask for now use the service’s key (revoke the key in the run API too if you no longer need it).',
  'my-key-absent': 'Nothing to disconnect: no key was connected.',
  'no-person': 'Sign in as yourself (not with the admin token) to connect your own key.',
};

/** The flash a page was sent back with (`?flash=<code>`), as text; unknown codes show nothing. */
export function flashOf(req: IncomingMessage): string | undefined {
  return FLASH[queryOf(req).get('flash') ?? ''];
}

/** `path` with the flash code an action ends with. */
export function withFlash(path: string, flash: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}flash=${flash}`;
}
