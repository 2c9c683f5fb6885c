/**
 * A wake-up that the parts built first (the intake service, the store's change feed) can be handed
 * before the loops it wakes exist, so the composition root needs no variable assigned later. A wake
 * fired before any loop is connected wakes nothing: every loop makes a first pass when it starts.
 */
export class Wake {
  private readonly targets: Array<{ wake(): void }> = [];

  /** Wakes every connected loop (bound: pass it as a callback). */
  readonly fire = (): void => {
    for (const target of this.targets) target.wake();
  };

  connect(...targets: Array<{ wake(): void }>): void {
    this.targets.push(...targets);
  }
}
