/**
 * A sign-in provider the service does not have: Sign in with Parley, offered by the made-up Parley
 * surface of the config tests (`test/config/made-up-surface.ts`), whose surface stays off while its
 * sign-in is on. Its platform is a stand-in: the start route sends the browser to a login page that
 * does not exist, and the callback signs in whoever `signInAs` named, once the state it kept comes back.
 */
import type { Route } from '../../src/core/intake/routing.js';
import type { Surface } from '../../src/core/ports/surface.js';
import type { SignInOffer } from '../../src/surface-kit/sign-in-provider.js';
import type { SurfaceModule } from '../../src/surface-kit/surface-module.js';
import { parleyModule } from '../config/made-up-surface.js';

/** Where the made-up provider's start route sends the browser. */
export const MADE_UP_LOGIN = 'https://login.made-up.example/authorize';

interface MadeUpSettings {
  clientId: string;
  clientSecret: string;
}

let next: { personId: string; name: string; workspace?: string } = { personId: 'parley:aad-0001', name: 'Tess Parley' };

/** Who the next callback signs in. */
export function signInAs(person: { personId: string; name: string; workspace?: string }): void {
  next = person;
}

const madeUpSignIn: SignInOffer<MadeUpSettings> = {
  id: 'parley',
  name: 'Sign in with Parley',
  platform: 'Parley',
  turnOn: 'PARLEY_APP_ID and PARLEY_APP_PASSWORD',
  provider: (settings, { redirectUrl }) => ({
    id: 'parley',
    name: 'Sign in with Parley',
    platform: 'Parley',
    secret: settings.clientSecret,
    logFields: { redirectUrl },
    routes: (deps) => ({
      start: (req, res) => {
        const state = `state-${settings.clientId}`;
        deps.toProvider(res, `${MADE_UP_LOGIN}?state=${state}&redirect_uri=${encodeURIComponent(redirectUrl)}`, { state }, deps.nextOf(req));
      },
      callback: (req, res) => {
        const kept = deps.pendingOf(req);
        const state = new URL(req.url ?? '/', 'http://x').searchParams.get('state');
        if (!kept || kept.pending['state'] !== state)
          return deps.refused(res, { status: 400, next: '/console/runs', why: 'not started here', reason: 'no state' });
        deps.signedIn(res, kept.next, next);
      },
    }),
  }),
};

const surface: Surface<Route> = {
  name: 'parley',
  title: 'Parley',
  can: { editInPlace: false, react: false, speakPrivately: false, thread: false },
  isConversation: () => false,
  route: () => undefined,
};

/** The made-up surface's module, whole: off as a surface, its sign-in on with PARLEY_APP_ID and PARLEY_APP_PASSWORD. */
export const madeUpModule: SurfaceModule = {
  ...parleyModule,
  config: {
    ...parleyModule.config,
    signIn: {
      key: 'parleySignIn',
      resolve: (env: { appId?: string; password?: string }) =>
        env.appId !== undefined && env.password !== undefined ? { clientId: env.appId, clientSecret: env.password } : undefined,
      describe: (settings: MadeUpSettings) => ({ clientId: settings.clientId }),
      secrets: (settings: MadeUpSettings) => [settings.clientSecret],
    },
  },
  signIn: madeUpSignIn,
  isOn: () => false,
  surface: () => surface,
  start: () => Promise.resolve(undefined),
  offEndpoints: () => [],
  healthNote: () => 'off: made up',
  placeLabel: () => undefined,
  placeLink: () => undefined,
  routeTables: () => [],
};
