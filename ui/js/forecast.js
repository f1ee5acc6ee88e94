// The conflict forecast in words: what an agent's work has in common with other agents' in the same
// repository, as the sidebar and the Changes panel say it. Pure, tested with no page.

/** `{ level, short, long }` for an agent's overlaps: `level` is `conflict` (the same lines), `overlap` (the
 * same files only) or null (nothing in common). */
export function describe(overlaps = []) {
  const conflicts = overlaps.filter((o) => o.conflicts.length);
  const shared = overlaps.filter((o) => !o.conflicts.length && o.same_files.length);
  if (!conflicts.length && !shared.length) return { level: null, short: '', long: '' };
  const names = (list) => list.map((o) => o.other).join(', ');
  const lines = overlaps.map((o) => {
    const parts = [];
    if (o.conflicts.length) parts.push(`the same lines in ${o.conflicts.join(', ')}`);
    if (o.same_files.length) parts.push(`the same files in ${o.same_files.join(', ')}`);
    return `With ${o.other}: ${parts.join('; ')}.`;
  });
  return conflicts.length
    ? { level: 'conflict', short: `Would conflict with ${names(conflicts)}`, long: lines.join(' ') }
    : { level: 'overlap', short: `Same files as ${names(shared)}`, long: lines.join(' ') };
}
