// The agent's terminal in the page: Chromium shows a real agent's tmux pane through the hub (xterm.js over
// the `/ws/terminal/` WebSocket), types into it, resizes it, shares it with a second viewer, keeps its last
// screen when the agent ends and attaches again when it starts; agents with no pane of ClawMux's say why;
// and nobody without the user's token, or on another origin, gets a terminal.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { join } from 'node:path';
import WebSocket from 'ws';
import { ROOT, openBrowser, openUi, screen, shows, startHub } from './harness.mjs';

const SHELL = join(ROOT, 'tests/e2e/fixtures/shell-agent');

/** The size tmux gives the agent's window. */
function paneSize(hub, agent) {
  const [cols, rows] = hub.tmux(['display-message', '-p', '-t', `=${agent}:`, '#{pane_width} #{pane_height}']).trim().split(' ').map(Number);
  return { cols, rows };
}

/** Opens the agent's terminal panel in a page and waits until it shows `ready`. */
async function openTerminal(page, agent, ready) {
  await page.click(`[data-agent="${agent}"]`);
  if ((await page.getAttribute('#act-terminal', 'aria-pressed')) !== 'true') await page.click('#act-terminal');
  await page.waitForSelector('#terminal-panel:not([hidden])');
  if (ready) await shows(page, ready);
}

async function typeLine(page, line) {
  await page.click('#terminal');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

test('the panel shows the pane live, takes keys, follows its size, and is remembered', async () => {
  const hub = await startHub();
  const browser = await openBrowser();
  const { page, errors } = await openUi(browser, hub);
  const sockets = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  try {
    hub.clawmux(['spawn', 'sh', '--command', SHELL]);
    await page.waitForSelector('[data-agent="sh"]');
    await openTerminal(page, 'sh', /\$ /);
    // The shell computes the answer: the keys reached the pane, and its output came back.
    await typeLine(page, 'echo typed-$((6*7))');
    await shows(page, /^typed-42$/m);

    // The pane takes the panel's size, and follows it.
    const before = await page.evaluate(() => ({ cols: window.clawmux.terminal.term.cols, rows: window.clawmux.terminal.term.rows }));
    assert.equal(paneSize(hub, 'sh').cols, before.cols);
    await page.setViewportSize({ width: 1500, height: 800 });
    await page.waitForFunction((cols) => window.clawmux.terminal.term.cols > cols, before.cols);
    const after = await page.evaluate(() => ({ cols: window.clawmux.terminal.term.cols, rows: window.clawmux.terminal.term.rows }));
    for (let i = 0; i < 100 && paneSize(hub, 'sh').cols !== after.cols; i++) await new Promise((ok) => setTimeout(ok, 50));
    assert.equal(paneSize(hub, 'sh').cols, after.cols, 'tmux follows the panel');
    // The shell's own terminal follows (tmux resizes the pane's pty a moment after its window).
    for (let i = 0; ; i++) {
      await typeLine(page, 'stty size');
      try {
        await shows(page, new RegExp(`^\\d+ ${after.cols}$`, 'm'), 1000);
        break;
      } catch (e) {
        if (i === 10) throw e;
      }
    }

    // Copy and paste as in a terminal: Ctrl+Shift+C copies the selection, Ctrl+Shift+V types it.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${hub.port}` });
    await page.evaluate(() => {
      const term = window.clawmux.terminal.term;
      const b = term.buffer.active;
      for (let i = b.length - 1; i >= 0; i--) {
        if (b.getLine(i).translateToString(true) === 'typed-42') return term.select(0, i, 8);
      }
      throw new Error('no typed-42 line');
    });
    await page.keyboard.press('Control+Shift+C');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'typed-42');
    await page.keyboard.type('echo pasted-');
    await page.keyboard.press('Control+Shift+V');
    await page.keyboard.press('Enter');
    await shows(page, /^pasted-typed-42$/m);

    // Shown again after a reload: the panel's state is remembered, and tmux draws the current screen.
    await page.reload();
    await page.waitForSelector('#connection.online');
    await page.click('[data-agent="sh"]');
    assert.equal(await page.getAttribute('#act-terminal', 'aria-pressed'), 'true');
    await shows(page, /typed-42/);

    // The token went in no URL: not the page's, not the terminal's WebSocket.
    const terminalSockets = sockets.filter((u) => u.includes('/ws/terminal/'));
    assert.ok(terminalSockets.length >= 2, `terminal sockets: ${sockets}`);
    for (const url of terminalSockets) assert.ok(!url.includes(hub.token), `token in ${url}`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    hub.stop();
  }
});

test('two viewers see the same terminal; closing one leaves the other and the agent', async () => {
  const hub = await startHub();
  const browser = await openBrowser();
  const a = await openUi(browser, hub);
  const b = await openUi(browser, hub);
  try {
    hub.clawmux(['spawn', 'sh', '--command', SHELL]);
    await a.page.waitForSelector('[data-agent="sh"]');
    await b.page.waitForSelector('[data-agent="sh"]');
    await openTerminal(a.page, 'sh', /\$ /);
    await openTerminal(b.page, 'sh', /\$ /);
    assert.equal(hub.tmux(['list-clients', '-t', '=sh']).trim().split('\n').length, 2, 'two tmux clients');

    await typeLine(b.page, 'echo from-$((2+2))b');
    await shows(a.page, /^from-4b$/m);

    // B hides its panel: only its viewer goes; A still types and sees, and the agent runs on.
    await b.page.click('#act-terminal');
    for (let i = 0; i < 100 && hub.tmux(['list-clients', '-t', '=sh']).trim().split('\n').length !== 1; i++) {
      await new Promise((ok) => setTimeout(ok, 50));
    }
    assert.equal(hub.tmux(['list-clients', '-t', '=sh']).trim().split('\n').length, 1, 'one tmux client left');
    await typeLine(a.page, 'echo still-$((1+1))');
    await shows(a.page, /^still-2$/m);
    assert.notEqual((await hub.api('GET', '/api/sessions')).find((s) => s.session_id === 'sh').state, 'dead');
    assert.deepEqual([...a.errors, ...b.errors], []);
  } finally {
    await browser.close();
    hub.stop();
  }
});

test('an agent that ends leaves its last screen, and its terminal comes back when it starts again', async () => {
  const hub = await startHub();
  const browser = await openBrowser();
  const { page, errors } = await openUi(browser, hub);
  const ev = await hub.events();
  try {
    let m = ev.mark();
    hub.clawmux(['spawn', 'demo1', '--demo']);
    await ev.state('demo1', 'idle', m);
    await openTerminal(page, 'demo1', /ClawMux demo agent `demo1`/);
    await hub.api('POST', '/api/sessions/demo1/messages', { text: 'hello there' });
    await shows(page, /> hello there/);

    m = ev.mark();
    hub.clawmux(['terminate', 'demo1']);
    await ev.state('demo1', 'dead', m);
    await page.waitForSelector('#terminal-status.ended:not([hidden])');
    assert.match(await page.textContent('#terminal-status'), /demo1.* ended/);
    // The screen the agent left is still there (tmux cleared it as the session closed; the hub redraws it).
    await shows(page, /> hello there[\s\S]*── ended ──/);

    m = ev.mark();
    hub.clawmux(['restart', 'demo1']);
    await ev.state('demo1', 'idle', m);
    await shows(page, /── started again ──/);
    await page.waitForSelector('#terminal-status', { state: 'hidden' });
    // The panel shows the new run, live.
    await hub.api('POST', '/api/sessions/demo1/messages', { text: 'and again' });
    await shows(page, /started again ──[\s\S]*> and again/);
    assert.equal((await screen(page)).split('── started again ──').length, 2, 'one mark for one start');
    assert.deepEqual(errors, []);
  } finally {
    ev.close();
    await browser.close();
    hub.stop();
  }
});

test('closing a viewer never types into the agent: sixty viewers come and go, the shell hears nothing', async () => {
  const hub = await startHub();
  try {
    hub.clawmux(['spawn', 'sh', '--command', SHELL]);
    const own = { origin: `http://127.0.0.1:${hub.port}` };
    for (let i = 0; i < 60; i++) {
      const opened = await connect(hub, 'sh', { protocols: ['clawmux.terminal.v1', `clawmux.token.${hub.token}`], headers: own });
      assert.equal(opened.notice?.type, 'attached');
    }
    // Every viewer's tmux client is gone, and the shell is still at its first prompt: no newline, no EOF.
    for (let i = 0; i < 100 && hub.tmux(['list-clients', '-t', '=sh']).trim() !== ''; i++) await new Promise((ok) => setTimeout(ok, 50));
    assert.equal(hub.tmux(['list-clients', '-t', '=sh']).trim(), '');
    await new Promise((ok) => setTimeout(ok, 300));
    assert.equal(hub.tmux(['display-message', '-p', '-t', '=sh:', '#{pane_dead}']).trim(), '0', 'the shell runs');
    const screen = hub.tmux(['capture-pane', '-p', '-t', '=sh:']).split('\n').filter((l) => l.trim());
    assert.deepEqual(screen, ['$'], 'nothing was typed into the pane');
  } finally {
    hub.stop();
  }
});

test('agents ClawMux did not start have no terminal, and the panel says why', async () => {
  const hub = await startHub();
  const browser = await openBrowser();
  const { page, errors } = await openUi(browser, hub);
  try {
    await hub.api('POST', '/api/observe', { hook_event_name: 'SessionStart', session_id: '9f8e7d6c-1111', cwd: join(hub.dir, 'webapp'), source: 'startup' });
    hub.addAgent('outside');
    await page.waitForSelector('[data-agent="webapp-9f8e7d6c"]');
    await page.waitForSelector('[data-agent="outside"]');
    await openTerminal(page, 'webapp-9f8e7d6c');
    await page.waitForFunction(() => /seen through your hooks/.test(document.querySelector('#terminal-status').textContent));
    await openTerminal(page, 'outside');
    await page.waitForFunction(() => /runs on its own/.test(document.querySelector('#terminal-status').textContent));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    hub.stop();
  }
});

test('what the "needs you" card cannot answer, it points to the terminal, which opens on a click', async () => {
  const hub = await startHub();
  const browser = await openBrowser();
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.clawmux(['spawn', 'sh', '--command', SHELL]);
    await page.waitForSelector('[data-agent="sh"]');
    await page.click('[data-agent="sh"]');
    // A dialog no hook reports in full: Claude Code only says it needs the user.
    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'Notification', notification_type: 'agent_needs_input', message: 'Claude needs your input to continue' }, 'sh');
    await page.waitForSelector('#request:not([hidden])');
    assert.match(await page.textContent('#request'), /Claude needs your input to continue[\s\S]*answer it in the agent's terminal/);
    assert.equal(await page.getAttribute('#act-terminal', 'aria-pressed'), 'false');
    await page.click('#request button.to-terminal');
    await page.waitForSelector('#terminal-panel:not([hidden])');
    await shows(page, /\$ /);
    // The keys go to the pane at once: the panel has the focus.
    await page.keyboard.type('echo answered-$((3*3))');
    await page.keyboard.press('Enter');
    await shows(page, /^answered-9$/m);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    hub.stop();
  }
});

/** Opens `/ws/terminal/{agent}` as a program would; resolves with the HTTP status of a refusal, or the
 * first notice of an accepted connection. */
function connect(hub, agent, { protocols = ['clawmux.terminal.v1'], headers = {}, query = '' } = {}) {
  return new Promise((ok, fail) => {
    const ws = new WebSocket(`ws://127.0.0.1:${hub.port}/ws/terminal/${agent}?cols=80&rows=24${query}`, protocols, { headers });
    ws.on('unexpected-response', (_req, res) => ok({ status: res.statusCode }));
    ws.on('message', (data, binary) => {
      if (binary) return;
      ok({ notice: JSON.parse(String(data)), protocol: ws.protocol });
      ws.close();
    });
    ws.on('error', (e) => (e.message.includes('Unexpected server response') ? null : fail(e)));
  });
}

test('a terminal is opened only with the user\'s token, from the hub\'s own page', async () => {
  const hub = await startHub();
  try {
    hub.clawmux(['spawn', 'sh', '--command', SHELL]);
    const own = { origin: `http://127.0.0.1:${hub.port}` };
    const token = `clawmux.token.${hub.token}`;
    assert.deepEqual(await connect(hub, 'sh', { headers: own }), { status: 401 }, 'no token');
    assert.deepEqual(await connect(hub, 'sh', { headers: own, query: `&token=${hub.token}` }), { status: 401 }, 'the token in the URL');
    assert.deepEqual(await connect(hub, 'sh', { protocols: ['clawmux.terminal.v1', 'clawmux.token.0000'], headers: own }), { status: 401 }, 'a wrong token');
    assert.deepEqual(await connect(hub, 'sh', { protocols: ['clawmux.terminal.v1', token], headers: { origin: 'http://evil.example' } }), { status: 403 }, 'another origin');
    assert.deepEqual(await connect(hub, 'sh', { protocols: ['clawmux.terminal.v1', token], headers: { ...own, host: 'evil.example' } }), { status: 403 }, 'another host');
    const opened = await connect(hub, 'sh', { protocols: ['clawmux.terminal.v1', token], headers: own });
    assert.deepEqual(opened.notice, { type: 'attached', session_id: 'sh' });
    assert.equal(opened.protocol, 'clawmux.terminal.v1', 'the token is not named back');
    const nobody = await connect(hub, 'nobody', { protocols: ['clawmux.terminal.v1', token], headers: own });
    assert.equal(nobody.notice.code, 'unknown_agent');

    // The private socket lets an agent do an agent's things without the token; a terminal is not one.
    const status = await new Promise((ok, fail) => {
      const req = http.get({
        socketPath: join(hub.data, 'hub.sock'),
        path: '/ws/terminal/sh?cols=80&rows=24',
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'clawmux.terminal.v1' },
      });
      req.on('response', (res) => ok(res.statusCode));
      req.on('upgrade', () => ok(101));
      req.on('error', fail);
    });
    assert.equal(status, 401, 'an agent cannot open a terminal on the private socket');
  } finally {
    hub.stop();
  }
});
