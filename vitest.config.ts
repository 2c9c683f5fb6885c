import { defineConfig } from 'vitest/config';

/*
 * Two groups. Unit and end-to-end tests run two files at a time (vitest would leave one of a 2-core
 * CI machine's cores idle). The stress suites (test/stress: SIGKILLed child processes, outages, 5,000
 * hostile requests) then run one file at a time, alone: they start child processes under deadlines and
 * must not compete for the CPU with each other.
 */
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit+e2e',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['test/stress/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'stress',
          include: ['test/stress/**/*.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
