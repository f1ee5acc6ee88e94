// The only module that knows how the UI reaches the hub: Tauri's IPC in the desktop app, the hub's
// WebSocket and REST API in a browser. Both offer the same methods and deliver the same events (the hub's
// own), so nothing else in the UI knows which one it has.
//
// The feed reconnects by itself and resumes from the last message the page has, so the hub replays only
// the gap. A connection that stays silent past two of the hub's 15 s pings is taken for dead and replaced.

import { address } from './dom.js';
import { PageRecorder } from './voice.js';
import { Command, TerminalInput, TerminalNotice, UiEvent } from './names.js';
import { PHONE_TOKEN_KEY } from './pairing.js';
import { HubError } from './hub-error.js';

const TOKEN_KEY = 'clawmux.token';
const SILENCE_LIMIT_MS = 40_000;
const RETRY_MS = [250, 500, 1000, 2000, 5000];
/** The terminal's WebSocket protocol; the token travels as a second one, never in the URL. */
const TERMINAL_PROTOCOL = 'clawmux.terminal.v1';
const TOKEN_PROTOCOL = 'clawmux.token.';
const encoder = new TextEncoder();

/** The API token: the desktop's, taken from the URL's fragment once (`#token=...`) and kept for this
 * tab; else a paired phone's own (`pairing.js`), kept in this browser. */
function takeToken() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, '', location.pathname + location.search);
  }
  const desktop = sessionStorage.getItem(TOKEN_KEY);
  if (desktop) return { token: desktop, phone: false };
  const phone = localStorage.getItem(PHONE_TOKEN_KEY);
  return phone ? { token: phone, phone: true } : null;
}

/** The backend for where the page runs. */
export function createBackend(hooks) {
  if (window.__TAURI__?.core) return new DesktopBackend(hooks);
  const taken = takeToken();
  if (!taken) throw new HubError(401, 'no_token', 'No access token. Open the address printed by `clawmux open`, or on a phone the pairing link the desktop shows.');
  return new BrowserBackend(taken.token, hooks, taken.phone);
}

/** An IPC call to the app; its errors as HubErrors. */
async function invoke(name, args) {
  try {
    return await window.__TAURI__.core.invoke(name, args);
  } catch (e) {
    throw new HubError(0, e?.code ?? 'ipc_error', e?.message ?? String(e));
  }
}

/** Push-to-talk in the desktop window: the app records (`clawmux-capture`) and keeps the audio. */
class AppRecorder {
  start() {
    return invoke('record_start');
  }

  /** Resolves with `{recording, millis, truncated}`: the recording stays with the app until it is sent. */
  stop() {
    return invoke('record_stop');
  }

  cancel() {
    return invoke('record_cancel');
  }
}

/** In the desktop app: the hub runs in the same process; its command surface is one IPC command. */
class DesktopBackend {
  constructor({ onEvent, onConnection }) {
    this.onEvent = onEvent;
    this.onConnection = onConnection;
    this.where = '';
  }

  async connect() {
    const info = await invoke('hub_info');
    if (info.error) {
      this.onConnection('offline');
      this.onEvent({ type: 'fatal', message: info.error });
      return;
    }
    this.where = `hub on 127.0.0.1:${info.port}`;
    // A recording a previous page left running (a reload while Talk was held) ends unkept, and its
    // terminal viewers close.
    await invoke('record_cancel').catch(() => {});
    await invoke('listen_stop').catch(() => {});
    await invoke('terminal_close_all').catch(() => {});
    await window.__TAURI__.event.listen('hub', (e) => this.onEvent(e.payload));
    // A notification was clicked: its agent comes on screen.
    await window.__TAURI__.event.listen('open-agent', (e) => this.onEvent({ type: 'open_agent', session_id: e.payload }));
    // The tray's Hands-free item: on (true) or off.
    await window.__TAURI__.event.listen('hands-free', (e) => this.onEvent({ type: 'hands_free', on: e.payload === true }));
    // Listening first, then the list: no change can fall between them.
    this.onEvent({ type: UiEvent.SESSION_LIST, sessions: await this.command({ command: Command.SESSIONS }) });
    this.onConnection('online');
  }

  command(command) {
    return invoke('hub', { command });
  }

  /** The webview cannot record here (WebKitGTK's MediaRecorder records nothing): the app records. */
  recorder() {
    return new AppRecorder();
  }

  /** Sends a recording the app keeps (`clip` from AppRecorder.stop) to an agent. */
  voice(agent, recording) {
    return invoke('send_recording', { agent, recording });
  }

  /** Audio for a text from the device's voice (in `variant`) or the speech service, as the hub's settings
   * say: its bytes (raw over the IPC). */
  speech(text, variant = 0) {
    return invoke('speech', { text, variant });
  }

  /**
   * Hands-free in the window: the webview cannot stream the microphone here, so the app listens and
   * tells `on` what it heard (`Listened`: a start, an utterance it keeps, ...). Resolves once the
   * microphone runs with `{hint({speaking, muted}), close()}`.
   */
  async listen(on) {
    const channel = new window.__TAURI__.core.Channel();
    channel.onmessage = on;
    await invoke('listen_start', { events: channel });
    return {
      hint: ({ speaking, muted }) => invoke('listen_hint', { speaking, muted }).catch(() => {}),
      close: () => invoke('listen_stop').catch(() => {}),
    };
  }

  /** Hears an utterance the app kept (`{recording}` from `listen`), with `shown` on screen. */
  hear(utterance, shown, said) {
    return invoke('hear_recording', { recording: utterance.recording, shown, said: said || null });
  }

  dropConnection() {}

  history(sessionId, { before, limit = 100 } = {}) {
    return this.command({ command: Command.HISTORY, session_id: sessionId, before, limit });
  }

  sendMessage(sessionId, text, clientId, attachments = []) {
    return this.command({ command: Command.USER_MESSAGE, session_id: sessionId, text, attachments, client_id: clientId });
  }

  /** An attached image's bytes (raw over the IPC), as an address the page can show. */
  async attachmentUrl({ id, media_type: type }) {
    const bytes = await invoke('attachment', { id });
    return this.imageAddress(new Blob([bytes], { type }));
  }

  /** Keeps `file` (a File) for `agent` as `name`: its bytes raw over the IPC, never copied into a string.
   * Resolves with what the hub kept. */
  async attachFile(agent, file, name) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    try {
      return await window.__TAURI__.core.invoke('attach_file', bytes, {
        headers: { 'x-agent': encodeURIComponent(agent), 'x-name': encodeURIComponent(name) },
      });
    } catch (e) {
      throw new HubError(0, e?.code ?? 'ipc_error', e?.message ?? String(e));
    }
  }

  /** An image the page holds, as an address an <img> shows: a `data:` one, since this webview draws no
   * image from a `blob:` address. */
  imageAddress(blob) {
    return address(blob);
  }

  markRead(sessionId, upTo) {
    return this.command({ command: Command.MARK_READ, session_id: sessionId, up_to: upTo });
  }

  /** A link of a message, in the user's browser (the window itself never leaves the UI). */
  openLink(url) {
    return invoke('open_link', { url });
  }

  /**
   * A viewer of `agent`'s terminal at `size` ({cols, rows}): its bytes go to `on.data` (a Uint8Array), what
   * happens to it to `on.notice` (`attached`, `unavailable`, `ended`, `lost`). Resolves with
   * `{write(text), resize(cols, rows), close()}`; callbacks never run before it resolves.
   */
  async terminal(agent, { cols, rows }, on) {
    const channel = new window.__TAURI__.core.Channel();
    let ready = false;
    const early = [];
    const deliver = (m) => {
      if (m instanceof ArrayBuffer) on.data(new Uint8Array(m));
      else if (Array.isArray(m)) on.data(Uint8Array.from(m));
      else on.notice(m);
    };
    channel.onmessage = (m) => (ready ? deliver(m) : early.push(m));
    let id = null;
    try {
      id = await invoke('terminal_open', { agent, cols, rows, output: channel });
    } catch (e) {
      setTimeout(() => on.notice({ type: TerminalNotice.UNAVAILABLE, code: e.code, message: e.message }));
    }
    if (id !== null) {
      setTimeout(() => {
        on.notice({ type: TerminalNotice.ATTACHED, session_id: agent });
        ready = true;
        for (const m of early.splice(0)) deliver(m);
      });
    }
    // Keys go one call at a time, in order (calls in flight together may be taken in any order); what is
    // typed meanwhile goes with the next call.
    let typed = '';
    let sending = false;
    const flush = async () => {
      if (sending || !typed || id === null) return;
      sending = true;
      const data = typed;
      typed = '';
      await invoke('terminal_input', { id, data }).catch(() => {});
      sending = false;
      flush();
    };
    return {
      write: (data) => {
        typed += data;
        flush();
      },
      resize: (c, r) => id !== null && invoke('terminal_resize', { id, cols: c, rows: r }).catch(() => {}),
      close: () => id !== null && invoke('terminal_close', { id }).catch(() => {}),
    };
  }

  /** Ends the app (Ctrl+Q): closing the window only puts it away, the hub and the agents going on. */
  quit() {
    return invoke('quit');
  }

  /** Whether the app starts at login (a freedesktop autostart entry); the window alone offers it. */
  autostart() {
    return invoke('autostart');
  }

  /** Turns starting at login on or off: what it is now. */
  setAutostart(on) {
    return invoke('set_autostart', { on });
  }

  /** Whether a newer ClawMux is out: the app's updater (`Found`); the window alone updates. */
  updateCheck() {
    return invoke('update_check');
  }

  /** Installs the update found and starts the app again into it (the page goes with it). */
  updateInstall() {
    return invoke('update_install');
  }

  /** Tells the app which agent is on screen (it gets no notification while the window has focus). */
  viewing(agent) {
    return window.__TAURI__.core.invoke('viewing', { agent }).catch(() => {});
  }
}

/** In a browser: the hub's WebSocket feed (reconnecting from the page's cursor) and REST API. */
class BrowserBackend {
  /**
   * @param {string} token
   * @param {{onEvent: (e: object) => void, onConnection: (state: string) => void, cursor: () => string|null}} hooks
   */
  constructor(token, { onEvent, onConnection, cursor }, phone = false) {
    this.token = token;
    /** A paired phone: it reads, sends, answers and interrupts; settings are the desktop's. */
    this.isPhone = phone;
    this.onEvent = onEvent;
    this.onConnection = onConnection;
    this.cursor = cursor;
    this.socket = null;
    this.attempt = 0;
    this.silence = null;
    this.where = `hub on ${location.host}`;
  }

  /** Opens the feed (and keeps it open). */
  connect() {
    const params = new URLSearchParams({ token: this.token });
    const cursor = this.cursor();
    if (cursor) params.set('cursor', cursor);
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}/ws?${params}`);
    this.socket = socket;
    this.onConnection('connecting');
    socket.onopen = () => {
      this.attempt = 0;
      this.onConnection('online');
      this.heard();
    };
    socket.onmessage = (msg) => {
      this.heard();
      let event;
      try {
        event = JSON.parse(msg.data);
      } catch {
        return;
      }
      if (event.type !== UiEvent.PING) this.onEvent(event);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      clearTimeout(this.silence);
      this.onConnection('offline');
      const delay = RETRY_MS[Math.min(this.attempt++, RETRY_MS.length - 1)];
      setTimeout(() => this.connect(), delay);
    };
  }

  /** Drops the current connection as a dead network would; the feed reconnects by itself. */
  dropConnection() {
    this.socket?.close();
  }

  heard() {
    clearTimeout(this.silence);
    this.silence = setTimeout(() => this.dropConnection(), SILENCE_LIMIT_MS);
  }

  recorder() {
    return new PageRecorder();
  }

  /** A recording for an agent: the hub keeps it, transcribes it and stores the voice message (once per id). */
  async voice(agent, recording, blob) {
    const response = await fetch(`/api/sessions/${encodeURIComponent(agent)}/voice?recording=${encodeURIComponent(recording)}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': blob.type || 'application/octet-stream' },
      body: blob,
    });
    return this.answer(response);
  }

  /** One hands-free utterance (`{blob, recording}`: a WAV and its id), heard on the device with `shown` on
   * screen: what the hub made of it. `said` is what the app said last, so that its own speech heard back
   * is not taken for the user's. */
  async hear({ blob, recording }, shown, said) {
    const query = new URLSearchParams({ recording });
    if (shown) query.set('shown', shown);
    if (said) query.set('said', said.slice(0, 500));
    const response = await fetch(`/api/voice/hear?${query}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': blob.type || 'audio/wav' },
      body: blob,
    });
    return this.answer(response);
  }

  /** Audio for a text from the device's voice (in `variant`) or the speech service, as the hub's settings
   * say: its bytes. */
  async speech(text, variant = 0) {
    const response = await fetch('/api/speech', {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text, variant }),
    });
    if (!response.ok) await this.answer(response);
    return response.arrayBuffer();
  }

  /** A JSON answer of the hub, or the HubError it says. A phone no longer let in is told so, and its
   * service worker forgets the token (its notifications cannot answer any more either). */
  async answer(response) {
    const data = await response.json().catch(() => ({}));
    if (response.status === 401 && this.isPhone) {
      navigator.serviceWorker?.controller?.postMessage({ type: 'token', token: null });
      throw new HubError(401, data.code, 'This phone is no longer let in (revoked, or phones turned off on the desktop): pair it again from the desktop.');
    }
    if (!response.ok) throw new HubError(response.status, data.code ?? 'http_error', data.message ?? response.statusText);
    return data;
  }

  async request(method, path, body) {
    const response = await fetch(path, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return this.answer(response);
  }

  /** The hub's key for a phone's push subscription (`{key}`). */
  pushKey() {
    return this.request('GET', '/api/phone/push-key');
  }

  /** Gives the hub this phone's push subscription (`PushSubscription.toJSON()`). */
  subscribePush(subscription) {
    return this.request('POST', '/api/phone/push', subscription);
  }

  /** A page of a conversation: the latest, or the one before a message. */
  history(sessionId, { before, limit = 100 } = {}) {
    return this.command({ command: Command.HISTORY, session_id: sessionId, before, limit });
  }

  /** Sends the user's message. `clientId` makes a retry store nothing new. Rejects with a TypeError when
   * the hub cannot be reached (the caller queues it) and with a HubError when the hub refused it. */
  sendMessage(sessionId, text, clientId, attachments = []) {
    return this.command({ command: Command.USER_MESSAGE, session_id: sessionId, text, attachments, client_id: clientId });
  }

  /** An attached image, fetched with the token (an address alone would need it in the URL), as an
   * address the page can show. */
  async attachmentUrl({ id }) {
    const response = await fetch(`/api/attachments/${encodeURIComponent(id)}`, { headers: { Authorization: `Bearer ${this.token}` } });
    if (!response.ok) throw new HubError(response.status, 'http_error', response.statusText);
    return this.imageAddress(await response.blob());
  }

  /** Keeps `file` (a File) for `agent` as `name`: the browser streams it as the body. Resolves with what
   * the hub kept; rejects with a TypeError when the hub cannot be reached. */
  async attachFile(agent, file, name) {
    const query = new URLSearchParams({ name });
    const response = await fetch(`/api/sessions/${encodeURIComponent(agent)}/attachments?${query}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/octet-stream' },
      body: file,
    });
    return this.answer(response);
  }

  /** An image the page holds, as an address an <img> shows: a `blob:` one, nothing copied. */
  imageAddress(blob) {
    return Promise.resolve(URL.createObjectURL(blob));
  }

  markRead(sessionId, upTo) {
    return this.command({ command: Command.MARK_READ, session_id: sessionId, up_to: upTo });
  }

  /** Any command of the hub's UI surface (spawn, terminate, restart, interrupt, capabilities, ...). */
  command(command) {
    return this.request('POST', '/api/command', command);
  }

  /**
   * A viewer of `agent`'s terminal (as DesktopBackend.terminal): the hub's `/ws/terminal/` WebSocket, the
   * token offered as a protocol (a URL is what logs keep). Keys go as binary frames, sizes as JSON.
   */
  async terminal(agent, { cols, rows }, on) {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const params = new URLSearchParams({ cols: String(cols), rows: String(rows) });
    const socket = new WebSocket(`${scheme}://${location.host}/ws/terminal/${encodeURIComponent(agent)}?${params}`, [
      TERMINAL_PROTOCOL,
      `${TOKEN_PROTOCOL}${this.token}`,
    ]);
    socket.binaryType = 'arraybuffer';
    let over = false;
    const pending = [];
    const send = (frame) => (socket.readyState === WebSocket.OPEN ? socket.send(frame) : pending.push(frame));
    socket.onopen = () => {
      for (const frame of pending.splice(0)) socket.send(frame);
    };
    socket.onmessage = (m) => {
      if (typeof m.data !== 'string') return on.data(new Uint8Array(m.data));
      let notice;
      try {
        notice = JSON.parse(m.data);
      } catch {
        return;
      }
      if (notice.type === TerminalNotice.ENDED || notice.type === TerminalNotice.UNAVAILABLE) over = true;
      on.notice(notice);
    };
    socket.onclose = () => {
      if (!over) on.notice({ type: 'lost' });
      over = true;
    };
    return {
      write: (data) => send(encoder.encode(data)),
      resize: (c, r) => send(JSON.stringify({ type: TerminalInput.RESIZE, cols: c, rows: r })),
      close: () => {
        over = true;
        socket.close();
      },
    };
  }

  /** A link of a message, in a new tab that cannot reach back to this page. */
  openLink(url) {
    window.open(url, '_blank', 'noopener,noreferrer');
  }

  viewing() {}
}
