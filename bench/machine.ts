/**
 * How busy the machine was with work other than the bench while a section ran (Linux only): CPU time
 * of the whole machine (/proc/stat) minus that of the bench process and its reaped children
 * (/proc/self/stat utime + stime + cutime + cstime). Benchmarks on a shared machine say so.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

interface Sample {
  at: number;
  machineTicks: number;
  ownTicks: number;
}

/** Clock ticks per second of /proc (USER_HZ); 100 on every mainstream Linux. */
const HZ = 100;

function sample(): Sample | undefined {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    // user nice system idle iowait irq softirq steal guest guest_nice: busy = user nice system irq softirq
    // (guest time is already in user; idle, iowait and the hypervisor's steal are not this machine's work).
    const busy = [0, 1, 2, 5, 6].reduce((sum, index) => sum + (cpu[index] ?? 0), 0);
    // Fields after the command (which may hold spaces): state is field 3; utime is 14 … cstime 17.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
    return { at: Date.now(), machineTicks: busy, ownTicks: own };
  } catch {
    return undefined;
  }
}

/** Starts watching; `stop()` returns e.g. "other work used 35% of the 2 cores", or undefined off Linux. */
export function watchMachine(): { stop(): string | undefined } {
  const start = sample();
  return {
    stop() {
      const end = sample();
      if (!start || !end || end.at <= start.at) return undefined;
      const cores = availableParallelism();
      const other = Math.max(0, end.machineTicks - start.machineTicks - (end.ownTicks - start.ownTicks)) / HZ;
      const share = (100 * other) / (((end.at - start.at) / 1000) * cores);
      return `other work on the machine used ${share.toFixed(0)}% of its ${cores} cores while this section ran`;
    },
  };
}
