# shellcheck shell=bash
# Shared settings and helpers of the daemon scripts (sourced, not run).
# Every path and subnet here is fixed on purpose: see
# /work/shared/design/real-daemons.md §1 (network safety N-1..N-7).

GARRISON_STATE=${GARRISON_STATE:-/var/lib/garrison-daemons}
GARRISON_RUN=${GARRISON_RUN:-/run/garrison-daemons}
GARRISON_IMAGE_CACHE=${GARRISON_IMAGE_CACHE:-/var/cache/garrison-images}
GARRISON_ENV_FILE=$GARRISON_RUN/env

INCUS_BRIDGE=incusbr0
INCUS_SUBNET=10.213.0.1/24            # N-1
INCUS_SOCKET=/var/lib/incus/unix.socket
INCUS_IMAGE_ALIAS=garrison-runner
INCUSD=/usr/libexec/incus/incusd
# A btrfs pool on a loop file and a profile putting the root disk on it
# (real-daemons.md §3.4): instances are snapshots of the unpacked image, so
# creating one takes ~0.1 s instead of unpacking the image each time. The
# end-to-end tests use the profile as their pool's flavor.
INCUS_FAST_POOL=fastpool
INCUS_FAST_PROFILE=garrison-fast

DOCKER_BRIDGE=docker0
DOCKER_BIP=10.216.0.1/24              # N-1
DOCKER_DIR=$GARRISON_STATE/docker
DOCKER_SOCKET=$DOCKER_DIR/docker.sock
DOCKER_IMAGE_REPO=garrison/runner
DOCKER_IMAGE=$DOCKER_IMAGE_REPO:bookworm
# The package's client: a newer static client in /usr/local/bin shadows it.
DOCKER=/usr/bin/docker

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# mirror prints the Debian mirror apt is configured with (never hard-coded).
mirror() {
	awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources
}

# safety_check PHASE fails unless forwarding is off and no NAT rule exists (N-6).
safety_check() {
	local phase=$1 fwd
	fwd=$(sysctl -n net.ipv4.ip_forward)
	[ "$fwd" = 0 ] || die "N-6 ($phase): net.ipv4.ip_forward is $fwd, want 0"
	if command -v nft >/dev/null 2>&1 && nft list ruleset 2>/dev/null | grep -Eiq 'masquerade|snat'; then
		die "N-6 ($phase): nft ruleset contains masquerade/snat"
	fi
	if command -v iptables >/dev/null 2>&1 && iptables -t nat -S 2>/dev/null | grep -Eiq 'masquerade|snat'; then
		die "N-6 ($phase): iptables nat table contains MASQUERADE/SNAT"
	fi
	log "N-6 ($phase): ip_forward=0, no masquerade/snat"
}

# links_check fails if a bridge, veth or tap of a run is left (N-6, after cleanup).
links_check() {
	local left
	left=$(ip -br link | awk '{print $1}' | grep -E "^($INCUS_BRIDGE|$DOCKER_BRIDGE|veth|tap|br-)" || true)
	[ -z "$left" ] || die "N-6 (after cleanup): links left: $(echo "$left" | tr '\n' ' ')"
	log "N-6 (after cleanup): no bridge, veth or tap left"
}

# pid_alive PID reports whether PID runs and is not a zombie (PID 1 reaps late).
pid_alive() {
	local st
	[ -r "/proc/$1/stat" ] || return 1
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# stop_pid NAME PIDFILE sends SIGTERM to the recorded PID and waits (30 s) for it.
stop_pid() {
	local name=$1 file=$2 pid i
	[ -s "$file" ] || return 0
	pid=$(cat "$file")
	if pid_alive "$pid"; then
		log "stopping $name (pid $pid)"
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 300); do pid_alive "$pid" || break; sleep 0.1; done
		if pid_alive "$pid"; then
			log "$name did not stop; SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	rm -f "$file"
}
