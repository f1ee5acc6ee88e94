// The page's two smallest helpers, shared by every module that touches it: find an element, say a line
// in the notice bar.

export const $ = (id) => document.getElementById(id);

/** Shows a line in the notice bar; an empty text hides it. */
export function notice(text) {
  $('notice').textContent = text;
  $('notice').hidden = !text;
}
