#!/usr/bin/env bash
# A throw-away local PostgreSQL server for the tests of the ACADEMY's PostgreSQL store.
#   scripts/pg-test-server.sh start DIR [PORT]   → prints the URL (postgres://…) on stdout
#   scripts/pg-test-server.sh stop DIR
# Uses Debian's postgresql package (/usr/lib/postgresql/N/bin, the newest N), or the directory
# named by ETS_PG_BINDIR (which must hold initdb and pg_ctl; a directory without them means "no
# server": the tests then skip, which is how that path is tested). On CI (CI=true) a missing
# package is installed with apt-get, as root or with password-less sudo. Listens on 127.0.0.1
# only, trust authentication, data in DIR. Run as root, the server runs as the `postgres` user.
# Exit 2 (and a message on stderr) when no server can be started.
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?data directory}
port=${3:-54329}
find_bin() {
    bin=""
    if [ -n "${ETS_PG_BINDIR:-}" ]; then
        [ -x "$ETS_PG_BINDIR/initdb" ] && [ -x "$ETS_PG_BINDIR/pg_ctl" ] && bin=$ETS_PG_BINDIR
        return 0
    fi
    for d in /usr/lib/postgresql/*/bin; do
        [ -x "$d/initdb" ] && bin=$d
    done
    return 0
}
find_bin
if [ -z "$bin" ] && [ -z "${ETS_PG_BINDIR:-}" ] && [ "${CI:-}" = "true" ] && command -v apt-get >/dev/null; then
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        if sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo="no"; fi
    fi
    if [ "$sudo" != "no" ]; then
        echo "pg-test-server: installing Debian's postgresql package (CI)" >&2
        ($sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null) >&2 || true
        find_bin
    fi
fi
if [ -z "$bin" ]; then
    if [ -n "${ETS_PG_BINDIR:-}" ]; then
        echo "pg-test-server: no initdb and pg_ctl in ETS_PG_BINDIR=$ETS_PG_BINDIR" >&2
    else
        echo "pg-test-server: no PostgreSQL installed (Debian package postgresql)" >&2
    fi
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
