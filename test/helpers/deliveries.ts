import type { RunningService } from '../../src/main.js';
import { until } from './until.js';

/** A webhook's answer: its status and its JSON body (`{ text }` when the body is not JSON). */
export interface DeliveryAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * POSTs a signed delivery (the body and headers a fixture's `…Delivery` built) to `url`; answers the
 * status and the parsed body, so that a test can check what the endpoint said whatever it said.
 */
export async function postDelivery(url: string, delivery: { body: string; headers: Record<string, string> }): Promise<DeliveryAnswer> {
  const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
  const text = await response.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: response.status, body: parsed };
}

/**
 * Waits until the service has nothing left to do: no trigger waiting or being worked, no message
 * owed. For "nothing else happened" checks, instead of sleeping a while and hoping.
 */
export async function quiet(service: RunningService): Promise<void> {
  await until(async () => {
    const triggers = await service.store.triggers.countByState();
    const outbox = await service.store.outbox.counts();
    return triggers.pending + triggers.working + outbox.pending + outbox.sending === 0;
  }, 'the service to be quiet');
}
