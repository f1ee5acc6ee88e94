// What the Changes panel reads from a file's unified diff, and the review it sends: pure functions with no
// page, so they are tested on their own (tests/e2e/changes.test.mjs).

/** The rows of a unified diff (`git diff` of one file): each with its kind and its line numbers.
 * `kind` is `meta` (the `diff --git` header lines), `hunk` (`@@ ... @@`), `add`, `del`, `ctx` or `note`
 * (`\ No newline at end of file`); `old` and `new` are the line's numbers on each side, where it has one. */
export function parsePatch(patch) {
  const rows = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  const lines = patch.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const text of lines) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      inHunk = true;
      rows.push({ kind: 'hunk', text, old: null, new: null });
    } else if (!inHunk || text.startsWith('diff --git ')) {
      inHunk = false;
      rows.push({ kind: 'meta', text, old: null, new: null });
    } else if (text.startsWith('+')) {
      rows.push({ kind: 'add', text: text.slice(1), old: null, new: newLine++ });
    } else if (text.startsWith('-')) {
      rows.push({ kind: 'del', text: text.slice(1), old: oldLine++, new: null });
    } else if (text.startsWith('\\')) {
      rows.push({ kind: 'note', text, old: null, new: null });
    } else {
      rows.push({ kind: 'ctx', text: text.slice(1), old: oldLine++, new: newLine++ });
    }
  }
  return rows;
}

/** How a comment names its lines: `path:12`, `path:12-15`, or for removed lines `path: removed line 7`. */
export function place(comment) {
  const { path, from, to } = comment;
  const side = (row) => (row.new !== null ? row.new : row.old);
  const a = side(from);
  const b = side(to);
  const removed = from.new === null && to.new === null;
  const lines = a === b ? `${a}` : `${Math.min(a, b)}-${Math.max(a, b)}`;
  return removed ? `${path}: removed line${a === b ? '' : 's'} ${lines}` : `${path}:${lines}`;
}

/** The message a review sends to the agent: each comment with the place it names and the lines it is on. */
export function reviewMessage(comments) {
  const count = comments.length === 1 ? 'one comment' : `${comments.length} comments`;
  const parts = [`Review of your changes (${count}):`];
  comments.forEach((c, i) => {
    const quoted = c.lines.map((l) => `   > ${l}`).join('\n');
    parts.push(`${i + 1}. ${place(c)}\n${quoted}\n   ${c.text.trim().replace(/\n/g, '\n   ')}`);
  });
  return parts.join('\n\n');
}
