# Sourced by the scripts that need a PostgreSQL server: Debian's package (installed when
# missing), a throwaway cluster. Sourcing it makes a scratch folder, $work, removed at exit
# with the server stopped.
#
#   pg_start PORT PASSWORD [OPTION...]
#
# makes the cluster in $work/pg, with the superuser `postgres` whose password is PASSWORD
# (md5), and starts it on localhost:PORT with the server options given (`-c ssl=on`, ...).
# Before it starts, the function `pg_configure` runs when the caller defines one, given the
# cluster's folder (to write certificates or pg_hba.conf there). As root, the server runs as
# the user `postgres` ($as_pg prefixes a command with it).
work=$(mktemp -d)
trap 'pg_stop; rm -rf "$work"' EXIT
pg_ctl=
as_pg=
if [[ $(id -u) -eq 0 ]]; then as_pg="runuser -u postgres --"; fi

pg_start() {
  local port=$1 password=$2
  shift 2
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1 || true)
  if [[ -z $pg_bin ]]; then
    echo "installing PostgreSQL (Debian's package)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql > /dev/null 2>&1 \
      || { apt-get update -qq > /dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql > /dev/null; }
    pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    # the package may have started its own cluster on 5432: the scripts' clusters need it
    pg_lsclusters -h 2> /dev/null | while read -r version name _ status _; do
      if [[ $status == online ]]; then pg_ctlcluster "$version" "$name" stop || true; fi
    done
  fi
  chmod 755 "$work"
  mkdir "$work/pg"
  [[ -n $as_pg ]] && chown postgres "$work/pg"
  echo "$password" > "$work/pg.pw"
  [[ -n $as_pg ]] && chown postgres "$work/pg.pw"
  $as_pg "$pg_bin/initdb" -D "$work/pg" -U postgres --auth=md5 --pwfile="$work/pg.pw" > "$work/initdb.log" 2>&1 \
    || { cat "$work/initdb.log"; return 1; }
  if declare -F pg_configure > /dev/null; then pg_configure "$work/pg"; fi
  pg_ctl=$pg_bin/pg_ctl
  $as_pg "$pg_ctl" -D "$work/pg" -o "-c listen_addresses=localhost -p $port -k $work/pg $*" \
    -l "$work/pg/server.log" -w start > /dev/null \
    || { cat "$work/pg/server.log"; echo "PostgreSQL did not start on localhost:$port (is the port taken?)" >&2; return 1; }
}

pg_stop() {
  if [[ -n $pg_ctl ]]; then $as_pg "$pg_ctl" -D "$work/pg" -m immediate stop > /dev/null 2>&1 || true; fi
}
