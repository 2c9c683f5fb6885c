import type { IntakeService } from '../core/intake/intake-service.js';
import type { AgentRuns } from '../core/ports/agent-runs.js';
import type { Clock } from '../core/ports/clock.js';
import type { Logger } from '../core/ports/logger.js';
import type { Store } from '../core/ports/store.js';
import type { SurfaceUsers } from '../core/ports/surface.js';
import type { FireOutcome } from '../core/schedules/schedule-fire.js';
import type { ScheduleDefinition } from '../core/schedules/schedule-definition.js';
import type { KeyCheck } from '../people/key-check.js';
import type { PersonKeys } from '../people/person-keys.js';
import type { SignedInPerson } from './auth.js';
import type { DisplayNames } from '../people/display-names.js';
import type { Route } from '../core/intake/routing.js';
import type { RouteChoice } from './route-choices.js';

/** A configured schedule as the console shows it. */
export type ConsoleSchedule = ScheduleDefinition & { cron: string; timezone: string };

/** Facts for the health page, gathered by the composition root. */
export interface HealthReport {
  version: string;
  store: string;
  runApi: string;
  integrations: Array<{ name: string; on: boolean; why: string }>;
  tracker: { lastTickAt: number | null; requests: number | null; changed: number | null; tracked: number | null; intervalMs: number };
}

/** A surface whose users are linked to people: its name, its name in words, how its user ids look. */
export interface LinkableSurface {
  name: string;
  title: string;
  users: SurfaceUsers;
}

/** What the console's pages read and act through. */
export interface ConsoleDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Cancels go through the core like any other trigger. */
  intake: IntakeService;
  /** The prompt as sent is read back from the run API. */
  runs: Pick<AgentRuns, 'getRun'>;
  schedules: ConsoleSchedule[];
  /** New run: the named routes a run may be started on, and the defaults every run starts from. */
  routes: readonly RouteChoice[];
  defaults: Route;
  /** `Trigger now`: the running scheduler (same rules as `agent-bridge schedules trigger`). */
  triggerSchedule(name: string): Promise<FireOutcome>;
  /** Wakes the outbox workers after a delivery is retried, and the intake worker after a trigger is. */
  wakeOutbox(): void;
  wakeIntake(): void;
  health(): Promise<HealthReport>;
  /** People's personal API keys; absent when AGENT_BRIDGE_SECRET is not set. */
  keys?: { people: PersonKeys; check(apiKey: string): Promise<KeyCheck> };
  /** The surfaces whose users an admin may link to people (the keys page), each with how its ids look. */
  linkable: readonly LinkableSurface[];
  /** Slack people's names by user id (who asked for a run); absent when Slack is off. */
  names?: DisplayNames;
  /**
   * The workspace the people of the chat surface `surface` belong to, read at its start (Slack's bot
   * token's team, from `auth.test`): that surface's sign-in admits only people of this workspace.
   * Absent when that surface is off — the workspace is then not checked.
   */
  workspace?: { surface: string; id: string };
  /** Tells Slack a person's key was removed, so their Home tab is republished when they have opened it; absent when Slack is off. */
  keyRemoved?(person: string): Promise<void>;
}

/**
 * Who is signed in, for a page: the session's id, the CSRF token its forms carry, whether they see
 * everything, and the person when a sign-in provider signed them in (absent for the admin token).
 */
export interface Viewer {
  sid: string;
  csrf: string;
  admin: boolean;
  person?: SignedInPerson;
}
