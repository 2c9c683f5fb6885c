/**
 * Ports a test holds before anything listens on them: a service that must know its own URL
 * (PUBLIC_URL) before it listens, a run API whose port refuses connections, an emulator that goes
 * down and comes back on the same port.
 *
 * A port taken from the OS with listen(0) and released can be handed to another test's server a
 * moment later, which then answers in its place (a 404 from someone else's emulator where the test
 * expected "connection refused"). So these ports come from below the kernel's ephemeral range, which
 * listen(0) and outgoing connections never use, and a lock file in the temp folder, made with
 * exclusive create, keeps two test processes from choosing the same one. A lock whose process is gone
 * is taken over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOCKS = join(tmpdir(), 'agent-bridge-test-ports');
const LOWEST = 10_000;
const held = new Set<number>();

/** The first port of the kernel's ephemeral range (Linux), or the IANA default elsewhere. */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 0 ? first : 49_152;
  } catch {
    return 49_152;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `port` for this process; false when a live process holds it. */
function lock(port: number): boolean {
  const path = join(LOCKS, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) return false;
      rmSync(path, { force: true });
    }
  }
  return false;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

let releaseOnExit = false;

/**
 * A port on 127.0.0.1 that nothing listens on now and that no other test will be given, held by this
 * process until `releasePort` or its exit. Listening on it is the caller's business; until then a
 * connection to it is refused.
 */
export async function reservedPort(): Promise<number> {
  mkdirSync(LOCKS, { recursive: true });
  if (!releaseOnExit) {
    releaseOnExit = true;
    process.once('exit', () => {
      for (const port of held) rmSync(join(LOCKS, String(port)), { force: true });
    });
  }
  const highest = ephemeralStart() - 1;
  if (highest <= LOWEST) throw new Error(`the ephemeral port range starts at ${highest + 1}: no room below it for test ports`);
  for (let tries = 0; tries < 200; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
    if (held.has(port) || !lock(port)) continue;
    if (await bindable(port)) {
      held.add(port);
      return port;
    }
    rmSync(join(LOCKS, String(port)), { force: true });
  }
  throw new Error('no free test port found below the ephemeral range after 200 tries');
}

/** Gives a port of `reservedPort` back (its lock file goes). */
export function releasePort(port: number): void {
  if (!held.delete(port)) return;
  rmSync(join(LOCKS, String(port)), { force: true });
}
