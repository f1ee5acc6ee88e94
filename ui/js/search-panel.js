// Search everything said (Ctrl+K): results as the user types, grouped by agent, the matching words marked
// in a snippet, filters by agent, who spoke and time, the arrow keys to move and Enter to open. The hub
// finds (the `search` command over the store's full-text index); this file asks and shows. A reply that
// comes after a newer one was asked for is dropped, so fast typing never shows stale results.

import { $ } from './dom.js';
import { Command, UiEvent, Who } from './names.js';

/** How long typing may pause before the words are asked for. */
const TYPING_PAUSE_MS = 25;
const DAY = 86_400_000;
const MARK_START = '\u0002';
const MARK_END = '\u0003';

/** A snippet as nodes: the marked words in `<mark>`, the rest as text (never read as markup). */
export function snippetNodes(snippet) {
  const nodes = [];
  let marked = false;
  for (const part of snippet.split(/([\u0002\u0003])/)) {
    if (part === MARK_START) marked = true;
    else if (part === MARK_END) marked = false;
    else if (part) {
      if (marked) {
        const mark = document.createElement('mark');
        mark.textContent = part;
        nodes.push(mark);
      } else {
        nodes.push(document.createTextNode(part));
      }
    }
  }
  return nodes;
}


/** The name of an agent that resumes a session: its folder's last part and the session's start. */
export function resumeName(line) {
  const base = (line.folder ?? '').split('/').filter(Boolean).pop() ?? 'session';
  const clean = base.replace(/[^A-Za-z0-9_-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 22) || 'session';
  return `${clean}-${line.session_id.replace(/[^A-Za-z0-9]/g, '').slice(0, 8)}`;
}

/** `results` grouped by `keyOf` (an agent, a folder), each group where its newest result came. */
export function grouped(results, keyOf) {
  const groups = new Map();
  for (const r of results) {
    const key = keyOf(r);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  return [...groups];
}

/** A group's heading in the list. */
function groupHead(text) {
  const head = document.createElement('li');
  head.className = 'search-group';
  head.setAttribute('role', 'presentation');
  head.textContent = text;
  return head;
}

/** One result: who and when above the snippet, its place among the results for the keyboard. */
function resultRow(index, who, at, snippet) {
  const li = document.createElement('li');
  li.className = 'search-result';
  li.setAttribute('role', 'option');
  li.dataset.index = String(index);
  const line = document.createElement('span');
  line.className = 'who';
  line.textContent = `${who} · ${new Date(at).toLocaleString()}`;
  const text = document.createElement('span');
  text.className = 'snippet';
  text.append(...snippetNodes(snippet));
  li.append(line, text);
  return li;
}

export class SearchPanel {
  /**
   * `agents()` lists the agents' names; `open(found)` shows a found message in its conversation;
   * `resume(line)` starts an agent that resumes a found Claude Code session in its folder; `board()` opens
   * the shared board, where a found item is.
   */
  constructor(backend, { agents, open, resume, board }) {
    this.events = {
      [UiEvent.SEARCH_INDEX]: (e) => this.indexed(e.left),
      [UiEvent.SESSIONS_READ]: () => this.sessionsRead(),
    };
    this.backend = backend;
    this.agents = agents;
    this.openFound = open;
    this.resume = resume;
    this.openBoard = board;
    this.asked = 0;
    this.timer = null;
    this.items = [];
    this.active = -1;
    $('search-who').replaceChildren(...WHO.map(([v, label]) => new Option(label, v)));
    $('search-since').replaceChildren(...SINCE.map(([v, label]) => new Option(label, v)));
    $('search-open').addEventListener('click', () => this.toggle());
    document.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        this.toggle(true);
      }
    });
    $('search-input').addEventListener('input', () => {
      this.typed = performance.now();
      this.soon();
    });
    for (const id of ['search-agent', 'search-who', 'search-since']) $(id).addEventListener('change', () => this.ask());
    $('search-sessions').addEventListener('change', async (e) => {
      try {
        await this.backend.command({ command: Command.SEARCH_SESSIONS, on: e.target.checked });
      } catch (err) {
        e.target.checked = !e.target.checked;
        $('search-state').textContent = `Cannot change it: ${err.message}`;
      }
      this.ask();
    });
    $('search-panel').addEventListener('keydown', (e) => this.key(e));
    $('search-results').addEventListener('click', (e) => {
      const li = e.target.closest('li[data-index]');
      if (li) this.choose(Number(li.dataset.index));
    });
  }

  isOpen() {
    return !$('search-panel').hidden;
  }

  toggle(open = !this.isOpen()) {
    $('search-panel').hidden = !open;
    if (!open) return;
    const select = $('search-agent');
    const chosen = select.value;
    select.replaceChildren(new Option('every agent', ''), ...this.agents().map((a) => new Option(a, a)));
    select.value = chosen;
    $('search-input').focus();
    $('search-input').select();
  }

  soon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.ask(), TYPING_PAUSE_MS);
  }

  async ask() {
    clearTimeout(this.timer);
    const query = $('search-input').value;
    const n = ++this.asked;
    if (!query.trim()) {
      this.showResults([], '');
      return;
    }
    const days = Number($('search-since').value);
    const request = {
      command: Command.SEARCH,
      query,
      session_id: $('search-agent').value || null,
      who: $('search-who').value || null,
      since: days ? Date.now() - days * DAY : null,
      limit: 50,
    };
    let reply;
    try {
      reply = await this.backend.command(request);
    } catch (e) {
      if (n === this.asked) this.showResults([], e.message);
      return;
    }
    if (n !== this.asked) return;
    $('search-sessions').checked = reply.sessions_searched;
    const unreached = reply.unreached?.length ? ` (not searched: ${reply.unreached.join(', ')}, unreachable)` : '';
    const pending = (reply.indexing > 0 ? ` (${reply.indexing} older messages are still being indexed)` : '') + unreached;
    const tasks = reply.tasks ?? [];
    const any = reply.results.length + reply.sessions.length + tasks.length > 0;
    this.showResults(reply.results, any ? pending.trim() : `Nothing found${pending}.`, reply.sessions, tasks);
    // From the last key to these results on screen (the benchmark's figure, read by the tests).
    this.latency = performance.now() - this.typed;
  }

  /** The user's sessions were read: an open search asks again. */
  sessionsRead() {
    if (this.isOpen() && $('search-input').value.trim()) this.ask();
  }

  /** Older messages were indexed (`left` still to go): an open search asks again, as more may be found. */
  indexed(left) {
    if (left === 0 && this.isOpen() && $('search-input').value.trim()) this.ask();
  }

  showResults(results, state, sessions = [], tasks = []) {
    $('search-state').textContent = state;
    const list = $('search-results');
    this.items = [];
    const rows = [];
    if (tasks.length) rows.push(groupHead('The board'));
    for (const t of tasks) {
      const li = resultRow(this.items.length, `#${t.id} ${t.state}${t.owner ? ` · ${t.owner}` : ''}`, t.updated_at, '');
      li.classList.add('task-result');
      li.dataset.task = String(t.id);
      li.querySelector('.snippet').textContent = t.title;
      rows.push(li);
      this.items.push({ task: t, element: li });
    }
    for (const [folder, lines] of grouped(sessions, (l) => l.folder ?? 'an unknown folder')) {
      rows.push(groupHead(`Claude Code session in ${folder}`));
      for (const s of lines) {
        const li = resultRow(this.items.length, s.role, s.at, s.snippet);
        li.classList.add('session-result');
        li.dataset.session = s.session_id;
        const resume = document.createElement('button');
        resume.type = 'button';
        resume.className = 'resume';
        resume.textContent = 'Resume here';
        resume.title = `Start an agent in ${folder} that resumes this session (claude --resume)`;
        resume.disabled = !s.folder;
        li.append(resume);
        rows.push(li);
        this.items.push({ session: s, element: li });
      }
    }
    for (const [agent, found] of grouped(results, (f) => f.agent)) {
      rows.push(groupHead(agent));
      for (const f of found) {
        const li = resultRow(this.items.length, f.sender, f.at, f.snippet);
        li.dataset.id = f.id;
        rows.push(li);
        this.items.push({ found: f, element: li });
      }
    }
    list.replaceChildren(...rows);
    this.activate(this.items.length ? 0 : -1);
  }

  activate(i) {
    this.items[this.active]?.element.removeAttribute('aria-selected');
    this.active = i;
    const item = this.items[i];
    if (!item) return;
    item.element.setAttribute('aria-selected', 'true');
    item.element.scrollIntoView({ block: 'nearest' });
  }

  key(e) {
    if (e.key === 'Escape') {
      e.preventDefault();
      this.toggle(false);
    } else if (e.key === 'ArrowDown' && this.items.length) {
      e.preventDefault();
      this.activate(Math.min(this.active + 1, this.items.length - 1));
    } else if (e.key === 'ArrowUp' && this.items.length) {
      e.preventDefault();
      this.activate(Math.max(this.active - 1, 0));
    } else if (e.key === 'Enter' && this.active >= 0) {
      e.preventDefault();
      this.choose(this.active);
    }
  }

  choose(i) {
    const item = this.items[i];
    if (!item) return;
    if (item.session && !item.session.folder) return;
    this.toggle(false);
    if (item.task) this.openBoard();
    else if (item.session) this.resume(item.session);
    else this.openFound(item.found);
  }
}

/** The filters' choices, kept here beside their use. */
export const SINCE = Object.freeze([['', 'any time'], ['1', 'last 24 hours'], ['7', 'last 7 days'], ['30', 'last 30 days']]);
export const WHO = Object.freeze([['', 'anyone'], [Who.USER, 'me'], [Who.AGENTS, 'the agents']]);
