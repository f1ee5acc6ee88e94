// How far the indicator agrees with Claude Code's own status reports (OSC 7501, read by the agent's terminal
// bridge): the real CLI (pinned, from npm) spawned by the hub, TURNS turns from the user, each three Reads and
// an answer, every third one with a command that needs the user's permission (answered after a second), the
// user away PAUSE_MS between turns. Prints the seconds the reports and the indicator agreed and disagreed
// (the hub's `/metrics`), and every reason they disagreed, with how often and how long.
//
// Run: node tests/e2e/bench-status-reports.mjs   (TURNS=9 PAUSE_MS=3000 by default)

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub } from './harness.mjs';
import { bash, claudeBinary, claudeEnv, prepareHome, spawnSky, startModel } from './real-claude.mjs';

const TURNS = Number(process.env.TURNS ?? 9);
const PAUSE_MS = Number(process.env.PAUSE_MS ?? 3000);
/** How long the command the user approves runs. */
const SLOW_S = Number(process.env.SLOW_S ?? 2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let notes = null;
let touched = null;
let turn = null;
const model = await startModel(({ last }) => {
  const msg = /\[MSG id:msg-[0-9a-f]{8} from:user\] turn (\d+)( touch)?/.exec(last);
  if (msg) turn = { n: Number(msg[1]), touch: Boolean(msg[2]), step: 0 };
  if (turn) {
    turn.step += 1;
    if (turn.step <= 3) return { tool: { name: 'Read', input: { file_path: notes } } };
    if (turn.step === 4 && turn.touch) return bash(`sleep ${SLOW_S} && touch '${touched}-${turn.n}'`, 'touch the file');
    const n = turn.n;
    turn = null;
    return bash(`clawmux send --to user 'done ${n}'`, 'answer the user');
  }
  return bash('clawmux wait', 'wait for the next message');
});
const hub = await startHub({ env: { CLAWMUX_CLAUDE: claudeBinary(), ...claudeEnv(model.port) } });
const work = join(hub.data, 'agents', 'sky');
prepareHome(hub.dir, [work]);
const ev = await hub.events();
try {
  await spawnSky(hub, ev);
  notes = join(work, 'notes.txt');
  touched = join(hub.dir, 'touched');
  writeFileSync(notes, 'a few notes\n');
  for (let n = 1; n <= TURNS; n++) {
    const touch = n % 3 === 0;
    const m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: `turn ${n}${touch ? ' touch' : ''}` });
    if (touch) {
      const asked = await ev.until((x) => ev.seen.indexOf(x) >= m && x.type === 'session_status' && x.session_id === 'sky' && x.needs?.request, 60000, 'a request');
      await sleep(1000); // the user reads it
      await hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: asked.needs.request.id, decision: 'allow' });
    }
    const answered = await ev.event('assistant_text', 'sky', m, (e) => e.text === `done ${n}`, 60000);
    await ev.state('sky', 'idle', ev.seen.indexOf(answered), 60000);
    await sleep(PAUSE_MS); // the user away
  }
  const text = await (await fetch(`http://127.0.0.1:${hub.port}/metrics`, { headers: { Authorization: `Bearer ${hub.token}` } })).text();
  const figure = (name) => Number(new RegExp(`^clawmux_status_reports_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const agreed = figure('agreed_seconds');
  const disagreed = figure('disagreed_seconds');
  console.log(`${TURNS} turns (${Math.floor(TURNS / 3)} with a permission), ${figure('total')} status reports`);
  console.log(`agreed ${agreed.toFixed(1)} s, disagreed ${disagreed.toFixed(3)} s: ${(100 * agreed / (agreed + disagreed)).toFixed(2)} % agreeing`);
  const reasons = [...text.matchAll(/^clawmux_status_reports_disagreements\{why="(.*)"\} (\d+)$/gm)];
  for (const [, why, n] of reasons) {
    const secs = new RegExp(`^clawmux_status_reports_disagreement_seconds\\{why="${why.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\} (\\S+)$`, 'm').exec(text)?.[1];
    console.log(`  ${n} x, ${secs} s: ${why.replace(/\\"/g, '"')}`);
  }
} finally {
  await hub.stop();
  await model.close();
}
