/**
 * The two DOM builders every part of the panel's webview uses: an element with attributes and
 * children (text goes in as text, never as HTML), and a codicon.
 */

export type Attrs = Record<string, string>;

/** `h('div', {class: 'x'}, child, 'text')`. */
export function h(tag: string, attrs: Attrs = {}, ...children: (Node | string | undefined)[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    el.setAttribute(k, v);
  }
  for (const c of children) {
    if (c !== undefined) {
      el.append(c);
    }
  }
  return el;
}

/** A codicon (`extra`: more classes, e.g. `spin`). */
export function icon(name: string, extra = ''): HTMLElement {
  return h('span', { class: `codicon codicon-${name} ${extra}`.trim(), 'aria-hidden': 'true' });
}
