import type { TriggerInput } from '../../src/core/ports/triggers.js';

/** A start trigger as a Slack mention submits it: asked by ada in channel C1, reported at `anchor`. */
export function slackStart(key: string, anchor = 'slack:C1:1700.1'): TriggerInput {
  return {
    kind: 'start',
    key,
    source: 'slack',
    anchor,
    payload: {
      prompt: 'Fix the flaky test',
      title: 'Fix the flaky test',
      origin: { source: 'slack', channel: 'C1' },
      destinations: [anchor],
      requester: { platform: 'slack', id: 'U1', name: 'ada' },
    },
  };
}
