#!/usr/bin/env bash
# Prepares the README's Quick start in the current directory (the repository root when
# you follow the README): builds bin/garrison, bin/garrison-dev (the forge simulator),
# bin/garrison-provider-sim and bin/garrison-standin-runner, and writes
#   .data/config.toml  server config: the simulation provider registered as "lxd", and
#                      webhook management on, so garrison installs the repository's webhook;
#   .data/sim.toml     simulation provider config: each instance boots as local processes
#                      that run garrison's real install script and the stand-in runner.
# Nothing is fetched from the internet once the Go modules are in the module cache.
# Usage: scripts/quickstart.sh   (run it again to rebuild; rm -rf .data to start over)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$PWD
dir=$out/.data
mkdir -p "$out/bin" "$dir/sim-state"
(
	cd "$src"
	go build -o "$out/bin/garrison" ./cmd/garrison
	go build -o "$out/bin/garrison-dev" ./cmd/garrison-dev
	go build -o "$out/bin/garrison-standin-runner" ./cmd/garrison-standin-runner
	go build -o "$out/bin/garrison-provider-sim" ./providers/sim
)
cat >"$dir/sim.toml" <<TOML
# Simulation provider: each instance is a process group on this machine that runs the
# rendered runner install script; no machine is started.
state_dir = "$dir/sim-state"
boot = "script"

[boot_env]
# An idle stand-in runner waits this long for a job, then exits.
GARRISON_STANDIN_IDLE_TIMEOUT = "1h"
TOML
cat >"$dir/config.toml" <<TOML
[default]
enable_webhook_management = true

[[provider]]
name = "lxd"
provider_type = "external"
description = "simulation provider standing in for LXD (replace with garm-provider-lxd)"
  [provider.external]
  provider_executable = "$out/bin/garrison-provider-sim"
  config_file = "$dir/sim.toml"
  interface_version = "v0.1.1"
TOML
chmod 600 "$dir/config.toml"
echo "Built bin/garrison, bin/garrison-dev, bin/garrison-provider-sim and bin/garrison-standin-runner; wrote .data/config.toml and .data/sim.toml."
