#!/usr/bin/env bash
# A throw-away local PostgreSQL server for the tests of the ACADEMY's PostgreSQL store.
#   scripts/pg-test-server.sh start DIR [PORT]   → prints the URL (postgres://…) on stdout
#   scripts/pg-test-server.sh stop DIR
# Uses Debian's postgresql package (PostgreSQL 15: /usr/lib/postgresql/15/bin); installs it with
# apt-get when missing and running as root on CI (CI=true). Listens on 127.0.0.1 only, trust
# authentication, data in DIR. Run as root, the server runs as the `postgres` system user.
# Exit 2 (and a message on stderr) when no server can be started.
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?data directory}
port=${3:-54329}
bin=""
for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && bin=$d
done
if [ -z "$bin" ] && [ "${CI:-}" = "true" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) >&2 || true
    for d in /usr/lib/postgresql/*/bin; do
        [ -x "$d/initdb" ] && bin=$d
    done
fi
if [ -z "$bin" ]; then
    echo "pg-test-server: no PostgreSQL installed (Debian package postgresql)" >&2
    exit 2
fi
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}
case "$cmd" in
start)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    if [ ! -f "$dir/PG_VERSION" ]; then
        as_owner "$bin/initdb" -D "$dir" -A trust -U ets --no-sync >"$dir.initdb.log" 2>&1 ||
            { echo "pg-test-server: initdb failed (see $dir.initdb.log)" >&2; exit 2; }
    fi
    as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 30 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=50" start >/dev/null 2>&1 ||
        { echo "pg-test-server: the server did not start (see $dir/server.log)" >&2; exit 2; }
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U ets ets_test 2>/dev/null || true
    echo "postgres://ets@127.0.0.1:$port/ets_test"
    ;;
stop)
    as_owner "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
    ;;
*)
    echo "usage: $0 start|stop DIR [PORT]" >&2
    exit 1
    ;;
esac
