import { createHash, createHmac } from 'node:crypto';

/**
 * The ids of the comments, reactions and activities agent-bridge creates in Linear. Each is a UUID
 * derived from what it is for (the outbox key), so a re-sent create cannot duplicate; and each carries
 * a 32-bit tag keyed with this installation's secret, so any comment id can be recognised as ours
 * without remembering it — also after a restart, years later, or with an API key whose comments
 * Linear does not mark with `botActor`.
 *
 * Layout (32 hex digits): 22 from sha256(key), 8 tag digits = HMAC(secret, those 22), then the UUID
 * version `4` and variant `8` nibbles put in their places.
 */
export class OwnIds {
  constructor(private readonly secret: string) {}

  /** The id of the entity created for `key`: the same key always gives the same id. */
  idFor(key: string): string {
    const body = createHash('sha256').update(key).digest('hex').slice(0, 22);
    const digits = body + this.tag(body);
    return `${digits.slice(0, 8)}-${digits.slice(8, 12)}-4${digits.slice(12, 15)}-8${digits.slice(15, 18)}-${digits.slice(18, 30)}`;
  }

  /** Whether `id` is one `idFor` made with this secret. */
  isOwn(id: string): boolean {
    const hex = id.toLowerCase().replace(/-/g, '');
    if (!/^[0-9a-f]{32}$/.test(hex) || hex[12] !== '4' || hex[16] !== '8') return false;
    const digits = hex.slice(0, 12) + hex.slice(13, 16) + hex.slice(17);
    return this.tag(digits.slice(0, 22)) === digits.slice(22);
  }

  private tag(body: string): string {
    return createHmac('sha256', this.secret).update(`agent-bridge:${body}`).digest('hex').slice(0, 8);
  }
}
