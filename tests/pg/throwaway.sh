#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: `start DIR` makes a cluster in DIR (initdb as the
# postgres user when run as root), serves it on a unix socket in DIR only (no TCP), and prints
# the URL of its `postgres` database; `restart DIR` restarts it in immediate mode (a crash and
# recovery); `stop DIR` stops it and removes DIR. Exit 77 where no PostgreSQL server is installed
# (scripts/setup.sh installs Debian's `postgresql`). SPLITPROVE_PG_BINDIR names another server's
# bin directory; SPLITPROVE_PG_OPTS adds server settings ("-c log_min_duration_statement=0").
set -euo pipefail
cmd="${1:?start|restart|stop}"
dir="${2:?directory}"
bindir="${SPLITPROVE_PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)}"
opts="-k $dir -c listen_addresses='' -c max_connections=200 ${SPLITPROVE_PG_OPTS:-}"
if [[ -z "$bindir" || ! -x "$bindir/initdb" ]]; then
  echo "throwaway.sh: no PostgreSQL server here (apt-get install postgresql)" >&2
  exit 77
fi
# The server refuses to run as root: as root it runs as the postgres user (or nobody, where there
# is none).
owner=postgres
id postgres >/dev/null 2>&1 || owner=nobody
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u "$owner" -- "$@"; else "$@"; fi
}
case "$cmd" in
  start)
    mkdir -p "$dir"
    if [[ $(id -u) -eq 0 ]]; then chown "$owner" "$dir"; fi
    as_owner "$bindir/initdb" -D "$dir/data" -U splitprove --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 -o "$opts" start >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://splitprove@/postgres?host=$dir"
    ;;
  restart)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 -m immediate -o "$opts" restart >/dev/null
    ;;
  stop)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *)
    echo "throwaway.sh: start|restart|stop DIR" >&2
    exit 2
    ;;
esac
