/**
 * The few Bot Connector calls the bot makes (docs/teams.md), each once, at the
 * conversation's service URL with the bot's token: post an activity, replace one, read one member of
 * the roster, open a 1:1 chat. Failures are `NotifierError`s the outbox retries: 429, 412, 500, 502,
 * 503 and 504 are retryable (with the connector's Retry-After), and a 401 drops the token first.
 */
import { NotifierError } from '../core/ports/notifier.js';
import type { AccessToken } from './access-token.js';

/** What the roster says of one member. */
export interface TeamsMember {
  id: string;
  name?: string;
  aadObjectId?: string;
  email?: string;
  userPrincipalName?: string;
}

const RETRYABLE = new Set([412, 429, 500, 502, 503, 504]);

export class ConnectorClient {
  constructor(private readonly token: AccessToken) {}

  /** Posts an activity into a conversation; its id. */
  async post(serviceUrl: string, conversationId: string, activity: Record<string, unknown>): Promise<string> {
    const answer = await this.call('POST', serviceUrl, `v3/conversations/${encodeURIComponent(conversationId)}/activities`, activity);
    return idOf(answer);
  }

  /** Replaces an activity the bot posted. */
  async update(serviceUrl: string, conversationId: string, activityId: string, activity: Record<string, unknown>): Promise<void> {
    await this.call('PUT', serviceUrl, `v3/conversations/${encodeURIComponent(conversationId)}/activities/${encodeURIComponent(activityId)}`, {
      ...activity,
      id: activityId,
    });
  }

  /** One member of a conversation (by Teams user id or Entra object id); undefined when not a member. */
  async member(serviceUrl: string, conversationId: string, userId: string): Promise<TeamsMember | undefined> {
    try {
      const answer = (await this.call(
        'GET',
        serviceUrl,
        `v3/conversations/${encodeURIComponent(conversationId)}/members/${encodeURIComponent(userId)}`,
      )) as TeamsMember & {
        objectId?: string;
      };
      return { ...answer, aadObjectId: answer.aadObjectId ?? answer.objectId };
    } catch (error) {
      if (error instanceof NotifierError && error.code === 'teams_404') return undefined;
      throw error;
    }
  }

  /** Opens (or finds) the 1:1 chat of the bot with a person of the tenant; its conversation id. */
  async openChat(serviceUrl: string, options: { botId: string; userId: string; tenantId: string }): Promise<string> {
    const answer = await this.call('POST', serviceUrl, 'v3/conversations', {
      bot: { id: options.botId },
      members: [{ id: options.userId }],
      isGroup: false,
      tenantId: options.tenantId,
      channelData: { tenant: { id: options.tenantId } },
    });
    return idOf(answer);
  }

  private async call(method: string, serviceUrl: string, path: string, body?: unknown): Promise<unknown> {
    const url = `${serviceUrl.replace(/\/+$/, '')}/${path}`;
    const token = await this.token.get();
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json; charset=utf-8' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new NotifierError(`Teams: ${method} ${path.split('/')[1] ?? ''} could not reach the connector`, {
        code: 'teams_unreachable',
        retryable: true,
        cause: error,
      });
    }
    const text = await response.text();
    if (response.ok) return text ? parse(text) : undefined;
    if (response.status === 401) this.token.forget();
    const retryAfter = Number(response.headers.get('retry-after'));
    const code = (parse(text) as { error?: { code?: unknown } } | undefined)?.error?.code;
    throw new NotifierError(`Teams: the connector answered ${response.status}${typeof code === 'string' ? ` (${code.slice(0, 60)})` : ''}`, {
      code: `teams_${response.status}`,
      retryable: RETRYABLE.has(response.status) || response.status === 401,
      ...(Number.isFinite(retryAfter) && retryAfter > 0 && { retryAfterMs: retryAfter * 1000 }),
    });
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function idOf(answer: unknown): string {
  const id = (answer as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string' || id === '') throw new NotifierError('Teams: the connector answered without an id', { code: 'teams_no_id', retryable: false });
  return id;
}
