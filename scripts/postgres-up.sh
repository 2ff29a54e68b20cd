#!/usr/bin/env bash
# Installs PostgreSQL from Debian's packages when missing, starts a cluster and creates the
# gateway's role and database. Prints the DATABASE_URL to use. Idempotent.
set -euo pipefail
PGUSER_NAME=${PGUSER_NAME:-gateway}
PGDB_NAME=${PGDB_NAME:-gateway}
PGPORT=${PGPORT:-5432}

if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  echo "installing postgresql" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
fi
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

if ! "$PGBIN/pg_isready" -h 127.0.0.1 -p "$PGPORT" -q; then
  if command -v pg_lsclusters >/dev/null 2>&1 && [ -n "$(pg_lsclusters -h 2>/dev/null)" ]; then
    read -r version cluster _ < <(pg_lsclusters -h | head -n 1)
    pg_ctlcluster "$version" "$cluster" start >&2 || true
  fi
fi
if ! "$PGBIN/pg_isready" -h 127.0.0.1 -p "$PGPORT" -q; then
  # No packaged cluster (or it would not start): run a private one.
  DATADIR=${PGDATA_DIR:-/tmp/gateway-pg}
  if [ ! -f "$DATADIR/PG_VERSION" ]; then
    mkdir -p "$DATADIR" && chown postgres "$DATADIR"
    su postgres -c "$PGBIN/initdb -D $DATADIR -A trust -U postgres" >&2
  fi
  su postgres -c "$PGBIN/pg_ctl -D $DATADIR -o '-p $PGPORT -k /tmp' -l $DATADIR/log -w start" >&2
fi
for _ in $(seq 1 30); do "$PGBIN/pg_isready" -h 127.0.0.1 -p "$PGPORT" -q && break; sleep 1; done

as_postgres() { su postgres -c "psql -h /var/run/postgresql -p $PGPORT -tAc \"$1\"" 2>/dev/null || su postgres -c "psql -h /tmp -p $PGPORT -tAc \"$1\""; }
if [ "$(as_postgres "select 1 from pg_roles where rolname='$PGUSER_NAME'")" != "1" ]; then
  as_postgres "create role $PGUSER_NAME login superuser password '$PGUSER_NAME'" >&2
fi
if [ "$(as_postgres "select 1 from pg_database where datname='$PGDB_NAME'")" != "1" ]; then
  as_postgres "create database $PGDB_NAME owner $PGUSER_NAME" >&2
fi
echo "postgres://$PGUSER_NAME:$PGUSER_NAME@127.0.0.1:$PGPORT/$PGDB_NAME"
