// The scripted model for tests outside node (the Rust soak): installs the pinned Claude Code CLI if it is
// not cached yet, makes HOME (argv[2]) a logged-in user's that trusts the folders argv[3..], starts a model
// that follows ClawMux's instructions, prints `{"port": ..., "claude": "..."}` on one line, and serves
// until it is killed.

import { claudeBinary, follower, prepareHome, startModel } from './real-claude.mjs';

const [home, ...trusted] = process.argv.slice(2);
const claude = claudeBinary();
prepareHome(home, trusted);
const model = await startModel(follower());
console.log(JSON.stringify({ port: model.port, claude }));
