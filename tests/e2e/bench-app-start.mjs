// The app's start, as a user sees it: from launching the window to its sidebar drawn with 20 agents, for the
// app this checkout built (debug: target/debug/clawmux-desktop, or CLAWMUX_DESKTOP, e.g. the release app
// `scripts/package` builds: target/release/clawmux-desktop). Prints the median of five starts.
//
// Run: node tests/e2e/bench-app-start.mjs
//      CLAWMUX_DESKTOP=target/release/clawmux-desktop node tests/e2e/bench-app-start.mjs

import { test } from 'node:test';
import { APP, APP_ARGS, browser, launchApp, painted, quitApp, useApp, windowHub } from './desktop-harness.mjs';

const AGENTS = 20;
const STARTS = 5;

useApp();

test(`start to the first drawn window with ${AGENTS} agents`, async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 30000 });
  const { api } = await windowHub();
  for (let i = 0; i < AGENTS; i++) await api('POST', '/api/command', { command: 'add_agent', name: `agent-${i}` });
  const took = [];
  for (let run = 0; run < STARTS; run++) {
    await quitApp();
    const start = performance.now();
    await launchApp(APP_ARGS);
    await browser.waitUntil(async () => (await browser.$$('#agents [data-agent]')).length >= AGENTS, { timeout: 60000, interval: 20 });
    await painted();
    took.push(performance.now() - start);
  }
  took.sort((a, b) => a - b);
  const ms = (t) => `${Math.round(t)} ms`;
  console.log(`figure: ${APP}: start to the first drawn window with ${AGENTS} agents: median ${ms(took[STARTS >> 1])} (${took.map(ms).join(', ')})`);
});
