#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: `start DIR` makes a cluster in DIR (initdb as the
# postgres user when run as root), serves it on a unix socket in DIR only (no TCP), and prints
# the URL of its `postgres` database; `restart DIR` restarts it in immediate mode (a crash and
# recovery); `stop DIR` stops it and removes DIR. Exit 77 where no PostgreSQL server is installed
# (scripts/setup.sh installs Debian's `postgresql`).
set -euo pipefail
cmd="${1:?start|restart|stop}"
dir="${2:?directory}"
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
if [[ -z "$bindir" || ! -x "$bindir/initdb" ]]; then
  echo "throwaway.sh: no PostgreSQL server here (apt-get install postgresql)" >&2
  exit 77
fi
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$cmd" in
  start)
    mkdir -p "$dir"
    if [[ $(id -u) -eq 0 ]]; then chown postgres "$dir"; fi
    as_owner "$bindir/initdb" -D "$dir/data" -U splitprove --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
      -o "-k $dir -c listen_addresses='' -c max_connections=200" start >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://splitprove@/postgres?host=$dir"
    ;;
  restart)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 -m immediate \
      -o "-k $dir -c listen_addresses='' -c max_connections=200" restart >/dev/null
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
