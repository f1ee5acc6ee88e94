// What agents cost and the account's limits, in Chromium, against the real hub and the real status-line
// bridge (`clawmux-statusline`, run as Claude Code runs it, with the payload on stdin): the sidebar's line,
// the header's detail, the limits, the usage view's chart and totals as figures move, and an agent held by
// the usage limit then opted in to continue.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, STATUS_LINE, openBrowser, openUi, startHub } from './harness.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

/** Runs the bridge as `agent`'s status line with `payload`; returns the line it printed. */
function statusline(hub, agent, payload) {
  return execFileSync(STATUS_LINE, [], {
    input: JSON.stringify(payload),
    encoding: 'utf8',
    cwd: join(hub.dir, 'agents', agent),
    env: {
      HOME: hub.dir, PATH: process.env.PATH, CLAWMUX_HOME: hub.data, CLAWMUX_PORT: String(hub.port),
      CLAWMUX_SESSION_ID: agent, CLAWMUX_WORK_DIR: join(hub.dir, 'agents', agent),
    },
  });
}

/** A status-line payload as Claude Code 2.1 sends it. */
function payload({ cost, input, output = Math.round(input / 24), percent, used, limits }) {
  return {
    session_id: 'e2e', model: { id: 'claude-opus-5-5', display_name: 'Opus 5.5' }, version: '2.1.330',
    cost: { total_cost_usd: cost },
    context_window: {
      total_input_tokens: input, total_output_tokens: output, context_window_size: 200000,
      current_usage: { input_tokens: used, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      used_percentage: percent, remaining_percentage: 100 - percent,
    },
    ...(limits ? { rate_limits: limits } : {}),
  };
}

const text = (page, selector) => page.textContent(selector).then((t) => t.trim());

/**
 * `agent`'s transcript, named to the hub by a hook as Claude Code's hooks name it: the tokens are counted
 * from the answers written there, once each (the status line's totals are its latest response's only).
 * Returns how to write an answer of the model.
 */
async function transcriptOf(hub, agent) {
  const path = join(hub.dir, `${agent}-transcript.jsonl`);
  writeFileSync(path, '');
  await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'Notification', message: 'ready', notification_type: 'idle_prompt', transcript_path: path }, agent);
  let n = 0;
  return (input, output) => appendFileSync(path, `${JSON.stringify({
    type: 'assistant', timestamp: new Date().toISOString(),
    message: { id: `msg_${agent}_${n += 1}`, model: 'claude-opus-5-5', content: [{ type: 'text', text: 'ok' }],
      usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } },
  })}\n`);
}

test('figures in the sidebar, the header and the usage view; rate-limited, then continued when asked', async () => {
  const hub = await startHub();
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    hub.addAgent('moon');
    const skyAnswers = await transcriptOf(hub, 'sky');
    const moonAnswers = await transcriptOf(hub, 'moon');
    skyAnswers(96000, 4000);
    moonAnswers(12000, 500);
    const reset = Math.floor(Date.now() / 1000) + 3 * 3600;
    const limits = { five_hour: { used_percentage: 42, resets_at: reset }, seven_day: { used_percentage: 17, resets_at: reset + 86400 } };
    assert.equal(statusline(hub, 'sky', payload({ cost: 1.2, input: 96000, percent: 48, used: 96000, limits })), 'Opus 5.5 · 48% · 96k/200k · $1.20\n');
    statusline(hub, 'moon', payload({ cost: 0.3, input: 12000, percent: 6, used: 12000 }));

    await page.waitForFunction(() => document.querySelector('[data-agent="sky"] .usage')?.textContent === '48% · 96k/200k · $1.20');
    assert.equal(await text(page, '[data-agent="moon"] .usage'), '6% · 12k/200k · $0.30');
    await page.waitForFunction(() => /5-hour 42% · resets (?:\w+ )?\d\d:\d\d/.test(document.querySelector('#limits').textContent));
    assert.match(await text(page, '#limits'), /7-day 17%/);
    await page.click('[data-agent="sky"]');
    await page.waitForFunction(() => document.querySelector('#agent-usage')?.textContent.includes('in 96k · out 4k'));
    assert.equal(await text(page, '#agent-usage'), 'Opus 5.5 · context 48% (96k of 200k) · in 96k · out 4k · cached 0 · $1.20');

    // The usage view: today's bars, and each agent's total, the biggest first.
    await page.click('#usage-open');
    await page.waitForSelector('#usage-chart canvas');
    await page.waitForFunction(() => document.querySelectorAll('#usage-table tbody tr').length === 2);
    const rows = () => page.$$eval('#usage-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.deepEqual(await rows(), [['sky', '$1.20'], ['moon', '$0.30']]);
    assert.match(await text(page, '.usage-chart .u-legend'), /sky/);
    // Moon works on: the open view follows, and what a day adds is summed.
    moonAnswers(38000, 1500);
    statusline(hub, 'moon', payload({ cost: 2.0, input: 50000, output: 2000, percent: 25, used: 50000 }));
    await page.waitForFunction(() => document.querySelector('#usage-table tbody tr')?.dataset.agent === 'moon');
    assert.deepEqual(await rows(), [['moon', '$2.00'], ['sky', '$1.20']]);
    await page.selectOption('#usage-metric', 'tokens');
    await page.waitForFunction(() => /Tokens/.test(document.querySelector('#usage-table thead').textContent));
    // Moon's second answer is counted from its transcript once the hub has read it.
    await page.waitForFunction(() => document.querySelector('#usage-table tbody tr:last-child')?.textContent.includes('52k'));
    assert.deepEqual(await rows(), [['sky', '100k'], ['moon', '52k']]);
    await page.screenshot({ path: join(ARTIFACTS, 'usage-view.png') });
    await page.click('#usage-close');
    assert.equal(await page.isHidden('#usage-panel'), true);

    // A turn stopped at the limit: rate-limited, not "Needs you", until the window's reset.
    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'StopFailure', error: 'rate_limit', last_assistant_message: "You've hit your 5-hour limit" }, 'sky');
    await page.waitForFunction(() => document.querySelector('[data-agent="sky"] .label').textContent === 'Rate-limited');
    assert.match(await text(page, '[data-agent="sky"] .usage'), /^Rate-limited until (?:\w+ )?\d\d:\d\d$/);
    assert.equal(await text(page, '#chat-status'), "Rate-limited: You've hit your 5-hour limit");
    // Continuing types into the agent's terminal: only an agent ClawMux started offers it in the header
    // (real-usage.test.mjs ticks it there); this one, added by hand, is opted in with the command.
    assert.equal(await page.isHidden('#agent-continue'), true);
    await hub.api('POST', '/api/command', { command: 'usage_continue', session_id: 'sky', on: true });
    await page.waitForFunction(() => /then continues$/.test(document.querySelector('[data-agent="sky"] .usage').textContent));
    assert.match(await text(page, '#chat-status'), /ClawMux continues it at (?:\w+ )?\d\d:\d\d\.$/);
    const figures = await hub.api('POST', '/api/command', { command: 'usage' });
    const sky = figures.agents.find((a) => a.session_id === 'sky');
    assert.equal(sky.continues, true);
    assert.equal(sky.limited.continues_at, reset * 1000 + 2000);
    await page.screenshot({ path: join(ARTIFACTS, 'usage-rate-limited-continues.png') });
    // It works again by itself: no longer held, and nothing will be typed into it.
    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }, 'sky');
    await page.waitForFunction(() => document.querySelector('[data-agent="sky"] .usage').textContent === '48% · 96k/200k · $1.20');
    const after = await hub.api('POST', '/api/command', { command: 'usage' });
    assert.equal(after.agents.find((a) => a.session_id === 'sky').continues, true, 'the choice stays');
    assert.deepEqual(errors, []);
  } finally {
    await page.context().close();
    hub.stop();
  }
});
