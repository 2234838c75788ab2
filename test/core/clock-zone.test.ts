// Local time of the analysis clock against luxon's own conversion, across both DST changes.
import t from 'tap'
import { DateTime } from 'luxon'
import { zoneCalendar as clock } from '../../core/clock/zone.ts'

t.test('local time and midnights in Europe/Berlin and UTC', async (t) => {
  for (const zone of ['Europe/Berlin', 'UTC', 'America/New_York']) {
    const c = clock(zone)
    let bad = 0
    for (let ms = Date.UTC(2024, 2, 29); ms < Date.UTC(2024, 10, 5); ms += 97 * 60_000) {
      const l = DateTime.fromMillis(ms, { zone })
      const got = c.at(ms * 1000)
      if (got.weekday !== l.weekday || got.minute !== l.hour * 60 + l.minute) bad++
      const mid = l.startOf('day').toMillis() * 1000
      if (c.midnight(got.day) !== mid) bad++
    }
    t.equal(bad, 0, zone)
  }
  t.same(clock('UTC').at(Date.UTC(2024, 0, 1, 7, 30) * 1000), { weekday: 1, minute: 450, day: 19723 })
})
