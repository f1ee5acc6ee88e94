// A view a sidebar link opens and closes (usage, between agents, the board): its panel shown or hidden,
// its link pressed or not, and its reads one at a time: something that changes while a read runs asks for
// one more read after it, never two at once. A view says what a read does (`read()`).

import { $ } from './dom.js';

export class ToggledView {
  /** `ids`: the panel's, the link's that opens it and the button's that closes it. */
  constructor(backend, { panel, open, close }) {
    this.backend = backend;
    this.ids = { panel, open };
    this.reading = null;
    this.again = false;
    $(open).addEventListener('click', () => (this.isOpen() ? this.close() : this.open()));
    $(close).addEventListener('click', () => this.close());
  }

  isOpen() {
    return !$(this.ids.panel).hidden;
  }

  open() {
    $(this.ids.panel).hidden = false;
    $(this.ids.open).setAttribute('aria-pressed', 'true');
    return this.load();
  }

  close() {
    $(this.ids.panel).hidden = true;
    $(this.ids.open).setAttribute('aria-pressed', 'false');
  }

  /** Something the view shows changed: read again if it is open. */
  changed() {
    if (this.isOpen()) this.load();
  }

  async load() {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.read().finally(() => {
      this.reading = null;
      if (this.again) {
        this.again = false;
        this.load();
      }
    });
    return this.reading;
  }
}
