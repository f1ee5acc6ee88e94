// A voice per agent, so that the user knows who speaks without looking. With the device's own voice: a
// variant of it (higher or lower, at the same pace), chosen in the voice settings or picked by the agent's
// name. With the window's voices: the voice chosen for an agent, else one picked by its name among this
// page's voices of the user's language, with a pitch of its own so that two agents on the same voice still
// sound apart. The choices are kept in this page's storage: the window and a browser have different
// voices. (A speech service speaks with the one voice set for it.)

const KEY = 'clawmux.agentVoices';
const VARIANTS_KEY = 'clawmux.agentVariants';
/** The device voice's variants (`clawmux_voice::piper::Variant`): steps below and above the voice. */
export const VARIANTS = [-2, -1, 0, 1, 2];
/** Pitches an agent may get (1 is the voice's own). */
const PITCHES = [0.8, 0.9, 1, 1.1, 1.2];

/** A stable number for a name (FNV-1a, 32 bits). */
function hash(name) {
  let h = 0x811c9dc5;
  for (const c of name) h = Math.imul(h ^ c.codePointAt(0), 0x01000193) >>> 0;
  return h;
}

function kept(key) {
  try {
    const chosen = JSON.parse(localStorage.getItem(key) ?? '{}');
    return chosen && typeof chosen === 'object' ? chosen : {};
  } catch {
    return {};
  }
}

/** The voices chosen in the settings: `{agent: voice name}`. */
export function chosenVoices() {
  return kept(KEY);
}

/** Keeps `chosen` (`{agent: voice name}`; an agent left out speaks with its automatic voice). */
export function keepVoices(chosen) {
  localStorage.setItem(KEY, JSON.stringify(chosen));
}

/** The device voice's variants chosen in the settings: `{agent: steps}`. */
export function chosenVariants() {
  return kept(VARIANTS_KEY);
}

/** Keeps `chosen` (`{agent: steps}`; an agent left out speaks in its automatic variant). */
export function keepVariants(chosen) {
  localStorage.setItem(VARIANTS_KEY, JSON.stringify(chosen));
}

/** The device voice's variant `agent` speaks in: the one chosen for it, else one picked by its name; the
 * app's own sentences (no agent) the voice as it is. */
export function variantOf(agent, chosen = chosenVariants()) {
  if (!agent) return 0;
  if (VARIANTS.includes(chosen[agent])) return chosen[agent];
  return VARIANTS[(hash(agent) >>> 7) % VARIANTS.length];
}

/** How a variant is said in the settings. */
export function variantName(steps) {
  return ['lowest', 'lower', 'as it is', 'higher', 'highest'][VARIANTS.indexOf(steps)] ?? 'as it is';
}

/**
 * How `agent` speaks among `voices` (`speechSynthesis.getVoices()`): `{voice, pitch}`. A voice chosen for it
 * is used as it is; otherwise one of the voices of `language` (all of them if none is) is picked by its
 * name, at a pitch of its own. With no agent (the app's own sentences): the default voice.
 */
export function voiceOf(agent, voices, { chosen = chosenVoices(), language = navigator.language } = {}) {
  if (!agent) return { voice: null, pitch: 1 };
  const named = voices.find((v) => v.name === chosen[agent]);
  if (named) return { voice: named, pitch: 1 };
  const h = hash(agent);
  const prefix = (language || 'en').split('-')[0].toLowerCase();
  const theirs = voices.filter((v) => (v.lang ?? '').toLowerCase().startsWith(prefix));
  const pool = theirs.length ? theirs : voices;
  return { voice: pool.length ? pool[(h >>> 3) % pool.length] : null, pitch: PITCHES[h % PITCHES.length] };
}
