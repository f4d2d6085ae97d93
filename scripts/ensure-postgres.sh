#!/usr/bin/env bash
# Makes sure the local PostgreSQL (127.0.0.1:5432, trust auth) is running, starting the
# Debian cluster if it is installed but stopped. Without PostgreSQL the tests that need it
# skip with a message; everything else still runs.
set -u
if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  exit 0
fi
if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
  version=$(ls /etc/postgresql | head -n 1)
  pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  for _ in $(seq 1 30); do
    pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null && exit 0
    sleep 1
  done
fi
echo "warning: PostgreSQL is not running on 127.0.0.1:5432; PostgreSQL tests will fail or skip" >&2
exit 0
