// Package simprovider implements the "sim" provider: instances that exist as JSON
// records in a state directory, for tests, demos and load experiments — and, with
// boot = "script", instances that really boot a runner as local processes.
//
// Configuration (TOML, the file named by GARM_PROVIDER_CONFIG_FILE):
//
//	state_dir    = "/var/lib/garrison-sim"  # required, absolute
//	boot_delay   = "2s"                      # CreateInstance takes this long
//	failure_rate = 0.1                       # probability CreateInstance fails (exit 1)
//	hang         = false                     # CreateInstance never returns
//	boot         = "record"                  # or "script" (see below)
//	boot_path    = "/usr/local/bin:/usr/bin:/bin"  # PATH of the boot script
//	runner_cache = "/srv/runner"             # optional GARRISON_RUNNER_CACHE (absolute)
//	[boot_env]                               # optional extra variables of the boot script
//	GARRISON_STANDIN_JOB_DURATION = "2s"
//
// A pool's extra specs may override boot_delay, failure_rate and hang with the keys
// "boot_delay" (string, Go duration), "failure_rate" (number, 0..1) and "hang" (bool);
// "rename_suffix" (string) makes the provider name its instances the asked name plus
// the suffix (their provider ids stay sim-<asked name>).
// They affect CreateInstance only.
//
// Each record is <state_dir>/instances/<provider_id>.json, tagged with the
// controller and pool ids and holding the full BootstrapInstance. provider_id is "sim-"
// followed by the instance name; every command also accepts the bare name.
// Mutations are serialised by an flock on <state_dir>/.lock and records are
// replaced by atomic rename, so concurrent invocations are safe.
//
// ListInstances of one pool reads only that pool's records, through an index of
// empty marker files <state_dir>/pools/<pool_id>/<provider_id>. A marker is added
// (under the lock) before its record is written and removed after it is deleted;
// markers left without a record by a crash are skipped and pruned by listings.
// <state_dir>/pools/.index-v1 says the index is complete; a state dir without it
// (from an older version) is indexed once, under the lock, by the first listing of
// a pool. Pool ids that are not plain file names (letters, digits, ".", "_", "-")
// are not indexed: their pools, and ListInstances without a pool id, read every record.
//
// # Script boot
//
// With boot = "script", CreateInstance (after the boot delay and failure draw) renders
// extra_specs.runner_install_template — base64 text/template, normally garrison's
// bootstrap wrapper — against the install context built from the BootstrapInstance,
// as GARM's providers do, writes it as <state_dir>/boot/<provider_id>/install_runner.sh
// and starts it detached: its own session and process group, stdin /dev/null, output in
// boot.log next to it. Its environment is exactly: boot_env, then PATH = boot_path,
// HOME and TMPDIR inside the instance directory, GARRISON_RUNNER_HOME =
// <instance dir>/runner, GARRISON_NO_SYSTEMD=1, GARRISON_RETRY_DELAY=1,
// GARRISON_RUNNER_CACHE = runner_cache (or a path that does not exist, so the host's
// /opt/cache is never used) and GARRISON_SIM_INSTANCE = provider_id. Providers get no
// environment from garrison, so anything else the script needs belongs in boot_env.
// Only Linux instances boot, and the BootstrapInstance must list a runner download for
// the instance's OS and architecture, as with GARM.
//
// The record keeps the process group id. DeleteInstance and RemoveAllInstances send the
// group SIGTERM, then SIGKILL after 5 s, and remove the instance directory; they only
// signal a group while one of its live members carries the instance's
// GARRISON_SIM_INSTANCE (read from /proc), so a recycled group id is never hit.
// Instances report "running" while their record exists; GetInstance notes on stderr
// when the boot processes have exited. Start and Stop only change the recorded status.
package simprovider
