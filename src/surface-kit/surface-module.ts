/**
 * A surface as the service registers it: one object per surface folder (`src/<surface>/module.ts`),
 * listed once in `src/surface-list.ts`. Everything outside a surface's folder that needs a surface —
 * the config loader, the composition root, the console, the CLI, the log scrubber — iterates that list
 * and asks these fields, never a surface by name. The core sees only the `Surface` port
 * (`core/ports/surface.ts`) that a module describes itself with.
 */

import type { ConfigSlice } from './config-slice.js';

/** One registered surface. */
export interface SurfaceModule {
  /** Its name: the `source` of its triggers, the prefix of its places (`<name>:…`), its config section. */
  readonly name: string;
  /** Its name in words, as people read it ("Slack", "GitHub"). */
  readonly title: string;
  /**
   * `chat`: people talk to the bridge in threads of messages, and a run started elsewhere can have a
   * companion place there; `tracker`: an issue or a pull request is the place.
   */
  readonly kind: 'chat' | 'tracker';
  /** Its slice of the configuration: variables, its section of `agent-bridge.yml`, what `config check` says of it. */
  readonly config: ConfigSlice;
}
