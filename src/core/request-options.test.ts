import { describe, expect, it } from 'vitest';
import { describeOptions, optionsRefusal, splitRequestOptions, withoutRequestOptions } from './request-options.js';

describe('splitRequestOptions', () => {
  it.each([
    ['no bracket', 'fix the login bug', { kind: 'none' }],
    ['a bracket that is not options', '[WIP] fix it', { kind: 'none' }],
    ['a link-like bracket', '[docs](https://x) read this', { kind: 'none' }],
    [
      'all three short names',
      '[env=env_api model=model-x skill=owner/repo:fix-bug] fix it',
      {
        kind: 'options',
        options: { environment_id: 'env_api', model_id: 'model-x', skill_spec: 'owner/repo:fix-bug' },
        text: 'fix it',
      },
    ],
    ['full field names, any case of key', '[Environment_ID=env_web] go', { kind: 'options', options: { environment_id: 'env_web' }, text: 'go' }],
    ['spaces inside the brackets', '  [ env=env_api ]\nsecond line', { kind: 'options', options: { environment_id: 'env_api' }, text: 'second line' }],
    ['values with @ + .', '[model=claude@4.5+fast] go', { kind: 'options', options: { model_id: 'claude@4.5+fast' }, text: 'go' }],
    ['options and nothing else', '[env=env_api]', { kind: 'options', options: { environment_id: 'env_api' }, text: '' }],
  ])('%s', (_name, input, expected) => {
    expect(splitRequestOptions(input)).toMatchObject(expected);
  });

  it.each([
    ['an unclosed bracket', '[env=env_api fix it', /not closed/],
    ['a bracket closed only on a later line', '[env=env_api\n] fix', /not closed/],
    ['a nested bracket', '[env=[env_api] fix', /another "\["/],
    ['an unknown key', '[branch=main] fix', /unknown option "branch" — the options are env, model and skill/],
    ['a repeated key', '[env=a env=b] fix', /env is given twice/],
    ['a repeated key by both names', '[env=a environment_id=b] fix', /env is given twice/],
    ['an empty value', '[env= model=x] fix', /env has no value/],
    ['spaces around =', '[env =x] fix', /"env" is not key=value/],
    ['a token without =', '[env=a fast] fix', /"fast" is not key=value/],
    ['a value with markup', '[env=<b>x</b>] fix', /may hold only/],
    ['a value with a quote', '[model="x"] fix', /may hold only/],
  ])('refuses %s', (_name, input, problem) => {
    const split = splitRequestOptions(input);
    expect(split.kind).toBe('invalid');
    if (split.kind === 'invalid') expect(split.problem).toMatch(problem);
  });

  it('leaves a request without options as it was, and strips readable ones', () => {
    expect(withoutRequestOptions('  plain')).toBe('  plain');
    expect(withoutRequestOptions('[env=e1] do it')).toBe('do it');
    expect(withoutRequestOptions('[env=e1 do it')).toBe('[env=e1 do it');
  });
});

describe('optionsRefusal', () => {
  const overrides = { environment_id: ['env_web', 'env_api'], model_id: '*' } as const;

  it.each([
    ['an allowed listed value', { environment_id: 'env_api' }, undefined],
    ['any value under "*"', { model_id: 'anything-1' }, undefined],
    [
      'a value not in the list',
      { environment_id: 'env_prod' },
      'The option env=env_prod is not allowed here; allowed here — env: env_web, env_api; model: any value. No run was started.',
    ],
    [
      'a field the route does not open',
      { skill_spec: 'o/r:s', model_id: 'm' },
      'The option skill=o/r:s is not allowed here; allowed here — env: env_web, env_api; model: any value. No run was started.',
    ],
  ])('%s', (_name, options, expected) => {
    expect(optionsRefusal(options, overrides)).toBe(expected);
  });

  it('names that nothing is allowed on a route without overrides', () => {
    expect(optionsRefusal({ environment_id: 'e', model_id: 'm' }, undefined)).toBe(
      'The options env=e model=m are not allowed here; no options are allowed here. No run was started.',
    );
  });

  it('describes options as typed, short names in a fixed order', () => {
    expect(describeOptions({ skill_spec: 's', environment_id: 'e' })).toBe('env=e skill=s');
  });
});
