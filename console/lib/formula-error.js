// Where a formula error points: the API answers 400 with `parameters.formula: <what> at line
// L, column C ...` (formulas/errors.ts). Read the position from the text and show the line
// with the character marked and a caret under it, and select it in the editor.
import { h } from './dom.js'

/**
 * The position a formula error names, or undefined. Columns count from 1, as the message does.
 * @param {string} message
 * @returns {{ line: number, column: number } | undefined}
 */
export function formulaErrorPosition(message) {
  const m = /\bline (\d+), column (\d+)/.exec(message)
  return m ? { line: Number(m[1]), column: Number(m[2]) } : undefined
}

/** Offset in the text of a line/column (both from 1). @param {string} text */
export function offsetOf(text, line, column) {
  const lines = text.split('\n')
  let offset = 0
  for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1
  return Math.min(text.length, offset + column - 1)
}

/**
 * A block showing the message and, when it names a position, the formula's line with the
 * character there marked and a caret below.
 * @param {string} formula @param {string} message
 */
export function formulaErrorView(formula, message) {
  const pos = formulaErrorPosition(message)
  const text = message.replace(/^parameters\.formula:\s*/, '')
  if (!pos) return h('div.formula-error', { role: 'alert' }, text)
  const line = formula.split('\n')[pos.line - 1] ?? ''
  const at = pos.column - 1
  return h('div.formula-error', { role: 'alert', 'data-line': pos.line, 'data-column': pos.column },
    h('div', {}, text),
    h('div.formula-line', {}, `${pos.line} | `, line.slice(0, at), h('mark', {}, line.slice(at, at + 1) || ' '), line.slice(at + 1)),
    h('div.caret', {}, `${' '.repeat(String(pos.line).length + 3 + at)}^`))
}
