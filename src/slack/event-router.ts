import { MultipleListenerError, type AllMiddlewareArgs, type AnyMiddlewareArgs, type App, type Middleware } from '@slack/bolt';

/** What the listener modules register with: Bolt's app, except that Events API events go to the router. */
export type ListenerApp = Pick<App, 'event' | 'action' | 'view' | 'command' | 'shortcut'>;

type EventHandler = (args: AnyMiddlewareArgs & AllMiddlewareArgs) => Promise<void>;

/**
 * Events API events by type, dispatched from one global Bolt middleware. Bolt runs every request
 * through the middleware chain of every listener of the app (23 of them: events, actions, views,
 * commands, shortcuts) to find the few that match; for an event that fan-out was a fifth of the CPU of
 * acknowledging a mention under load (docs/benchmarks.md, "CPU per worked trigger"). Here an event
 * reaches only the handlers of its type, once Bolt's own global middleware (`ignoreSelf`) has passed
 * it; every other request goes on to Bolt's listeners unchanged.
 *
 * Handlers run as Bolt runs listeners: all of them, and a failure of any is thrown on to Bolt's error
 * handling (one error as it is, several as `MultipleListenerError`).
 */
export class EventRouter {
  private readonly handlers = new Map<string, EventHandler[]>();

  /** `app` with `event(type, handler)` registering here; types are exact names (no patterns). */
  listenerApp(app: App): ListenerApp {
    const event = (type: unknown, ...listeners: unknown[]): void => {
      if (typeof type !== 'string' || listeners.length !== 1) throw new Error('EventRouter: one handler per event(type) call, by exact type name');
      const list = this.handlers.get(type) ?? [];
      list.push(listeners[0] as EventHandler);
      this.handlers.set(type, list);
    };
    return {
      event,
      action: app.action.bind(app),
      view: app.view.bind(app),
      command: app.command.bind(app),
      shortcut: app.shortcut.bind(app),
    };
  }

  /** The global middleware to give `app.use`, after the listeners are registered or before: it reads the table at each event. */
  readonly middleware: Middleware<AnyMiddlewareArgs> = async (args) => {
    // Bolt's own test for an Events API request (`isEventArgs` in its builtin middleware).
    if (!('event' in args) || args.event === undefined) return args.next();
    const handlers = this.handlers.get(args.event.type);
    if (!handlers) return;
    const ran = { ...args, next: noop };
    if (handlers.length === 1) return (handlers[0] as EventHandler)(ran);
    const failed = (await Promise.allSettled(handlers.map((handler) => handler(ran)))).flatMap((result) =>
      result.status === 'rejected' ? [result.reason as Error] : [],
    );
    if (failed.length === 1) throw failed[0] as Error;
    if (failed.length > 1) throw new MultipleListenerError(failed);
  };
}

const noop = async (): Promise<void> => {};
