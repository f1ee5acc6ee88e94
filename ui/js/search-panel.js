// Search everything said (Ctrl+K): results as the user types, grouped by agent, the matching words marked
// in a snippet, filters by agent, who spoke and time, the arrow keys to move and Enter to open. The hub
// finds (the `search` command over the store's full-text index); this file asks and shows. A reply that
// comes after a newer one was asked for is dropped, so fast typing never shows stale results.

import { $ } from './dom.js';
import { Command, Who } from './names.js';

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

/** Results grouped by agent, each group in the order its newest result came. */
export function grouped(results) {
  const groups = new Map();
  for (const r of results) {
    if (!groups.has(r.agent)) groups.set(r.agent, []);
    groups.get(r.agent).push(r);
  }
  return [...groups];
}

export class SearchPanel {
  /** `agents()` lists the agents' names; `open(found)` shows a found message in its conversation. */
  constructor(backend, { agents, open }) {
    this.backend = backend;
    this.agents = agents;
    this.openFound = open;
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
    $('search-input').addEventListener('input', () => this.soon());
    for (const id of ['search-agent', 'search-who', 'search-since']) $(id).addEventListener('change', () => this.ask());
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
      this.show([], '');
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
      if (n === this.asked) this.show([], e.message);
      return;
    }
    if (n !== this.asked) return;
    const pending = reply.indexing > 0 ? ` (${reply.indexing} older messages are still being indexed)` : '';
    this.show(reply.results, reply.results.length ? pending.trim() : `Nothing found${pending}.`);
  }

  /** Older messages were indexed (`left` still to go): an open search asks again, as more may be found. */
  indexed(left) {
    if (left === 0 && this.isOpen() && $('search-input').value.trim()) this.ask();
  }

  show(results, state) {
    $('search-state').textContent = state;
    const list = $('search-results');
    this.items = [];
    const rows = [];
    for (const [agent, found] of grouped(results)) {
      const head = document.createElement('li');
      head.className = 'search-group';
      head.setAttribute('role', 'presentation');
      head.textContent = agent;
      rows.push(head);
      for (const f of found) {
        const li = document.createElement('li');
        li.className = 'search-result';
        li.setAttribute('role', 'option');
        li.dataset.index = String(this.items.length);
        li.dataset.id = f.id;
        const who = document.createElement('span');
        who.className = 'who';
        who.textContent = `${f.sender} · ${new Date(f.at).toLocaleString()}`;
        const text = document.createElement('span');
        text.className = 'snippet';
        text.append(...snippetNodes(f.snippet));
        li.append(who, text);
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
    this.toggle(false);
    this.openFound(item.found);
  }
}

/** The filters' choices, kept here beside their use. */
export const SINCE = Object.freeze([['', 'any time'], ['1', 'last 24 hours'], ['7', 'last 7 days'], ['30', 'last 30 days']]);
export const WHO = Object.freeze([['', 'anyone'], [Who.USER, 'me'], [Who.AGENTS, 'the agents']]);
