import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import { SocketModeClient } from '@slack/socket-mode';
import type { WebClientOptions } from '@slack/web-api';
import type { Logger } from '../core/ports/logger.js';
import { inspectSlackRequest } from './inspect-request.js';

interface SocketEvent {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  envelope_id: string;
  type: string;
  body: unknown;
  retry_num?: number;
  retry_reason?: string;
}

/**
 * Socket Mode with "store, then acknowledge": Bolt's own Socket Mode receiver acknowledges an event
 * before the listeners run, so a crash in between would lose it. This receiver holds the
 * acknowledgement of Events API envelopes until Bolt has run the listeners (which store the trigger);
 * commands and interactions are acknowledged by the listener itself, with its response payload.
 */
export class StoreThenAckSocketReceiver implements Receiver {
  private app: App | undefined;
  readonly client: SocketModeClient;

  constructor(
    options: { appToken: string; clientOptions: WebClientOptions; logger: Logger },
    private readonly logger = options.logger,
  ) {
    this.client = new SocketModeClient({ appToken: options.appToken, clientOptions: options.clientOptions });
    this.client.on('slack_event', (event: SocketEvent) => void this.handle(event));
  }

  init(app: App): void {
    this.app = app;
  }

  async start(): Promise<void> {
    await this.client.start();
  }

  async stop(): Promise<void> {
    await this.client.disconnect();
  }

  private async handle(event: SocketEvent): Promise<void> {
    if (!this.app) return;
    const deferAck = event.type === 'events_api';
    if (deferAck) {
      const inspection = inspectSlackRequest('application/json', JSON.stringify(event.body ?? null));
      if (inspection.action !== 'forward') {
        this.logger.debug({ envelope: event.envelope_id, reason: 'reason' in inspection ? inspection.reason : '' }, 'socket event ignored');
        await event.ack();
        return;
      }
    }
    const receiverEvent: ReceiverEvent = {
      body: event.body as Record<string, unknown>,
      ack: async (response?: unknown) => {
        if (!deferAck) await event.ack(response as Record<string, unknown> | undefined);
      },
      ...(event.retry_num !== undefined && { retryNum: event.retry_num }),
      ...(event.retry_reason !== undefined && { retryReason: event.retry_reason }),
    };
    try {
      await this.app.processEvent(receiverEvent);
      if (deferAck) await event.ack();
    } catch (error) {
      // Not acknowledged: Slack delivers the envelope again, and the store deduplicates it.
      this.logger.error({ err: error, envelope: event.envelope_id }, 'socket event failed; Slack will redeliver it');
    }
  }
}
