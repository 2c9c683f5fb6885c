import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn-cli.js';

/*
 * Who verifies Slack's signature is said where people read how a request comes in:
 * our route does, over the raw bytes; Bolt's own check is off. These tests hold the sentences to the
 * code, so that turning Bolt's check back on (or moving ours) makes them be read again.
 */

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** A `## n.` section of a Markdown page, up to the next `## `. */
const section = (page: string, heading: string) => {
  const from = page.indexOf(`\n${heading}`);
  const to = page.indexOf('\n## ', from + 1);
  return from === -1 ? '' : page.slice(from, to === -1 ? undefined : to);
};

describe('who verifies Slack’s signature', () => {
  it('in the code: our route, over the raw body, and not Bolt’s receiver', () => {
    const route = read('src/slack/events-endpoint.ts');
    // The route's verifier, made once with the signing secret, checks every request's raw bytes
    // through the shared signed-body steps; the secret becomes a key once, when the verifier is made.
    expect(route).toMatch(/const edge = signedBodyEdge\(\{\s*verifier: slackSignature\(options\.signingSecret\),/);
    expect(route).toMatch(/const \{ raw, text \} = await edge\.read\(req, readBody\);/);
    expect(read('src/http/verify-hmac.ts')).toMatch(/typeof secret === 'string' \? createSecretKey\(Buffer\.from\(secret, 'utf8'\)\)/);
    expect(read('src/http/signed-body.ts')).toMatch(
      /const raw = await readBody\(\);\s*const verified: Verdict = verifier\.verify \? await verifier\.verify\(req\.headers, raw, now\(\)\)/,
    );
    expect(read('src/slack/slack-app.ts')).toMatch(/new HTTPReceiver\(\{[^}]*signatureVerification: false,/);
  });

  it('in the words: architecture.md §2 and the listeners say the route does, nowhere that Bolt does', () => {
    const flow = section(read('docs/architecture.md'), '## 2.');
    expect(flow).toContain("Our route (`slack/events-endpoint.ts`) verifies Slack's signature");
    expect(flow).toContain('`signatureVerification: false`');
    expect(read('src/slack/listeners.ts')).toContain("our route checked Slack's signature (events-endpoint.ts");
    for (const path of ['docs/architecture.md', 'docs/slack.md', 'README.md', 'src/slack/listeners.ts', 'src/slack/slack-app.ts']) {
      expect({ path, claim: /Bolt verifies|verify \(Bolt did\)|Bolt (?:checks|checked) the signature/i.exec(read(path))?.[0] }).toEqual({
        path,
        claim: undefined,
      });
    }
  });
});
