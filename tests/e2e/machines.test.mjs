// Agents of another machine in the same window, in Chromium: this machine's hub follows another hub over
// a real OpenSSH server on loopback (tests/e2e/sshd.mjs). The machine added from the sidebar, its agent
// listed under it, a message answered there, the link cut (the machine dimmed with its agents' last known
// states), a message sent meanwhile queued and delivered once when the link is back by itself.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, agentProcesses, openBrowser, openUi, shows, startHub } from './harness.mjs';
import { sshKeys, startSshd } from './sshd.mjs';
import { startService } from './voice-service.mjs';
import { give, png } from './files.mjs';

let browser;
before(async () => { browser = await openBrowser(); });
after(async () => { await browser?.close(); });

/** Kills the `clawmux dial-stdio`s serving the hub whose data folder is `data`, as a dropped link ends them. */
function killDials(data) {
  const dials = agentProcesses(data).filter((pid) => {
    try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dial-stdio'); } catch { return false; }
  });
  for (const pid of dials) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  return dials.length;
}

test('another machine in the sidebar: its agent answers; a cut link dims it, and a queued message goes once when it is back', async () => {
  const remote = await startHub();
  const sshd = await startSshd(remote);
  const local = await startHub({ env: { CLAWMUX_SSH_CONFIG: sshd.clientConfig } });
  const events = await remote.events();
  const { page, errors } = await openUi(browser, local);
  try {
    const mark = events.mark();
    remote.clawmux(['spawn', 'sky', '--demo']);
    await events.state('sky', 'idle', mark, 20000);

    await page.click('#new-machine');
    await page.fill('#machine-name', 'gpu');
    await page.fill('#machine-url', sshd.url);
    await page.click('#machine-form button[type=submit]');
    await page.waitForSelector('#agents .machine[data-machine="gpu"]:not(.down)', { timeout: 20000 });
    await page.waitForSelector('#agents [data-agent="sky@gpu"][data-state="idle"]', { timeout: 20000 });
    assert.equal((await page.textContent('[data-agent="sky@gpu"] .name')).trim(), 'sky (demo)');

    const chat = '.chat[data-session="sky@gpu"]';
    await page.click('[data-agent="sky@gpu"]');
    await page.fill('#input', 'hello over ssh');
    await page.press('#input', 'Enter');
    await page.waitForFunction((c) => [...document.querySelectorAll(`${c} .msg.kind-assistant`)].some((m) => m.textContent.includes('hello over ssh')), chat, { timeout: 20000 });

    // A pasted screenshot for the agent there: kept on that machine, and its thumbnail drawn here from the
    // bytes that come back through the link, after a reload too (from the history).
    const shot = png(96, 64);
    await give(page, 'paste', [{ name: 'far.png', type: 'image/png', base64: shot.toString('base64') }]);
    await page.waitForFunction(() => document.querySelectorAll('#attached .file').length === 1 && !document.querySelector('#attached .keeping'));
    await page.fill('#input', 'what is this?');
    await page.press('#input', 'Enter');
    const thumbnail = async () => {
      const img = await page.waitForSelector(`${chat} .msg.kind-user .file.kind-image img[src^="blob:"]`, { timeout: 20000 });
      await page.waitForFunction((el) => el.complete && el.naturalWidth === 96, img);
    };
    await thumbnail();
    const kept = readdirSync(join(remote.data, 'attachments'));
    assert.equal(kept.length, 1, `kept there: ${kept}`);
    assert.deepEqual(readFileSync(join(remote.data, 'attachments', kept[0])), shot);
    assert.ok(!existsSync(join(local.data, 'attachments')) || readdirSync(join(local.data, 'attachments')).length === 0, 'nothing kept here');
    await page.reload();
    await page.waitForSelector('#agents [data-agent="sky@gpu"][data-state="idle"]', { timeout: 20000 });
    await page.click('[data-agent="sky@gpu"]');
    await thumbnail();

    // What an agent there says is drawn as this machine's agents' words are: as text and safe markdown,
    // never as markup that runs.
    await remote.api('POST', '/api/send', { to: 'user', text: '<img src=x onerror="window.__pwned=1"> **far bold** [link](javascript:window.__pwned=2)' }, 'sky');
    await page.waitForFunction((c) => [...document.querySelectorAll(`${c} .msg strong`)].some((b) => b.textContent === 'far bold'), chat, { timeout: 20000 });
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.$$eval(`${chat} [onerror], ${chat} a[href^="javascript:"]`, (els) => els.length), 0);

    // Ctrl+K finds what was said there too, under the agent's name on that machine, and opens it.
    local.addAgent('moth');
    await local.api('POST', '/api/sessions/moth/messages', { text: 'hello over the local hub' });
    await page.keyboard.press('Control+k');
    await page.fill('#search-input', 'hello over');
    await page.waitForFunction(() => document.querySelectorAll('#search-results .search-group').length === 2);
    const groups = await page.$$eval('#search-results .search-group', (els) => els.map((e) => e.textContent));
    assert.deepEqual(groups.sort(), ['moth', 'sky@gpu']);
    const found = await page.$$eval('#search-results .search-result', (els) => els.map((e) => e.dataset.id));
    assert.equal(found.filter((id) => id.endsWith('@gpu')).length, 2, `the question and its answer there: ${found}`);
    await page.click('#search-results .search-result[data-id$="@gpu"]');
    await page.waitForSelector(`${chat} .msg.found`);
    assert.match(await page.textContent(`${chat} .msg.found`), /hello over ssh/);

    // An agent started there from the window, in a folder of that machine.
    await page.click('#new-agent');
    await page.selectOption('#spawn-machine', 'gpu');
    await page.fill('#spawn-name', 'owl');
    await page.fill('#spawn-dir', remote.dir);
    await page.check('#spawn-demo');
    await page.click('#spawn-form button[type=submit]');
    await page.waitForSelector('#agents [data-agent="owl@gpu"][data-state="idle"]', { timeout: 20000 });
    const there = await remote.api('GET', '/api/sessions');
    assert.equal(there.find((a) => a.session_id === 'owl')?.work_dir, remote.dir);
    await page.click('[data-agent="sky@gpu"]');

    // Speech becomes text on this machine (its transcription service), and the words go to the agent there,
    // once however often the recording is sent.
    const whisper = await startService(() => [200, 'application/json', '{"text":"spoken to the other machine"}']);
    await local.api('POST', '/api/voice/settings', { transcription_url: `${whisper.url}/v1/audio/transcriptions` });
    const wav = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4000)]);
    for (let i = 0; i < 2; i += 1) {
      const r = await fetch(`http://127.0.0.1:${local.port}/api/sessions/${encodeURIComponent('sky@gpu')}/voice?recording=rec-1`, {
        method: 'POST', headers: { Authorization: `Bearer ${local.token}`, 'Content-Type': 'audio/wav' }, body: wav,
      });
      assert.equal(r.status, 200, await r.text());
    }
    await whisper.close();
    await page.waitForFunction((c) => [...document.querySelectorAll(`${c} .msg.kind-user`)].some((m) => m.textContent.includes('spoken to the other machine')), chat, { timeout: 20000 });
    const spoken = (await remote.api('GET', '/api/history/sky?limit=100')).messages.filter((m) => m.voice);
    assert.deepEqual(spoken.map((m) => m.text), ['spoken to the other machine'], 'stored there once, as spoken');

    // Its terminal, through this machine's hub and the link: keys go there, the screen comes back.
    remote.clawmux(['spawn', 'sh', '--command', join(ROOT, 'tests/e2e/fixtures/shell-agent')]);
    await page.waitForSelector('#agents [data-agent="sh@gpu"]', { timeout: 20000 });
    await page.click('[data-agent="sh@gpu"]');
    if ((await page.getAttribute('#act-terminal', 'aria-pressed')) !== 'true') await page.click('#act-terminal');
    await shows(page, /\$ /, 20000);
    await page.click('#terminal');
    await page.keyboard.type('echo typed-$((6*7))');
    await page.keyboard.press('Enter');
    await shows(page, /^typed-42$/m, 20000);
    await page.click('#act-terminal');
    await page.click('[data-agent="sky@gpu"]');

    // The link is cut and the machine cannot be reached.
    sshd.stop();
    assert.ok(killDials(remote.data) >= 1);
    await page.waitForSelector('#agents .machine[data-machine="gpu"].down', { timeout: 20000 });
    assert.match(await page.textContent('.machine[data-machine="gpu"] .machine-state'), /unreachable, last seen \d\d:\d\d/);
    const last = await page.getAttribute('[data-agent="sky@gpu"].machine-down', 'data-state');
    assert.ok(['idle', 'processing'].includes(last), `dimmed, with its last known state: ${last}`);
    await page.fill('#input', 'sent while away');
    await page.press('#input', 'Enter');
    await page.waitForSelector(`${chat} .msg.queued`);

    // Back by itself: the queued message goes, once, and is answered.
    await sshd.start();
    await page.waitForSelector('#agents .machine[data-machine="gpu"]:not(.down)', { timeout: 60000 });
    await page.waitForFunction((c) => [...document.querySelectorAll(`${c} .msg.kind-assistant`)].some((m) => m.textContent.includes('sent while away')), chat, { timeout: 30000 });
    const sent = await page.$$eval(`${chat} .msg.kind-user`, (els) => els.filter((e) => e.textContent.includes('sent while away')).length);
    assert.equal(sent, 1, 'the message is shown once');
    const history = await remote.api('GET', '/api/history/sky?limit=100');
    assert.equal(history.messages.filter((m) => m.kind === 'user' && m.text === 'sent while away').length, 1, 'stored once there');
    const ids = await page.$$eval(`${chat} .msg[data-id]`, (els) => els.map((e) => e.dataset.id));
    assert.equal(new Set(ids).size, ids.length, 'nothing drawn twice');
    assert.deepEqual(errors, []);
  } finally {
    events.close();
    await page.context().close();
    sshd.stop();
    local.stop();
    remote.stop();
  }
});

/** The page's JS heap after a collection, in MB, and its DOM nodes (Chromium's own counters). */
async function pageMemory(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const get = (name) => metrics.find((m) => m.name === name)?.value ?? 0;
  await cdp.detach();
  return { heap: get('JSHeapUsedSize') / 1e6, nodes: get('Nodes') };
}

/** The resident memory of the `ssh` processes `pid` runs, in MB, and how many there are. */
function sshMemory(pid) {
  let mb = 0;
  let count = 0;
  for (const p of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8').trim();
      const [, comm, rest] = /^\d+ \((.*)\) (.*)$/.exec(stat);
      if (comm === 'ssh' && Number(rest.split(' ')[1]) === pid) {
        mb += rss(Number(p));
        count += 1;
      }
    } catch { /* gone */ }
  }
  return { mb, count };
}

/** A process's resident memory in MB. */
function rss(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

test('ten machines of ten agents each in one window, and what that costs in memory', async () => {
  const keys = sshKeys();
  const remotes = [];
  const sshds = [];
  const local = await startHub({ env: { CLAWMUX_SSH_CONFIG: keys.clientConfig } });
  const { page, errors } = await openUi(browser, local);
  try {
    for (let i = 0; i < 10; i += 1) {
      const hub = await startHub();
      remotes.push(hub);
      for (let a = 0; a < 10; a += 1) hub.addAgent(`agent${a}`);
      sshds.push(await startSshd(hub, keys));
    }
    const before = await pageMemory(page);
    const hubBefore = rss(local.pid);
    for (let i = 0; i < 10; i += 1) {
      await local.api('POST', '/api/command', { command: 'machine_add', name: `m${i}`, url: sshds[i].url });
    }
    await page.waitForFunction(
      () => document.querySelectorAll('#agents .agent[data-machine]').length === 100
        && document.querySelectorAll('#agents .machine:not(.down)').length === 10
        && ![...document.querySelectorAll('#agents .machine-state')].some((s) => s.textContent),
      null,
      { timeout: 60000 },
    );
    const names = await page.$$eval('#agents > li', (els) => els.map((e) => e.dataset.machine ?? ''));
    assert.deepEqual(names.filter((n, i) => n !== names[i - 1]), ['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9'], 'grouped by machine, in order');

    // A message to an agent of the last machine is stored there, once.
    await page.click('[data-agent="agent9@m9"]');
    await page.fill('#input', 'to the tenth machine');
    await page.press('#input', 'Enter');
    await page.waitForSelector('.chat[data-session="agent9@m9"] .msg.kind-user[data-id$="@m9"]', { timeout: 20000 });
    const there = await remotes[9].api('GET', '/api/history/agent9?limit=10');
    assert.deepEqual(there.messages.map((m) => m.text), ['to the tenth machine']);

    const after = await pageMemory(page);
    const hubAfter = rss(local.pid);
    const ssh = sshMemory(local.pid);
    assert.ok(ssh.count >= 10 && ssh.count <= 20, `a feed a machine, and a link for commands where one went: ${ssh.count}`);
    console.log(`machines: 10 machines of 10 agents in one window: the page's JS heap ${after.heap.toFixed(1)} MB (${before.heap.toFixed(1)} MB with none), ${after.nodes} DOM nodes (${before.nodes}); this machine's hub ${hubAfter.toFixed(1)} MB resident (${hubBefore.toFixed(1)} MB with none); its ${ssh.count} ssh processes (a feed a machine, a command link where commands went) ${ssh.mb.toFixed(1)} MB resident together`);
    assert.deepEqual(errors, []);
  } finally {
    await page.context().close();
    for (const s of sshds) s.stop();
    local.stop();
    for (const r of remotes) r.stop();
  }
});
