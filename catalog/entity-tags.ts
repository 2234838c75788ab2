// Tags of datapoints and devices as set by metadata messages (spec 3, "Metadata messages"):
// every tag association carries the `source` of the message that made it.

export type EntityType = 'device' | 'datapoint'
export interface TagWrite { key: string; value: string }
