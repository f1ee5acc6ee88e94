// The hub's preferences the sidebar offers: whether agents a reboot cut off are resumed when ClawMux
// starts (the hub keeps it; `clawmux resume --at-start on|off` sets the same).

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
