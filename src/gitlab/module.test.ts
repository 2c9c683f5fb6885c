import { describe, expect, it } from 'vitest';
import type { Route } from '../core/intake/routing.js';
import { redactCredentialShapes } from '../log/credential-shapes.js';
import { gitlabModule } from './module.js';
import { gitlabSurface } from './surface.js';

const route = (name: string): Route => ({ config: { name } });

describe('GitLab as the service sees it', () => {
  it.each([
    ['gitlab:acme/web#7', 'GitLab issue acme/web#7'],
    ['gitlab:acme/platform/api#12', 'GitLab issue acme/platform/api#12'],
    ['gitlab:acme/web!5', 'GitLab merge request acme/web!5'],
    ['gitlab:acme#7', undefined],
    ['github:acme/web#7', undefined],
  ])('%s reads as %j', (place, label) => {
    expect(gitlabModule.placeLabel(place)).toBe(label);
  });

  it('routes by the label, else the project, else "*", in any case', () => {
    const surface = gitlabSurface({
      enabled: true,
      url: 'https://gitlab.com',
      projects: { 'acme/web': route('web'), '*': route('any') },
      labels: { agent: route('label') },
    });
    expect(surface.route({ source: 'gitlab', project: 'acme/web', label: 'Agent' })).toEqual(route('label'));
    expect(surface.route({ source: 'gitlab', project: 'ACME/web' })).toEqual(route('web'));
    expect(surface.route({ source: 'gitlab', project: 'other/thing' })).toEqual(route('any'));
    expect(surface.isConversation('gitlab:acme/web#7')).toBe(true);
    expect(surface.isConversation('gitlab:acme/web')).toBe(false);
  });

  it('takes GitLab-shaped tokens out of a line wherever they appear', () => {
    const line = 'GitLab said: 401 for glpat-AbCdEfGh0123456789xyz and gloas-nothing';
    expect(redactCredentialShapes(line, gitlabModule.credentialShapes ?? [])).not.toContain('glpat-AbCdEfGh0123456789xyz');
  });
});
