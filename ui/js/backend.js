// The only module that knows how the UI reaches the hub: its WebSocket and REST API in a browser (the
// desktop app's IPC will plug in here too). Everything else calls these methods and receives events.
//
// The feed reconnects by itself and resumes from the last message the page has, so the hub replays only
// the gap. A connection that stays silent past two of the hub's 15 s pings is taken for dead and replaced.

const TOKEN_KEY = 'clawmux.token';
const SILENCE_LIMIT_MS = 40_000;
const RETRY_MS = [250, 500, 1000, 2000, 5000];

/** The API token: taken from the URL's fragment once (`#token=...`), then kept for this tab. */
export function takeToken() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Thrown when the hub answered with an error (`{code, message}`): the request was refused, not lost. */
export class HubError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export class Backend {
  /**
   * @param {string} token
   * @param {{onEvent: (e: object) => void, onConnection: (state: string) => void, cursor: () => string|null}} hooks
   */
  constructor(token, { onEvent, onConnection, cursor }) {
    this.token = token;
    this.onEvent = onEvent;
    this.onConnection = onConnection;
    this.cursor = cursor;
    this.socket = null;
    this.attempt = 0;
    this.silence = null;
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
      if (event.type !== 'ping') this.onEvent(event);
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

  async request(method, path, body) {
    const response = await fetch(path, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new HubError(response.status, data.code ?? 'http_error', data.message ?? response.statusText);
    return data;
  }

  /** A page of a conversation: the latest, or the one before a message. */
  history(sessionId, { before, limit = 100 } = {}) {
    const params = new URLSearchParams({ limit: String(limit) });
    if (before) params.set('before', before);
    return this.request('GET', `/api/history/${encodeURIComponent(sessionId)}?${params}`);
  }

  /** Sends the user's message. `clientId` makes a retry store nothing new. Rejects with a TypeError when
   * the hub cannot be reached (the caller queues it) and with a HubError when the hub refused it. */
  sendMessage(sessionId, text, clientId) {
    return this.request('POST', `/api/sessions/${encodeURIComponent(sessionId)}/messages`, { text, client_id: clientId });
  }

  markRead(sessionId, upTo) {
    return this.request('POST', `/api/sessions/${encodeURIComponent(sessionId)}/read`, { up_to: upTo });
  }
}
