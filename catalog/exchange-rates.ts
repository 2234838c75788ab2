// Exchange rates of currency conversion (spec 1, `currency_system`): set by the operator with
// a validity start (`npx lintel currency set`), read by GET /v2/datapoint/timeseries, which
// applies at each observation the rate valid at its time (engine/currency.ts). Global to the
// installation: a rate is a fact about two currencies, not about a company.

export interface ExchangeRate { base: string; quote: string; validFrom: number; rate: number }
