// What the parts of the composition root's list (server/runtimes.ts) share: the settings, and
// what each started part gives the parts after it.
import type { Logger } from 'pino'
import type { buildApp } from '../api/app.ts'
import type { Catalog } from '../catalog/index.ts'
import type { AlertRuntime } from '../engine/alerts/runtime.ts'
import type { AnalyticsService } from '../engine/analytics/service.ts'
import type { ComponentLibrary } from '../engine/analytics/library.ts'
import type { Documents } from '../engine/blobs/documents.ts'
import type { WebhookAddressPolicy } from '../engine/notify/address-policy.ts'
import type { ObservationPath } from '../engine/observation-path/port.ts'
import type { ProjectRuntimes } from '../engine/project-runtimes.ts'
import type { SetpointService } from '../engine/setpoints/service.ts'
import type { ControlsAppService } from '../engine/controls/service.ts'
import type { VdpRuntime } from '../engine/vdp/runtime.ts'
import type { DatapointResolver } from '../ingest/datapoint-resolver.ts'
import type { Broker } from '../ingest/mqtt/broker.ts'
import type { Config } from './config.ts'
import type { StartSeams } from './observation-path.ts'
import type { LintelMetrics } from './prometheus.ts'

/** What the parts share: the settings, then what each started part gives the later ones. */
export interface Wiring {
  readonly config: Config
  readonly logger: Logger
  readonly seams: StartSeams
  readonly library: ComponentLibrary
  readonly projectRuntimes: ProjectRuntimes
  readonly webhookPolicy: WebhookAddressPolicy
  /** The operator's Prometheus metrics of this process (served only with LINTEL_METRICS_PORT). */
  readonly metrics: LintelMetrics
  catalog?: Catalog
  path?: ObservationPath
  resolver?: DatapointResolver
  vdp?: VdpRuntime
  alerts?: AlertRuntime
  analytics?: AnalyticsService
  broker?: Broker
  caFile?: string
  /** Publishes setpoints into the broker cluster from a process without the broker role. */
  clusterPublisher?: Pick<Broker, 'publish'>
  setpoints?: SetpointService
  controls?: ControlsAppService
  documents?: Documents
  storageUrl?: string
  app?: Awaited<ReturnType<typeof buildApp>>
  address?: string
  /** Where GET /metrics listens, when the operator turned it on. */
  metricsAddress?: string
}

/** A part that runs before `name` gave what it needs: a mistake in the list, said plainly. */
export function need<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`composition: ${name} is needed before it was started`)
  return value
}
