// The page's smallest helpers, shared by every module that touches it: find an element, say a line in the
// notice bar, make an address of a file.

export const $ = (id) => document.getElementById(id);

/** Shows a line in the notice bar; an empty text hides it. */
export function notice(text) {
  $('notice').textContent = text;
  $('notice').hidden = !text;
}

/** A file (or any Blob) as a `data:` address (the reader's own encoder: a 5 MB screenshot takes
 * milliseconds). An image is shown from one: the Linux webview draws no image from a `blob:` address. */
export function address(blob) {
  return new Promise((ok, fail) => {
    const reader = new FileReader();
    reader.onload = () => ok(String(reader.result));
    reader.onerror = () => fail(reader.error ?? new Error('cannot read the file'));
    reader.readAsDataURL(blob);
  });
}
