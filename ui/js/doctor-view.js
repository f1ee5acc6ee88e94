// "Check this machine": what `clawmux doctor` finds where the hub runs (tmux, Claude Code's version, the
// hooks, the hub's socket and port, the data folder's modes, the sound server, the tray, notifications,
// the graphics driver, the disk), each with its fix. Opened from anything marked `data-doctor` (the first
// screen, and the explanation panel beside "This looks wrong"): when something is off, this is where to
// look first. The hub runs the checks; the page only shows them, as text.

import { $ } from './dom.js';
import { Command, DoctorStatus } from './names.js';

/** How each outcome is marked in the list. */
const MARK = {
  [DoctorStatus.OK]: 'ok',
  [DoctorStatus.WARN]: 'warn',
  [DoctorStatus.FAIL]: 'FAIL',
  [DoctorStatus.SKIP]: 'skip',
};

export class DoctorView {
  constructor(backend) {
    this.backend = backend;
    this.dialog = $('doctor');
    document.addEventListener('click', (e) => {
      if (!e.target.closest?.('[data-doctor]')) return;
      e.preventDefault();
      this.open();
    });
    $('doctor-again').addEventListener('click', () => this.check());
    $('doctor-close').addEventListener('click', () => this.dialog.close());
  }

  open() {
    if (!this.dialog.open) this.dialog.showModal();
    this.check();
  }

  async check() {
    const list = $('doctor-checks');
    const state = $('doctor-state');
    state.textContent = 'Checking…';
    $('doctor-again').disabled = true;
    try {
      const checks = await this.backend.command({ command: Command.DOCTOR });
      list.replaceChildren(...checks.map(row));
      const failed = checks.filter((c) => c.status === DoctorStatus.FAIL).length;
      state.textContent = failed ? `${failed} to fix: each says how.` : 'Nothing is broken here.';
    } catch (e) {
      state.textContent = `Cannot check: ${e.message}`;
    } finally {
      $('doctor-again').disabled = false;
    }
  }
}

/** One check's line: its mark, what was checked, what was found and, when something is to be done, the fix. */
function row(c) {
  const li = document.createElement('li');
  li.className = `doctor-${c.status}`;
  li.dataset.check = c.check;
  const part = (cls, text) => {
    const span = document.createElement('span');
    span.className = cls;
    span.textContent = text;
    return span;
  };
  li.append(part('mark', MARK[c.status] ?? c.status), part('check', c.check), part('detail', c.detail));
  if (c.fix) {
    const fix = document.createElement('code');
    fix.className = 'fix';
    fix.textContent = c.fix;
    li.append(fix);
  }
  return li;
}
