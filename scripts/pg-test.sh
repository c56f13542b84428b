#!/usr/bin/env bash
# Runs a command next to a throwaway PostgreSQL server (Debian's `postgresql` package, which .ci/run installs):
# initdb in a temporary directory as an unprivileged user (a system user `kuatia-pg` when run as root), listening on
# a free 127.0.0.1 port only, stopped and removed when the command ends. The command gets the server's URL in
# KUATIA_TEST_DATABASE_URL (superuser `postgres`, trust auth on loopback; each test creates its own database) and the
# CA of its TLS certificate in KUATIA_TEST_DATABASE_CA.
#
#   bash scripts/pg-test.sh cargo test -p kuatia-server --test pg
#
# If the server cannot start, this script fails: tests that need PostgreSQL never skip.
set -euo pipefail

bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "pg-test: PostgreSQL is not installed (apt-get install postgresql)" >&2
  exit 1
fi

dir="$(mktemp -d "${TMPDIR:-/tmp}/kuatia-pg.XXXXXX")"
as=()
if [ "$(id -u)" -eq 0 ]; then
  # PostgreSQL refuses to run as root.
  id -u kuatia-pg >/dev/null 2>&1 ||
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin kuatia-pg
  chown kuatia-pg "$dir"
  as=(runuser -u kuatia-pg --)
fi

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

stop() {
  "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT

# TLS like a managed database: a test CA and a certificate for 127.0.0.1 (clients may still connect without TLS;
# KUATIA_TEST_DATABASE_CA lets tests require it and verify the server).
(
  cd "$dir"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=kuatia pg-test CA" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign >/dev/null 2>&1
  openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=127.0.0.1" >/dev/null 2>&1
  printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >server.ext
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 \
    -extfile server.ext >/dev/null 2>&1
  chmod 600 server.key
  [ ${#as[@]} -eq 0 ] || chown kuatia-pg server.key server.pem
) || { echo "pg-test: making the test certificates failed" >&2; exit 1; }

"${as[@]}" "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; echo "pg-test: initdb failed" >&2; exit 1; }
# Throwaway data: no fsync. Enough connections for three nodes, their pools and the tests' own clients.
"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c ssl=on -c ssl_cert_file=$dir/server.pem -c ssl_key_file=$dir/server.key" >/dev/null ||
  { cat "$dir/server.log" >&2; echo "pg-test: PostgreSQL did not start" >&2; exit 1; }

export KUATIA_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
export KUATIA_TEST_DATABASE_CA="$dir/ca.pem"
echo "pg-test: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
"$@"
