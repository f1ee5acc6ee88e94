// The shared board: the items the agents and the user work from, in four columns (open, taken, in review,
// done), each with its owner and, for an agent in a worktree, its branch. The user adds an item, gives one
// to an agent (it reaches the agent as the user's message), finishes one or gives it back. The hub keeps the
// board and its rule (`board`, `task_add`, `task_move` commands: taking is exclusive); this file asks and
// shows, and asks again when an item moves while it is open.

import { $ } from './dom.js';
import { Command, TaskOp, TaskState, UiEvent } from './names.js';
import { ToggledView } from './toggled-view.js';

/** The columns, in the order an item moves through them. */
const COLUMNS = Object.freeze([
  [TaskState.OPEN, 'Open'],
  [TaskState.TAKEN, 'Taken'],
  [TaskState.IN_REVIEW, 'In review'],
  [TaskState.DONE, 'Done'],
]);

/** The view, in `#board-panel`; `backend` runs commands, `agents()` names the agents an item may go to. */
export class BoardView extends ToggledView {
  constructor(backend, { agents }) {
    super(backend, { panel: 'board-panel', open: 'board-open', close: 'board-close' });
    this.events = { [UiEvent.TASK]: () => this.changed() };
    this.agents = agents;
    $('board-add').addEventListener('submit', (e) => {
      e.preventDefault();
      this.add();
    });
  }

  async read() {
    let tasks;
    try {
      tasks = await this.backend.command({ command: Command.BOARD });
    } catch (e) {
      $('board-state').textContent = `Cannot read the board: ${e.message}`;
      return;
    }
    if (!this.isOpen()) return;
    $('board-state').textContent = tasks.length ? '' : 'Nothing on the board yet: add an item, or an agent adds one with `clawmux task add`.';
    $('board-columns').replaceChildren(...COLUMNS.map(([state, label]) => {
      const column = document.createElement('section');
      column.className = 'board-column';
      column.dataset.state = state;
      const head = document.createElement('h3');
      const items = tasks.filter((t) => t.state === state);
      head.textContent = `${label} (${items.length})`;
      const list = document.createElement('ul');
      list.append(...items.map((t) => this.card(t)));
      column.append(head, list);
      return column;
    }));
  }

  /** One item: its number and title, owner and branch, what the user may do with it. */
  card(task) {
    const li = document.createElement('li');
    li.className = 'board-card';
    li.dataset.id = String(task.id);
    const title = document.createElement('div');
    title.className = 'title';
    title.textContent = `#${task.id} ${task.title}`;
    title.title = task.body;
    const who = document.createElement('div');
    who.className = 'who';
    who.textContent = [task.owner ?? 'nobody', task.branch].filter(Boolean).join(' · ');
    li.append(title, who);
    if (task.state !== TaskState.DONE) li.append(this.actions(task));
    return li;
  }

  actions(task) {
    const row = document.createElement('div');
    row.className = 'actions';
    const give = document.createElement('select');
    give.className = 'give';
    give.setAttribute('aria-label', `Give #${task.id} to`);
    give.append(new Option('Give to…', ''), ...this.agents().filter((a) => a !== task.owner).map((a) => new Option(a, a)));
    give.addEventListener('change', () => give.value && this.move(task.id, { op: TaskOp.ASSIGN, to: give.value }));
    const done = document.createElement('button');
    done.type = 'button';
    done.className = 'done';
    done.textContent = 'Done';
    done.addEventListener('click', () => this.move(task.id, { op: TaskOp.DONE }));
    row.append(give, done);
    if (task.owner) {
      const back = document.createElement('button');
      back.type = 'button';
      back.className = 'drop';
      back.textContent = 'Give back';
      back.addEventListener('click', () => this.move(task.id, { op: TaskOp.DROP }));
      row.append(back);
    }
    return row;
  }

  async move(id, what) {
    try {
      await this.backend.command({ command: Command.TASK_MOVE, id, what });
    } catch (e) {
      $('board-state').textContent = `#${id}: ${e.message}`;
    }
    await this.load();
  }

  async add() {
    const title = $('board-title').value.trim();
    if (!title) return;
    try {
      await this.backend.command({ command: Command.TASK_ADD, title, body: $('board-body').value });
      $('board-title').value = '';
      $('board-body').value = '';
    } catch (e) {
      $('board-state').textContent = `Cannot add it: ${e.message}`;
    }
    await this.load();
  }
}
