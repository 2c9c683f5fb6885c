/**
 * What a GitHub delivery asks for, and the pieces every act shares: the place of an issue
 * or pull request, whether a repository is served, whether a comment addresses us, who may act.
 */
import { oneLine } from '../core/quote.js';
import type { Requester, TriggerInput } from '../core/ports/triggers.js';

export interface GithubTriggerConfig {
  handle: string;
  /** `owner/name` lower-cased (or `*`) → a route exists. */
  repos: Readonly<Record<string, unknown>>;
  /** Label name lower-cased → a route exists. */
  labels: Readonly<Record<string, unknown>>;
  /** A route's companion places (chat places its runs also get a thread in), by repository and by label (lower-cased keys); absent: none. */
  companions?: { repos: Readonly<Record<string, readonly string[]>>; labels: Readonly<Record<string, readonly string[]>> };
  /** Logins, lower-cased. */
  allowedUsers: readonly string[];
  pullRequests: 'none' | 'mentions' | 'reviews';
  ciFailures: number;
}

/** A comment, review or review comment we act on: where the notifier puts `eyes` and `rocket`. */
export interface GithubReference {
  repo: string;
  number: number;
  comment?: number;
  reviewComment?: number;
  review?: number;
}

/** What a delivery asks for. */
export type GithubAct =
  /**
   * A request about an issue or a run's pull request; `needsRun`: only when the place already has a
   * run; `ifLinked`: what it is instead when the place has a run (an `@agent` comment steers it).
   */
  | {
      kind: 'trigger';
      input: TriggerInput;
      needsRun: boolean;
      checkFailure?: true;
      ifLinked?: TriggerInput;
      /**
       * When the act happened by GitHub's clock (a label change: the issue's `updated_at`; a comment, a
       * review, a check run: its own time), if the delivery says: an act older than the dedupe retention is
       * a replay, whatever its delivery id.
       */
      at?: string;
      /** A label change on the issue of this place: one older than the last seen there is a replay. */
      labelChangeOf?: string;
    }
  /**
   * A pull request was merged or closed: told once in every place of its run. `name` is how people
   * read it (`Codertocat/Hello-World#2`, GitHub's spelling); `url` its page, from the payload.
   */
  | { kind: 'closed'; place: string; name: string; merged: boolean; url: string; by: string }
  | { kind: 'ignored'; reason: string };

/** Who a failed check's follow-up is from: no person (a login never holds a colon). */
export const CHECKS_REQUESTER = 'github:checks';

/**
 * Associations that may or may not come with write access: an organisation's member may have only read
 * access to its repository, a collaborator may have been invited to read or triage.
 */
const MAYBE_WRITE = new Set(['MEMBER', 'COLLABORATOR']);

/** A GitHub place: `github:<owner>/<repo>#<number>` (lower-cased: GitHub's names are case-insensitive). */
export function githubPlace(repo: string, number: number): string {
  return `github:${repo.toLowerCase()}#${number}`;
}

/** The place a pull request URL names (`<web>/<owner>/<repo>/pull/<n>`), if it is one. */
export function placeOfPullRequestUrl(url: string, webUrl: string): { repo: string; number: number; place: string } | undefined {
  const base = webUrl.replace(/\/+$/, '');
  if (!url.toLowerCase().startsWith(`${base.toLowerCase()}/`)) return undefined;
  const match = /^([^/]+)\/([^/]+)\/pull\/(\d+)(?:[/?#].*)?$/.exec(url.slice(base.length + 1));
  if (!match) return undefined;
  const repo = `${match[1]}/${match[2]}`.toLowerCase();
  const number = Number(match[3]);
  return { repo, number, place: githubPlace(repo, number) };
}

/**
 * A start's places: the issue, and the companion places of the route it takes (the label's route over
 * the repository's over `*`'s, as `Surface.route` chooses) when that route names any.
 */
export function startPlaces(
  anchor: string,
  repo: string,
  label: string | undefined,
  config: Pick<GithubTriggerConfig, 'repos' | 'labels' | 'companions'>,
): string[] {
  const companions = config.companions;
  const key = label?.toLowerCase();
  const lower = repo.toLowerCase();
  const places = !companions
    ? undefined
    : key !== undefined && Object.hasOwn(config.labels, key)
      ? companions.labels[key]
      : Object.hasOwn(config.repos, lower)
        ? companions.repos[lower]
        : Object.hasOwn(config.repos, '*')
          ? companions.repos['*']
          : undefined;
  return [anchor, ...(places ?? [])];
}

/** Whether the repository is served: it has a route, or `*` stands for every other. */
export function isServedRepo(repo: string, config: Pick<GithubTriggerConfig, 'repos'>): boolean {
  return Object.hasOwn(config.repos, repo.toLowerCase()) || Object.hasOwn(config.repos, '*');
}

/** The first word is the handle: the rest, else undefined. */
export function addressedTo(body: string | null | undefined, handle: string): string | undefined {
  const text = (body ?? '').trim();
  const match = /^(\S+)([\s\S]*)$/.exec(text);
  const word = (match?.[1] ?? '').toLowerCase().replace(/[.,:;!]+$/, '');
  return word !== '' && word === handle.trim().toLowerCase() ? (match?.[2] ?? '').trim() : undefined;
}

type Person = { login: string; type?: string | undefined } | null | undefined;

/**
 * Whether a person may drive the agent, as far as the delivery can tell: `refused` (a bot, or an
 * association that never has write access, unless `github.allowed_users` lists them), or allowed,
 * with `check` when only GitHub can say (the worker asks, `write-access.ts`): a member or collaborator,
 * and a label's sender — a label event carries no association (`undefined` here).
 */
export type Clearance = { refused: string } | { check: boolean };

/** The clearance of `person`, whose association with the repository is `association` (none for a label's sender). */
export function clearance(person: Person, association: string | undefined, config: Pick<GithubTriggerConfig, 'allowedUsers'>): Clearance {
  if (!person) return { refused: 'no author' };
  if (person.type === 'Bot' || person.login.endsWith('[bot]')) return { refused: 'written by a bot (ours included)' };
  if (config.allowedUsers.includes(person.login.toLowerCase()) || association === 'OWNER') return { check: false };
  if (association === undefined || MAYBE_WRITE.has(association)) return { check: true };
  return { refused: `${oneLine(person.login).slice(0, 40)} has no write access (${oneLine(association).slice(0, 30)}) and is not in github.allowed_users` };
}

/** What a payload carries for a clearance that still needs GitHub's word. */
export const toCheck = (cleared: { check: boolean }): { checkRequester?: true } => (cleared.check ? { checkRequester: true } : {});

export const requesterOf = (login: string): Requester => ({ platform: 'github', id: login.toLowerCase(), name: login });
