import { existsSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { releasePort, reservedPort } from './ports.js';

const refused = (port: number) =>
  new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });

describe('reservedPort', () => {
  it('gives a port below the ephemeral range, refusing connections, locked for this process', async () => {
    const port = await reservedPort();
    const [first] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    // listen(0) and outgoing connections take their ports from the ephemeral range only.
    expect(port).toBeLessThan(Number(first));
    expect(await refused(port)).toBe('ECONNREFUSED');
    const lock = join(tmpdir(), 'agent-bridge-test-ports', String(port));
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
    releasePort(port);
    expect(existsSync(lock)).toBe(false);
  });

  it('never gives the same port twice while it is held, and the holder can listen on it', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => reservedPort()));
    expect(new Set(ports).size).toBe(20);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
    expect(await refused(ports[0]!)).toBe('connected');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const port of ports) releasePort(port);
  });
});
