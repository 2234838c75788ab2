// The virtual-datapoint runtime in the one module shape (engine/running.ts): started with its
// dependencies, it resumes what the catalog says runs (storage-first, resume.ts); stop() ends
// every pipeline (their state is rebuilt from the store on the next start).
import type { Running } from '../running.ts'
import { VdpRuntime } from './runtime.ts'

export type VdpRuntimeDeps = ConstructorParameters<typeof VdpRuntime>[0]

export async function startVirtualDatapoints(deps: VdpRuntimeDeps): Promise<Running & { runtime: VdpRuntime }> {
  const runtime = new VdpRuntime(deps)
  try {
    await runtime.resume()
  } catch (err) {
    runtime.stopAll()
    throw err
  }
  return { runtime, stop: async () => runtime.stopAll() }
}
