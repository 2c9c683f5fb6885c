import { expect } from 'vitest';

/** The cookies a response sets, each as `name=value` (what a browser sends back). */
export const cookiesOf = (response: Response): string[] => response.headers.getSetCookie().map((line) => line.split(';')[0] ?? '');

/** The console session cookie a response sets (`agent_bridge_console=…`), if it sets one. */
export const sessionCookieOf = (response: Response): string | undefined => cookiesOf(response).find((line) => /^agent_bridge_console=./.test(line));

/** The CSRF token a console page's forms carry ('' if none). */
export const csrfIn = (page: string): string => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

/** GET and form POST against the console as a browser does them: redirects are answers, not followed. */
export interface ConsoleHttp {
  /** GETs a path of the service, or a whole URL (a provider's, a redirect's). */
  get: (url: string, cookie?: string) => Promise<Response>;
  /** POSTs a urlencoded form to a path of the service. */
  post: (path: string, form: Record<string, string>, cookie?: string) => Promise<Response>;
}

/** A {@link ConsoleHttp} for the service at `baseUrl()` (a function: the service starts in a beforeAll). */
export function consoleHttp(baseUrl: () => string): ConsoleHttp {
  return {
    get: (url, cookie = '') => fetch(url.startsWith('http') ? url : `${baseUrl()}${url}`, { redirect: 'manual', headers: { cookie } }),
    post: (path, form, cookie = '') =>
      fetch(`${baseUrl()}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      }),
  };
}

/**
 * Signs in through the form with the admin token as a browser would (the form's nonce cookie and CSRF
 * token, then the token); checks the 303 and answers the session cookie.
 */
export async function signInWithToken(http: ConsoleHttp, token: string, next: string): Promise<string> {
  const form = await http.get('/console/sign-in');
  const answer = await http.post('/console/sign-in', { csrf: csrfIn(await form.text()), token, next }, cookiesOf(form).join('; '));
  expect(answer.status).toBe(303);
  const session = cookiesOf(answer).find((line) => line.startsWith('agent_bridge_console='));
  expect(session).toMatch(/^agent_bridge_console=.+/);
  return session ?? '';
}

/**
 * Signs `user` in with Slack as a browser would, against the fake OpenID provider the service's
 * `SLACK_OIDC_ISSUER` names: the start, the provider's authorize answer, the callback. Answers the
 * session cookie and a page's CSRF token.
 */
export async function signInWithSlack(
  http: ConsoleHttp,
  provider: { signInAs(user: { userId: string; teamId: string; name: string }): void },
  user: { userId: string; teamId: string; name: string },
): Promise<{ cookie: string; csrf: string }> {
  provider.signInAs(user);
  const start = await http.get('/console/auth/slack?next=%2Fconsole%2Fruns');
  expect(start.status).toBe(303);
  const authorize = await http.get(start.headers.get('location') ?? '');
  expect(authorize.status).toBe(302);
  const done = await http.get(authorize.headers.get('location') ?? '', cookiesOf(start).join('; '));
  expect(done.status).toBe(303);
  const cookie = sessionCookieOf(done) ?? '';
  expect(cookie).not.toBe('');
  const runs = await http.get('/console/runs', cookie);
  expect(runs.status).toBe(200);
  return { cookie, csrf: csrfIn(await runs.text()) };
}
