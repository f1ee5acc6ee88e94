// A phone for the tests: Chromium with a Pixel 7's screen and touch (Playwright's device emulation), its
// way to the desktop an `ssh -L` through a real OpenSSH server on loopback (a port of the phone's own
// forwarded to the hub's, as a phone's SSH app does), and paired by the link `clawmux phone pair` prints.

import { spawn } from 'node:child_process';
import { userInfo } from 'node:os';
import { devices } from 'playwright-core';
import { listening } from './harness.mjs';
import { freePort, sshKeys, startSshd } from './sshd.mjs';

/** The phone's end of its tunnel to `hub`: `{local, drop(), reconnect(), stop()}`, `local` the port the
 * phone opens; `drop()` cuts the tunnel as a sleeping phone's SSH app loses it, `reconnect()` makes it
 * again at the same port. */
export async function tunnel(hub) {
  const keys = sshKeys();
  const sshd = await startSshd(hub, keys);
  const local = await freePort();
  const sshPort = new URL(sshd.url.replace('ssh://', 'http://')).port;
  let child = null;
  const up = async () => {
    child = spawn('ssh', ['-F', keys.clientConfig, '-N', '-o', 'ExitOnForwardFailure=yes',
      '-L', `127.0.0.1:${local}:127.0.0.1:${hub.port}`, '-p', sshPort, `${userInfo().username}@127.0.0.1`], { stdio: 'ignore' });
    const end = Date.now() + 15000;
    while (!(await listening(local))) {
      if (Date.now() > end) throw new Error('the tunnel never listened');
      await new Promise((ok) => setTimeout(ok, 50));
    }
  };
  await up();
  return {
    local,
    drop: () => child?.kill('SIGKILL'),
    reconnect: up,
    stop: () => { child?.kill('SIGKILL'); sshd.stop(); },
  };
}

/** A new phone (a browser context) whose page is at `link`, moved to the tunnel's port. */
export async function phoneAt(browser, hub, way, link, permissions = []) {
  const origin = `http://127.0.0.1:${way.local}`;
  const context = await browser.newContext({ ...devices['Pixel 7'] });
  if (permissions.length) await context.grantPermissions(permissions, { origin });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(link.replace(`:${hub.port}/`, `:${way.local}/`));
  return { context, page, errors, origin };
}

/** Turns phones on and pairs a new phone through `way`: the phone, its page online. */
export async function pairedPhone(browser, hub, way, permissions = []) {
  hub.clawmux(['phone', 'on']);
  const link = /^(http:\/\/127\.0\.0\.1:\d+\/#pair=[0-9a-f]{32})$/m.exec(hub.clawmux(['phone', 'pair']))[1];
  const phone = await phoneAt(browser, hub, way, link, permissions);
  await phone.page.waitForSelector('#connection.online', { timeout: 20000 });
  phone.link = link;
  phone.token = await phone.page.evaluate(() => localStorage.getItem('clawmux.phone.token'));
  return phone;
}
