#!/usr/bin/env bash
# Make sure a PostgreSQL server answers on 127.0.0.1:5432 (tests fall back to a throwaway cluster
# when none does, but CI and developers should test against the machine's server when there is one).
set -euo pipefail

if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "PostgreSQL is not running on 127.0.0.1:5432; tests will start a throwaway cluster" >&2
  exit 0
fi
version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n1 || true)"
if [ -z "$version" ]; then
  version="$(ls /usr/lib/postgresql | sort -V | tail -n1)"
  pg_createcluster "$version" main -- --auth=trust
fi
pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
for _ in $(seq 1 60); do
  pg_isready -q -h 127.0.0.1 -p 5432 && exit 0
  sleep 0.5
done
echo "PostgreSQL did not start on 127.0.0.1:5432; tests will start a throwaway cluster" >&2
