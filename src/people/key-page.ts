/**
 * The console page where a person connects their own personal API key, after Sign in with
 * Slack; `/agent connect` links it. Admins also see everyone's keys at `/console/keys`.
 */
export const MY_KEY_PATH = '/console/my-key';
/** The key page people are sent to: their own (`MY_KEY_PATH`). */
export const KEY_PAGE_PATH = MY_KEY_PATH;

/** That page under PUBLIC_URL, for links in Slack; undefined without a public URL. */
export function keyPageUrl(publicUrl: string | undefined): string | undefined {
  return publicUrl ? `${publicUrl}${MY_KEY_PATH}` : undefined;
}
