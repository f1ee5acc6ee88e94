// The real Claude Code CLI in tests: installed from npm at a pinned version into a cache folder of the
// tests' own (never globally, never into the project's node_modules), run with a temporary HOME that looks
// like a logged-in user's, and pointed at a scripted model: a local server that speaks the Messages API
// (streamed as Server-Sent Events) and answers each request by the test's rules.

import { after, before } from 'node:test';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { openBrowser } from './harness.mjs';

/** The Claude Code the tests run: the newest they know. */
export const CLAUDE_VERSION = '2.1.332';
/** The oldest Claude Code ClawMux supports (`clawmux_core::hook::version::OLDEST`): a test runs it too. */
export const OLDEST_CLAUDE_VERSION = '2.1.330';

/** For a test file that runs the real CLI and a browser: `.claude` (the binary) and `.browser`, made
 * before its tests and closed after them. */
export function useClaudeAndBrowser() {
  const real = {};
  before(async () => {
    real.claude = claudeBinary();
    real.browser = await openBrowser();
  });
  after(async () => { await real.browser?.close(); });
  return real;
}
const cache = (version) => join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'clawmux-tests', `claude-code-${version}`);
/** The dummy key the scripted model accepts (the CLI asks about a key it has not seen before). */
const API_KEY = 'sk-ant-api03-clawmux-tests-scripted-model-0000000000';

/** The CLI's executable (of `version`), installed on first use (about 11 s and 360 MB, once per machine). */
export function claudeBinary(version = CLAUDE_VERSION) {
  const dir = cache(version);
  const bin = join(dir, 'node_modules', '.bin', 'claude');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', '--prefix', dir, `@anthropic-ai/claude-code@${version}`], { stdio: ['ignore', 2, 2] });
  }
  return bin;
}

/**
 * Makes `home` a HOME in which the CLI asks nothing at start: onboarding done, the key approved, and each of
 * `trusted` folders trusted (a folder it has not seen shows the trust dialog, whose default is "No, exit").
 */
export function prepareHome(home, trusted = []) {
  const projects = Object.fromEntries(trusted.map((dir) => [dir, { hasTrustDialogAccepted: true, allowedTools: [] }]));
  writeFileSync(join(home, '.claude.json'), JSON.stringify({
    hasCompletedOnboarding: true,
    lastOnboardingVersion: CLAUDE_VERSION,
    theme: 'dark',
    customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
    projects,
  }));
}

/**
 * A subscription account's environment instead of an API key's: Claude Code then reads the account's
 * limits from the answers' headers (and hands them to its status line). The token is a dummy the
 * scripted model accepts; no real credential is read or sent.
 */
export function subscriptionEnv(port) {
  const { ANTHROPIC_API_KEY: _key, ...env } = claudeEnv(port);
  return { ...env, CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-clawmux-tests-scripted-model-0000000000' };
}

/** The headers of an answer from a subscription account at `fiveHour` and `sevenDay` ([used 0-1, reset in epoch s]). */
export function limitHeaders(fiveHour, sevenDay, status = 'allowed') {
  return {
    'anthropic-ratelimit-unified-status': status,
    'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    'anthropic-ratelimit-unified-reset': String(fiveHour[1]),
    'anthropic-ratelimit-unified-5h-utilization': String(fiveHour[0]),
    'anthropic-ratelimit-unified-5h-reset': String(fiveHour[1]),
    'anthropic-ratelimit-unified-5h-status': fiveHour[0] >= 1 ? 'rejected' : 'allowed',
    'anthropic-ratelimit-unified-7d-utilization': String(sevenDay[0]),
    'anthropic-ratelimit-unified-7d-reset': String(sevenDay[1]),
    'anthropic-ratelimit-unified-7d-status': sevenDay[0] >= 1 ? 'rejected' : 'allowed',
  };
}

/** The environment the CLI runs in: the scripted model at `port`, nothing sent anywhere else. */
export function claudeEnv(port) {
  return {
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: API_KEY,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
  };
}

/** The text of a message's content (a string, or blocks: text and tool results, flattened). */
export function contentText(content) {
  if (typeof content === 'string') return content;
  return (content ?? []).map((b) => {
    if (b.type === 'text') return b.text;
    if (b.type === 'tool_result') return contentText(b.content);
    return '';
  }).join('\n');
}

/** The usage a reply reports unless the test says otherwise. */
const USAGE = { input_tokens: 100, output_tokens: 10 };

/**
 * Server-Sent Events of one assistant message: `reply` is `{text}` or `{tool: {name, input}}`; `usage` the
 * tokens it reports, `headers` extra response headers (the account's rate-limit figures).
 */
function stream(res, reply, n, usage, headers) {
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...headers });
  send('message_start', { message: { id: `msg_scripted_${n}`, type: 'message', role: 'assistant', model: 'scripted', content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
  if (reply.tool) {
    send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_scripted_${n}`, name: reply.tool.name, input: {} } });
    send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.tool.input) } });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: reply.text ?? 'OK.' } });
  }
  send('content_block_stop', { index: 0 });
  send('message_delta', { delta: { stop_reason: reply.tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  send('message_stop', {});
  res.end();
}

/**
 * Starts the scripted model on a free port. `rules(request)` gets each main-conversation request (`{body,
 * last}`: the parsed body and the text of all that came since the model last spoke) and returns the reply, or nothing for the
 * default: a short text. Side requests (titles, summaries, token counts) get short answers. Every request
 * is kept in `requests`; `turns` counts the main conversation's.
 *
 * `usage` is what each answer reports it used (`input_tokens`, `output_tokens`, `cache_*_input_tokens`);
 * `headers()` adds response headers to each (what a subscription account's answers carry about its limits).
 * A rule may answer `{ rejected: headers }`: a 429 at the account's limit, as the API sends it.
 * `unknownModel(name)` true: a request for that model gets the API's 404 for a model the account cannot use.
 */
export async function startModel(rules, { usage = USAGE, headers = () => ({}), unknownModel = () => false } = {}) {
  const model = { requests: [], turns: [], port: 0, close: null };
  let n = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', async () => {
      let body = {};
      try { body = JSON.parse(raw || '{}'); } catch { /* not JSON: answered by default */ }
      model.requests.push({ url: req.url, body });
      if (req.url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 100 }));
        return;
      }
      if (!req.url.startsWith('/v1/messages')) {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'scripted model' } }));
        return;
      }
      if (body.model && unknownModel(body.model)) {
        // What the API answers for a model the account cannot use.
        res.writeHead(404, { 'Content-Type': 'application/json', 'x-should-retry': 'false' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `model: ${body.model}` } }));
        return;
      }
      n += 1;
      const messages = body.messages ?? [];
      // What came since the model last spoke: a tool's result, and any notice the CLI put after it.
      const since = messages.slice(messages.findLastIndex((m) => m.role === 'assistant') + 1);
      const last = since.map((m) => contentText(m.content)).join('\n');
      // The main conversation offers tools; side requests (a title, a summary) do not.
      const main = Array.isArray(body.tools) && body.tools.length > 0;
      let reply = { text: 'OK.' };
      if (main) {
        model.turns.push({ at: Date.now(), last });
        // A rule may take its time (a promise): the model is then slow to answer, as a real one can be.
        reply = (await rules({ body, last })) ?? reply;
      }
      if (reply.rejected) {
        res.writeHead(429, { 'Content-Type': 'application/json', 'x-should-retry': 'false', ...reply.rejected });
        res.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'scripted limit' } }));
      } else if (body.stream) {
        stream(res, reply, n, usage, headers());
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json', ...headers() });
        const content = reply.tool
          ? [{ type: 'tool_use', id: `toolu_scripted_${n}`, name: reply.tool.name, input: reply.tool.input }]
          : [{ type: 'text', text: reply.text ?? 'OK.' }];
        res.end(JSON.stringify({ id: `msg_scripted_${n}`, type: 'message', role: 'assistant', model: 'scripted', content, stop_reason: reply.tool ? 'tool_use' : 'end_turn', stop_sequence: null, usage }));
      }
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  model.port = server.address().port;
  model.close = () => new Promise((ok) => { server.closeAllConnections(); server.close(ok); });
  return model;
}

/** A Bash tool call, as the model asks for it. */
export const bash = (command, description = command) => ({ tool: { name: 'Bash', input: { command, description } } });

/**
 * A model that follows ClawMux's instructions: it runs `clawmux wait`, answers each message with
 * `clawmux send` ("heard: <text>"), and runs the wait again whatever the wait returned.
 */
export function follower() {
  return ({ last }) => {
    const msg = /\[MSG id:(msg-[0-9a-f]{8}) from:user\] (.*)/.exec(last);
    if (msg) return bash(`clawmux send --to user --re ${msg[1]} 'heard: ${msg[2].replace(/'/g, '')}'`, 'answer the user');
    return bash('clawmux wait', 'wait for the next message');
  };
}

/**
 * The model: it waits; a user message `do: <command>` makes it run that command (which asks permission in
 * Claude Code's default mode), `ask: <question>` makes it ask the question with the options Blue and
 * Green, `plan: <step>` makes it present a plan with that step; whatever came back it reports with
 * `clawmux send`, then waits again.
 */
export function asker() {
  return ({ body, last }) => {
    const msg = /\[MSG id:(msg-[0-9a-f]{8}) from:user\] (do|ask|plan): (.*)/.exec(last);
    if (msg?.[2] === 'do') return bash(msg[3], 'the user asked for it');
    // In plan mode Claude Code names the plan file in what it sends; the plan is written there first.
    const planFile = /create your plan at (\S+\.md)/.exec(JSON.stringify(body))?.[1];
    if (msg?.[2] === 'plan') return { tool: { name: 'Write', input: { file_path: planFile, content: `# The plan\n\n1. ${msg[3]}\n` } } };
    if (msg?.[2] === 'ask') {
      return { tool: { name: 'AskUserQuestion', input: { questions: [{ question: msg[3], header: 'Pick', multiSelect: false,
        options: [{ label: 'Blue', description: 'the sea' }, { label: 'Green', description: 'the grass' }] }] } } };
    }
    // What the model did last: after the user's command or question, it reports what came back.
    const previous = (body.messages ?? []).findLast((x) => x.role === 'assistant');
    const tool = Array.isArray(previous?.content) ? previous.content.find((b) => b.type === 'tool_use') : null;
    if (tool?.name === 'Write' && /\/\.claude\/plans\//.test(tool.input?.file_path ?? '')) return { tool: { name: 'ExitPlanMode', input: {} } };
    const asked = tool && (['AskUserQuestion', 'ExitPlanMode'].includes(tool.name) || (tool.name === 'Bash' && !/^clawmux /.test(tool.input?.command ?? '')));
    if (asked) return bash(`clawmux send --to user 'result: ${last.replace(/[^\w :.,-]/g, ' ').slice(0, 300)}'`, 'report');
    return bash('clawmux wait', 'wait for the next message');
  };
}

/** Spawns the real CLI as agent `sky` (in Claude Code's default permission mode) through the hub's
 * `clawmux spawn` and waits until it is in its `clawmux wait`; returns the settings ClawMux gave it. */
export async function spawnSky(hub, ev) {
  const m = ev.mark();
  hub.clawmux(['spawn', 'sky', '--', '--permission-mode', 'default']);
  await ev.state('sky', 'idle', m, 60000);
  return JSON.parse(readFileSync(join(hub.data, 'launch', 'sky', 'settings.json'), 'utf8'));
}
