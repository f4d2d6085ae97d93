#!/usr/bin/env bash
# CI step: sets up the real Incus and Docker daemons, runs the provider
# daemon tests (conformance kit + boot checks) against them and always
# cleans up; fails if the tests or the N-6 network checks fail.
#
#   scripts/daemons/test.sh
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
(cd "$here/../.." && GARRISON_TEST_DAEMONS=1 go test -race -count=1 -run '^TestDaemon' -v \
	./providers/incus/ ./providers/docker/)
rc=$?
t2=$SECONDS
"$here/cleanup.sh" || rc=1
log "daemon tests: setup $((t1 - t0)) s, tests $((t2 - t1)) s, cleanup $((SECONDS - t2)) s, exit $rc"
exit "$rc"
