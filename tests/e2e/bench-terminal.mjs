// Prints the terminal panel's figures in Chromium against the real hub (run by scripts/bench; set
// CLAWMUX_BIN to a release build for the hub's own figures):
// - a key typed in the page to its echo drawn, through the hub, tmux and a shell (target p50 < 30 ms,
//   p99 < 100 ms);
// - 50,000 lines of output streamed into the open panel: the longest frame (target: none over 100 ms) and
//   the page's heap after it, and after 50,000 more (bounded: the scrollback keeps 5,000 lines);
// - the hub's CPU with three idle panels open (target ~0).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, openBrowser, openUi, startHub } from './harness.mjs';

const SHELL = join(ROOT, 'tests/e2e/fixtures/shell-agent');
const KEYS = 300;

/** User and system CPU time of `pid` so far, in ms. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

async function openPanel(page, agent) {
  await page.click(`[data-agent="${agent}"]`);
  if ((await page.getAttribute('#act-terminal', 'aria-pressed')) !== 'true') await page.click('#act-terminal');
  await page.waitForFunction(() => {
    const b = window.clawmux.terminal.term?.buffer.active;
    return b && /\$ $/.test(b.getLine(b.baseY + b.cursorY)?.translateToString(true) ?? '');
  }, null, { timeout: 15000 });
}

const hub = await startHub();
const browser = await openBrowser();
try {
  for (const name of ['t1', 't2', 't3']) hub.clawmux(['spawn', name, '--command', SHELL]);
  const { page } = await openUi(browser, hub);
  await page.waitForSelector('[data-agent="t3"]');
  await openPanel(page, 't1');

  // Key to echo: one key at a time, as typed; the time from the key to the frame that shows its echo.
  const latencies = await page.evaluate(async (n) => {
    const term = window.clawmux.terminal.term;
    const one = () => new Promise((ok) => {
      const start = performance.now();
      const parsed = term.onWriteParsed(() => {
        parsed.dispose();
        const rendered = term.onRender(() => {
          rendered.dispose();
          ok(performance.now() - start);
        });
      });
      term.input('x', true);
    });
    const out = [];
    for (let i = 0; i < n; i++) {
      out.push(await one());
      if (i % 50 === 49) {
        term.input('\x15', true); // Ctrl+U: an empty prompt line again
        await new Promise((ok) => setTimeout(ok, 100));
      }
    }
    return out;
  }, KEYS);
  latencies.sort((a, b) => a - b);
  console.log(`key to echo drawn (${KEYS} keys, page -> hub -> tmux -> bash -> back): p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1).toFixed(1)} ms (target p50 < 30, p99 < 100)`);

  // 50,000 lines, twice, then the panel opened again (the hub sends the pane's history first): the frames
  // while they arrive, and the page's heap after each.
  const cdp = await page.context().newCDPSession(page);
  const heapMb = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    return (await cdp.send('Runtime.getHeapUsage')).usedSize / 1048576;
  };
  const heaps = [await heapMb()];
  const watched = (what, last) => page.evaluate(async ([what, last]) => {
    const panel = window.clawmux.terminal;
    const term = panel.term;
    let longest = 0;
    let over = 0;
    let frames = 0;
    let previous = performance.now();
    let running = true;
    const frame = (t) => {
      longest = Math.max(longest, t - previous);
      if (t - previous > 100) over++;
      previous = t;
      frames++;
      if (running) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    const start = performance.now();
    if (what === 'stream') {
      term.input(`seq ${last - 49999} ${last}\r`, true);
    } else {
      panel.setOpen(false);
      term.reset();
      panel.setOpen(true);
    }
    await new Promise((ok) => {
      const check = () => {
        const b = term.buffer.active;
        const rows = [];
        for (let i = Math.max(0, b.baseY + b.cursorY - 2); i <= b.baseY + b.cursorY; i++) rows.push(b.getLine(i)?.translateToString(true) ?? '');
        const done = /\$ $/.test(rows.at(-1)) && (what === 'stream' ? rows.includes(String(last)) : b.length >= 4000);
        if (done) ok();
        else setTimeout(check, 20);
      };
      check();
    });
    running = false;
    return { ms: performance.now() - start, longest, over, frames, lines: term.buffer.active.length };
  }, [what, last]);
  for (let run = 1; run <= 2; run++) {
    const r = await watched('stream', run * 50000);
    heaps.push(await heapMb());
    console.log(`50,000 lines streamed into the open panel (run ${run}): ${r.ms.toFixed(0)} ms, ${r.frames} frames, longest frame ${r.longest.toFixed(0)} ms, ${r.over} over 100 ms (target: none); the panel holds ${r.lines} lines (tmux draws a screen that scrolls this fast once, not every line)`);
  }
  const again = await watched('reattach');
  heaps.push(await heapMb());
  console.log(`the panel opened again on it (the hub sends the last 5,000 lines of history, then the screen): ${again.ms.toFixed(0)} ms, ${again.frames} frames, longest frame ${again.longest.toFixed(0)} ms, ${again.over} over 100 ms; the panel holds ${again.lines} lines`);
  console.log(`page heap: ${heaps.map((h) => h.toFixed(1)).join(' -> ')} MB (before, after each 50,000 lines, after the history; bounded by the 5,000-line scrollback)`);

  // Three idle panels: three pages, each showing one agent's terminal; nothing happens for 20 s.
  const pages = [page];
  for (let i = 0; i < 2; i++) pages.push((await openUi(browser, hub)).page);
  await openPanel(pages[1], 't2');
  await openPanel(pages[2], 't3');
  await new Promise((ok) => setTimeout(ok, 2000));
  const tmuxPid = Number(hub.tmux(['display-message', '-p', '#{pid}']).trim());
  const hub0 = cpuMs(hub.pid);
  const tmux0 = cpuMs(tmuxPid);
  const IDLE_S = 20;
  await new Promise((ok) => setTimeout(ok, IDLE_S * 1000));
  const hubPct = ((cpuMs(hub.pid) - hub0) / (IDLE_S * 1000)) * 100;
  const tmuxPct = ((cpuMs(tmuxPid) - tmux0) / (IDLE_S * 1000)) * 100;
  console.log(`three idle panels open for ${IDLE_S} s: hub ${hubPct.toFixed(2)}% of a core, tmux server ${tmuxPct.toFixed(2)}% (target ~0)`);
} finally {
  await browser.close();
  hub.stop();
}
