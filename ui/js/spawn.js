// The "new agent" form, on this machine or another one. It offers the demo agent when Claude Code is not installed, a worktree of its own
// when the work folder is in a git repository (ticked when another agent works there already), and keeps
// what was typed, with the hub's reason, when the hub refuses.

import { $ } from './dom.js';
import { Code, Command, PermissionMode } from './names.js';

export class SpawnForm {
  /** `onSpawned(info)` gets the new agent's row; `machines()` the other machines' names. */
  constructor(backend, onSpawned, machines = () => []) {
    this.backend = backend;
    this.onSpawned = onSpawned;
    this.machines = machines;
    $('spawn-machine').addEventListener('change', () => {
      this.open();
      this.lookAtFolder();
    });
    $('new-agent').addEventListener('click', () => this.open());
    $('spawn-cancel').addEventListener('click', () => { $('spawn-form').hidden = true; });
    $('spawn-mode').addEventListener('change', () => {
      $('spawn-hint').textContent = $('spawn-mode').value === PermissionMode.BYPASS_PERMISSIONS
        ? 'Never ask: the agent can do anything you can do on this machine, without asking you first.'
        : '';
    });
    $('spawn-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    let timer = null;
    $('spawn-dir').addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.lookAtFolder(), 250);
    });
    // Claude Code asks at start in a folder it was never trusted with: the user answers here, first.
    $('spawn-trust').addEventListener('click', () => this.submit({ trust_folder: true }));
  }

  /** The machine chosen (null: this one). */
  machine() {
    return $('spawn-machine').value || null;
  }

  /** The choice of machines, when there are others: the agent runs there, in a folder of that machine. */
  offerMachines() {
    const select = $('spawn-machine');
    const chosen = select.value;
    const names = this.machines();
    const options = [['', 'This machine'], ...names.map((n) => [n, n])].map(([value, label]) => {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = label;
      return o;
    });
    select.replaceChildren(...options);
    select.value = names.includes(chosen) ? chosen : '';
    $('spawn-machine-row').hidden = names.length === 0;
  }

  async open() {
    const form = $('spawn-form');
    if (form.hidden) this.offerMachines();
    form.hidden = false;
    $('spawn-name').focus();
    try {
      const caps = await this.backend.command({ command: Command.CAPABILITIES }, this.machine());
      const hints = [];
      if (!caps.claude) {
        hints.push(`Claude Code is not installed ${this.machine() ? `on ${this.machine()}` : 'here'}: the built-in demo agent will run instead.`);
        $('spawn-demo').checked = true;
      }
      if (!caps.tmux) hints.push('tmux is not installed: agents cannot be started (apt install tmux).');
      $('spawn-hint').textContent = hints.join(' ');
      form.dataset.claude = caps.claude ? 'yes' : 'no';
    } catch (e) {
      $('spawn-hint').textContent = e.message;
    }
  }

  /** Is the work folder in a repository? Then a worktree of its own is offered. */
  async lookAtFolder() {
    const dir = $('spawn-dir').value.trim();
    const shown = $('spawn-repo');
    if (!dir) {
      shown.hidden = true;
      return;
    }
    try {
      const repo = await this.backend.command({ command: Command.REPOSITORY, work_dir: dir }, this.machine());
      if ($('spawn-dir').value.trim() !== dir) return;
      shown.hidden = false;
      $('spawn-base').placeholder = repo.branch ?? 'a branch, tag or commit (no branch is checked out)';
      $('spawn-worktree').checked = repo.agents.length > 0;
      $('spawn-repo-hint').textContent = repo.agents.length
        ? `${repo.agents.join(', ')} already work${repo.agents.length === 1 ? 's' : ''} in ${repo.top}: a worktree keeps them apart.`
        : `${repo.top} is a git repository.`;
    } catch {
      // Not a repository (or not a folder yet): nothing to offer.
      if ($('spawn-dir').value.trim() === dir) shown.hidden = true;
    }
  }

  async submit(extra = {}) {
    const name = $('spawn-name').value.trim();
    const demo = $('spawn-demo').checked;
    const request = { command: Command.SPAWN, name, demo, ...extra };
    $('spawn-trust').hidden = true;
    if ($('spawn-dir').value.trim()) request.work_dir = $('spawn-dir').value.trim();
    if (!$('spawn-repo').hidden && $('spawn-worktree').checked) {
      request.worktree = true;
      if ($('spawn-base').value.trim()) request.base = $('spawn-base').value.trim();
    }
    if (!demo && $('spawn-model').value.trim()) request.model = $('spawn-model').value.trim();
    if (!demo && $('spawn-mode').value) request.permission_mode = $('spawn-mode').value;
    try {
      const info = await this.backend.command(request, this.machine());
      $('spawn-form').hidden = true;
      $('spawn-form').reset();
      $('spawn-repo').hidden = true;
      $('spawn-hint').textContent = '';
      this.onSpawned(info);
    } catch (e) {
      // The form stays as typed, with the hub's reason.
      $('spawn-hint').textContent = e.message;
      $('spawn-trust').hidden = e.code !== Code.FOLDER_NOT_TRUSTED;
    }
  }
}
