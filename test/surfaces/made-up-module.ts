/**
 * A surface the service does not have, whole: "Pager", a tracker-like surface whose webhook pages the
 * agent. Its folder would hold this one file: its config slice, its `Surface`, its edge (the service's
 * one signed-webhook edge with a shared token) and its notifier, which keeps what it was asked to
 * deliver for the test to read. Tests add it to the list of surfaces and nothing else.
 */
import { z } from 'zod';
import { maskSecret, type SecretSource } from '../../src/config-kit/describe-parts.js';
import { secret } from '../../src/config-kit/env-checks.js';
import { section } from '../../src/config-kit/file-schema-parts.js';
import type { Route } from '../../src/core/intake/routing.js';
import type { OutboxMessage } from '../../src/core/ports/messages.js';
import type { Notifier } from '../../src/core/ports/notifier.js';
import type { Surface } from '../../src/core/ports/surface.js';
import { notConfiguredEndpoint } from '../../src/http/health-endpoints.js';
import { signedWebhookEndpoint } from '../../src/http/signed-webhook.js';
import { sharedToken } from '../../src/http/verify-shared-token.js';
import type { ConfigSlice } from '../../src/surface-kit/config-slice.js';
import type { SurfaceModuleOf } from '../../src/surface-kit/surface-module.js';

const TOKEN_HINT = 'the token your pager sends in X-Pager-Token';
const envShape = { PAGER_TOKEN: secret(TOKEN_HINT) };
const fileSection = () => section({});

interface PagerSection {
  enabled: boolean;
  token?: string;
}

const pagerConfig = {
  variables: [{ name: 'PAGER_TOKEN', secret: true, hint: TOKEN_HINT }],
  envShape,
  setProblems: () => [],
  readEnv: (checked: z.output<z.ZodObject<typeof envShape>>) => ({ env: { token: checked.PAGER_TOKEN } }),
  isOn: (env: Readonly<Record<string, string | undefined>>) => env['PAGER_TOKEN'] !== undefined,
  fileSection,
  resolve: (env: { token: string | undefined }): PagerSection => (env.token === undefined ? { enabled: false } : { enabled: true, token: env.token }),
  routes: () => [],
  describe: (pager: PagerSection, source: (variable: string) => SecretSource | undefined) => ({
    enabled: pager.enabled,
    token: maskSecret(pager.token, source('PAGER_TOKEN')) ?? null,
  }),
  summary: (pager: PagerSection) => (pager.enabled ? 'Pager: on' : 'Pager: off — set PAGER_TOKEN'),
  warnings: () => [],
  secrets: (pager: PagerSection) => [pager.token],
} satisfies ConfigSlice<typeof envShape, { token: string | undefined }, z.output<ReturnType<typeof fileSection>>, PagerSection>;

/** What the Pager notifier was asked to deliver, in order. */
export const pagerDeliveries: Array<{ destination: string; message: OutboxMessage }> = [];

const PAGE = /^[a-z0-9-]{1,40}$/;
const pageSchema = z.object({ page: z.string().regex(PAGE), text: z.string().min(1).max(2_000) });

function pagerSurface(): Surface<Route> {
  return {
    name: 'pager',
    title: 'Pager',
    can: { editInPlace: false, react: false, speakPrivately: false, thread: false },
    isConversation: (destination) => destination.startsWith('pager:'),
    route: () => undefined,
  };
}

export const pagerModule: SurfaceModuleOf<'pager', typeof pagerConfig> = {
  name: 'pager',
  title: 'Pager',
  kind: 'tracker',
  config: pagerConfig,
  isOn: (config) => config.pager.enabled,
  surface: () => pagerSurface(),
  async start(config, { intake, logger }) {
    const token = config.pager.token;
    if (!token) return undefined;
    const notifier: Notifier = {
      platform: 'pager',
      deliver: async ({ destination, message }) => {
        pagerDeliveries.push({ destination, message });
        return { ok: true };
      },
    };
    const route = signedWebhookEndpoint({
      path: '/pager/hook',
      name: 'pager',
      verifier: sharedToken({ header: 'x-pager-token', token }),
      delivery: { header: 'x-pager-delivery', shape: /^[a-z0-9-]{1,64}$/ },
      logger,
      parse: (text) => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          return { ok: false, reason: 'the body is not JSON' };
        }
        const page = pageSchema.safeParse(json);
        return page.success ? { ok: true, value: page.data } : { ok: false, reason: 'a page needs "page" and "text"' };
      },
      handle: async (page, request) => {
        const place = `pager:${page.page}`;
        const { accepted } = await intake.submit({
          kind: 'start',
          key: `pager:${request.deliveryId ?? page.page}`,
          source: 'pager',
          anchor: place,
          payload: { prompt: page.text, title: page.text, origin: { source: 'pager' }, destinations: [place] },
        });
        return accepted ? { outcome: 'stored' } : { outcome: 'duplicate' };
      },
      logFields: (page) => ({ page: page.page }),
    });
    return { endpoints: [route], notifiers: [notifier] };
  },
  offEndpoints: () => [notConfiguredEndpoint('/pager/hook', 'Pager', 'set PAGER_TOKEN')],
  healthNote: (pager) => (pager.enabled ? 'webhook at /pager/hook' : 'off: PAGER_TOKEN is not set'),
  placeLabel: (place) => (place.startsWith('pager:') ? `Pager page ${place.slice('pager:'.length)}` : undefined),
  placeLink: (place) => (place.startsWith('pager:') ? { text: `Pager page ${place.slice('pager:'.length)}` } : undefined),
  routeTables: () => [],
};
