import type { Delivery, Notifier } from '../core/ports/notifier.js';

/**
 * The one `slack` notifier the outbox knows, handing each destination to the notifier of its place:
 * `slack:home:<user>` (the Home tab), `slack:unfurl:…` (link previews), `slack:assistant:…` (the
 * assistant panel's status), and every other `slack:…` (threads and channels) to the thread notifier.
 */
export class SlackPlacesNotifier implements Notifier {
  readonly platform = 'slack';

  constructor(
    private readonly threads: Notifier,
    private readonly places: Readonly<Record<string, Notifier>>,
  ) {}

  deliver(delivery: Delivery): Promise<unknown> {
    const place = /^slack:([a-z]+):/.exec(delivery.destination)?.[1];
    const notifier = (place !== undefined && Object.hasOwn(this.places, place) ? this.places[place] : undefined) ?? this.threads;
    return notifier.deliver(delivery);
  }
}
