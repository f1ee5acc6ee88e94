// A real OpenSSH server (Debian's `openssh-server`) for the tests of other machines, as
// crates/cli/tests/support/sshd.rs starts it for the Rust tests: a loopback port, a throwaway host key, a
// throwaway user key, and sessions that see the "remote" hub's data folder and this build's `clawmux`.
// No real ~/.ssh is read or written: the client gets a config file of its own (CLAWMUX_SSH_CONFIG).

import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { BIN } from './harness.mjs';

function keygen(path) {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test', '-f', path]);
  return readFileSync(`${path}.pub`, 'utf8').split(' ').slice(0, 2).join(' ');
}

/** A loopback port nothing listens on now. */
export function freePort() {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/**
 * Throwaway keys for sshd servers and the client's config that trusts them: one host key and one user key,
 * shared by every server made with them (`clientConfig` at `configPath` when given).
 */
export function sshKeys(configPath) {
  const dir = mkdtempSync(join(tmpdir(), 'clawmux-ssh-'));
  const keys = {
    dir,
    hostKey: keygen(join(dir, 'host')),
    userKey: keygen(join(dir, 'user')),
    knownHosts: join(dir, 'known_hosts'),
    clientConfig: configPath ?? join(dir, 'ssh_config'),
  };
  writeFileSync(keys.knownHosts, '');
  writeFileSync(keys.clientConfig, [
    'Host *', `  IdentityFile ${join(dir, 'user')}`, '  IdentitiesOnly yes', `  UserKnownHostsFile ${keys.knownHosts}`,
    '  GlobalKnownHostsFile /dev/null', '  StrictHostKeyChecking yes', '  BatchMode yes', '  LogLevel ERROR',
  ].join('\n') + '\n');
  return keys;
}

/** Starts sshd in front of `hub` (the remote machine's), with `keys` (new ones by default); resolves with
 * `{url, clientConfig, stop, start}`. */
export async function startSshd(hub, keys = sshKeys()) {
  const dir = mkdtempSync(join(tmpdir(), 'clawmux-sshd-'));
  writeFileSync(join(dir, 'authorized_keys'), `${keys.userKey}\n`);
  const home = join(dir, 'home');
  mkdirSync(home);
  const user = userInfo().username;
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(config, [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(keys.dir, 'host')}`, `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`, 'StrictModes no', 'UsePAM no', 'PasswordAuthentication no',
    'KbdInteractiveAuthentication no', 'PubkeyAuthentication yes', 'PermitRootLogin prohibit-password',
    `AllowUsers ${user}`, 'LogLevel INFO',
    `SetEnv HOME=${home} PATH=${dirname(BIN)}:/usr/local/bin:/usr/bin:/bin CLAWMUX_HOME=${hub.data} CLAWMUX_PORT=${hub.port}`,
  ].join('\n') + '\n');
  if (user === 'root') mkdirSync('/run/sshd', { recursive: true });
  appendFileSync(keys.knownHosts, `[127.0.0.1]:${port} ${keys.hostKey}\n`);
  let child = null;
  const sshd = {
    url: `ssh://${user}@127.0.0.1:${port}`,
    clientConfig: keys.clientConfig,
    /** Listens (again, on the same port); resolves once it does. */
    async start() {
      child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
      await new Promise((ok, fail) => {
        createInterface({ input: child.stderr }).on('line', (l) => { if (l.includes('Server listening')) ok(); });
        child.once('exit', (code) => fail(new Error(`sshd exited: ${code}`)));
      });
    },
    /** Stops listening (sessions under way go on, as with a real server). */
    stop() {
      child?.kill('SIGKILL');
      child = null;
    },
  };
  await sshd.start();
  return sshd;
}
