#!/usr/bin/env bash
# Where the last tap run's time went (CI time budget, issue: CI under 30 minutes), from the
# TAP tap keeps per test file in .tap/test-results: each file's duration (its closing
# `# time=`) and end (the file's mtime), hence its start. Prints the slowest files and the
# seconds during which fewer files ran than tap's jobs allow (the run's tail and gaps: what a
# different order or more jobs could win back). Only the files of the last run count: those
# written after tap's before step made this run's TLS pair (.tap/lintel-tls).
# Usage: bash scripts/test-times.sh [how many files, default 15]
set -euo pipefail
cd "$(dirname "$0")/.."
top="${1:-15}"
dir=.tap/test-results
[ -d "$dir" ] || { echo "test-times: no $dir (no tap run here yet)"; exit 0; }
jobs=$(node -p "require('./package.json').tap.jobs ?? require('node:os').availableParallelism()")
since=()
[ -e .tap/lintel-tls ] && since=(-newer .tap/lintel-tls)
find "$dir" -name '*.tap' "${since[@]}" -printf '%T@ %p\n' | while read -r end file; do
  ms=$(tail -n 5 "$file" | sed -n 's/^# time=\([0-9.]*\)ms$/\1/p' | tail -1)
  [ -n "$ms" ] && echo "$end $ms ${file#"$dir/"}"
done | awk -v top="$top" -v jobs="$jobs" '
  { end = $1; dur = $2 / 1000; name = substr($3, 1, length($3) - 4); n++
    s[n] = end - dur; e[n] = end; d[n] = dur; f[n] = name
    if (n == 1 || s[n] < first) first = s[n]; if (n == 1 || e[n] > last) last = e[n] }
  END {
    if (n == 0) { print "test-times: no timed files"; exit }
    printf "test-times: %d files, %.0f s from the first start to the last end, %.0f s of file time, jobs %d\n", n, last - first, sum(d), jobs
    # seconds with fewer than jobs files running, on a 1-second grid
    under = 0; for (t = first; t < last; t += 1) { c = 0; for (i = 1; i <= n; i++) if (s[i] <= t && t < e[i]) c++; if (c < jobs) under++ }
    printf "test-times: %d s with fewer than %d files timed (a file is timed from the end of its imports)\n", under, jobs
    # the slowest files
    for (i = 1; i <= n; i++) order[i] = i
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (d[order[j]] > d[order[i]]) { x = order[i]; order[i] = order[j]; order[j] = x }
    for (k = 1; k <= top && k <= n; k++) { i = order[k]; printf "%8.1f s  from %6.0f s  %s\n", d[i], s[i] - first, f[i] }
  }
  function sum(a,   i, t) { t = 0; for (i = 1; i <= n; i++) t += a[i]; return t }'
