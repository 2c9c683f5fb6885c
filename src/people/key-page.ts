/** The console page where personal API keys are connected (issue 20). */
export const KEY_PAGE_PATH = '/console/keys';

/** That page under PUBLIC_URL, for links in Slack; undefined without a public URL. */
export function keyPageUrl(publicUrl: string | undefined): string | undefined {
  return publicUrl ? `${publicUrl}${KEY_PAGE_PATH}` : undefined;
}
