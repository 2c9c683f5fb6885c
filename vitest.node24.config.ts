import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/*
 * The Node 24 pass (`npm run test:node24`, scripts/test-node24.sh): the tests that can fail on one
 * Node and pass on another, run again on Node 24 after `npm test` ran every test on the machine's Node.
 * What differs between Node versions is Node itself — the native module, the HTTP server and client
 * (node:http, fetch/undici, sockets, body streams), child processes and their bundles, crypto, timers,
 * time zones (Intl, from Node's ICU) — so the pass takes:
 *
 * - every test under test/ — the end-to-end tests that run the whole service, the command line, the
 *   installed package and the services they kill and restart, and the platform fakes with their real
 *   servers. A new surface's end-to-end tests, in a folder of their own there, are in it unnamed;
 * - the unit tests of the folders whose code is Node's own behaviour, listed in NODE_FOLDERS.
 *
 * Left to `npm test` alone: the stress suites (as before: the crashes and hostile input of end-to-end
 * tests that are in the pass, repeated at length), test/architecture (it reads the sources as text),
 * the browser tests (what they add to the console's HTTP tests, which are in the pass, is Chromium's
 * behaviour), and the unit tests of the pure folders — src/core (no platform library, by rule),
 * config, config-kit, compose, surface-kit and each surface's own folder, whose parsers, formatters
 * and schemas behave the same on every Node and whose HTTP and signatures run end to end under test/.
 */

/** The src/ folders whose unit tests run on Node 24 too, each for the part of Node it rests on. */
export const NODE_FOLDERS = [
  'store', // better-sqlite3 (the native module, rebuilt for each Node) and pg's sockets
  'http', // node:http's server, request bodies, sockets, HMAC verifiers
  'agent-api', // the run API's client: fetch/undici
  'emulator', // the run API emulator's HTTP server
  'cli', // the command line: process, stdio, exit codes
  'host', // process identity: os, fs, child processes
  'log', // pino's streams
  'console', // session signing and sign-in: node:crypto, node:http
  'people', // the key box: node:crypto's ciphers
  'cron-calendar', // fire times in time zones: Intl, from Node's ICU
];

export default defineConfig({
  test: {
    ...base.test,
    projects: [
      {
        extends: true,
        test: {
          name: 'node24',
          include: ['test/**/*.test.ts', ...NODE_FOLDERS.map((folder) => `src/${folder}/**/*.test.ts`)],
          exclude: ['test/stress/**', 'test/architecture/**', '**/*.browser.e2e.test.ts'],
          maxWorkers: 4,
        },
      },
    ],
  },
});
