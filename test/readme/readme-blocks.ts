// Reads the runnable shell blocks of README.md and of the guides in docs/ for the README test
// (issue 15 item 1, issue 30 item 1, issue 36 item 4). Conventions the documents follow:
//   - blocks fenced as ```sh, in document order; a block right after the line
//     `<!-- readme-test: skip -->` is not run (set-up commands that start servers); one after
//     `<!-- readme-test: last -->` runs after every other block of every document, without
//     its commands that start a server (`npm start`): "Starting over" stops the test's server;
//   - a command may span lines (trailing backslash, or an open quote);
//   - every command states what it must give, in the comment lines right after it, one of:
//       * its output: a comment whose text starts with `{`, `[` or `"`, continued by comment
//         lines indented by three or more spaces (`#   ...`); `...` stands for any text and
//         blanks are ignored; the exit status must then be 0;
//       * `# exit N, prints nothing`: exit status N and nothing on standard output;
//       * `# exit N, prints /regex/`: exit status N and standard output (blanks at both ends
//         trimmed) matching the JavaScript regular expression (flag `s`: `.` spans lines);
//     only a step of literal variable assignments (`A=value`, nothing run by `$(...)`) may
//     state nothing (it cannot fail). Every other comment describes.

export type Expect =
  | { kind: 'output'; text: string }
  | { kind: 'exit'; status: number; pattern: RegExp | null } // null: prints nothing
export interface Step { command: string; line: number; expect?: Expect }
export interface Block { line: number; steps: Step[]; section: string; subsection: string; run: 'yes' | 'skip' | 'last' }

const MARK = /^<!-- readme-test: (skip|last) -->$/
const EXIT = /^#\s*exit (\d+), prints (?:nothing|\/(.*)\/)\s*$/

/** Every ```sh block in document order, with the `## ` and `### ` headings it stands under. */
export function readmeBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n')
  const blocks: Block[] = []
  let section = ''
  let subsection = ''
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('## ')) { section = lines[i].slice(3).trim(); subsection = '' }
    if (lines[i].startsWith('### ')) subsection = lines[i].slice(4).trim()
    if (lines[i].trim() !== '```sh') continue
    let prev = i - 1
    while (prev >= 0 && lines[prev].trim() === '') prev--
    const end = lines.indexOf('```', i + 1)
    if (end < 0) throw new Error(`line ${i + 1}: unterminated code block`)
    const mark = prev >= 0 ? MARK.exec(lines[prev].trim()) : null
    const run = (mark?.[1] ?? 'yes') as Block['run']
    blocks.push({ line: i + 1, steps: run === 'skip' ? [] : stepsOf(lines.slice(i + 1, end), i + 2), section, subsection, run })
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
    const exit = i < lines.length ? EXIT.exec(lines[i].trim()) : null
    if (exit) {
      step.expect = { kind: 'exit', status: Number(exit[1]), pattern: exit[2] === undefined ? null : new RegExp(exit[2], 's') }
      i++
    } else if (i < lines.length && /^#\s*[{["]/.test(lines[i])) {
      const out = [lines[i++].replace(/^#\s*/, '')]
      while (i < lines.length && /^# {3,}\S/.test(lines[i])) out.push(lines[i++].replace(/^#\s*/, ''))
      step.expect = { kind: 'output', text: out.join('') }
    }
    steps.push(step)
  }
  return steps
}

/** True for `A=x B='y z'` and the like: assignments of literal text only, which cannot fail. */
export function literalAssignments(command: string): boolean {
  return /^(\s*[A-Za-z_][A-Za-z0-9_]*=('[^']*'|"[^"$`]*"|[^\s'"$`;|&()]*)(\s+|$))+$/.test(command) && !/\$\(|`/.test(command)
}

/** Why a step's result is not what its document states, or null when it is. */
export function mismatch(step: Step, res: { status: number; stdout: string }): string | null {
  const e = step.expect
  if (!e) return literalAssignments(step.command) ? null : 'the step states no output and no `# exit N, prints ...`'
  if (e.kind === 'output') {
    if (res.status !== 0) return `exit status ${res.status}, expected 0`
    return outputMatches(e.text, res.stdout) ? null : 'output differs from the one shown'
  }
  if (res.status !== e.status) return `exit status ${res.status}, expected ${e.status}`
  if (e.pattern === null) return res.stdout === '' ? null : 'printed something, expected nothing'
  return e.pattern.test(res.stdout) ? null : `output does not match ${e.pattern}`
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
