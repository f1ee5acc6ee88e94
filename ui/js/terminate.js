// Terminating an agent that works in a worktree of its own asks first what becomes of the worktree, saying
// what it holds: keep it (the default: the agent can start again there), remove it with its branch (offered
// only when nothing in it exists nowhere else), or discard its unsaved work (said in so many words).

import { $ } from './dom.js';
import { Command } from './names.js';

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** What a worktree holds, in words. */
export function holds(w) {
  const unsaved = [];
  if (w.uncommitted.length) unsaved.push(`${plural(w.uncommitted.length, 'file')} not committed (${w.uncommitted.join(', ')})`);
  if (w.unmerged) unsaved.push(`${plural(w.unmerged, 'commit')} in no other branch`);
  return unsaved.length ? unsaved.join(' and ') : 'nothing that is not in another branch';
}

export class TerminateAsk {
  /** `backend` runs the commands; `say(text)` reports a failure. */
  constructor(backend, say) {
    this.backend = backend;
    this.say = say;
    this.box = $('terminate-ask');
    this.agent = null;
    $('ta-cancel').addEventListener('click', () => this.close());
    $('ta-keep').addEventListener('click', () => this.run(null));
    $('ta-remove').addEventListener('click', () => this.run(false));
    $('ta-discard').addEventListener('click', () => this.run(true));
  }

  /** Terminates `row`'s agent, asking first about its worktree if it has one. */
  async terminate(row) {
    if (!row.branch) {
      await this.end(row.session_id);
      return;
    }
    let w;
    try {
      const all = await this.backend.command({ command: Command.WORKTREES });
      w = all.find((x) => x.session_id === row.session_id);
    } catch (e) {
      this.say(e.message);
      return;
    }
    if (!w) {
      await this.end(row.session_id);
      return;
    }
    this.agent = row.session_id;
    const unsaved = w.uncommitted.length > 0 || w.unmerged > 0;
    $('ta-text').textContent = `Terminate ${w.session_id}? Its worktree (${w.branch}, ${(w.disk_bytes / 1e6).toFixed(1)} MB) holds ${holds(w)}.`;
    $('ta-remove').hidden = unsaved;
    $('ta-discard').hidden = !unsaved;
    this.box.hidden = false;
    $('ta-keep').focus();
  }

  close() {
    this.box.hidden = true;
    this.agent = null;
  }

  /** Terminates, then (unless `discard` is null: keep) removes the worktree. */
  async run(discard) {
    const agent = this.agent;
    this.close();
    if (!agent || !(await this.end(agent)) || discard === null) return;
    try {
      await this.backend.command({ command: Command.REMOVE_WORKTREE, session_id: agent, discard });
    } catch (e) {
      this.say(`The worktree stays: ${e.message}`);
    }
  }

  async end(agent) {
    try {
      await this.backend.command({ command: Command.TERMINATE, session_id: agent });
      return true;
    } catch (e) {
      this.say(`terminate failed: ${e.message}`);
      return false;
    }
  }
}
