#!/usr/bin/env bash
# Stops the daemons started by setup.sh and removes everything they left
# (real-daemons.md §6), then runs the N-6 checks: no forwarding, no NAT, no
# bridge, veth or tap left.
#
#   scripts/daemons/cleanup.sh [--purge]
#
# The image cache ($GARRISON_IMAGE_CACHE) and the packages are kept so the
# next setup is fast; --purge also removes both, the backports source and
# the groups, users and subordinate ids the packages created.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

purge=false
[ "${1:-}" = --purge ] && purge=true
[ "$(id -u)" = 0 ] || die "run as root"

cleanup_incus() {
	if [ -x "$INCUSD" ] && "$INCUSD" waitready --timeout=1 >/dev/null 2>&1; then
		log "incus: deleting instances, image, pool and network"
		local i
		for i in $(incus list -f csv -c n 2>/dev/null); do incus delete -f "$i"; done
		incus image delete "$INCUS_IMAGE_ALIAS" 2>/dev/null
		for i in $(incus image list -f csv -c f 2>/dev/null); do incus image delete "$i"; done
		incus profile delete "$INCUS_FAST_PROFILE" >/dev/null 2>&1
		incus profile device remove default root >/dev/null 2>&1
		incus profile device remove default eth0 >/dev/null 2>&1
		for i in $(incus storage list -f csv -c n 2>/dev/null); do incus storage delete "$i"; done
		incus network delete "$INCUS_BRIDGE" 2>/dev/null
		incus admin shutdown 2>/dev/null
	fi
	stop_pid incusd "$GARRISON_RUN/incusd.pid"
	if command -v nft >/dev/null && nft list table inet incus >/dev/null 2>&1; then
		nft delete table inet incus
	fi
	ip link show "$INCUS_BRIDGE" >/dev/null 2>&1 && ip link del "$INCUS_BRIDGE"
	# loop devices of the btrfs pool, in case the daemon did not detach them
	local l
	for l in $(losetup -a 2>/dev/null | awk -F: '/\/var\/lib\/incus\//{print $1}'); do
		umount "$l" 2>/dev/null
		losetup -d "$l" 2>/dev/null
	done
	rm -rf /var/lib/incus /run/incus /run/lxc
}

cleanup_docker() {
	if [ -S "$DOCKER_SOCKET" ] && DOCKER_HOST=unix://$DOCKER_SOCKET $DOCKER version >/dev/null 2>&1; then
		local ids
		ids=$(DOCKER_HOST=unix://$DOCKER_SOCKET $DOCKER ps -aq)
		[ -z "$ids" ] || { log "docker: removing containers"; DOCKER_HOST=unix://$DOCKER_SOCKET $DOCKER rm -f $ids >/dev/null; }
	fi
	stop_pid dockerd "$DOCKER_DIR/dockerd.pid"
	ip link show "$DOCKER_BRIDGE" >/dev/null 2>&1 && ip link del "$DOCKER_BRIDGE"
	local d
	for d in /sys/fs/cgroup/*/docker /sys/fs/cgroup/docker; do
		[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	rm -rf /run/docker /run/containerd /etc/docker/key.json "$DOCKER_DIR"
}

purge_all() {
	log "purging packages, image cache and accounts"
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q incus-base dnsmasq-base docker.io containerd runc >/dev/null 2>&1
	DEBIAN_FRONTEND=noninteractive apt-get autoremove -y -q >/dev/null 2>&1
	rm -f /etc/apt/sources.list.d/garrison-backports.sources
	rm -rf "$GARRISON_IMAGE_CACHE" "$GARRISON_STATE"
	local g
	for g in incus incus-admin docker; do getent group "$g" >/dev/null && groupdel "$g"; done
	getent passwd dnsmasq >/dev/null && userdel dnsmasq
	sed -i '/^root:1000000:1000000000$/d' /etc/subuid /etc/subgid
}

cleanup_incus
cleanup_docker
rm -rf "$GARRISON_RUN"
$purge && purge_all
links_check
safety_check "after cleanup"
