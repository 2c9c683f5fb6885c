/**
 * The names of the settings (the store's `settings` rows) only Slack keeps, beside the core's own
 * (`core/ports/setting-names.ts`). They are stored in existing databases: renaming one needs a
 * migration, so their spelling stays as first shipped.
 */

/** That a person opened their Home tab (the day, last time): only their runs keep it current. */
export function homeOpenedSetting(user: string): string {
  return `home_opened:${user}`;
}

/** An assistant thread (Slack's AI app panel) the person opened: who opened it. */
export function assistantThreadSetting(channel: string, threadTs: string): string {
  return `assistant_thread:${channel}:${threadTs}`;
}

/**
 * The channel a person looks at beside an assistant thread (Slack's `context.channel_id`, '' when none):
 * a request in the panel routes as that channel's route when it has one.
 */
export function assistantContextSetting(channel: string, threadTs: string): string {
  return `assistant_context:${channel}:${threadTs}`;
}
