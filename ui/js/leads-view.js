// Leads, in the "between agents" view: the agents the user named to answer their group's permission
// requests (for the tools listed: read-only ones unless the user lists others; never a dangerous command),
// each with a button that takes the right back at once, and a form to name one. The hub keeps the rights
// and judges each answer (`leads`, `set_lead`, `revoke_lead`); this file asks and shows.

import { $ } from './dom.js';
import { Command } from './names.js';

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

export class LeadsPart {
  /** `backend` runs commands; `said` shows a line in the view's state. */
  constructor(backend, said) {
    this.backend = backend;
    this.said = said;
    $('lead-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.name();
    });
  }

  /** Reads the leads and the agents, and shows them. */
  async read() {
    const [grants, sessions] = await Promise.all([
      this.backend.command({ command: Command.LEADS }),
      this.backend.command({ command: Command.SESSIONS }),
    ]);
    this.showGrants(grants);
    this.showForm(sessions.map((s) => s.session_id));
  }

  showGrants(grants) {
    const byLead = new Map();
    for (const g of grants) {
      if (!byLead.has(g.lead)) byLead.set(g.lead, []);
      byLead.get(g.lead).push(g);
    }
    $('leads-list').replaceChildren(...[...byLead].map(([lead, gs]) => {
      const li = el('li', 'lead');
      li.dataset.lead = lead;
      const members = gs.map((g) => g.member).join(', ');
      li.append(el('span', 'who', `${lead} answers for ${members}`), el('span', 'tools', gs[0].tools.join(', ')));
      const back = el('button', 'take-back', 'Take the right back');
      back.type = 'button';
      back.addEventListener('click', () => this.revoke(lead));
      li.append(back);
      return li;
    }));
    $('leads-none').hidden = grants.length > 0;
  }

  showForm(names) {
    const select = $('lead-agent');
    const chosen = select.value;
    select.replaceChildren(...names.map((n) => el('option', '', n)));
    if (names.includes(chosen)) select.value = chosen;
    const ticked = new Set([...$('lead-members').querySelectorAll('input:checked')].map((i) => i.value));
    $('lead-members').replaceChildren(el('legend', '', 'Its group'), ...names.map((n) => {
      const label = el('label', 'member');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = n;
      box.checked = ticked.has(n);
      label.append(box, document.createTextNode(` ${n}`));
      return label;
    }));
  }

  async name() {
    const lead = $('lead-agent').value;
    const members = [...$('lead-members').querySelectorAll('input:checked')].map((i) => i.value).filter((m) => m !== lead);
    const tools = $('lead-tools').value.split(',').map((t) => t.trim()).filter(Boolean);
    if (!lead || !members.length) {
      this.said('Pick a lead and at least one other agent for its group.');
      return;
    }
    try {
      await this.backend.command({ command: Command.SET_LEAD, lead, members, tools: tools.length ? tools : null });
      this.said(`${lead} now answers for ${members.join(', ')}.`);
      $('lead-tools').value = '';
    } catch (e) {
      this.said(`Cannot name the lead: ${e.message}`);
    }
    await this.read();
  }

  async revoke(lead) {
    try {
      await this.backend.command({ command: Command.REVOKE_LEAD, lead });
      this.said(`${lead} no longer answers for anyone.`);
    } catch (e) {
      this.said(`Cannot take the right back: ${e.message}`);
    }
    await this.read();
  }
}
