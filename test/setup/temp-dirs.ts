import { afterAll } from 'vitest';
import { removeMade } from '../helpers/spawn-cli.js';

// Registered before the test file's own hooks, so it runs after them: their children have stopped.
afterAll(removeMade);
