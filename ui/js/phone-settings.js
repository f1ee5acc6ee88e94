// Phones, in the desktop's settings: whether phones may reach the agents, a pairing link and its QR code
// (a one-time code, good for minutes), and the phones paired, each with its last use and Revoke. A
// phone's own page shows none of it: pairing and settings are the desktop's.

import { Command, Listening } from './names.js';

const $ = (id) => document.getElementById(id);

/** "3 min ago", "just now", or the date. */
function ago(at) {
  const minutes = Math.round((Date.now() - at) / 60000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  return new Date(at).toLocaleString();
}

export class PhoneSettings {
  /** `notice(text)` says why something was refused. */
  constructor(backend, { notice }) {
    this.backend = backend;
    this.notice = notice;
    this.timer = null;
    if (backend.isPhone) {
      $('phone-settings').hidden = true;
      return;
    }
    $('phone-on').addEventListener('change', (e) => this.run({ command: Command.SET_PHONE, on: e.target.checked }));
    $('phone-pair').addEventListener('click', () => this.pair());
  }

  /** Reads the state from the hub (once connected). */
  load() {
    if (this.backend.isPhone) return;
    this.run({ command: Command.PHONE });
  }

  async run(command) {
    try {
      this.show(await this.backend.command(command));
    } catch (e) {
      this.notice(e.message);
      this.load();
    }
  }

  show({ on, phones, listening }) {
    $('phone-on').checked = on;
    $('phone-pair').hidden = !on;
    this.showAddress(listening);
    if (!on) this.hidePairing();
    const list = $('phone-list');
    if (!$('phone-pairing').hidden && phones.length > (this.pairedBefore ?? phones.length)) this.hidePairing();
    list.replaceChildren(...phones.map((p) => {
      const item = document.createElement('li');
      item.className = p.revoked_at ? 'revoked' : '';
      item.dataset.phone = p.id;
      const name = document.createElement('span');
      name.textContent = p.name;
      const state = document.createElement('span');
      state.className = 'state';
      state.textContent = p.revoked_at ? 'revoked' : p.used_at ? `used ${ago(p.used_at)}` : 'never used';
      item.append(name, state);
      if (!p.revoked_at) {
        const revoke = document.createElement('button');
        revoke.type = 'button';
        revoke.className = 'link';
        revoke.textContent = 'Revoke';
        revoke.addEventListener('click', () => this.run({ command: Command.PHONE_REVOKE, phone: p.id }));
        item.append(revoke);
      }
      return item;
    }));
  }

  async pair() {
    let pairing;
    try {
      pairing = await this.backend.command({ command: Command.PHONE_PAIR });
    } catch (e) {
      this.notice(e.message);
      return;
    }
    $('phone-qr').src = `data:image/svg+xml;base64,${btoa(pairing.qr_svg)}`;
    $('phone-link').textContent = pairing.link;
    $('phone-pin').hidden = !pairing.made_here;
    $('phone-pin').textContent = pairing.made_here
      ? `The phone's browser will warn about this desktop's own certificate: go on only if its SHA-256 fingerprint is ${pairing.made_here}`
      : '';
    $('phone-pairing').hidden = false;
    this.pairedBefore = $('phone-list').children.length;
    const until = Date.now() + pairing.expires_in * 1000;
    clearInterval(this.timer);
    const tick = () => {
      const left = Math.round((until - Date.now()) / 1000);
      if (left <= 0) {
        this.hidePairing();
        this.load();
        return;
      }
      $('phone-expiry').textContent = `Open it on the phone within ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}; it works once.`;
      // The phone that redeems it shows up in the list; the pairing is then done.
      if (left % 3 === 0) this.load();
    };
    tick();
    this.timer = setInterval(tick, 1000);
  }

  /** Where the hub listens for phones itself (`clawmux phone address`), if it does or cannot. */
  showAddress(listening) {
    const line = $('phone-address');
    const at = listening?.state === Listening.AT;
    const failed = listening?.state === Listening.FAILED;
    line.hidden = !at && !failed;
    line.classList.toggle('error', failed);
    if (at) {
      line.textContent = `Phones may also come to ${listening.url}` +
        (listening.made_here ? ` (this desktop's own certificate, SHA-256 ${listening.made_here})` : '');
    } else if (failed) {
      line.textContent = `Cannot listen for phones: ${listening.reason}`;
    }
  }

  hidePairing() {
    clearInterval(this.timer);
    $('phone-pairing').hidden = true;
    $('phone-qr').removeAttribute('src');
  }
}
