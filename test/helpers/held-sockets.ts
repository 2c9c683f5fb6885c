/**
 * The TCP connections a process holds, read from Linux's /proc: the sockets among its file
 * descriptors, matched with the kernel's table of connections. A test of whether a server let go of
 * a connection cannot tell from the client's side: the client sees the server's FIN, not whether the
 * server closed its socket or only stopped writing to it while it keeps the descriptor.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** TCP state `0A` is LISTEN: the server's own listening socket, not a connection. */
const LISTEN = '0A';

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // The descriptor was closed between the listing and the read: not held.
    }
  }
  return inodes;
}

/**
 * The remote ports of the connections on local port `port` that process `pid` still holds a
 * descriptor of (IPv4 and IPv6).
 */
export function connectionsHeldBy(pid: number, port: number): Set<number> {
  const inodes = socketInodes(pid);
  const remotePorts = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] === LISTEN || !inodes.has(fields[9] ?? '')) continue;
      const localPort = parseInt(fields[1]?.split(':').at(-1) ?? '', 16);
      if (localPort === port) remotePorts.add(parseInt(fields[2]?.split(':').at(-1) ?? '', 16));
    }
  }
  return remotePorts;
}
