#!/bin/sh
# The Stop hook of a ClawMux agent (docs/PROTOCOL.md): exit 2 keeps Claude working, with the reason on stderr.
# All the logic is in `clawmux hook stop`, which asks the hub in one round-trip: an answer owed for a
# message handed over by a tool hook, new messages, or "run clawmux wait". Outside an agent it does nothing.
[ -n "${CLAWMUX_SESSION_ID:-}" ] || exit 0
exec clawmux hook stop
