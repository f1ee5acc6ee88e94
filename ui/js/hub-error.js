// What the hub answers when it refuses: its own module, so that everything that talks to the hub or reads
// its refusals (the backend, pairing, the outbox, attachments) can name it without importing the others.

/** Thrown when the hub answered with an error (`{code, message}`): the request was refused, not lost. */
export class HubError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
