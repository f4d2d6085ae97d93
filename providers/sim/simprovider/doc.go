// Package simprovider implements the "sim" provider: instances that exist
// only as JSON records in a state directory, for tests, demos and load
// experiments.
//
// Configuration (TOML, the file named by GARM_PROVIDER_CONFIG_FILE):
//
//	state_dir    = "/var/lib/garrison-sim"  # required, absolute
//	boot_delay   = "2s"                      # CreateInstance takes this long
//	failure_rate = 0.1                       # probability CreateInstance fails (exit 1)
//	hang         = false                     # CreateInstance never returns
//
// A pool's extra specs may override the last three with the keys
// "boot_delay" (string, Go duration), "failure_rate" (number, 0..1) and
// "hang" (bool). They affect CreateInstance only.
//
// Each record is <state_dir>/instances/<provider_id>.json, tagged with the
// controller and pool ids and holding the full BootstrapInstance, so that a
// later component can boot a real runner from it. provider_id is "sim-"
// followed by the instance name; every command also accepts the bare name.
// Mutations are serialised by an flock on <state_dir>/.lock and records are
// replaced by atomic rename, so concurrent invocations are safe.
package simprovider
