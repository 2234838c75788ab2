// Reads the runnable shell blocks of README.md for the README test (issue 15, item 1).
// Conventions the README follows:
//   - blocks fenced as ```sh run, in README order; a block right after the line
//     `<!-- readme-test: skip -->` does not (set-up commands that start the server);
//   - a command may span lines (trailing backslash, or an open quote);
//   - comment lines right after a command whose text starts with `{`, `[` or `"` are the
//     output the command must print, continued by comment lines indented by three or more
//     spaces (`#   ...`); `...` stands for any text. Every other comment describes.

export interface Step { command: string; expected?: string; line: number }
export interface Block { line: number; steps: Step[]; section: string; skipped: boolean }

const SKIP = '<!-- readme-test: skip -->'

/** Every ```sh block in README order, with the `## ` section it stands in; `skipped` ones are not run. */
export function readmeBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n')
  const blocks: Block[] = []
  let section = ''
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('## ')) section = lines[i].slice(3).trim()
    if (lines[i].trim() !== '```sh') continue
    let prev = i - 1
    while (prev >= 0 && lines[prev].trim() === '') prev--
    const end = lines.indexOf('```', i + 1)
    if (end < 0) throw new Error(`README line ${i + 1}: unterminated code block`)
    const skipped = prev >= 0 && lines[prev].trim() === SKIP
    blocks.push({ line: i + 1, steps: skipped ? [] : stepsOf(lines.slice(i + 1, end), i + 2), section, skipped })
    i = end
  }
  return blocks
}

function stepsOf(lines: string[], firstLine: number): Step[] {
  const steps: Step[] = []
  let i = 0
  while (i < lines.length) {
    const text = lines[i]
    if (text.trim() === '' || text.trimStart().startsWith('#')) { i++; continue }
    const step: Step = { command: text, line: firstLine + i }
    i++
    while (continues(step.command) && i < lines.length) step.command += '\n' + lines[i++]
    const out: string[] = []
    if (i < lines.length && /^#\s*[{["]/.test(lines[i])) {
      out.push(lines[i++].replace(/^#\s*/, ''))
      while (i < lines.length && /^# {3,}\S/.test(lines[i])) out.push(lines[i++].replace(/^#\s*/, ''))
      step.expected = out.join('')
    }
    steps.push(step)
  }
  return steps
}

/** True while the command is unfinished: a trailing backslash or an open quote. */
function continues(command: string): boolean {
  let quote: '' | "'" | '"' = ''
  for (let i = 0; i < command.length; i++) {
    const c = command[i]
    if (quote === "'") { if (c === "'") quote = ''; continue }
    if (c === '\\') { i++; continue }
    if (quote === '"') { if (c === '"') quote = ''; continue }
    if (c === "'" || c === '"') quote = c
    else if (c === '#' && (i === 0 || /\s/.test(command[i - 1]))) break // comment to end of line
  }
  return quote !== '' || /\\$/.test(command.split('\n').at(-1)!.replace(/\s+#.*$/, ''))
}

/** Whether `actual` shows `expected`: the parts between `...` appear in order (blanks ignored). */
export function outputMatches(expected: string, actual: string): boolean {
  const squash = (s: string) => s.replace(/\s+/g, '')
  const have = squash(actual)
  let at = 0
  for (const part of expected.split('...').map(squash)) {
    if (part === '') continue
    const found = have.indexOf(part, at)
    if (found < 0) return false
    at = found + part.length
  }
  return true
}
