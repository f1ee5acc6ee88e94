// The preferences the sidebar offers: whether agents a reboot cut off are resumed when ClawMux starts
// (the hub keeps it; `clawmux resume --at-start on|off` sets the same), and, in the window, whether the
// app starts at login (off until the user turns it on).

import { $, notice } from './dom.js';
import { Command } from './names.js';

/** Shows the hub's preferences and saves a change; a refused change is undone with the reason. */
export async function wirePreferences(backend) {
  const box = $('resume-agents');
  box.addEventListener('change', async () => {
    notice('');
    try {
      const saved = await backend.command({ command: Command.SET_PREFERENCES, preferences: { resume_agents: box.checked } });
      box.checked = saved.resume_agents;
    } catch (e) {
      box.checked = !box.checked;
      notice(`Cannot change it: ${e.message}`);
    }
  });
  try {
    box.checked = (await backend.command({ command: Command.PREFERENCES })).resume_agents;
  } catch {
    $('preferences').hidden = true;
  }
}

/** In the window: "Start at login", read from and written to the app's autostart entry. */
export async function wireLoginStart(backend) {
  if (!backend.autostart) return;
  const box = $('login-start');
  box.addEventListener('change', async () => {
    notice('');
    try {
      box.checked = await backend.setAutostart(box.checked);
    } catch (e) {
      box.checked = !box.checked;
      notice(`Cannot change it: ${e.message}`);
    }
  });
  try {
    box.checked = await backend.autostart();
    $('login-start-row').hidden = false;
  } catch {
    // No way to start at login here: the box stays hidden.
  }
}
