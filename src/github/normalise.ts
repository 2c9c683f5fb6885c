/**
 * GitHub deliveries as the core's requests: what each event asks for, decided from the
 * payload alone. Issues start runs (a trigger label, or a handle comment), handle comments steer and
 * stop them, a removed trigger label cancels; on a run's pull request, reviews, line comments and
 * failed checks become follow-ups — whether the pull request has a run is the handler's to check
 * (`webhook-handler.ts`), with the store. Bots (our App among them) and people without write access
 * (unless `github.allowed_users` names them) are never acted on; where the delivery cannot tell (a
 * label's sender, a member or collaborator), the request carries `checkRequester` for the worker to ask.
 */
import { intentOf } from '../core/intake/keywords.js';
import { oneLine } from '../core/quote.js';
import { limitTitle } from '../core/title.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { addressedTo, clearance, githubPlace, isServedRepo, requesterOf, startPlaces, toCheck, type GithubAct, type GithubTriggerConfig } from './acts.js';
import type { GithubEvent, GithubPayload } from './parse-webhook.js';
import { checkAct, reviewAct, reviewCommentAct } from './pull-request-acts.js';

export {
  addressedTo,
  CHECKS_REQUESTER,
  clearance,
  githubPlace,
  isServedRepo,
  placeOfPullRequestUrl,
  type GithubAct,
  type GithubReference,
  type GithubTriggerConfig,
} from './acts.js';

/** What a verified, parsed delivery asks for. */
export function actOf(delivery: GithubEvent, config: GithubTriggerConfig): GithubAct {
  switch (delivery.event) {
    case 'issues':
      return issueAct(delivery.payload, config);
    case 'issue_comment':
      return commentAct(delivery.payload, config);
    case 'pull_request_review':
      return reviewAct(delivery.payload, config);
    case 'pull_request_review_comment':
      return reviewCommentAct(delivery.payload, config);
    case 'pull_request': {
      const { payload } = delivery;
      if (payload.action !== 'closed') return { kind: 'ignored', reason: `pull_request ${payload.action.slice(0, 40)} is not acted on` };
      const { number, html_url: url } = payload.pull_request;
      const place = githubPlace(payload.repository.full_name, number);
      const name = `${payload.repository.full_name}#${number}`;
      return { kind: 'closed', place, name, merged: payload.pull_request.merged === true, url, by: payload.sender.login };
    }
    case 'check_run':
      // Several pull requests: the handler asks each; this is the first's (GitHub lists the head's PRs).
      return checkAct(delivery.payload, config);
  }
}

/**
 * A trigger label added (start) or removed (cancel). The act is the label change itself — the issue,
 * the label and when GitHub says the issue changed — so a delivery replayed under a new delivery id is
 * the same act. Its sender's access is for the worker to ask (a label event carries no association).
 */
function issueAct(payload: GithubPayload<'issues'>, config: GithubTriggerConfig): GithubAct {
  const repo = payload.repository.full_name.toLowerCase();
  const label = payload.label?.name.trim().toLowerCase();
  if ((payload.action !== 'labeled' && payload.action !== 'unlabeled') || label === undefined) {
    return { kind: 'ignored', reason: `issues ${payload.action.slice(0, 40)} starts nothing` };
  }
  if (!Object.hasOwn(config.labels, label)) return { kind: 'ignored', reason: 'not a trigger label' };
  if (payload.issue.pull_request) return { kind: 'ignored', reason: 'a label on a pull request starts nothing' };
  const at = payload.issue.updated_at;
  if (at === undefined) return { kind: 'ignored', reason: 'a label change without the issue’s updated_at' };
  const cleared = clearance(payload.sender, undefined, config);
  if ('refused' in cleared) return { kind: 'ignored', reason: cleared.refused };
  const anchor = githubPlace(repo, payload.issue.number);
  const requester = requesterOf(payload.sender.login);
  const act = `${repo}#${payload.issue.number}:${label}:${at}`;
  if (payload.action === 'unlabeled') {
    return {
      kind: 'trigger',
      needsRun: true,
      at,
      labelChangeOf: anchor,
      input: { kind: 'cancel', key: `github:unlabeled:${act}`, source: 'github', anchor, payload: { requester, ...toCheck(cleared) } },
    };
  }
  if (!isServedRepo(repo, config)) return { kind: 'ignored', reason: 'repository has no route' };
  // People and the agent read the repository as GitHub spells it; places and routes match it lower-cased.
  const ref = `${payload.repository.full_name}#${payload.issue.number}`;
  return {
    kind: 'trigger',
    needsRun: false,
    at,
    labelChangeOf: anchor,
    input: {
      kind: 'start',
      key: `github:labeled:${act}`,
      source: 'github',
      anchor,
      payload: {
        prompt: `Work on the GitHub issue ${ref}: ${oneLine(payload.issue.title)}\nURL: ${oneLine(payload.issue.html_url)}`,
        title: limitTitle(`${ref}: ${oneLine(payload.issue.title)}`),
        origin: { source: 'github', repo, label },
        destinations: startPlaces(anchor, repo, label, config),
        requester,
        ticket: { ref, url: payload.issue.html_url, from: 'GitHub' },
        unlessActive: true,
        ...toCheck(cleared),
      },
    },
  };
}

function commentAct(payload: GithubPayload<'issue_comment'>, config: GithubTriggerConfig): GithubAct {
  if (payload.action !== 'created') return { kind: 'ignored', reason: `issue_comment ${payload.action.slice(0, 40)} is not acted on` };
  const { comment, issue } = payload;
  const rest = addressedTo(comment.body, config.handle);
  if (rest === undefined) return { kind: 'ignored', reason: 'comment not addressed to us' };
  const cleared = clearance(comment.user ?? payload.sender, comment.author_association, config);
  if ('refused' in cleared) return { kind: 'ignored', reason: cleared.refused };
  const check = toCheck(cleared);
  const at = comment.created_at ?? undefined;
  const repo = payload.repository.full_name.toLowerCase();
  const onPullRequest = Boolean(issue.pull_request);
  if (onPullRequest && config.pullRequests === 'none') return { kind: 'ignored', reason: 'github.pull_requests is none' };
  const anchor = githubPlace(repo, issue.number);
  const key = `github:comment:${comment.id}`;
  const login = (comment.user ?? payload.sender).login;
  const requester = requesterOf(login);
  const reference = { repo, number: issue.number, comment: comment.id };
  const intent = intentOf(rest);
  if (intent.kind === 'stop')
    return { kind: 'trigger', needsRun: true, at, input: { kind: 'cancel', key, source: 'github', anchor, payload: { requester, reference, ...check } } };
  const text = intent.text;
  if (onPullRequest) {
    if (!text) return { kind: 'ignored', reason: 'an empty mention' };
    const heardAs = { what: 'a comment on the pull request', link: comment.html_url };
    return {
      kind: 'trigger',
      needsRun: true,
      at,
      input: { kind: 'followup', key, source: 'github', anchor, payload: { message: text, requester, reference, heardAs, ...check } },
    };
  }
  if (!isServedRepo(repo, config)) return { kind: 'ignored', reason: 'repository has no route' };
  const ref = `${payload.repository.full_name}#${issue.number}`;
  const issueLines = `GitHub issue ${ref}: ${oneLine(issue.title)}\nURL: ${oneLine(issue.html_url)}`;
  const steer: TriggerInput | undefined =
    intent.kind === 'new' || !text
      ? undefined
      : {
          kind: 'followup',
          key,
          source: 'github',
          anchor,
          payload: { message: text, requester, reference, heardAs: { what: 'a comment on the issue', link: comment.html_url }, ...check },
        };
  return {
    kind: 'trigger',
    needsRun: false,
    at,
    ...(steer && { ifLinked: steer }),
    input: {
      kind: 'start',
      key,
      source: 'github',
      anchor,
      payload: {
        prompt: text ? `${text}\n\n${issueLines}` : `Work on the ${issueLines}`,
        title: limitTitle(`${ref}: ${oneLine(issue.title)}`),
        origin: { source: 'github', repo },
        destinations: startPlaces(anchor, repo, undefined, config),
        requester,
        ticket: { ref, url: issue.html_url, from: 'GitHub' },
        reference,
        // A handle comment on an issue with a run steers it; `new` starts another.
        followupIfLinked: intent.kind !== 'new',
        ...check,
      },
    },
  };
}
