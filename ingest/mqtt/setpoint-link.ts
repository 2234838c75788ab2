// The broker's CONTROLS hand-off to the setpoint service (issue 11): NEWSPT out, SPTACK in.
// The engine's service knows no wire format; this link encodes its writes with
// protocol/setpoint-messages.ts, publishes them on the project's CONTROLS topic, and decodes
// the edge's answers from the broker's controls stream (which carries only messages of the
// project's own write accounts with the datapoint in their reach, broker.ts).
import type { Subscription } from 'rxjs'
import type { Catalog } from '../../catalog/index.ts'
import type { SetpointService, SetpointWrite } from '../../engine/setpoints/service.ts'
import { newSetpoint, readSetpointAck, SPTACK } from '../../protocol/setpoint-messages.ts'
import type { Broker } from './broker.ts'

/** The service's publish: NEWSPT on CONTROLS/<group>/<handle> of the project. */
export function setpointPublisher(broker: Pick<Broker, 'publish'>, catalog: Catalog) {
  return async (projectId: number, write: SetpointWrite): Promise<string> => {
    const p = await catalog.projects.settings(projectId)
    const topic = `CONTROLS/${p.load_balancing_group}/${p.project_handle}`
    await broker.publish(topic, Buffer.from(JSON.stringify(newSetpoint(write))))
    return topic
  }
}

/** Feeds SPTACK answers from the broker to the service; other CONTROLS types are not answers. */
export function linkSetpointAnswers(broker: Pick<Broker, 'controls'>, service: SetpointService, onError: (err: unknown) => void): Subscription {
  return broker.controls.subscribe((c) => {
    if (c.message.type !== SPTACK) return
    const read = readSetpointAck(c.message)
    const source = { projectId: c.projectId, username: c.username }
    if (!read.ok) return service.ignoredAnswer(source, read.error)
    service.onAnswer(source, read.ack).catch(onError)
  })
}
