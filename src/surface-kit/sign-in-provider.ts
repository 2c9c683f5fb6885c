/**
 * A console sign-in a surface contributes (Sign in with Slack; Sign in with Microsoft next): the
 * provider's two routes under the console, what it says at start, and the secret the console's
 * signing key mixes in. The console iterates the providers the registered modules offer and names
 * none; the provider, in its surface's folder, speaks its platform's protocol and reaches the
 * console's sessions, cookies and pages only through `SignInRouteDeps`. Several may be on at once:
 * the sign-in page shows a button for each.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../core/ports/logger.js';

/** What a sign-in names alike before its settings are known: the console's paths and words for it. */
export interface SignInKind {
  /**
   * Its id in the console's paths: `/console/auth/<id>` starts it and `/console/auth/<id>/callback`
   * finishes it. The provider's own (`slack`, `microsoft`), not necessarily its surface's name.
   */
  readonly id: string;
  /** What people call it, as its button reads ("Sign in with Slack"). */
  readonly name: string;
  /** Whose accounts it signs in, in words ("Slack"): "your Slack account". */
  readonly platform: string;
}

/** Who a provider signed in. */
export interface SignedInIdentity {
  /** Their person id in its canonical form (`surface-kit/person-ids.ts`): Slack's bare `U…`, else `<surface>:<id>`. */
  readonly personId: string;
  /** Their name as the platform gives it. */
  readonly name: string;
  /**
   * The workspace or tenant the platform says they belong to, for a provider that reports one: the
   * console admits only people of the one its surface serves, once that is known.
   */
  readonly workspace?: string | undefined;
}

/** What the console gives a provider's routes: its sealed state, its sessions and its pages. */
export interface SignInRouteDeps {
  readonly logger: Logger;
  /** Where to go once signed in, from the start route's `next`: one of the console's paths, never another site. */
  nextOf(req: IncomingMessage): string;
  /**
   * Sends the browser to the provider at `url`, keeping `pending` (state, nonce, verifier…) and `next`
   * in a short-lived cookie sealed with the console's key, so that any replica can finish the sign-in.
   */
  toProvider(res: ServerResponse, url: string, pending: Readonly<Record<string, string>>, next: string): void;
  /** What `toProvider` kept, when the browser brought it back intact and in time; undefined otherwise. */
  pendingOf(req: IncomingMessage): { pending: Readonly<Record<string, unknown>>; next: string } | undefined;
  /**
   * Starts the person's session and sends them on to `next`; refuses instead (403, with a page) a
   * person of another workspace than the one the provider's surface serves.
   */
  signedIn(res: ServerResponse, next: string, identity: SignedInIdentity): void;
  /**
   * Refuses the sign-in: a page saying `why` (for people: never a secret, never a token) with a way to
   * try again, and no session; the kept state is spent. `reason`, when given, is logged.
   */
  refused(res: ServerResponse, refusal: { status: number; next: string; why: string; reason?: string }): void;
}

/** One of a provider's routes. */
export type SignInRoute = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/** A sign-in that is on: its settings are read. */
export interface SignInProvider extends SignInKind {
  /** Mixed into the console's signing key, so that changing it signs everybody out (never the key's root: the platform may read it). */
  readonly secret: string;
  /** What the start log says of it beside "<name> is on" (its redirect URL, its issuer): never a secret. */
  readonly logFields: Readonly<Record<string, string>>;
  /** Its routes: `start` at `/console/auth/<id>`, `callback` at `/console/auth/<id>/callback`. */
  routes(deps: SignInRouteDeps): { start: SignInRoute; callback: SignInRoute };
}

/**
 * A console sign-in as a surface's module offers it. Its settings are its config slice's `signIn`
 * (`config-slice.ts`), read from the surface's variables; the console turns them into a provider.
 */
export interface SignInOffer<Settings = unknown> extends SignInKind {
  /** What turns it on, for the console's "off" message ("SLACK_CLIENT_ID and SLACK_CLIENT_SECRET"). */
  readonly turnOn: string;
  /** The provider for these settings; `redirectUrl` is its callback under `PUBLIC_URL`, as the platform must know it. */
  provider(settings: Settings, where: { redirectUrl: string }): SignInProvider;
}

/** A sign-in that cannot complete; `reason` is for people (never a secret, never a token). */
export class SignInRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SignInRefused';
  }
}

/** The provider could not be reached or answered nonsense: not the person's fault, try again later. */
export class ProviderUnavailable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ProviderUnavailable';
  }
}
