/** What the Slack listeners need (`listeners.ts` and the listener files it registers). */
import type { ApprovalDesk } from '../core/approvals/approval-desk.js';
import type { AuditTrail } from '../core/ports/audit.js';
import type { AccessPolicy } from '../core/ports/intake.js';
import type { View } from '@slack/types';
import type { IntakeService } from '../core/intake/intake-service.js';
import type { Logger } from '../core/ports/logger.js';
import type { AnchorRepository, PersonKeyRepository, SettingRepository, TrackedRunRepository, TriggerRepository } from '../core/ports/store.js';
import type { RouteChoice } from './home-view.js';
import type { Followups } from './normalise.js';
import type { StartTriggers } from './start-triggers.js';

export interface ListenerDeps {
  intake: IntakeService;
  /** Read-only views of tracked runs for `/agent status` and `/agent cancel`. */
  trackedRuns: Pick<TrackedRunRepository, 'get' | 'listTrackedByAnchorPrefix'>;
  /** Who started a run (`/agent cancel` by name is for its channel, its starter and admins). */
  triggers: Pick<TriggerRepository, 'getByKey'>;
  /** A thread's run, for the stop button of its agent session. */
  anchors: Pick<AnchorRepository, 'currentRunVia'>;
  /** `console.admins`: Slack user IDs who may cancel any run from anywhere. */
  admins: readonly string[];
  /** People's keys for `/agent whoami` and `/agent disconnect` (only what may be shown is read). */
  personKeys: Pick<PersonKeyRepository, 'get' | 'remove'>;
  /** Decides requests waiting for approval (the Approve and Reject buttons); absent: no route needs approval. */
  approvals?: Pick<ApprovalDesk, 'decide'>;
  /** The audit trail: a key removed with `/agent disconnect` is one entry. */
  audit: AuditTrail;
  /** The console page where a person's key is connected (`/agent connect`); undefined without PUBLIC_URL. */
  keyPageUrl: string | undefined;
  /** Who may use the bot (`slack.allowed_users`, `slack.allowed_teams`; access.ts): the service's one policy, the intake's too. */
  access: AccessPolicy;
  now: () => number;
  followups: Followups;
  botUserId: string;
  botId: string | undefined;
  logger: Logger;
  /** The routes the Start a run modal offers (one per `slack.channels` entry and the default). */
  routeChoices: readonly RouteChoice[];
  /** Remembers who opened their Home tab and which assistant threads people open (only those are kept current). */
  settings: Pick<SettingRepository, 'get' | 'set'>;
  /** `slack.unfurl_domains`: links on these domains (or their subdomains) are previewed; empty = none. */
  unfurlDomains: readonly string[];
  /** The channel routes' `trigger`s: keywords and an emoji that start runs without a mention. */
  startTriggers: StartTriggers;
  /** `views.open` with a click's trigger_id: the one Slack call a listener makes (it must happen within 3 s). */
  openModal: (triggerId: string, view: View) => Promise<unknown>;
}
