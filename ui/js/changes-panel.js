// The Changes panel beside the chat, for an agent in a worktree of its own: what it changed since its
// branch left its base (its commits, every changed file with its counts, each file's diff), comments on
// lines of the diff sent to the agent as one review, and the merge into the base.
//
// Push only: the hub says when the agent's worktree may have changed (the `changes` event, when one of its
// tool calls ends or it is merged) and the panel, if it shows that agent, reads it again; nothing polls.
// One read at a time: events that arrive during a read make one more read after it.

import { $ } from './dom.js';
import { parsePatch, place, reviewMessage } from './diff.js';
import { describe } from './forecast.js';
import { Command, FileStatus, MergeMode, Shown, UiEvent } from './names.js';

const PREFS = 'clawmux.changes';

const STATUS = {
  [FileStatus.ADDED]: ['A', 'added'],
  [FileStatus.MODIFIED]: ['M', 'modified'],
  [FileStatus.DELETED]: ['D', 'deleted'],
  [FileStatus.RENAMED]: ['R', 'renamed'],
  [FileStatus.COPIED]: ['C', 'copied'],
  [FileStatus.TYPE_CHANGED]: ['T', 'type changed'],
};

const NOT_SHOWN = {
  [Shown.BINARY]: 'binary file: not shown',
  [Shown.HUGE]: 'over 5,000 changed lines: not shown (git diff in its worktree shows it)',
  [Shown.GENERATED]: 'generated file: not shown',
};

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

export class ChangesPanel {
  /** `backend` runs the commands; `send(agent, text)` sends a message through the chat's outbox. */
  constructor(backend, { send }) {
    this.events = { [UiEvent.CHANGES]: (e) => this.changed(e.session_id) };
    this.backend = backend;
    this.send = send;
    this.agent = null;
    this.row = null;
    this.open = localStorage.getItem(PREFS) === 'open';
    this.reply = null;
    this.reading = false;
    this.again = false;
    // Per agent: the comments not sent yet, and whether the user wrote the merge message themselves.
    this.reviews = new Map();
    this.draft = null;
    this.stale = false;
    this.edited = false;
    // The drawn diff of each file, by path, with the patch it shows.
    this.sections = new Map();
    /** When the panel was last drawn and laid out (ms since the epoch, the next frame after): for the
     * benchmark, which compares it with when a tool call ended. */
    this.drawnAt = 0;
    this.panel = $('changes-panel');
    this.button = $('act-changes');
    this.button.addEventListener('click', () => this.setOpen(!this.open));
    $('merge-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.merge();
    });
    $('merge-message').addEventListener('input', () => {
      this.edited = true;
    });
    $('review-send').addEventListener('click', () => this.sendReview());
    $('review-discard').addEventListener('click', () => {
      this.reviews.set(this.agent, []);
      this.renderReview();
    });
  }

  get comments() {
    if (!this.reviews.has(this.agent)) this.reviews.set(this.agent, []);
    return this.reviews.get(this.agent);
  }

  get visible() {
    return this.open && Boolean(this.row?.branch);
  }

  setOpen(open) {
    this.open = open;
    localStorage.setItem(PREFS, open ? 'open' : 'closed');
    this.layout();
    if (this.visible) this.read();
  }

  layout() {
    const f = describe(this.row?.overlaps);
    const forecast = $('changes-forecast');
    forecast.textContent = f.long;
    forecast.className = `changes-forecast ${f.level ?? ''}`;
    forecast.hidden = !f.level;
    this.button.hidden = !this.row?.branch;
    this.button.setAttribute('aria-pressed', String(this.visible));
    this.panel.hidden = !this.visible;
  }

  /** The agent on screen changed. */
  show(agent, row) {
    const changed = agent !== this.agent;
    this.agent = agent;
    this.row = row;
    if (changed) {
      this.reply = null;
      this.sections = new Map();
      this.draft = null;
      this.edited = false;
      $('merge-message').value = '';
      $('merge-result').textContent = '';
      this.panel.querySelector('.changes-body').replaceChildren();
    }
    this.layout();
    if (changed && this.visible) this.read();
  }

  /** The agent's row changed (a branch may have become known). */
  update(row) {
    if (row.session_id !== this.agent) return;
    const had = this.visible;
    this.row = row;
    this.layout();
    if (!had && this.visible) this.read();
  }

  /** The hub says `agent`'s worktree may have changed. */
  changed(agent) {
    if (agent === this.agent && this.visible) this.read();
  }

  async read() {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    const agent = this.agent;
    try {
      do {
        this.again = false;
        let reply;
        try {
          reply = await this.backend.command({ command: Command.CHANGES, session_id: agent });
        } catch (e) {
          if (agent === this.agent) this.say(e.message);
          continue;
        }
        if (agent !== this.agent) return;
        this.reply = reply;
        // A comment being written keeps its lines on screen: the new diff is drawn when it is done.
        if (this.draft) {
          this.stale = true;
          $('changes-summary').textContent += ' · changed: drawn again after your comment';
          continue;
        }
        this.render();
        requestAnimationFrame(() => {
          this.drawnAt = performance.timeOrigin + performance.now();
        });
      } while (this.again && agent === this.agent);
    } finally {
      this.reading = false;
    }
  }

  say(text) {
    const body = this.panel.querySelector('.changes-body');
    body.replaceChildren(el('p', 'changes-error', text));
    this.sections = new Map();
  }

  render() {
    this.stale = false;
    const r = this.reply;
    const added = r.files.reduce((n, f) => n + (f.added ?? 0), 0);
    const removed = r.files.reduce((n, f) => n + (f.removed ?? 0), 0);
    const summary = [
      `${r.branch} from ${r.base}`,
      plural(r.commits.length, 'commit'),
      `${plural(r.files.length, 'file')} +${added} −${removed}`,
    ];
    if (r.uncommitted) summary.push('changes not committed yet');
    $('changes-summary').textContent = summary.join(' · ');
    $('merge-go').textContent = `Merge into ${r.base}`;
    if (!this.edited) $('merge-message').value = r.message;

    const body = this.panel.querySelector('.changes-body');
    const head = [];
    if (r.commits.length) {
      const commits = el('ul', 'changes-commits');
      commits.setAttribute('aria-label', 'Commits');
      for (const c of r.commits) commits.append(el('li', '', `${c.id.slice(0, 8)} ${c.summary}`));
      head.push(commits);
    }
    const list = this.fileList(r.files);
    head.push(list);
    // The head (the commits, the file list) is drawn again; a file whose diff is what it was keeps its
    // section where it is, so an update lays out only what moved.
    for (const old of body.querySelectorAll(':scope > .changes-commits, :scope > .changes-files, :scope > .changes-error')) old.remove();
    body.prepend(...head);
    const sections = new Map();
    let anchor = list;
    for (const f of r.files) {
      const patch = r.patches[f.path];
      if (patch === undefined) continue;
      const before = this.sections.get(f.path);
      let section = before?.section;
      if (before?.patch !== patch) {
        section = this.fileDiff(f.path, patch);
        before?.section.remove();
      }
      if (anchor.nextElementSibling !== section) anchor.after(section);
      anchor = section;
      sections.set(f.path, { patch, section });
    }
    for (const [path, { section }] of this.sections) if (!sections.has(path)) section.remove();
    this.sections = sections;
    this.renderReview();
  }

  /** The changed files, each with its status, its name (a click goes to its diff) and its counts. */
  fileList(files) {
    const list = el('ul', 'changes-files');
    list.setAttribute('aria-label', 'Changed files');
    for (const f of files) {
      const [letter, word] = STATUS[f.status] ?? ['?', f.status];
      const li = el('li', `changed-file ${f.status}`);
      li.dataset.path = f.path;
      const status = el('span', 'status', letter);
      status.title = word;
      const name = el('button', 'path', f.old_path ? `${f.old_path} → ${f.path}` : f.path);
      name.type = 'button';
      name.addEventListener('click', () => this.sections.get(f.path)?.section.scrollIntoView({ block: 'start' }));
      const counts = el('span', 'counts', f.added === null ? 'binary' : `+${f.added} −${f.removed}`);
      li.append(status, name, counts);
      if (NOT_SHOWN[f.shown]) li.append(el('span', 'not-shown', NOT_SHOWN[f.shown]));
      list.append(li);
    }
    if (!files.length) list.append(el('li', 'none', 'No file changed yet.'));
    return list;
  }

  /** One file's diff: a row per line; a click on its numbers starts a comment (Shift: extends it). */
  fileDiff(path, patch) {
    const section = el('section', 'file-diff');
    section.dataset.path = path;
    section.append(el('h4', '', path));
    const rows = parsePatch(patch);
    const table = el('div', 'diff-lines');
    rows.forEach((row, i) => {
      if (row.kind === 'meta') return;
      const line = el('div', `dl ${row.kind}`);
      line.dataset.index = String(i);
      if (row.kind === 'add' || row.kind === 'del' || row.kind === 'ctx') {
        line.append(el('span', 'ln', `${row.old ?? ''}\u2009${row.new ?? ''}`));
      }
      line.append(el('span', 'code', row.text));
      table.append(line);
    });
    // One listener per file, not per line: a click on a line's numbers starts a comment on it.
    table.title = 'Click a line\'s numbers to comment on it (Shift: up to that line)';
    table.addEventListener('click', (e) => {
      const line = e.target.closest('.ln')?.parentElement;
      if (line) this.startComment(path, rows, Number(line.dataset.index), e.shiftKey, table);
    });
    section.append(table);
    return section;
  }

  startComment(path, rows, index, extend, table) {
    const from = extend && this.draft?.path === path ? this.draft.from : index;
    this.draft = { path, rows, from: Math.min(from, index), to: Math.max(from, index) };
    for (const old of this.panel.querySelectorAll('.comment-draft')) old.remove();
    for (const l of table.querySelectorAll('.dl.selected')) l.classList.remove('selected');
    let last = null;
    for (const l of table.querySelectorAll('.dl')) {
      const i = Number(l.dataset.index);
      if (i >= this.draft.from && i <= this.draft.to && rows[i].kind !== 'hunk') {
        l.classList.add('selected');
        last = l;
      }
    }
    const form = el('form', 'comment-draft');
    const where = el('p', 'where', this.draftPlace());
    const text = el('textarea');
    text.rows = 3;
    text.placeholder = 'Your comment for the agent';
    const add = el('button', '', 'Add to review');
    add.type = 'submit';
    const cancel = el('button', '', 'Cancel');
    cancel.type = 'button';
    const close = () => {
      form.remove();
      for (const l of table.querySelectorAll('.dl.selected')) l.classList.remove('selected');
      this.draft = null;
      if (this.stale) this.render();
    };
    cancel.addEventListener('click', close);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (!text.value.trim()) return;
      this.comments.push({ ...this.draftComment(), text: text.value });
      close();
      this.renderReview();
    });
    form.append(where, text, el('div', 'row'));
    form.lastChild.append(add, cancel);
    last.after(form);
    text.focus();
  }

  draftComment() {
    const { path, rows, from, to } = this.draft;
    const lines = rows.slice(from, to + 1).filter((r) => r.kind === 'add' || r.kind === 'del' || r.kind === 'ctx');
    return { path, from: lines[0], to: lines.at(-1), lines: lines.map((r) => r.text) };
  }

  draftPlace() {
    return place(this.draftComment());
  }

  renderReview() {
    const comments = this.comments;
    const bar = $('review');
    bar.hidden = comments.length === 0;
    const list = $('review-comments');
    list.replaceChildren();
    comments.forEach((c, i) => {
      const li = el('li', '', `${place(c)}: ${c.text.trim()}`);
      const remove = el('button', 'link', 'Remove');
      remove.type = 'button';
      remove.addEventListener('click', () => {
        comments.splice(i, 1);
        this.renderReview();
      });
      li.append(' ', remove);
      list.append(li);
    });
    $('review-send').textContent = comments.length === 1 ? 'Send the comment' : `Send ${comments.length} comments as one review`;
  }

  /** The comments go to the agent as one message, through the chat's outbox (never lost, sent once). */
  sendReview() {
    const comments = this.comments;
    if (!comments.length || !this.agent) return;
    this.send(this.agent, reviewMessage(comments));
    this.reviews.set(this.agent, []);
    this.renderReview();
  }

  async merge() {
    const agent = this.agent;
    const result = $('merge-result');
    const go = $('merge-go');
    go.disabled = true;
    result.className = 'merge-result';
    result.textContent = 'Merging…';
    try {
      const done = await this.backend.command({
        command: Command.MERGE,
        session_id: agent,
        mode: $('merge-mode').value || MergeMode.MERGE,
        message: $('merge-message').value,
      });
      result.textContent = `Merged into ${done.base}: ${done.commit.slice(0, 8)}`;
      this.edited = false;
    } catch (e) {
      result.classList.add('error');
      result.textContent = e.message;
    } finally {
      go.disabled = false;
    }
  }
}
