#!/usr/bin/env bash
# TLS to PostgreSQL end to end (agentspec-runtime's feature `postgres`): makes a certificate
# authority (openssl), a certificate it signs for the server, made out to `localhost` only,
# a client certificate for the role `certuser`, and a second authority that signs nothing
# here; starts a throwaway PostgreSQL with TLS on localhost:5433 (scripts/pg.sh), where
# `certuser` logs in with its certificate and every other role with its password, over TLS
# or not; then runs the runtime's ignored test `postgres`, which keeps a transform's cache
# there in each sslmode and checks that the wrong host name, the wrong authority and a
# missing client certificate are refused.
#
# The test runs from the build `cargo test --workspace` makes (nothing compiles again after
# the test suite).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/pg.sh

tls=$work/tls
mkdir "$tls"
source scripts/certs.sh
certs_for_localhost certuser

pg_configure() {
  cp "$tls/server.crt" "$tls/server.key" "$tls/ca.crt" "$1/"
  [[ -n $as_pg ]] && chown postgres "$1/server.crt" "$1/server.key" "$1/ca.crt"
  cat > "$1/pg_hba.conf" <<'HBA'
local all all md5
hostssl all certuser 127.0.0.1/32 cert
hostssl all certuser ::1/128 cert
hostssl all all 127.0.0.1/32 md5
hostssl all all ::1/128 md5
hostnossl all all 127.0.0.1/32 md5
hostnossl all all ::1/128 md5
HBA
}
port=5433
password=tls-password
pg_start "$port" "$password" -c ssl=on -c ssl_cert_file=server.crt \
  -c ssl_key_file=server.key -c ssl_ca_file=ca.crt
PGPASSWORD=$password "$pg_bin/psql" -q -h localhost -p "$port" -U postgres -d postgres \
  -v ON_ERROR_STOP=1 > /dev/null <<'SQL'
CREATE ROLE certuser LOGIN;
CREATE TABLE summaries (cache_key text PRIMARY KEY, cache_content text,
  created_at float8, last_used_at float8);
GRANT ALL ON summaries TO certuser;
SQL

AGENTSPEC_PG_TLS=$tls AGENTSPEC_PG_TLS_PORT=$port AGENTSPEC_PG_TLS_PASSWORD=$password \
  cargo test --workspace --locked --quiet --test suite -- --ignored --exact \
  postgres::a_cache_in_postgresql_is_reached_over_tls_in_each_sslmode
