// The agent list. Each agent's element is made once and updated in place; its indicator follows the
// canonical table of docs/STATE-MACHINE.md exactly, and "Needs you" (a permission, an answer, a plan
// approval, a failed turn) is painted over it in a colour of its own while the hub says so.

import { describe } from './forecast.js';
import { split } from './machines.js';
import { Need, State } from './names.js';
import { agentDetail, agentLine } from './usage.js';

/** The indicator's word for a need: the usage limit is not something to answer, so it is not "Needs you". */
function needLabel(need) {
  if (!need) return undefined;
  return need === Need.RATE_LIMITED ? 'Rate-limited' : 'Needs you';
}

/** The indicator's word for an agent's item: its need, else its state, an idle agent's work in the
 * background said. */
function label(item) {
  const idle = item.dataset.state === State.IDLE;
  return needLabel(item.dataset.needs)
    ?? (idle && item.dataset.background ? 'Idle, work in the background' : indicator(item.dataset.state)[1]);
}

/** What runs in the background, while the agent is there to have it. */
function backgroundLine(item) {
  const n = Number(item.dataset.background ?? 0);
  if (!n || item.dataset.state === State.DEAD) return '';
  return n === 1 ? '1 task running in the background' : `${n} tasks running in the background`;
}

/** The sidebar indicator for a hub state: [css class, label]. */
export function indicator(state) {
  switch (state) {
    case State.STARTING: return ['indicator-starting', 'Starting'];
    case State.IDLE: return ['indicator-idle', 'Idle'];
    case State.PROCESSING:
    case State.COMPACTING: return ['indicator-working', 'Working'];
    case State.DEAD: return ['indicator-offline', 'Offline'];
    default: return ['indicator-offline', state];
  }
}

export class Sidebar {
  /** `onExplain(agent)`: its indicator or its "needs you" line was clicked (the explanation opens). */
  constructor(list, onSelect, onExplain) {
    this.list = list;
    this.onSelect = onSelect;
    this.onExplain = onExplain;
    /** @type {Map<string, HTMLElement>} */
    this.items = new Map();
    /** Other machines' headings, by machine. @type {Map<string, HTMLElement>} */
    this.machines = new Map();
  }

  /** Where an element goes: this machine's agents first, then each machine's heading and its agents. */
  static order(agent, machine) {
    return machine === null ? `0 ${agent}` : `1 ${machine} ${agent ?? ''}`;
  }

  /** Inserts `element` at its place by `key` among the list's elements. */
  place(element, key) {
    element.dataset.order = key;
    const after = [...this.list.children].find((e) => e !== element && e.dataset.order > key);
    this.list.insertBefore(element, after ?? null);
  }

  /**
   * Adds or updates another machine's heading: its name, and when it cannot be reached, since when and
   * why; its agents are dimmed meanwhile (their last known states stay).
   */
  machine({ name, up, last_seen: lastSeen, error }) {
    let heading = this.machines.get(name);
    if (!heading) {
      heading = document.createElement('li');
      heading.className = 'machine';
      heading.dataset.machine = name;
      heading.innerHTML = '<span class="machine-name"></span><span class="machine-state"></span>';
      heading.querySelector('.machine-name').textContent = name;
      this.place(heading, Sidebar.order(null, name));
      this.machines.set(name, heading);
    }
    // Not up and nothing went wrong yet: the first dial is under way.
    const down = !up && Boolean(error);
    heading.classList.toggle('down', down);
    const seen = lastSeen ? new Date(lastSeen).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : null;
    const state = heading.querySelector('.machine-state');
    state.textContent = up ? '' : down ? `unreachable${seen ? `, last seen ${seen}` : ''}` : 'connecting';
    state.title = down ? error : '';
    for (const [id, item] of this.items) {
      if (split(id).machine === name) item.classList.toggle('machine-down', down);
    }
  }

  /** An agent's item, new in the sidebar. */
  create(agent) {
    const item = document.createElement('li');
    item.className = 'agent';
    item.dataset.agent = agent;
    item.innerHTML = '<span class="dot"></span><span class="name"></span><span class="unread"></span><span class="label"></span><span class="activity"></span><span class="needs"></span><span class="overlap"></span><span class="usage"></span><span class="background"></span><span class="problem"></span>';
    const { name, machine } = split(agent);
    item.querySelector('.name').textContent = name;
    if (machine) {
      item.dataset.machine = machine;
      item.title = `${name} on ${machine}`;
      item.classList.toggle('machine-down', this.machines.get(machine)?.classList.contains('down') ?? false);
    }
    for (const part of item.querySelectorAll('.dot, .label, .needs')) {
      part.classList.add('explains');
      part.title = 'Why does it say this?';
    }
    item.addEventListener('click', (e) => {
      this.onSelect(agent);
      if (e.target.closest('.explains')) this.onExplain(agent);
    });
    this.place(item, Sidebar.order(name, machine));
    this.items.set(agent, item);
    return item;
  }

  /** Adds or updates an agent from a session row or a status event. */
  upsert(session) {
    const item = this.items.get(session.session_id) ?? this.create(session.session_id);
    if (session.state) {
      const [cls] = indicator(session.state);
      item.classList.remove('indicator-starting', 'indicator-idle', 'indicator-working', 'indicator-offline');
      item.classList.add(cls);
      item.dataset.state = session.state;
    }
    if (session.needs !== undefined) {
      item.classList.toggle('needs-you', Boolean(session.needs));
      if (session.needs) item.dataset.needs = session.needs.need;
      else delete item.dataset.needs;
      item.querySelector('.needs').textContent = session.needs ? session.needs.reason : '';
    }
    if (session.background !== undefined) {
      if (session.background > 0) item.dataset.background = String(session.background);
      else delete item.dataset.background;
    }
    if (session.state || session.needs !== undefined || session.background !== undefined) {
      item.querySelector('.label').textContent = label(item);
      item.querySelector('.background').textContent = backgroundLine(item);
    }
    if (session.activity !== undefined) item.querySelector('.activity').textContent = session.activity;
    if (session.launch !== undefined) {
      item.dataset.launch = session.launch;
      const tag = { demo: ' (demo)', observed: ' (observed)' }[session.launch] ?? '';
      item.querySelector('.name').textContent = split(session.session_id).name + tag;
    }
    this.figures(item, session);
    if (session.problem !== undefined) item.querySelector('.problem').textContent = session.problem ?? '';
    if (session.unread_count !== undefined) this.setUnread(session.session_id, session.unread_count);
  }

  /** The row's conflict forecast and usage figures, when it says them. */
  figures(item, session) {
    if (session.overlaps !== undefined) {
      const f = describe(session.overlaps);
      const overlap = item.querySelector('.overlap');
      overlap.textContent = f.short;
      overlap.title = f.long;
      if (f.level) item.dataset.overlap = f.level;
      else delete item.dataset.overlap;
    }
    if (session.usage !== undefined) {
      const usage = item.querySelector('.usage');
      usage.textContent = agentLine(session.usage);
      usage.title = agentDetail(session.usage);
      if (session.usage?.limited) item.dataset.limited = 'true';
      else delete item.dataset.limited;
    }
  }

  setUnread(agent, count) {
    const item = this.items.get(agent);
    if (item) item.querySelector('.unread').textContent = count > 0 ? String(count) : '';
  }

  unread(agent) {
    return Number(this.items.get(agent)?.querySelector('.unread').textContent || 0);
  }

  select(agent) {
    for (const [name, item] of this.items) item.classList.toggle('selected', name === agent);
  }
}
