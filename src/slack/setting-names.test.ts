import { describe, expect, it } from 'vitest';
import { assistantContextSetting, assistantThreadSetting, homeOpenedSetting } from './setting-names.js';

// Databases hold these rows under the names first shipped: a rename would lose every Home tab and assistant thread on record.
describe("Slack's setting names", () => {
  it('are spelled as first shipped', () => {
    expect(homeOpenedSetting('U0HOME01')).toBe('home_opened:U0HOME01');
    expect(assistantThreadSetting('D0PANEL1', '1700000000.000100')).toBe('assistant_thread:D0PANEL1:1700000000.000100');
    expect(assistantContextSetting('D0PANEL1', '1700000000.000100')).toBe('assistant_context:D0PANEL1:1700000000.000100');
  });
});
