// The rule of acknowledged alerts (issue 34 item 3), needed by the catalog's adapters (applied
// in the transaction that records a transition) and by the alert runtime (coalesced
// notifications): an acknowledged alert's raises, escalations included, are recorded without
// notification; a reset or a clear ends the acknowledgement and is notified. Pure.
export type AlertEventKind = 'raise' | 'reset' | 'ack' | 'clear'

export const notifiesWhileAcknowledged = (kind: AlertEventKind): boolean => kind !== 'raise'
export const endsAcknowledgement = (kind: AlertEventKind): boolean => kind === 'reset' || kind === 'clear'
