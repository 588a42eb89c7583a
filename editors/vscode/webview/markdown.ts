/**
 * Markdown for the Ink panel: markdown-it with raw HTML escaped (`html: false`), code blocks
 * highlighted by highlight.js (its common languages). The streaming split (src/streaming.ts)
 * decides which part of a growing answer is rendered for good.
 */

import hljs from 'highlight.js/lib/common';
import MarkdownIt from 'markdown-it';

export { stableEnd } from '../src/streaming';

const md = new MarkdownIt({
  html: false,
  linkify: true,
  highlight(code: string, lang: string): string {
    const language = lang !== '' && hljs.getLanguage(lang) !== undefined ? lang : undefined;
    try {
      if (language !== undefined) {
        return hljs.highlight(code, { language, ignoreIllegals: true }).value;
      }
      // Short snippets only: auto-detection runs every grammar.
      return code.length < 2000 ? hljs.highlightAuto(code).value : '';
    } catch {
      return '';
    }
  },
});

/** The HTML of a markdown text (raw HTML in it is shown as text). */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
