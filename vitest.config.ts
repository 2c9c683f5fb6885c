import { defineConfig } from 'vitest/config';

/*
 * Two groups. Unit and end-to-end tests run four files at a time on a 2-core machine: most of them
 * wait on sockets, child processes and timers, and two at a time left half the CPU idle (measured in
 * docs/development.md). The stress suites (test/stress: SIGKILLed child processes, outages, 5,000
 * hostile requests) then run two at a time and apart from the rest: they start child processes under
 * deadlines, which four at a time would put at risk.
 */
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    setupFiles: ['test/setup/temp-dirs.ts'],
    // The programs tests start as child processes, bundled from the sources once before any test.
    globalSetup: ['test/setup/child-bundles.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit+e2e',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['test/stress/**'],
          maxWorkers: 4,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'stress',
          include: ['test/stress/**/*.test.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
