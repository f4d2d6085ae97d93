// Package standin is a stand-in for the GitHub Actions runner and the Gitea act_runner,
// as far as garrison and the forge simulator (internal/forgesim) can tell: it registers
// (or uses JIT credential files), takes one matching job from the simulator, reports it
// started, "runs" it for a while, completes it with conclusion success and exits. It lets
// the whole bootstrap loop run offline, unprivileged, on one machine.
//
// # Modes
//
// One executable, the mode is the first argument (see Main):
//
//	config --url U --token T --name N --labels a,b [--no-default-labels] [--ephemeral] [--runnergroup G]
//	                     GitHub config.sh: registers with the simulator's
//	                     POST /_sim/runners/register and writes .runner (with agentId) and
//	                     .credentials (the runner secret).
//	config remove        forgets the local registration (deletes .runner and .credentials).
//	run [--once]         GitHub run.sh: reads .runner (ServerUrl/serverUrl) and .credentials
//	                     (Data.ClientId) — written by config or fetched as JIT files — and
//	                     runs one job.
//	register --instance U --token T --name N --labels a,b [--ephemeral] [--no-interactive]
//	                     Gitea act_runner register: the simulator's Register RPC; writes
//	                     .runner with id, token and address.
//	daemon [--once]      Gitea act_runner daemon: runs one job.
//
// Every mode takes --dir (default: the working directory; the shims pass their own
// directory). The run modes take --idle-timeout (GARRISON_STANDIN_IDLE_TIMEOUT, default
// 2m): how long to wait for a matching job before exiting with ExitIdle; and
// --job-duration (GARRISON_STANDIN_JOB_DURATION, default 1s): how long a job "runs" when
// the job itself does not say (a "duration" field, a Go duration string, in the
// simulator's job JSON). Logs go to stdout.
//
// # Packaging
//
// Tarball builds the GitHub-style runner archive around the stand-in binary: config.sh,
// run.sh, svc.sh, env.sh, bin/runsvc.sh, bin/installdependencies.sh and
// bin/garrison-standin-runner. For Gitea the download is the binary itself: garrison's
// install script saves a non-archive download as gitea-runner and calls
// "gitea-runner register …" and "gitea-runner daemon --once".
package standin
