// Helpers for bilingual result texts (spec 3: results in `en` and `de`).
import type { Text } from './types.ts'

export const tx = (en: string, de: string): Text => ({ en, de })

/** A number for a sentence: English with a point, German with a comma. */
export function fmt(x: number, digits = 1): Text {
  if (!Number.isFinite(x)) return { en: 'n/a', de: 'k. A.' }
  const en = x.toFixed(digits)
  return { en, de: en.replace('.', ',') }
}
