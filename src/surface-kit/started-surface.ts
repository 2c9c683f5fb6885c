/**
 * What a surface brings to the running service once started (`SurfaceModule.start`), and what it is
 * started with. The composition root gathers these from every started surface: routes for the one
 * HTTP server, notifiers for the outbox, context readers and requester checks for the intake.
 */
import type { ApprovalDesk } from '../core/approvals/approval-desk.js';
import type { IntakeService } from '../core/intake/intake-service.js';
import type { Clock } from '../core/ports/clock.js';
import type { AccessPolicy, PromptEnricher, RequesterCheck } from '../core/ports/intake.js';
import type { IssueLinker } from '../core/ports/issue-links.js';
import type { Logger } from '../core/ports/logger.js';
import type { Notifier, SessionPlaces } from '../core/ports/notifier.js';
import type { Store } from '../core/ports/store.js';
import type { Endpoint } from '../http/server.js';
import type { DescribePeople } from './people-in-words.js';

/** What a surface is started with. */
export interface SurfaceDeps {
  intake: IntakeService;
  store: Store;
  clock: Clock;
  /** The service's logger: a surface names its lines' component itself. */
  logger: Logger;
  /** The policy the intake asks for this surface's triggers (its module's `access`, or a test's override). */
  access: AccessPolicy;
  /** Decides requests held for approval, for a surface whose people decide them (a chat's buttons). */
  approvals: Pick<ApprovalDesk, 'decide'>;
  /** Whether the surface named so is on: a route's companion place on a surface that is off goes nowhere. */
  isOn: (name: string) => boolean;
  /** The people of every chat surface in words (`<@personId>` → "Slack user U0123ABCD"), for a surface where a chat's markup means nothing. */
  people: DescribePeople;
}

/** The people a chat surface knows: the bridge's people are its users (personal keys, the console). */
export interface PeopleDirectory {
  /** The user with this confirmed email, if any (to link a tracker's user to a person). */
  userByEmail: (email: string) => Promise<string | undefined>;
  /** A user's name as people read it. */
  displayName: (user: string) => Promise<string | undefined>;
  /** The workspace its users belong to, once known (the console's sign-in keeps to it). */
  workspace?: string;
  /** Tells the person their key was removed, where they look at it. */
  keyRemoved: (person: string) => Promise<void>;
}

/** A started surface. */
export interface StartedSurface {
  /** Its routes on the one HTTP server (none when its events arrive another way). */
  endpoints: Endpoint[];
  /** Who delivers what is owed to its places. */
  notifiers: Notifier[];
  /** Reads a place's earlier messages into a run's prompt. */
  enricher?: PromptEnricher;
  /** Asks the platform whether a requester the edge could not clear may act. */
  requesterCheck?: RequesterCheck;
  /** Finds its issues named in a message elsewhere (a chat mention naming a ticket). */
  issueLinker?: IssueLinker;
  /** The tracker surfaces whose issues a message here may name (its own config's `link_*_issues`). */
  linksIssuesOf?: readonly string[];
  /** A user's confirmed email, to link them to a person. */
  emailOf?: (userId: string) => Promise<string | undefined>;
  /** Places that show a run as an agent session (their phase owed at each change). */
  sessionPlaces?: SessionPlaces;
  /** A chat surface whose users are the bridge's people. */
  people?: PeopleDirectory;
  /** Stops it before the database closes. */
  stop?: () => Promise<void>;
}
