import { describe, expect, it } from 'vitest';
import { placeLabel } from './run-places.js';

describe('placeLabel', () => {
  it.each([
    ['slack:C0123ABCD:1700000000.000100', 'Slack thread 1700000000.000100 in C0123ABCD'],
    ['slack:C0123ABCD', 'Slack channel C0123ABCD (a thread of its own)'],
    ['slack:home:U0HUMAN001', 'Slack Home tab of U0HUMAN001'],
    ['linear:0a1b2c3d-0000-4000-8000-00000issue01', 'Linear issue 0a1b2c3d-0000-4000-8000-00000issue01'],
    ['linear:ENG-42', 'Linear issue ENG-42'],
    ['linear-session:sess-1', 'Linear agent session sess-1'],
    ['github:acme/web#12', 'GitHub issue or pull request acme/web#12'],
    ['jira:ENG-42', 'Jira issue ENG-42'],
    ['log:schedule:nightly', 'log:schedule:nightly'],
    ['log:console:0123456789abcdef01234567', "the console's New run (the service log, log:console:0123456789abcdef01234567)"],
    ['log:cli:0123456789abcdef01234567', 'agent-bridge run (the service log, log:cli:0123456789abcdef01234567)'],
  ])('%s', (place, label) => {
    expect(placeLabel(place)).toBe(label);
  });
});
