// Updates, in the window only (the app updates itself; a browser's page comes from the hub it talks to):
// checked at start and twice a day, and whenever the user asks. A newer version is shown with what changed
// and installed only when the user says so; the app then starts again into it, the agents going on in
// their terminals. Whatever the server's answer is not taken for (an older version, a package that does
// not match ClawMux's key, a server that stops answering) is said here, and this version goes on.

import { $ } from './dom.js';

/** How often the window asks again by itself. */
const EVERY_MS = 12 * 60 * 60 * 1000;

/** Says what a check found: `found` is the app's `Found` (`state` and its fields). */
function show(found) {
  const install = $('update-install');
  const notes = $('update-notes');
  install.hidden = found.state !== 'available';
  install.disabled = false;
  notes.hidden = found.state !== 'available' || !found.notes;
  $('update-notes-text').textContent = found.notes ?? '';
  $('update-state').textContent = {
    available: `ClawMux ${found.offered} is out (this is ${found.version}).`,
    up_to_date: `ClawMux ${found.version}, up to date.`,
    not_set_up: `ClawMux ${found.version}, built from source: it does not update itself.`,
    unreachable: `ClawMux ${found.version}. The update server did not answer (${found.reason}); asked again later.`,
    refused: `No update taken: ${found.reason}.`,
  }[found.state] ?? '';
  $('updates').dataset.state = found.state;
}

/** Wires the sidebar's updates line, where the app has an updater (the desktop window). */
export function wireUpdates(backend) {
  if (!backend.updateCheck) return;
  $('updates').hidden = false;
  const check = async () => {
    const button = $('update-check');
    button.disabled = true;
    try {
      show(await backend.updateCheck());
    } catch (e) {
      show({ state: 'refused', reason: e.message });
    } finally {
      button.disabled = false;
    }
  };
  $('update-check').addEventListener('click', check);
  $('update-install').addEventListener('click', async () => {
    const install = $('update-install');
    install.disabled = true;
    $('update-state').textContent = 'Downloading and installing the update; ClawMux starts again when it is in…';
    try {
      await backend.updateInstall();
    } catch (e) {
      install.hidden = true;
      $('updates').dataset.state = 'refused';
      $('update-state').textContent = `Not installed: ${e.message}. This version goes on; check again to retry.`;
    }
  });
  check();
  setInterval(check, EVERY_MS);
}
