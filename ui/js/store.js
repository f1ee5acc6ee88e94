// The page's own record of every message it has, keyed by id: the source of truth for what is on screen.
// It knows the newest message seen across all conversations: the cursor a reconnect resumes from.

export class MessageStore {
  constructor() {
    /** @type {Map<string, object>} */
    this.byId = new Map();
    this.newest = null;
  }

  /** Adds a message; false when it was already known (a replay or a duplicate). */
  add(message) {
    if (this.byId.has(message.id)) return false;
    this.byId.set(message.id, message);
    // Another machine's message carries its own hub's seq: it never moves this hub's cursor.
    if (!message.machine && (!this.newest || message.seq > this.newest.seq)) this.newest = message;
    return true;
  }

  has(id) {
    return this.byId.has(id);
  }

  get(id) {
    return this.byId.get(id);
  }

  /** The id to resume the feed from, or null before the first message. */
  cursor() {
    return this.newest?.id ?? null;
  }
}
