import type { Logger } from '../core/ports/logger.js';

/**
 * The order a service stops in: the reverse of the order its parts started, so what was started last
 * (the HTTP server) stops first and the database closes last. A failing step is logged and the rest
 * still run.
 */
export class Shutdown {
  private readonly steps: Array<{ name: string; stop: () => Promise<void> }> = [];

  constructor(private readonly logger: Logger) {}

  /** Registers how to stop what was just started. */
  add(name: string, stop: () => Promise<void>): void {
    this.steps.push({ name, stop });
  }

  /** Runs every step, last registered first; a second call does nothing. */
  readonly run = async (): Promise<void> => {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step.stop();
      } catch (error) {
        this.logger.error({ err: error, step: step.name }, 'error while stopping');
      }
    }
  };
}
