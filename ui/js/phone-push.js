// A phone's notifications. The page hands this phone's token to the service worker (`sw.js`), which
// answers a permission from its notification with it; and, when the user asks (a tap: browsers want
// one before they ask for the permission), subscribes to the hub's pushes through the phone's own push
// service and gives the hub the subscription. The desktop's page has none of it.

import { PHONE_TOKEN_KEY } from './pairing.js';

/** The service worker's message when a notification was tapped (`sw.js`): its own, not the hub's. */
const TAPPED = 'open';

/** A base64url string as bytes (an `applicationServerKey`). */
function bytes(base64url) {
  const text = atob(base64url.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

export class PhonePush {
  /** `open(agent)` shows an agent (a notification was tapped); `notice(text)` says what failed. */
  constructor(backend, { open, notice }) {
    this.backend = backend;
    this.notice = notice;
    this.button = document.getElementById('phone-notify');
    if (!backend.isPhone || !('serviceWorker' in navigator)) return;
    navigator.serviceWorker.ready.then((registration) => {
      registration.active?.postMessage({ type: 'token', token: localStorage.getItem(PHONE_TOKEN_KEY) });
    });
    navigator.serviceWorker.addEventListener('message', (e) => {
      if (e.data?.type === TAPPED && typeof e.data.agent === 'string') open(e.data.agent);
    });
    if (!('PushManager' in window)) return;
    this.button.hidden = false;
    this.button.addEventListener('click', () => this.subscribe());
  }

  async subscribe() {
    try {
      if ((await Notification.requestPermission()) !== 'granted') throw new Error('this page may not show notifications');
      const registration = await navigator.serviceWorker.ready;
      const { key } = await this.backend.pushKey();
      const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytes(key) });
      await this.backend.subscribePush(subscription.toJSON());
      this.button.textContent = 'Notifications on';
      this.button.disabled = true;
    } catch (e) {
      this.notice(`No notifications on this phone: ${e.message}`);
    }
  }
}
