// The panels of the page, wired from one list (main.js), as the hub's hooks are: each panel says what it
// shows for the agent on screen and which of the feed's events it takes, and main.js calls them all alike.
//
// A panel is an object with any of these members:
// - `events`: the feed's events it takes, by type (`{ [UiEvent.CHANGES]: (e) => ... }`);
// - `show(agent, row)`: `agent` is now on screen; `row` its sidebar row, if it has one;
// - `update(row)`: the row of the agent on screen changed;
// - `rowChanged(change, row, before)`: any agent's row changed by `change` (`before` is undefined for a
//   new agent);
// - `message(m)`: a message arrived that was not seen before.

export class Panels {
  constructor(panels) {
    this.panels = panels;
    /** The panels' handlers by event type. */
    this.routes = new Map();
    for (const panel of panels) {
      for (const [type, handle] of Object.entries(panel.events ?? {})) {
        if (!this.routes.has(type)) this.routes.set(type, []);
        this.routes.get(type).push(handle);
      }
    }
  }

  /** Hands `e` to the panels that take it. */
  route(e) {
    for (const handle of this.routes.get(e.type) ?? []) handle(e);
  }

  show(agent, row) {
    for (const p of this.panels) p.show?.(agent, row);
  }

  update(row) {
    for (const p of this.panels) p.update?.(row);
  }

  rowChanged(change, row, before) {
    for (const p of this.panels) p.rowChanged?.(change, row, before);
  }

  message(m) {
    for (const p of this.panels) p.message?.(m);
  }
}
