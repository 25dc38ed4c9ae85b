# Sourced by the scripts that test TLS: certificates made with openssl into the folder $tls
# (the caller sets it), P-256 keys, valid two days.
#
#   authority NAME                  a certificate authority: NAME.key, NAME.crt
#   signed NAME SUBJECT EXTENSIONS [AUTHORITY]
#                                   a key and a certificate the authority AUTHORITY (`ca`
#                                   unless given) signs (version 3: webpki refuses the
#                                   older ones, which have no extensions)
#
#   certs_for_localhost CLIENT       the set the TLS tests use: the authorities `ca` and
#                                   `other-ca`; `server`, made out to `localhost` only;
#                                   `client`, whose subject is CLIENT; and `stranger`, a
#                                   client `other-ca` signs
#
# Keys are readable by their owner only (a PostgreSQL server refuses any other).
certs_quiet() { "$@" > "$tls/openssl.log" 2>&1 || { cat "$tls/openssl.log"; return 1; }; }
authority() {
  certs_quiet openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=agentspec test $1" -keyout "$tls/$1.key" -out "$tls/$1.crt"
  chmod 600 "$tls/$1.key"
}
signed() {
  certs_quiet openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "$2" \
    -keyout "$tls/$1.key" -out "$tls/$1.csr"
  printf '%s\n' "$3" > "$tls/$1.ext"
  local by=${4:-ca}
  certs_quiet openssl x509 -req -in "$tls/$1.csr" -CA "$tls/$by.crt" -CAkey "$tls/$by.key" \
    -CAcreateserial -days 2 -extfile "$tls/$1.ext" -out "$tls/$1.crt"
  chmod 600 "$tls/$1.key"
}
certs_for_localhost() {
  authority ca
  authority other-ca
  signed server /CN=localhost $'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth'
  signed client "/CN=$1" "extendedKeyUsage=clientAuth"
  signed stranger /CN=stranger "extendedKeyUsage=clientAuth" other-ca
}
