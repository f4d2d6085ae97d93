// Package dockerprovider implements garrison's Docker provider: each runner
// is a container of the pool's image on the project's own bridge network,
// labelled with the controller and pool ids, whose entry runs the rendered
// install script once and then idles until the manager deletes it.
//
// Configuration (TOML, the file named by GARM_PROVIDER_CONFIG_FILE):
//
//	host        = "unix:///var/run/docker.sock" # default: DOCKER_HOST, else the default socket
//	tls_ca_cert = ""                            # PEM files for tcp:// hosts with TLS
//	tls_cert    = ""
//	tls_key     = ""
//	network     = "bridge"                      # never "host"; default "bridge"
//	stop_timeout_seconds = 10
//
//	[flavors.small]                             # adds to or overrides the built-in table
//	cpus = 1.0
//	memory_mib = 1024
//
// Built-in flavors (see README.md): "" (no limits), small 1 CPU/1 GiB,
// medium 2/4 GiB, large 4/8 GiB, xlarge 8/16 GiB. Extra specs "cpus" and
// "memory_mib" override the flavor's values.
package dockerprovider
