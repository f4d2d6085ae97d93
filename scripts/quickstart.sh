#!/usr/bin/env bash
# Builds garrison and the simulation provider into ./bin and writes a config file that
# registers the simulation provider under the name "lxd", so the README's quick start runs
# as written on a machine with no cloud. Usage: scripts/quickstart.sh [DIR] (default ./.data)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mkdir -p "${1:-.data}" && cd "${1:-.data}" && pwd)
mkdir -p bin "$dir/sim-state"
go build -o bin/garrison ./cmd/garrison
go build -o bin/garrison-provider-sim ./providers/sim
bin=$(cd bin && pwd)
cat > "$dir/sim.toml" <<TOML
# Simulation provider: instances are records in state_dir; no machine is started.
state_dir = "$dir/sim-state"
TOML
cat > "$dir/config.toml" <<TOML
[[provider]]
name = "lxd"
provider_type = "external"
description = "simulation provider standing in for LXD (replace with garm-provider-lxd)"
  [provider.external]
  provider_executable = "$bin/garrison-provider-sim"
  config_file = "$dir/sim.toml"
  interface_version = "v0.1.1"
TOML
chmod 600 "$dir/config.toml"
echo "Start the server with:"
echo "  bin/garrison server --data-dir $dir/data --config $dir/config.toml"
