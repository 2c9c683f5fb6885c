import { describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import type { OutboxMessage } from '../ports/messages.js';
import { LogNotifier } from './log-notifier.js';
import { mapNoticeWords, noticeOf, partsOf, plainParts, type Notice } from './notice-parts.js';
import { renderText } from './render-text.js';

const PR = 'https://github.com/Codertocat/Hello-World/pull/2';

describe('noticeOf', () => {
  it('keeps the links as parts and says the same in plain words', () => {
    const notice = noticeOf(['The pull request ', { url: PR, label: 'Codertocat/Hello-World#2' }, ' was merged; see ', { url: PR }, '.'], {
      receivedKey: 'r',
    });
    expect(notice).toEqual({
      kind: 'notice',
      text: `The pull request Codertocat/Hello-World#2 (${PR}) was merged; see ${PR}.`,
      parts: ['The pull request ', { url: PR, label: 'Codertocat/Hello-World#2' }, ' was merged; see ', { url: PR }, '.'],
      receivedKey: 'r',
    });
  });

  it('is text alone without a link, as every notice was before links', () => {
    expect(noticeOf(['Ada sent the run ', 'a follow-up', ' from Linear.'])).toEqual({ kind: 'notice', text: 'Ada sent the run a follow-up from Linear.' });
  });
});

describe('partsOf a stored notice', () => {
  it.each<[string, unknown]>([
    ['no parts (a row from before links)', undefined],
    ['parts that are not a list', 'The pull request'],
    ['an empty list', []],
    ['a part of an unknown shape', ['a', { href: PR }]],
    ['a link whose label is not words', [{ url: PR, label: 7 }]],
    ['more parts than any notice has', Array.from({ length: 51 }, () => 'x')],
  ])('%s: its text, as words', (_what, parts) => {
    const notice = { kind: 'notice', text: `merged: ${PR}`, parts } as unknown as Notice;
    expect(partsOf(notice)).toEqual([`merged: ${PR}`]);
  });

  it('well-formed parts as they are, without fields it does not know', () => {
    const notice = { kind: 'notice', text: 'x', parts: ['a ', { url: PR, label: 'b', color: 'red' }] } as unknown as Notice;
    expect(partsOf(notice)).toEqual(['a ', { url: PR, label: 'b' }]);
    expect(plainParts(partsOf(notice))).toBe(`a b (${PR})`);
  });
});

describe('mapNoticeWords', () => {
  it('changes the words, never a link', () => {
    const notice = noticeOf(['<@U1> sent ', { url: `${PR}?<@U1>`, label: 'a review' }]);
    const mapped = mapNoticeWords(notice, (words) => words.replace('<@U1>', 'Slack user U1'));
    expect(mapped.parts).toEqual(['Slack user U1 sent ', { url: `${PR}?<@U1>`, label: 'a review' }]);
    expect(mapNoticeWords({ kind: 'notice', text: '<@U1> hi' }, (words) => words.replace('<@U1>', 'U1'))).toEqual({ kind: 'notice', text: 'U1 hi' });
  });
});

describe('a notice with links in the log', () => {
  it('is its plain words, URLs beside their labels', async () => {
    const logger = new CapturingLogger();
    const message: OutboxMessage = noticeOf(['The pull request ', { url: PR, label: 'Codertocat/Hello-World#2' }, ' was merged.']);
    await new LogNotifier(logger).deliver({ key: 'k', destination: 'log:cli', message, attempt: 0, resultOf: async () => undefined });
    expect(logger.lines[0]?.msg).toBe(`The pull request Codertocat/Hello-World#2 (${PR}) was merged.`);
    expect(renderText(message)).toBe(logger.lines[0]?.msg);
  });
});
