/**
 * Optional CPU profiles of single bench phases: with BENCH_CPU_PROF=<dir>, `profiled(name, fn)`
 * records a V8 CPU profile of this process while `fn` runs, writes `<dir>/<name>.cpuprofile` (open it
 * in Chrome DevTools or speedscope) and prints where the time went, by area, to stderr.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector';
import { join } from 'node:path';

const post = <T>(session: Session, method: string, params: object = {}) =>
  new Promise<T>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))));

/** Area of a script: a package under node_modules, a top folder of this repository, node:…, or V8's own. */
function areaOf(frame: Profiler.ProfileNode['callFrame']): string {
  const url = frame.url;
  if (url === '') return `(${frame.functionName || 'native'})`;
  if (url.startsWith('node:')) return url.split('/')[0] as string;
  const modules = url.split('node_modules/');
  if (modules.length > 1) {
    const parts = (modules.at(-1) as string).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
  }
  const local = /\/(src|test|bench)\/([^/]+)/.exec(url);
  return local ? `${local[1]}/${local[2]}` : url;
}

/** Self time per area, largest first, as "area ms %" lines. */
export function summarise(profile: Profiler.Profile, top = 15): string[] {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  // Native functions (SQLite's run/get/all, the inspector's dispatch, …) count for the script that called them.
  const areaOfNode = (id: number): string => {
    let node = nodes.get(id);
    while (node && node.callFrame.url === '' && !/^\(/.test(node.callFrame.functionName) && parents.has(node.id)) {
      node = nodes.get(parents.get(node.id) as number);
    }
    return node ? areaOf(node.callFrame) : '?';
  };
  const byArea = new Map<string, number>();
  let total = 0;
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, index) => {
    const micros = deltas[index] ?? 0;
    const area = areaOfNode(id);
    if (area === 'node:inspector') return; // the profiler itself
    byArea.set(area, (byArea.get(area) ?? 0) + micros);
    total += micros;
  });
  return [...byArea]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([area, micros]) => `${(micros / 1000).toFixed(0).padStart(7)} ms ${((100 * micros) / total).toFixed(1).padStart(5)}%  ${area}`);
}

export async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env['BENCH_CPU_PROF'];
  if (!dir) return fn();
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: 200 });
  await post(session, 'Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await post<{ profile: Profiler.Profile }>(session, 'Profiler.stop');
    session.disconnect();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    process.stderr.write(`bench: CPU profile of ${name} → ${file}; self time by area:\n${summarise(profile).join('\n')}\n`);
  }
}
