import { describe, expect, it } from 'vitest';
import type { RunItem } from '../ports/agent-runs.js';
import { toSnapshot } from './run-snapshot.js';

const base: RunItem = { run_id: 'run_1', state: 'INPROGRESS', title: 'Fix the build' };

describe('toSnapshot', () => {
  it.each<[string, Partial<RunItem>, string | undefined]>([
    ['a string status message', { status_message: 'Working' }, 'Working'],
    ['an object with message only', { status_message: { message: 'Stuck' } }, 'Stuck'],
    ['an object with an error code', { status_message: { message: 'Boom', error_code: 'internal_error', retryable: true } }, 'Boom (internal_error)'],
    ['an object with an empty error code', { status_message: { message: 'Boom', error_code: '' } }, 'Boom'],
    ['an object with only an error code', { status_message: { message: '', error_code: 'agent_failed' } }, '(agent_failed)'],
    ['an empty string', { status_message: '' }, undefined],
    ['null', { status_message: null }, undefined],
    ['no status message', {}, undefined],
  ])('statusText from %s', (_name, patch, expected) => {
    const snapshot = toSnapshot({ ...base, ...patch }, 'fallback');
    expect(snapshot.statusText).toBe(expected);
    expect('statusText' in snapshot).toBe(expected !== undefined);
  });

  it.each<[string, RunItem['artifacts'], string[]]>([
    ['no artifacts', undefined, []],
    ['null artifacts', null, []],
    ['one pull request', [{ artifact_type: 'PULL_REQUEST', data: { url: 'https://gh/pr/1', branch: 'b' } }], ['https://gh/pr/1']],
    [
      'pull requests among other artifacts, in order',
      [
        { artifact_type: 'PLAN', data: { url: 'https://plan' } },
        { artifact_type: 'PULL_REQUEST', data: { url: 'https://gh/pr/1' } },
        { artifact_type: 'SCREENSHOT' },
        { artifact_type: 'PULL_REQUEST', data: { url: 'https://gh/pr/2' } },
      ],
      ['https://gh/pr/1', 'https://gh/pr/2'],
    ],
    ['a pull request without a url', [{ artifact_type: 'PULL_REQUEST', data: { branch: 'b' } }], []],
    ['a pull request without data', [{ artifact_type: 'PULL_REQUEST' }], []],
  ])('pullRequests from %s', (_name, artifacts, expected) => {
    expect(toSnapshot({ ...base, artifacts }, 'fallback').pullRequests).toEqual(expected);
  });

  it.each<[string, Partial<RunItem>, string]>([
    ['the run title', { title: 'From API' }, 'From API'],
    ['the fallback when the title is missing', { title: undefined }, 'Stored title'],
    ['the fallback when the title is empty', { title: '' }, 'Stored title'],
    ['the fallback when the title is blank', { title: '   ' }, 'Stored title'],
  ])('title: %s', (_name, patch, expected) => {
    expect(toSnapshot({ ...base, ...patch }, 'Stored title').title).toBe(expected);
  });

  it.each<[string, Partial<RunItem>, string | undefined]>([
    ['a session link', { session_link: 'http://x/sessions/s1' }, 'http://x/sessions/s1'],
    ['null', { session_link: null }, undefined],
    ['absent', {}, undefined],
    ['empty', { session_link: '' }, undefined],
  ])('sessionLink from %s', (_name, patch, expected) => {
    const snapshot = toSnapshot({ ...base, ...patch }, 'fallback');
    expect(snapshot.sessionLink).toBe(expected);
    expect('sessionLink' in snapshot).toBe(expected !== undefined);
  });

  it('keeps the run id and state, unknown states included', () => {
    expect(toSnapshot({ run_id: 'run_9', state: 'WAITING_FOR_REVIEW' }, 'T')).toEqual({
      runId: 'run_9',
      title: 'T',
      state: 'WAITING_FOR_REVIEW',
      pullRequests: [],
    });
  });
});
