// A phone's side of pairing: the page opened from the desktop's pairing link (`#pair=<code>`) redeems
// the one-time code for a token of this phone's own, kept in this browser (localStorage), so the page
// opens again later, installed or not, without the link. The desktop's token never comes here.

import { HubError } from './hub-error.js';
import { Code } from './names.js';

/** Where a paired phone keeps its token. */
export const PHONE_TOKEN_KEY = 'clawmux.phone.token';

/** A name for this phone, from what the browser says of itself ("Android phone", "iPhone"). */
function phoneName() {
  const ua = navigator.userAgent;
  const model = /Android [\d.]+; ([^;)]+)/.exec(ua)?.[1];
  if (model) return model.trim();
  if (/iPhone/.test(ua)) return 'iPhone';
  if (/iPad/.test(ua)) return 'iPad';
  return 'Phone';
}

/** Redeems the pairing code in the address, if there is one. Resolves once the phone is paired (or
 * there was nothing to do); rejects with the reason when the code is refused. */
export async function pairIfAsked() {
  const code = new URLSearchParams(location.hash.slice(1)).get('pair');
  if (!code) return;
  // The code goes once: out of the address at once, whatever the hub says.
  history.replaceState(null, '', location.pathname + location.search);
  const response = await fetch('/api/phone/pair', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code, name: phoneName() }),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const why = answer.code === Code.PHONES_OFF
      ? 'Phones are off on the desktop: turn them on there and show a new pairing link.'
      : 'This pairing link is wrong, expired or used. Show a new one on the desktop.';
    throw new HubError(response.status, answer.code ?? 'pairing_failed', why);
  }
  localStorage.setItem(PHONE_TOKEN_KEY, answer.token);
}
