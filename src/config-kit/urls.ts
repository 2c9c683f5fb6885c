/** The checks every URL-valued variable starts with. */

export type UrlCheck = { ok: true; url: URL } | { ok: false; message: string };

/** An absolute http(s) URL without credentials, query or fragment. Never echoes the value. */
export function checkBaseUrl(text: string): UrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'is not a URL — write an absolute http(s) URL such as https://host.example.com/path' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: `must be an http or https URL, not ${url.protocol.replace(/:$/, '')}:` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, message: 'must not contain user:password@ — credentials belong in their own variables' };
  }
  if (url.search !== '' || url.hash !== '') {
    return { ok: false, message: 'must not have a query (?…) or fragment (#…) — give the base URL only' };
  }
  return { ok: true, url };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname);
}

/** Said of a URL that must use https: tests and local proxies on loopback may use plain http. */
export const HTTPS_ONLY = 'must use https (plain http is allowed only for localhost, 127.0.0.1 and [::1])';
