#!/usr/bin/env bash
# Manual check (not in CI): drives Debian's LXD 5.0 (`lxd` package) with the
# Incus provider. Installs lxd, starts it by hand, initialises it with an
# explicit preseed (bridge lxdbr0 on the fixed subnet 10.214.0.1/24, no NAT,
# no routing, no IPv6, dir pool; never `lxd init --auto`/`--minimal`),
# imports the cached runner image of ../image.sh, creates the flavor profile
# garrison-small, runs `garrison-dev provider check` and the GARRISON_TEST_LXD
# tests of providers/incus, then removes everything it created (instances,
# image, profile, pool, network, daemon, state) and, with --purge, the
# package. N-6 checks before and after (real-daemons.md §1).
#
#   scripts/daemons/lxd/try.sh [--purge] [--provider EXE]
#
# --provider EXE runs a different provider build instead of ./providers/incus.
# Results: providers/incus/README.md, "LXD".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
# shellcheck source=../lib.sh
. "$here/../lib.sh"

LXD_BRIDGE=lxdbr0
LXD_SUBNET=10.214.0.1/24 # N-1 (the LXC subnet; LXD is not run beside an LXC test)
LXD_SOCKET=/var/lib/lxd/unix.socket
LXD_FLAVOR=garrison-small
LXD_RUN=/run/garrison-lxd
LXD_LOG=/var/log/lxd

purge=false
exe=
while [ $# -gt 0 ]; do
	case $1 in
	--purge) purge=true ;;
	--provider) exe=$2; shift ;;
	*) die "usage: $0 [--purge] [--provider EXE]" ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || die "run as root"
if pgrep -f scripts/daemons/test.sh >/dev/null; then
	die "a daemon test run (scripts/daemons/test.sh) is active; try again when it has finished"
fi

cleanup() {
	log "cleanup"
	if [ -S "$LXD_SOCKET" ] && lxd waitready --timeout=1 >/dev/null 2>&1; then
		local i
		for i in $(lxc list -f csv -c n 2>/dev/null); do lxc delete -f "$i"; done
		for i in $(lxc image list -f csv -c f 2>/dev/null); do lxc image delete "$i"; done
		lxc profile delete "$LXD_FLAVOR" >/dev/null 2>&1
		lxc profile device remove default root >/dev/null 2>&1
		lxc profile device remove default eth0 >/dev/null 2>&1
		for i in $(lxc storage list -f csv -c n 2>/dev/null); do lxc storage delete "$i"; done
		lxc network delete "$LXD_BRIDGE" 2>/dev/null
		lxd shutdown --timeout=30 2>/dev/null
	fi
	stop_pid lxd "$LXD_RUN/lxd.pid"
	if command -v nft >/dev/null && nft list table inet lxd >/dev/null 2>&1; then
		nft delete table inet lxd
	fi
	ip link show "$LXD_BRIDGE" >/dev/null 2>&1 && ip link del "$LXD_BRIDGE"
	rm -rf /var/lib/lxd/* "${LXD_LOG:?}"/* "$LXD_RUN" /run/lxd
	if $purge; then
		log "purging lxd"
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q lxd lxd-client libdqlite0 libraft2 >/dev/null 2>&1
		rm -rf /var/lib/lxd
		getent passwd _lxd >/dev/null && userdel _lxd
		getent group lxd >/dev/null && groupdel lxd
		sed -i '/^_lxd:1001000000:10000001$/d; /^root:1001000000:10000001$/d' /etc/subuid /etc/subgid
	fi
	left=$(ip -br link | awk '{print $1}' | grep -E "^($LXD_BRIDGE|veth|tap)" || true)
	[ -z "$left" ] || { printf 'error: links left: %s\n' "$left" >&2; rc=1; }
	(safety_check "after cleanup") || rc=1
}

rc=0
safety_check before
if ! dpkg-query -W -f='${Status}' lxd 2>/dev/null | grep -q 'install ok installed'; then
	log "installing lxd (bookworm main)"
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends lxd >/dev/null ||
		die "installing lxd failed"
fi
# on exit: clean up, keep a failure exit status and fail if cleanup failed
trap 'st=$?; cleanup; [ "$st" = 0 ] || exit "$st"; exit "$rc"' EXIT
image_dir=$("$here/../image.sh") || die "no runner image"

mkdir -p "$LXD_RUN" "$LXD_LOG"
if ! lxd waitready --timeout=1 >/dev/null 2>&1; then
	log "starting lxd"
	(cd / && setsid /usr/bin/lxd --group lxd --logfile "$LXD_LOG/lxd.log" </dev/null >>"$LXD_LOG/lxd.out" 2>&1 &
		echo $! >"$LXD_RUN/lxd.pid")
	lxd waitready --timeout=60 || die "lxd did not start; see $LXD_LOG"
fi
lxc version
if ! lxc network show "$LXD_BRIDGE" >/dev/null 2>&1; then
	log "initialising LXD with the explicit preseed (no NAT, fixed subnet)"
	lxd init --preseed <<PRESEED || die "lxd init --preseed failed"
networks:
- name: $LXD_BRIDGE
  type: bridge
  config:
    ipv4.address: $LXD_SUBNET
    ipv4.nat: "false"
    ipv4.routing: "false"
    ipv6.address: none
storage_pools:
- name: default
  driver: dir
profiles:
- name: default
  devices:
    root: {path: /, pool: default, type: disk}
    eth0: {name: eth0, network: $LXD_BRIDGE, type: nic}
PRESEED
fi
[ "$(lxc network get "$LXD_BRIDGE" ipv4.address)" = "$LXD_SUBNET" ] &&
	[ "$(lxc network get "$LXD_BRIDGE" ipv4.nat)" = false ] || die "$LXD_BRIDGE is not on $LXD_SUBNET without NAT"
safety_check "after lxd init"

log "importing the runner image from $image_dir"
lxc image import "$image_dir/meta.tar" "$image_dir/rootfs.tar.gz" --alias "$INCUS_IMAGE_ALIAS" || die "image import failed"
lxc profile create "$LXD_FLAVOR" >/dev/null && lxc profile set "$LXD_FLAVOR" limits.cpu=1 limits.memory=512MiB ||
	die "creating profile $LXD_FLAVOR failed"

cd "$repo" || die "no repository"
if [ -z "$exe" ]; then
	exe=$LXD_RUN/garrison-provider-incus
	go build -o "$exe" ./providers/incus || die "building the provider failed"
fi
printf 'unix_socket_path = "%s"\ninclude_default_profile = true\n' "$LXD_SOCKET" >"$LXD_RUN/lxd.toml"
log "garrison-dev provider check against LXD"
go run ./cmd/garrison-dev provider check --executable "$exe" --config "$LXD_RUN/lxd.toml" \
	--image "$INCUS_IMAGE_ALIAS" --flavor "$LXD_FLAVOR" || rc=1
log "GARRISON_TEST_LXD tests (conformance kit + boot check)"
GARRISON_TEST_LXD=1 GARRISON_LXD_SOCKET=$LXD_SOCKET GARRISON_LXD_IMAGE=$INCUS_IMAGE_ALIAS \
	GARRISON_LXD_FLAVOR=$LXD_FLAVOR GARRISON_LXD_PROVIDER=$exe \
	go test -count=1 -run '^TestLXD' -v ./providers/incus/ || rc=1
log "lxd try: exit $rc"
exit "$rc"
