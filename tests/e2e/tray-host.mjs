// A desktop's tray, as a panel runs one: a StatusNotifierWatcher with a host on the session bus (the D-Bus
// interfaces of the freedesktop/KDE StatusNotifierItem protocol), which the app's tray icon registers
// with. The tests read the icon through the same interfaces a panel does (the item's properties, its menu
// over com.canonical.dbusmenu) and click the menu as a panel does (`Event(id, "clicked")`).

import dbus from 'dbus-next';

const { Message, Variant } = dbus;
const WATCHER = 'org.kde.StatusNotifierWatcher';
const ITEM = 'org.kde.StatusNotifierItem';
const MENU = 'com.canonical.dbusmenu';

class Watcher extends dbus.interface.Interface {
  constructor() {
    super(WATCHER);
    this.items = [];
  }

  get RegisteredStatusNotifierItems() { return this.items.map((i) => `${i.sender}${i.path}`); }

  get IsStatusNotifierHostRegistered() { return true; }

  get ProtocolVersion() { return 0; }

  RegisterStatusNotifierHost() {}
}
Watcher.configureMembers({
  properties: {
    RegisteredStatusNotifierItems: { signature: 'as', access: 'read' },
    IsStatusNotifierHostRegistered: { signature: 'b', access: 'read' },
    ProtocolVersion: { signature: 'i', access: 'read' },
  },
  methods: { RegisterStatusNotifierHost: { inSignature: 's' } },
  signals: {},
});

/** Starts the watcher on the bus at `address`; `latest()` is the item registered last. */
export async function startTray(address) {
  const bus = dbus.sessionBus({ busAddress: address });
  const watcher = new Watcher();
  let registered = () => {};
  // An item registers with its object path (libayatana-appindicator) or its bus name: the sender is the
  // item's bus name either way.
  bus.addMethodHandler((msg) => {
    if (msg.interface !== WATCHER || msg.member !== 'RegisterStatusNotifierItem') return false;
    const [service] = msg.body;
    const path = service.startsWith('/') ? service : '/StatusNotifierItem';
    watcher.items.push({ sender: msg.sender, path });
    bus.send(Message.newMethodReturn(msg, '', []));
    registered();
    return true;
  });
  bus.export('/StatusNotifierWatcher', watcher);
  await bus.requestName(WATCHER, 0);

  const call = async (item, path, iface, member, signature = '', body = []) => (await bus.call(new Message({
    destination: item.sender, path, interface: iface, member, signature, body,
  }))).body;
  const unwrap = (v) => (v instanceof Variant ? unwrap(v.value) : v);

  return {
    /** How many items ever registered: a mark for `next`. */
    get count() { return watcher.items.length; },
    /** The item registered after the `mark`th, when it has. */
    next(mark = 0, ms = 20000) {
      return new Promise((ok, fail) => {
        const check = () => {
          if (watcher.items.length > mark) {
            clearTimeout(timer);
            ok(watcher.items[watcher.items.length - 1]);
          }
        };
        const timer = setTimeout(() => fail(new Error('no tray item registered')), ms);
        registered = check;
        check();
      });
    },
    /** The item's properties, plain. */
    async properties(item) {
      const [all] = await call(item, item.path, 'org.freedesktop.DBus.Properties', 'GetAll', 's', [ITEM]);
      return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, unwrap(v)]));
    },
    /** The item's menu: `[{id, label, enabled, toggle}]`, separators left out. */
    async menu(item) {
      const { Menu } = await this.properties(item);
      const [, layout] = await call(item, Menu, MENU, 'GetLayout', 'iias', [0, -1, []]);
      const [, , children] = layout;
      return children.map((c) => unwrap(c)).filter(([, p]) => unwrap(p.type) !== 'separator').map(([id, p]) => ({
        id,
        label: unwrap(p.label)?.replace(/_(.)/g, '$1'),
        enabled: unwrap(p.enabled) !== false,
        toggle: p['toggle-state'] === undefined ? undefined : unwrap(p['toggle-state']) === 1,
      }));
    },
    /** Clicks the menu's entry whose label matches `label`, as a panel does. */
    async click(item, label) {
      const entry = (await this.menu(item)).find((e) => label.test(e.label));
      if (!entry) throw new Error(`the tray's menu has no ${label}`);
      const { Menu } = await this.properties(item);
      await call(item, Menu, MENU, 'Event', 'isvu', [entry.id, 'clicked', new Variant('i', 0), 0]);
    },
    /** The desktop's tray goes away (its watcher's name let go), and comes back. */
    away: () => bus.releaseName(WATCHER),
    back: () => bus.requestName(WATCHER, 0),
    close: () => bus.disconnect(),
  };
}
