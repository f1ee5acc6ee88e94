// Markdown to safe HTML. marked renders, with the HTML an agent writes shown as the text it is, never parsed
// as markup: an agent talking about `<img onerror=...>` or `<details>` means the characters. DOMPurify then
// removes anything executable that markdown itself can make (a `javascript:` link), a second line of defence.
// Since no HTML of the agent's reaches the sanitiser, its parse never meets an event handler, so the page's
// Content Security Policy has nothing to report about it in any browser.
//
// Every message is shown whatever its text: one that the renderer cannot handle is shown as plain text with a
// quiet note, and the chat goes on. marked recurses once per level of nesting, so a few KB of nested quotes
// overflow its stack and a deep list takes seconds (1,000 levels: 13 s): text nested deeper than any person
// writes is not given to it at all, and anything else it throws on is caught.
//
// Both libraries ship with the app (ui/vendor, copied from npm by scripts/setup); without them every message
// is plain text.

let render = null;

/** The longest nesting prefix (quote marks, list markers, indentation) a line may have to be rendered: 256
 * characters is over 60 levels of quotes or lists, and renders in a few milliseconds. */
const MAX_NESTING = 256;
const NESTING = /^(?:[ \t>]|[*+-][ \t]|\d{1,9}[.)][ \t])*/gm;

/** Whether some line of `text` is nested deeper than markdown is worth rendering. */
function tooDeep(text) {
  for (const m of text.matchAll(NESTING)) if (m[0].length > MAX_NESTING) return true;
  return false;
}

/** `&`, `<`, `>`, `"` and `'` as entities, so the text shows as written. */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

try {
  const [{ Marked }, { default: DOMPurify }] = await Promise.all([
    import('../vendor/marked.esm.js'),
    import('../vendor/purify.es.mjs'),
  ]);
  const marked = new Marked({
    async: false,
    gfm: true,
    breaks: true,
    // Block HTML and inline tags alike arrive here: shown as text (a block keeps its lines).
    renderer: {
      html: ({ text, block }) => (block ? `<p>${escapeHtml(text.trimEnd()).replaceAll('\n', '<br>')}</p>` : escapeHtml(text)),
    },
  });
  // Links open outside the page (main.js hands clicks to the backend); without that handler, a new tab
  // that cannot reach back.
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
  // A fragment straight from the sanitiser: the HTML is parsed once, not again by innerHTML.
  render = (text) =>
    DOMPurify.sanitize(marked.parse(text), {
      RETURN_DOM_FRAGMENT: true,
      // No styles either: the page allows inline ones (the terminal's library needs them), and an agent's
      // message must not restyle the page (hide a card, draw a button where another is).
      FORBID_TAGS: ['form', 'button', 'textarea', 'select', 'style'],
      FORBID_ATTR: ['style'],
    });
} catch (e) {
  console.warn('markdown libraries missing (run scripts/setup); showing plain text', e);
}

/** Fills `element` with `text` rendered as markdown, safely; as plain text if it cannot be rendered. */
export function renderInto(element, text) {
  if (render && !tooDeep(text)) {
    try {
      element.replaceChildren(render(text));
      return;
    } catch {
      // Below: the text as it is, and why it looks plain.
    }
  }
  element.textContent = text;
  if (render) {
    const note = document.createElement('p');
    note.className = 'render-note';
    note.textContent = 'Shown as plain text: this message could not be formatted.';
    element.append(note);
    element.classList.add('plain');
  }
}
