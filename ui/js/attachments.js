// Files in the chat. The tray holds what the user is about to send: pasted (Ctrl+V), dropped on the chat
// or picked with Attach, each handed to the hub (its bytes as they are) as soon as it is added, so that
// the send that follows carries only ids and the agent has the file at once. Limits are said when a file
// is added, never after a send. A message's own files are drawn once with it: a thumbnail for an image,
// a chip with the name and size for anything else.

import { AttachmentKind, AttachmentLimit, Code } from './names.js';
import { HubError } from './hub-error.js';

/** `bytes` as the user reads a size. */
export function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * One file on its way: kept by the hub for an agent once (`keep`), whatever retries follow. `kept` is what
 * the hub answered; a file that vanished or cannot be read fails its keep with the reason.
 */
export class Outgoing {
  constructor(file) {
    this.file = file;
    this.name = file.name || 'pasted';
    this.kept = null;
    this.keptFor = null;
    this.pending = null;
    this.pendingFor = null;
    this.shown = null;
  }

  /** It as the chat draws a file (`fileElement`) before the hub has it: an image shown from the page's
   * own copy, its address made once. */
  drawn(backend) {
    const image = this.file.type.startsWith('image/');
    if (image) this.shown ??= backend.imageAddress(this.file);
    return { name: this.name, size: this.file.size, kind: image ? AttachmentKind.IMAGE : AttachmentKind.FILE, local: image ? this.shown : null };
  }

  /** Kept for `agent`: the hub's `{id, name}` for the send. Rejects with a HubError when refused (or
   * when the file cannot be read any more) and with another error when the hub (or the agent's machine)
   * cannot be reached now. */
  keep(backend, agent) {
    if (this.kept && this.keptFor === agent) return Promise.resolve({ id: this.kept.id, name: this.name });
    if (!this.pending || this.pendingFor !== agent) {
      this.pendingFor = agent;
      this.pending = (async () => {
        try {
          await this.file.slice(0, 1).arrayBuffer();
        } catch {
          throw new HubError(0, Code.BAD_ATTACHMENT, `${this.name} cannot be read any more (moved or deleted?)`);
        }
        this.kept = await backend.attachFile(agent, this.file, this.name);
        this.keptFor = agent;
        return { id: this.kept.id, name: this.name };
      })();
      this.pending.catch(() => { this.pending = null; });
    }
    return this.pending;
  }
}

/** Draws a file as the chat shows it: a thumbnail (`url` resolving to an image's address) or a chip. */
export function fileElement({ name, kind, size: bytes, path }, url) {
  const element = document.createElement('figure');
  element.className = `file kind-${kind ?? AttachmentKind.FILE}`;
  element.title = path ? `${name} · ${size(bytes)} · ${path}` : `${name} · ${size(bytes)}`;
  if (kind === AttachmentKind.IMAGE && url) {
    const img = document.createElement('img');
    img.alt = name;
    img.loading = 'lazy';
    img.decoding = 'async';
    url.then((src) => { img.src = src; }).catch(() => img.remove());
    img.addEventListener('click', () => element.classList.toggle('zoomed'));
    element.append(img);
  }
  const caption = document.createElement('figcaption');
  caption.textContent = `${name} · ${size(bytes)}`;
  element.append(caption);
  return element;
}

/** The files of a message sent or queued: one row of thumbnails and chips. */
export function filesRow(files, url) {
  const row = document.createElement('div');
  row.className = 'files';
  for (const f of files) row.append(fileElement(f, url(f)));
  return row;
}

/** The files about to be sent, above the text box. */
export class AttachTray {
  /** `current()` is the agent on screen; `notice(text)` says why a file was not taken. */
  constructor(backend, { current, notice }) {
    this.backend = backend;
    this.current = current;
    this.notice = notice;
    /** @type {{outgoing: Outgoing, element: HTMLElement}[]} */
    this.items = [];
    this.element = document.getElementById('attached');
    this.input = document.getElementById('attach-input');
    document.getElementById('attach').addEventListener('click', () => this.input.click());
    this.input.addEventListener('change', () => {
      this.add([...this.input.files]);
      this.input.value = '';
    });
    document.getElementById('input').addEventListener('paste', (e) => {
      const files = [...(e.clipboardData?.files ?? [])];
      if (files.length === 0) return; // text: the text box takes it
      e.preventDefault();
      this.add(files);
    });
    const area = document.getElementById('conversation');
    area.addEventListener('dragover', (e) => {
      if (![...(e.dataTransfer?.types ?? [])].includes('Files')) return;
      e.preventDefault();
      area.classList.add('dropping');
    });
    area.addEventListener('dragleave', () => area.classList.remove('dropping'));
    area.addEventListener('drop', (e) => {
      area.classList.remove('dropping');
      if (!e.dataTransfer?.files?.length) return;
      e.preventDefault();
      const folders = [...e.dataTransfer.items].filter((i) => i.webkitGetAsEntry?.()?.isDirectory).map((i) => i.getAsFile()?.name);
      this.add([...e.dataTransfer.files].filter((f) => !folders.includes(f.name)));
      if (folders.length) this.notice(`Not attached: ${folders.join(', ')} ${folders.length > 1 ? 'are folders' : 'is a folder'}; attach the files in it.`);
    });
  }

  /** Takes files the user gave, saying at once why any cannot go. */
  add(files) {
    const agent = this.current();
    if (!agent) return;
    const refused = [];
    for (const file of files) {
      if (this.items.length >= AttachmentLimit.FILES) {
        refused.push(`${file.name}: a message may carry at most ${AttachmentLimit.FILES} files`);
      } else if (file.size > AttachmentLimit.BYTES) {
        refused.push(`${file.name} is ${size(file.size)}; a file may be at most ${size(AttachmentLimit.BYTES)}`);
      } else if (file.size === 0) {
        refused.push(`${file.name || 'the pasted file'} is empty`);
      } else {
        this.take(new Outgoing(file), agent);
      }
    }
    this.notice(refused.length ? `Not attached: ${refused.join('; ')}.` : '');
  }

  take(outgoing, agent) {
    const drawn = outgoing.drawn(this.backend);
    const element = fileElement(drawn, drawn.local);
    element.classList.add('outgoing', 'keeping');
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'remove';
    remove.title = `Remove ${outgoing.name}`;
    remove.textContent = '×';
    const item = { outgoing, element };
    remove.addEventListener('click', () => this.drop(item));
    element.append(remove);
    this.items.push(item);
    this.element.append(element);
    this.element.hidden = false;
    outgoing.keep(this.backend, agent).then(
      () => element.classList.remove('keeping'),
      (e) => {
        element.classList.remove('keeping');
        // Refused (too large for the hub, an image the model cannot take): it goes, with the reason.
        // Unreachable: it stays, and goes with the message when the hub is back.
        if (e instanceof HubError) {
          this.drop(item);
          this.notice(`Not attached: ${e.message}`);
        }
      },
    );
  }

  drop(item) {
    this.items.splice(this.items.indexOf(item), 1);
    item.element.remove();
    this.element.hidden = this.items.length === 0;
  }

  /** Whether files wait to be sent. */
  get size() {
    return this.items.length;
  }

  /** The files to send, handed over: the tray is empty after. */
  takeAll() {
    const out = this.items.map((i) => i.outgoing);
    for (const item of [...this.items]) this.drop(item);
    return out;
  }
}
