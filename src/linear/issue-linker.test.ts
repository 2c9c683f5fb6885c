import { describe, expect, it } from 'vitest';
import { namedIssue } from './issue-linker.js';

describe('namedIssue: the Linear issue a request names', () => {
  it.each([
    ['an identifier as a word', 'please fix ENG-123 today', 'ENG-123'],
    ['at the start, with punctuation after', 'ENG-7: the login is broken.', 'ENG-7'],
    ['in brackets', 'see (WEB-42)', 'WEB-42'],
    ['an issue URL, lower-case in the path', 'look at https://linear.app/acme/issue/eng-9/slow-search', 'ENG-9'],
    ['a URL wins over an identifier before it', 'not ENG-1 but https://linear.app/acme/issue/ENG-2/x', 'ENG-2'],
    ['a Slack link wrapping the URL', '<https://linear.app/acme/issue/OPS-5/title|OPS-5>', 'OPS-5'],
    ['the first of two identifiers', 'ENG-3 and ENG-4', 'ENG-3'],
    // Looked up like any identifier; the linker stays quiet when no such issue exists (linear.teams set).
    ['a name shaped like an identifier', 'UTF-8 only', 'UTF-8'],
  ])('%s', (_name, text, expected) => {
    expect(namedIssue(text)).toBe(expected);
  });

  it.each([
    ['nothing', 'fix the build'],
    ['lower-case words', 'eng-123 is not how people write identifiers'],
    ['part of a longer word', 'XENG-123x and build-2'],
    ['a version or a path', 'upgrade to node/ENG-20 and v1.ENG-2'],
  ])('no issue in %s', (_name, text) => {
    expect(namedIssue(text)).toBeUndefined();
  });
});
