// Package uitest drives garrison's web UI in a real headless Chromium (Debian's chromium,
// installed by scripts/ensure-chromium.sh) against an in-process server, the forge
// simulator and the simulation provider (internal/testbed): first run, login, adding
// credentials and a repository, creating a pool, and a job watched from queued to
// completed, with screenshots saved under artifacts/ui/.
//
// The tests run only with GARRISON_UI_TEST=1 (.ci/run sets it); otherwise they skip at
// once. The package holds tests only.
package uitest
