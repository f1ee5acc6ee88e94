// The usage view: what each agent used per day, as stacked bars (uPlot, a maintained small charting
// library, vendored by setup), and each agent's total over the period in a table. The history is the hub's
// (`usage` command: samples kept in SQLite, summed per day in the user's time zone), so it survives restarts
// and imports; the view asks again when an agent's figures move while it is open.

import uPlot from '../vendor/uPlot.esm.js';
import { $ } from './dom.js';
import { Command, UiEvent } from './names.js';
import { METRICS, history } from './usage.js';
import { ToggledView } from './toggled-view.js';

const COLORS = ['#4f8ff7', '#3fb950', '#e3b341', '#f0883e', '#a371f7', '#db61a2', '#39c5cf', '#8b949e'];

/** The view, in `#usage-panel`; `backend` runs commands. */
export class UsageView extends ToggledView {
  constructor(backend) {
    super(backend, { panel: 'usage-panel', open: 'usage-open', close: 'usage-close' });
    this.events = { [UiEvent.USAGE]: () => this.changed() };
    this.chart = null;
    $('usage-days').addEventListener('change', () => this.load());
    $('usage-metric').addEventListener('change', () => this.load());
  }

  close() {
    super.close();
    this.chart?.destroy();
    this.chart = null;
  }

  async read() {
    const count = Number($('usage-days').value);
    const metric = $('usage-metric').value;
    let reply;
    try {
      const offset = -new Date().getTimezoneOffset();
      reply = await this.backend.command({ command: Command.USAGE, days: count, offset_minutes: offset });
    } catch (e) {
      $('usage-state').textContent = `Cannot read the usage: ${e.message}`;
      return;
    }
    if (!this.isOpen()) return;
    const h = history(reply.days, count, metric);
    $('usage-state').textContent = h.agents.length ? '' : `Nothing used in the last ${count} days (figures come from each agent's status line).`;
    this.draw(h, metric);
    this.table(h, metric);
  }

  draw(h, metric) {
    this.chart?.destroy();
    this.chart = null;
    const box = $('usage-chart');
    box.replaceChildren();
    if (!h.agents.length) return;
    const words = METRICS[metric].words;
    // Stacked bars: each series is the sum of the agents up to it, drawn biggest first so each shows above
    // the ones below it; the legend shows each agent's own value.
    const sums = h.values.map((_, i) => h.days.map((_, d) => h.values.slice(i).reduce((s, v) => s + v[d], 0)));
    const x = h.days.map((d) => new Date(`${d}T12:00:00`).getTime() / 1000);
    const series = h.agents.map((agent, i) => ({
      label: agent,
      stroke: COLORS[i % COLORS.length],
      fill: COLORS[i % COLORS.length],
      width: 0,
      paths: uPlot.paths.bars({ size: [0.7, 48] }),
      points: { show: false },
      value: (u, v, si, idx) => (idx == null ? '' : words(h.values[i][idx])),
    }));
    const muted = getComputedStyle(document.body).getPropertyValue('--muted').trim() || '#8b949e';
    const line = getComputedStyle(document.body).getPropertyValue('--line').trim() || '#262c36';
    this.chart = new uPlot({
      width: Math.max(320, box.clientWidth || 640),
      height: 220,
      scales: { x: { time: true }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      series: [{ label: 'Day', value: (u, v) => (v == null ? '' : new Date(v * 1000).toLocaleDateString()) }, ...series],
      axes: [
        { stroke: muted, grid: { stroke: line }, ticks: { stroke: line } },
        { stroke: muted, grid: { stroke: line }, ticks: { stroke: line }, size: 60, values: (u, vals) => vals.map((v) => words(v)) },
      ],
      legend: { live: true },
      cursor: { points: { show: false } },
    }, [x, ...sums], box);
  }

  table(h, metric) {
    const body = $('usage-table').querySelector('tbody');
    const words = METRICS[metric].words;
    body.replaceChildren(...h.agents.map((agent, i) => {
      const tr = document.createElement('tr');
      tr.dataset.agent = agent;
      const name = document.createElement('td');
      name.textContent = agent;
      const total = document.createElement('td');
      total.textContent = words(h.totals[i]);
      tr.append(name, total);
      return tr;
    }));
    $('usage-table').querySelector('thead th:last-child').textContent = METRICS[metric].label;
  }
}
