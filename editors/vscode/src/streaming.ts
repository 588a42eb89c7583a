/**
 * The streaming split that keeps a long answer cheap to show: text up to the last block
 * boundary outside a code fence is rendered once and frozen; only the tail after it is
 * re-rendered as more text arrives. Pure (shared by the webview bundle and node:test).
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The end of the part of `text[from:]` that can be rendered for good: just after the last
 * blank line or closing fence that is outside a code fence (`from` itself is outside one).
 * Returns `from` when there is none yet.
 */
export function stableEnd(text: string, from: number): number {
  let fence: string | undefined;
  let end = from;
  let pos = from;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    if (nl < 0) {
      break; // an unfinished line belongs to the tail
    }
    const line = text.slice(pos, nl);
    const m = FENCE.exec(line);
    if (fence === undefined) {
      if (m !== null) {
        fence = m[1];
      } else if (line.trim() === '') {
        end = nl + 1;
      }
    } else if (m !== null && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) {
      fence = undefined;
      end = nl + 1;
    }
    pos = nl + 1;
  }
  return end;
}
