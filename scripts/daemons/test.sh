#!/usr/bin/env bash
# CI step: sets up the real Incus and Docker daemons, runs the provider
# daemon tests (conformance kit + boot checks) and the end-to-end tests
# (internal/testbed TestDaemonE2E*: server + forge simulator + real provider,
# 10 jobs per provider, queued→idle timings) against them and always cleans
# up; fails if the tests or the N-6 network checks fail.
#
#   scripts/daemons/test.sh
#
# GARRISON_E2E_TIMINGS_JSON=FILE also writes the end-to-end timings to FILE;
# GARRISON_E2E_RUNS=N changes the number of jobs per provider (10).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

t0=$SECONDS
if ! "$here/setup.sh" all; then
	"$here/cleanup.sh"
	die "daemon setup failed"
fi
t1=$SECONDS
set -a
# shellcheck disable=SC1090
. "$GARRISON_ENV_FILE"
set +a
# The end-to-end tests run after the provider tests, not beside them: both
# use the same daemons, and sharing them would skew the timings.
(cd "$here/../.." && GARRISON_TEST_DAEMONS=1 go test -race -count=1 -run '^TestDaemon' -v \
	./providers/incus/ ./providers/docker/)
rc=$?
(cd "$here/../.." && GARRISON_TEST_DAEMONS=1 go test -race -count=1 -run '^TestDaemonE2E' -v ./internal/testbed/) || rc=1
t2=$SECONDS
"$here/cleanup.sh" || rc=1
log "daemon tests: setup $((t1 - t0)) s, tests $((t2 - t1)) s, cleanup $((SECONDS - t2)) s, exit $rc"
exit "$rc"
