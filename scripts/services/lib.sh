# Shared helpers of the service scripts (scripts/services/*.sh). Sourced, not run.
# Each service keeps its state (pid file, log, data) in one directory and is started on
# loopback, stopped by the process id in its pid file, never by name.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Downloaded server jars, git-ignored (.gitignore: .cache/).
SERVICES_CACHE="${LINTEL_SERVICES_CACHE:-$REPO_ROOT/.cache/services}"

die() { echo "$SERVICE_NAME: $*" >&2; exit 1; }
say() { echo "$SERVICE_NAME: $*" >&2; }

# True when the pid file names a live process.
pid_alive() {
  local pidfile=$1 pid
  [ -f "$pidfile" ] || return 1
  pid=$(cat "$pidfile" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# True when something accepts TCP connections on 127.0.0.1:$1.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Stops the process in the pid file: TERM, wait up to $2 seconds, then KILL. Idempotent.
stop_pidfile() {
  local pidfile=$1 wait_s=${2:-30} pid i
  if ! pid_alive "$pidfile"; then
    rm -f "$pidfile"
    say "not running"
    return 0
  fi
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < wait_s * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "pid $pid did not stop in ${wait_s}s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$pidfile"
  say "stopped (pid $pid)"
}

# Prints the last lines of a log file to stderr.
log_tail() {
  local log=$1 n=${2:-40}
  [ -f "$log" ] || return 0
  echo "---- last $n lines of $log ----" >&2
  tail -n "$n" "$log" >&2
  echo "----" >&2
}
