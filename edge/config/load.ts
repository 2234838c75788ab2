// Reads the agent's configuration file (JSON or YAML, by its extension; .yaml/.yml is YAML,
// anything else JSON) and checks it (schema.ts). Relative paths in the file (broker.ca,
// state_dir) are taken from the file's folder, so a config and its CA file can move together.
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { JSON_SCHEMA, load as loadYaml } from 'js-yaml'
import { checkEdgeConfig, type EdgeConfig } from './schema.ts'

export function loadEdgeConfig(file: string): { config: EdgeConfig; errors: [] } | { errors: string[] } {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    return { errors: [`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`] }
  }
  let doc: unknown
  try {
    doc = /\.ya?ml$/i.test(file) ? loadYaml(text, { schema: JSON_SCHEMA }) : JSON.parse(text)
  } catch (err) {
    return { errors: [`${file}: not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${(err as Error).message.split('\n')[0]}`] }
  }
  const checked = checkEdgeConfig(doc)
  if (checked.errors.length > 0) return checked
  const { config } = checked as { config: EdgeConfig }
  const base = dirname(resolve(file))
  config.state_dir = resolve(base, config.state_dir)
  if (config.broker.ca) config.broker.ca = resolve(base, config.broker.ca)
  return { config, errors: [] }
}
