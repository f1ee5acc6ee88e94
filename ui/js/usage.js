// What an agent costs and how full its context is, and the account's limit windows, in words: the
// sidebar's line, the agent header's detail, and the window header's limits with where their pace leads.
// The figures are Claude Code's own (its status line's payload); this file only words them.

import { Window } from './names.js';

const WINDOW_NAME = Object.freeze({ [Window.FIVE_HOUR]: '5-hour', [Window.SEVEN_DAY]: '7-day' });

/** A count for people: 950, 96k, 1.2M (as the hub words it). */
export function short(n) {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(Math.round(n / 100_000) / 10)}M`;
}

/** A time for people: `15:40` today, else `Tue 15:40`. */
export function clock(ms, now = Date.now()) {
  const d = new Date(ms);
  const hm = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
  return d.toDateString() === new Date(now).toDateString()
    ? hm
    : `${d.toLocaleDateString([], { weekday: 'short' })} ${hm}`;
}

/** The sidebar's line for an agent's figures: `48% · 96k/200k · $1.20`, or its rate-limit. */
export function agentLine(usage, now = Date.now()) {
  if (!usage) return '';
  if (usage.limited) {
    const { until, continues_at: continues } = usage.limited;
    if (until && until <= now && !continues) return `Limit reset at ${clock(until, now)}`;
    const line = until ? `Rate-limited until ${clock(until, now)}` : 'Rate-limited';
    return continues ? `${line}, then continues` : line;
  }
  return usage.line;
}

/** The agent header's detail: the model, the context, the tokens and the cost. */
export function agentDetail(usage) {
  if (!usage) return '';
  const parts = [];
  if (usage.model) parts.push(usage.model);
  if (usage.context) parts.push(`context ${usage.context.percent}% (${short(usage.context.used)} of ${short(usage.context.size)})`);
  const t = usage.tokens;
  parts.push(`in ${short(t.input)} · out ${short(t.output)} · cached ${short(t.cache_read)}`);
  if (usage.cost_usd != null) parts.push(`$${usage.cost_usd.toFixed(2)}`);
  return parts.join(' · ');
}

/** The account's limits, one `{ window, text, level }` each: `level` is `full`, `near` (past 80%) or ''. */
export function limitLines(account, now = Date.now()) {
  return (account?.limits ?? []).map((l) => {
    const reset = l.resets_at <= now;
    const percent = reset ? 0 : Math.round(l.percent);
    let text = `${WINDOW_NAME[l.window] ?? l.window} ${percent}%`;
    if (!reset) text += ` · resets ${clock(l.resets_at, now)}`;
    if (!reset && l.reached_at && percent < 100) text += ` · at this pace reached at ${clock(l.reached_at, now)}`;
    const level = percent >= 100 ? 'full' : percent >= 80 ? 'near' : '';
    return { window: l.window, text, level };
  });
}

/** What the usage view can chart: US dollars (Claude Code's estimate) or tokens (in and out). */
export const METRICS = Object.freeze({
  cost: { label: 'Cost (US$, Claude Code\'s estimate)', of: (d) => d.cost, words: (v) => `$${v.toFixed(2)}` },
  tokens: { label: 'Tokens (in + out)', of: (d) => d.input + d.output, words: (v) => short(Math.round(v)) },
});

/** `YYYY-MM-DD` of `ms` in the user's time zone. */
function dayOf(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/**
 * The usage command's `days` rows shaped for a chart of the last `count` days up to `now`: `days` (each
 * `YYYY-MM-DD`, oldest first, empty days included), `agents` (the names, the biggest user first), `values`
 * (per agent, its value on each day) and `totals` (per agent, over the period), for `metric`.
 */
export function history(rows, count, metric, now = Date.now()) {
  const of = METRICS[metric].of;
  const days = [];
  for (let i = count - 1; i >= 0; i -= 1) days.push(dayOf(now - i * 86_400_000));
  const index = new Map(days.map((d, i) => [d, i]));
  const values = new Map();
  for (const r of rows) {
    const i = index.get(r.day);
    if (i === undefined) continue;
    if (!values.has(r.agent)) values.set(r.agent, new Array(days.length).fill(0));
    values.get(r.agent)[i] += of(r);
  }
  const totals = new Map([...values].map(([a, v]) => [a, v.reduce((s, x) => s + x, 0)]));
  const agents = [...values.keys()].sort((a, b) => totals.get(b) - totals.get(a) || a.localeCompare(b));
  return { days, agents, values: agents.map((a) => values.get(a)), totals: agents.map((a) => totals.get(a)) };
}
