/**
 * A load generator in its own process (so that its sockets do not share the event loop of the server
 * under test): `busy` keep-alive connections POST to `url` back to back; once each has had a few
 * answers, `fresh` new connections each send one request at once. Prints one JSON line — how many
 * answers the busy connections got between the fresh requests being sent and the last of them being
 * answered — then exits.
 *
 * Usage: tsx keep-alive-flood.ts <url> <busy> <fresh>
 */
import { Agent, request } from 'node:http';

const [url = '', busyText = '50', freshText = '40'] = process.argv.slice(2);
const busy = Number(busyText);
const fresh = Number(freshText);
const body = JSON.stringify({ text: 'x'.repeat(1_000) });

function post(agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: busy });
let answered = 0;
let stop = false;
const flood = Array.from({ length: busy }, async () => {
  while (!stop) {
    await post(keepAlive);
    answered++;
  }
});

while (answered < busy * 3) await new Promise((resolve) => setTimeout(resolve, 5));
const before = answered;
// A fresh agent each: a new connection each, as a platform opening connections under load would.
const statuses = await Promise.all(Array.from({ length: fresh }, () => post(new Agent({ keepAlive: false }))));
const busyAnswersMeanwhile = answered - before;
stop = true;
await Promise.all(flood);
keepAlive.destroy();
process.stdout.write(`${JSON.stringify({ busyAnswersMeanwhile, freshAnswered: statuses.filter((status) => status === 200).length })}\n`);
