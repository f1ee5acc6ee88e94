// Markdown to safe HTML: marked renders, DOMPurify removes anything executable. Both ship with the app
// (ui/vendor, copied from npm by scripts/setup); if they are missing the text is shown as plain text.

let render = null;

try {
  const [{ marked }, { default: DOMPurify }] = await Promise.all([
    import('../vendor/marked.esm.js'),
    import('../vendor/purify.es.mjs'),
  ]);
  // A fragment straight from the sanitiser: the HTML is parsed once, not again by innerHTML.
  render = (text) =>
    DOMPurify.sanitize(marked.parse(text, { async: false, gfm: true, breaks: true }), { RETURN_DOM_FRAGMENT: true });
} catch (e) {
  console.warn('markdown libraries missing (run scripts/setup); showing plain text', e);
}

/** Fills `element` with `text` rendered as markdown, safely. */
export function renderInto(element, text) {
  if (render) element.replaceChildren(render(text));
  else element.textContent = text;
}
