// The explanation against the real Claude Code CLI (pinned, from npm) and a scripted model: Claude Code's
// own view of the session (its `~/.claude/sessions/<pid>.json`) is read as a second opinion, and a
// disagreement that lasts is recorded and explained; a report of the run replays to what was shown, with
// no message text in it.

import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, startHub } from './harness.mjs';
import { bash, claudeBinary, claudeEnv, prepareHome, spawnSky, startModel } from './real-claude.mjs';

let claude;
before(() => { claude = claudeBinary(); });

test('Claude Code at its prompt while the indicator says Working: the disagreement is recorded and explained; the report replays', async () => {
  // A model that answers the user once and then ends its turn instead of waiting again: Claude Code sits
  // at its prompt (its file says idle) while the wait that took the message left the agent Working.
  let answered = false;
  const model = await startModel(({ last }) => {
    const msg = /\[MSG id:(msg-[0-9a-f]{8}) from:user\] (.*)/.exec(last);
    if (msg) {
      answered = true;
      return bash(`clawmux send --to user --re ${msg[1]} 'on it'`, 'answer the user');
    }
    if (answered) return { text: 'Done for now.' };
    return bash('clawmux wait', 'wait for the next message');
  });
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port), CLAWMUX_SECOND_OPINION_MS: '1500' } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  const ev = await hub.events();
  try {
    await spawnSky(hub, ev);
    let m;
    // Agreement first: a spawned agent in its wait is busy for Claude Code (a Bash call runs).
    const sessions = join(hub.dir, '.claude', 'sessions');
    const file = readdirSync(sessions).find((f) => f.endsWith('.json'));
    assert.equal(JSON.parse(readFileSync(join(sessions, file), 'utf8')).status, 'busy');

    m = ev.mark();
    const secret = 'the quarterly numbers are confidential';
    const sent = await hub.api('POST', '/api/sessions/sky/messages', { text: secret });
    await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id, 60000);
    // Claude Code ends its turn; the Stop hook lets it (nothing is owed), and its file says idle.
    // The hub tells the UI (a status, the indicator unchanged) when it records a disagreement.
    let explained;
    for (;;) {
      const mark = ev.mark();
      explained = await hub.api('POST', '/api/command', { command: 'explain', session_id: 'sky' });
      if (explained.disagreement) break;
      await ev.event('session_status', 'sky', mark, () => true, 30000);
    }
    assert.equal(explained.shown, 'Working');
    assert.equal(explained.claude_now, 'idle');
    assert.equal(explained.disagreement.trigger, 'claude:status');
    assert.match(explained.disagreement.detail, /Claude Code is at its prompt, neither working nor in `clawmux wait`, while the indicator says Working/);
    assert.equal(explained.disagreement.result, 'recorded beside ours; never changes the indicator');
    const decisions = await (await fetch(`http://127.0.0.1:${hub.port}/api/sessions/sky/log/decisions`, { headers: { Authorization: `Bearer ${hub.token}` } })).text();
    const recorded = decisions.trim().split('\n').map((l) => JSON.parse(l)).filter((d) => d.trigger === 'claude:status');
    assert.equal(recorded.length, 1, 'recorded once');
    assert.ok(recorded[0].detail.includes('at its prompt'));
    const cli = hub.clawmux(['explain', 'sky']);
    assert.match(cli, /Claude Code's own view: idle/);
    assert.match(cli, /disagreement recorded: .*Claude Code's own view of the session disagreed with ours/);

    // The report of this run: redacted, and it replays to what was shown with every decision the same.
    const out = join(hub.dir, 'sky-report.jsonl');
    hub.clawmux(['report', 'sky', '--since', '10m', '--out', out]);
    const text = readFileSync(out, 'utf8');
    assert.ok(!text.includes('quarterly'), 'no message text in the report');
    assert.ok(text.includes('"kind":"claude:status"'), 'the second opinion is in it');
    assert.ok(text.includes('"transcript":'), "the transcript's lines of the span are in it");
    const replayed = execFileSync(BIN, ['replay', out], { encoding: 'utf8' });
    assert.match(replayed, /reproduces what was shown: \{"state":"processing","needs":null/);
    assert.doesNotMatch(replayed, /DIFFERS/);
    // Kept, the text is there.
    const kept = join(hub.dir, 'sky-kept.jsonl');
    hub.clawmux(['report', 'sky', '--keep-texts', '--out', kept]);
    assert.ok(readFileSync(kept, 'utf8').includes('quarterly'));
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});

/** The figures of `/metrics` whose names start `clawmux_status_reports`. */
async function reportFigures(hub) {
  const text = await (await fetch(`http://127.0.0.1:${hub.port}/metrics`, { headers: { Authorization: `Bearer ${hub.token}` } })).text();
  const figure = (name) => Number(new RegExp(`^clawmux_status_reports_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { reports: figure('total'), agreed: figure('agreed_seconds'), disagreed: figure('disagreed_seconds') };
}

test("Claude Code's status reports reach the hub through the terminal bridge, and agree with the indicator through a turn that needs the user", async () => {
  let touched = null;
  let phase = 'waiting';
  const model = await startModel(({ last }) => {
    if (/\[MSG id:msg-[0-9a-f]{8} from:user\] touch it/.test(last)) {
      phase = 'touching';
      return bash(`touch '${touched}'`, 'touch the file');
    }
    if (phase === 'touching') {
      phase = 'answered';
      return bash(`clawmux send --to user 'on it: touched'`, 'answer the user');
    }
    return bash('clawmux wait', 'wait for the next message');
  });
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  touched = join(hub.dir, 'touched');
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  const ev = await hub.events();
  try {
    await spawnSky(hub, ev);
    // The bridge answered Claude Code's probe: it reports (its wait is a tool call: working).
    const started = await reportFigures(hub);
    assert.ok(started.reports >= 1, `reports heard at start: ${JSON.stringify(started)}`);
    let explained = await hub.api('POST', '/api/command', { command: 'explain', session_id: 'sky' });
    assert.equal(explained.claude_now, 'busy');

    // A command that needs the user: Claude Code reports itself blocked on a permission, as the indicator says.
    const m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'touch it' });
    const asked = await ev.until((x) => ev.seen.indexOf(x) >= m && x.type === 'session_status' && x.session_id === 'sky' && x.needs?.request, 60000, 'a request under needs');
    for (let i = 0; ; i++) {
      explained = await hub.api('POST', '/api/command', { command: 'explain', session_id: 'sky' });
      if (explained.claude_now === 'waiting' || i === 100) break;
      await new Promise((r) => setTimeout(r, 50)); // polled: the report has no event of its own
    }
    assert.equal(explained.claude_now, 'waiting');
    await hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: asked.needs.request.id, decision: 'allow' });
    await ev.event('assistant_text', 'sky', m, (e) => e.text === 'on it: touched', 60000);
    await ev.state('sky', 'idle', ev.seen.length - 1, 60000);

    const f = await reportFigures(hub);
    const share = f.agreed / (f.agreed + f.disagreed);
    console.log(`status reports: ${f.reports} heard; agreed with the indicator ${(100 * share).toFixed(2)} % of ${(f.agreed + f.disagreed).toFixed(1)} s (disagreed ${f.disagreed.toFixed(3)} s)`);
    assert.ok(f.reports > started.reports, 'the turn was reported');
    assert.ok(f.agreed > 0);
    const decisions = await (await fetch(`http://127.0.0.1:${hub.port}/api/sessions/sky/log/decisions`, { headers: { Authorization: `Bearer ${hub.token}` } })).text();
    const recorded = decisions.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((d) => d.trigger === 'claude:status');
    assert.deepEqual(recorded.map((d) => d.detail), [], 'no disagreement lasted');
  } finally {
    await hub.stop();
    await model.close();
  }
});
