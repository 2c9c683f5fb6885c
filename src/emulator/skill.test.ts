import { describe, expect, it } from 'vitest';
import { skillView } from './skill.js';

describe('skillView', () => {
  it.each([
    ['acme/tools:.claude/skills/deploy/SKILL.md', { full_path: '.claude/skills/deploy/SKILL.md', name: 'deploy' }],
    ['tools:skills/review.md', { full_path: 'skills/review.md', name: 'review' }],
    ['acme/tools:review', { name: 'review' }],
    ['tools:triage', { name: 'triage' }],
    ['lint', { name: 'lint' }],
    ['acme/tools:a/b/skill.md', { full_path: 'a/b/skill.md', name: 'b' }],
  ])('%s → %j', (spec, view) => {
    expect(skillView(spec)).toEqual(view);
  });
});
