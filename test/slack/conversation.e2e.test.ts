import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { appMention, threadReply } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { callText, type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/*
 * Talking to a run in Slack, end to end (real Bolt, fake Slack Web API, the emulator): options in a request
 * (`[env=… model=…]`) checked against the route's `overrides`, and how much a route announces.
 */

const OPEN = SLACK_IDS.channel; // overrides and announce: all
const QUIET = 'C0QUIET0001'; // no overrides, announce: end
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator;

const world = useSlackBridge({
  yaml: [
    'tracker:',
    '  interval: 1s',
    'slack:',
    '  channels:',
    `    ${OPEN}: { config: { environment_id: env_web }, overrides: { environment_id: [env_web, env_api], model_id: "*" }, announce: all }`,
    `    ${QUIET}: { config: { environment_id: env_web }, announce: end }`,
  ].join('\n'),
  resetEach: true,
});
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator } = bridge);
});

const until: SlackBridge['until'] = (find, what) => bridge.until(find, what);
const runFor = (channel: string, ts: string) => bridge.runFor(channel, ts);
const threadPosts = (threadTs: string) => bridge.threadPosts(threadTs);
const updatesOf = (ts: string) => bridge.updatesOf(ts);
const text = callText;
const mention = (channel: string, request: string) => bridge.mention(request, { channel });

describe('options in the request', () => {
  it('allowed options go into the run config, leave the prompt and the title, and show in the status message', async () => {
    const ts = await mention(OPEN, '[env=env_api model=model-x] Fix the flaky login test');
    const run = await until(() => runFor(OPEN, ts), 'the run');
    expect(run.agent_config).toMatchObject({ environment_id: 'env_api', model_id: 'model-x' });
    expect(run.prompt).not.toContain('[env=');
    expect(run.prompt).not.toContain('model-x');
    expect(run.prompt?.startsWith('Fix the flaky login test')).toBe(true);
    expect(run.title).toBe('Fix the flaky login test');
    const status = await until(() => threadPosts(ts)[0], 'the status message');
    const statusTs = (status.response as unknown as { ts: string }).ts;
    const edit = await until(() => updatesOf(statusTs).find((call) => text(call).includes(run.run_id)), 'the status edit with the run');
    expect(text(edit)).toContain('env=env_api model=model-x');
  });

  it('a forbidden option starts nothing and the person who asked is told privately what is allowed', async () => {
    const ts = await mention(OPEN, '[env=env_prod] deploy it');
    const ephemeral = await until(() => slack.callsTo('chat.postEphemeral').find((call) => call.args['thread_ts'] === ts), 'the private answer');
    expect(ephemeral.args['user']).toBe(SLACK_IDS.user);
    expect(String(ephemeral.args['text'])).toContain('env=env_prod is not allowed here');
    expect(String(ephemeral.args['text'])).toContain('env: env_web, env_api; model: any value');
    // The status message says it did not start; it never names what is allowed in public.
    await until(() => threadPosts(ts).some((call) => text(call).includes('not allowed here')), 'the public failure');
    expect(threadPosts(ts).some((call) => text(call).includes('env_api'))).toBe(false);
    expect(emulator.engine.list({}).runs).toHaveLength(0);
  });

  it('options that cannot be read start nothing and say why', async () => {
    const ts = await mention(OPEN, '[env=env_api env=env_web] do it twice');
    const ephemeral = await until(() => slack.callsTo('chat.postEphemeral').find((call) => call.args['thread_ts'] === ts), 'the private answer');
    expect(String(ephemeral.args['text'])).toContain('env is given twice');
    expect(emulator.engine.list({}).runs).toHaveLength(0);
  });

  it('a route without overrides takes no options', async () => {
    const ts = await mention(QUIET, '[model=model-x] try it');
    const ephemeral = await until(() => slack.callsTo('chat.postEphemeral').find((call) => call.args['thread_ts'] === ts), 'the private answer');
    expect(String(ephemeral.args['text'])).toContain('no options are allowed here');
    expect(emulator.engine.list({}).runs).toHaveLength(0);
  });

  it('/agent takes options the same way', async () => {
    const response = await bridge.command({ channel_id: OPEN, text: '[model=model-y] tidy the README' });
    expect(response.status).toBe(200);
    const run = await until(() => emulator.engine.list({}).runs[0], 'the run');
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', model_id: 'model-y' });
    expect(run.prompt?.startsWith('tidy the README')).toBe(true);
    expect(run.title).toBe('tidy the README');
  });
});

describe('how much is said', () => {
  it('announce: all → one new thread message per state, the status message edited too', async () => {
    const ts = await mention(OPEN, 'count the states');
    const run = await until(() => runFor(OPEN, ts), 'the run');
    const status = await until(() => threadPosts(ts)[0], 'the status message');
    const statusTs = (status.response as unknown as { ts: string }).ts;
    for (const state of ['INPROGRESS', 'BLOCKED', 'INPROGRESS', 'SUCCEEDED']) {
      const before = threadPosts(ts).length;
      emulator.engine.drive(run.run_id, state);
      await until(() => threadPosts(ts).length === before + 1, `the ${state} message`);
    }
    // The status message, then one message per state: INPROGRESS, BLOCKED, INPROGRESS, SUCCEEDED.
    expect(threadPosts(ts)).toHaveLength(5);
    expect(updatesOf(statusTs).some((call) => /Succeeded/.test(text(call)))).toBe(true);
  });

  it('announce: end → BLOCKED is only an edit; the end is announced', async () => {
    const ts = await mention(QUIET, 'wait for me');
    const run = await until(() => runFor(QUIET, ts), 'the run');
    const status = await until(() => threadPosts(ts)[0], 'the status message');
    const statusTs = (status.response as unknown as { ts: string }).ts;
    emulator.engine.drive(run.run_id, 'BLOCKED', { status_message: 'Which branch?' });
    await until(() => updatesOf(statusTs).some((call) => /Waiting for input/.test(text(call))), 'the BLOCKED edit');
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => threadPosts(ts).length === 2, 'the end message');
    expect(threadPosts(ts).map((call) => text(call).includes('needs your input'))).toEqual([false, false]);
  });
});

/** A file as Slack sends it in a message event: the bytes behind url_private need the bot token. */
const slackFile = (name: string) => ({
  id: 'F0FILE0001',
  name,
  title: name,
  mimetype: 'application/pdf',
  filetype: 'pdf',
  size: 12_600,
  url_private: `https://files.slack.com/files-pri/T0-F0FILE0001/${name}`,
  url_private_download: `https://files.slack.com/files-pri/T0-F0FILE0001/download/${name}?t=xoxe-secret`,
  permalink: `https://acme.slack.com/files/U0-F0FILE0001/${name}`,
});

describe('files in a request', () => {
  it('a mention with a file lists its name, type, size and permalink in the prompt — never url_private or a token', async () => {
    const event = appMention({ channel: OPEN, text: `<@${SLACK_IDS.botUser}> summarise the attached report`, files: [slackFile('q3-report.pdf')] });
    await bridge.post(event);
    const run = await until(() => runFor(OPEN, event['ts'] as string), 'the run');
    expect(run.prompt).toContain('- q3-report.pdf (application/pdf, 12.3 KB): https://acme.slack.com/files/U0-F0FILE0001/q3-report.pdf');
    expect(run.prompt).not.toContain('files-pri');
    expect(run.prompt).not.toContain('xox');
    expect(run.title).toBe('summarise the attached report');
  });

  it('a reply with a file (subtype file_share) reaches the run as a follow-up listing it', async () => {
    const ts = await mention(OPEN, 'look at the logs I will send');
    const run = await until(() => runFor(OPEN, ts), 'the run');
    const reply = threadReply({ channel: OPEN, thread_ts: ts, text: 'here they are', subtype: 'file_share', files: [slackFile('build.log')] });
    expect((await bridge.post(reply)).status).toBe(200);
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    const message = emulator.engine.followups(run.run_id)[0]?.message ?? '';
    expect(message.startsWith('here they are')).toBe(true);
    expect(message).toContain('- build.log (application/pdf, 12.3 KB): https://acme.slack.com/files/U0-F0FILE0001/build.log');
    expect(message).not.toContain('files-pri');
  });
});
