/**
 * The Home tab's listeners: its opening (the tab is published from the outbox, never from here), its
 * Start a run button (the one Slack call a listener makes: the modal needs the click's trigger_id
 * within 3 s) and the modal's submission.
 */
import type { AccessPolicy } from '../core/ports/intake.js';
import { homeOpenedSetting } from './setting-names.js';
import { keyRefusal } from '../people/key-refusals.js';
import { slackUserRefusal } from './access.js';
import { HOME_OPENED_KIND } from './home-notifier.js';
import { readStartRunSubmission, startRunTrigger, submissionErrors } from './home-start.js';
import { interactionOrgs } from './slack-person.js';
import { HOME_START_ACTION_ID, homeDestination, homeUserOf, START_RUN_CALLBACK_ID, startRunModal } from './home-view.js';
import type { SubmitTrigger } from './listener-submit.js';
import type { ListenerDeps } from './listener-deps.js';
import type { ListenerApp } from './event-router.js';

type HomeDeps = Pick<ListenerDeps, 'now' | 'settings' | 'personKeys' | 'intake' | 'routeChoices' | 'openModal' | 'logger'>;

/** Registers the Home tab's listeners. */
export function registerHomeListeners(app: ListenerApp, deps: HomeDeps, access: AccessPolicy, submit: SubmitTrigger): void {
  // The Home tab is published from the outbox, never from here: once a day on opening, and at every
  // state change of the runs the person starts from now on (their Home destination) and of their
  // unfinished earlier ones (the opening's delivery adds it to them: HomeNotifier.keepCurrent).
  app.event('app_home_opened', async ({ event }) => {
    const { user, tab } = event as unknown as Record<string, unknown>;
    if (tab !== 'home' || typeof user !== 'string' || !homeUserOf(homeDestination(user))) return;
    const day = new Date(deps.now()).toISOString().slice(0, 10);
    await deps.settings.set(homeOpenedSetting(user), day);
    await deps.intake.owe([
      {
        key: `home:${user}:opened:${day}${await keyMark(deps, user)}`,
        destination: homeDestination(user),
        kind: HOME_OPENED_KIND,
        payload: { kind: HOME_OPENED_KIND },
      },
    ]);
  });

  app.action({ action_id: HOME_START_ACTION_ID, type: 'block_actions' }, async ({ ack, body }) => {
    await ack();
    if (slackUserRefusal(access, { id: body.user.id, orgs: interactionOrgs(body) })) return;
    // A modal needs the click's trigger_id within 3 s, so this cannot wait for the outbox: the call is
    // bounded by its own short timeout (the answer to Slack waits for it), and a failure costs only the
    // modal — the person clicks again.
    try {
      await deps.openModal(body.trigger_id, startRunModal(deps.routeChoices));
    } catch (error) {
      deps.logger.warn({ code: (error as { code?: unknown }).code }, 'could not open the Start a run modal');
    }
  });

  // A submitted Start a run modal: refused or invalid input is shown in the modal; else stored, then closed.
  app.view(START_RUN_CALLBACK_ID, async ({ ack, body, context }) => {
    const submission = readStartRunSubmission(body);
    if (!submission) return ack();
    const refusal = slackUserRefusal(access, { id: submission.user, orgs: submission.orgs });
    const errors = refusal !== undefined ? { request: refusal } : submissionErrors(submission, deps.routeChoices);
    if (errors) return ack({ response_action: 'errors', errors });
    await submit(startRunTrigger(submission), context);
    return ack();
  });
}

/**
 * Once a day, and again once their key changed (connected, replaced, refused): the tab says whether it
 * is connected, so the day's opening is owed again under another key.
 */
async function keyMark(deps: Pick<HomeDeps, 'personKeys' | 'settings'>, user: string): Promise<string> {
  const key = await deps.personKeys.get(user);
  if (!key) return '';
  const refused = await keyRefusal(deps.settings, user, key.connectedAt);
  return `:key:${key.connectedAt}${refused ? `:refused:${refused.at}` : ''}`;
}
