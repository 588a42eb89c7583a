/**
 * VS Code diagnostics in the wire shape of `ink/diagnostics` (LSP `Diagnostic`). Pure: no
 * `vscode` import, so it is tested under node:test.
 */

import type { WireDiagnostic } from './protocol';

/** The plain fields of a `vscode.Diagnostic` this module reads. */
export interface DiagnosticLike {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity: number;
  code?: string | number | { value: string | number };
  source?: string;
  message: string;
}

/** A VS Code diagnostic as an LSP one (severity 0-3 → 1-4; `code.value` when it has a target). */
export function toWire(d: DiagnosticLike): WireDiagnostic {
  const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
  const out: WireDiagnostic = {
    range: {
      start: { line: d.range.start.line, character: d.range.start.character },
      end: { line: d.range.end.line, character: d.range.end.character },
    },
    severity: d.severity + 1,
    message: d.message,
  };
  if (code !== undefined) {
    out.code = code;
  }
  if (d.source !== undefined) {
    out.source = d.source;
  }
  return out;
}
