#!/usr/bin/env bash
# Installs and starts the real Incus and Docker daemons for the provider tests
# and imports the runner image into both (real-daemons.md §2-§5).
#
#   scripts/daemons/setup.sh [incus|docker|all]     (default: all)
#
# Idempotent: packages, image, running daemons, the Incus preseed and the
# imported images are reused when already present. Writes the variables the
# daemon tests read to $GARRISON_RUN/env. Fails if the N-6 network safety
# checks fail before or after. Undo with scripts/daemons/cleanup.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

what=${1:-all}
case $what in incus | docker | all) ;; *) die "usage: $0 [incus|docker|all]" ;; esac
[ "$(id -u)" = 0 ] || die "run as root"

# have_pkgs PKG... reports whether every package is installed.
have_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
	done
}

install_packages() {
	local t0=$SECONDS
	if ! [ -f /etc/apt/sources.list.d/garrison-backports.sources ]; then
		cat >/etc/apt/sources.list.d/garrison-backports.sources <<SRC
Types: deb
URIs: $(mirror)
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		apt-get update -q >/dev/null
	fi
	export DEBIAN_FRONTEND=noninteractive
	if [ "$what" != docker ] && ! have_pkgs incus-base dnsmasq-base; then
		log "installing incus-base and dnsmasq-base from bookworm-backports"
		apt-get install -y -q -t bookworm-backports --no-install-recommends incus-base dnsmasq-base >/dev/null
	fi
	if ! have_pkgs debootstrap nftables; then
		apt-get install -y -q --no-install-recommends debootstrap nftables >/dev/null
	fi
	if [ "$what" != docker ] && ! have_pkgs btrfs-progs; then
		apt-get install -y -q --no-install-recommends btrfs-progs >/dev/null
	fi
	if [ "$what" != incus ] && ! have_pkgs docker.io; then
		log "installing docker.io"
		apt-get install -y -q --no-install-recommends docker.io >/dev/null
	fi
	log "packages ready ($((SECONDS - t0)) s)"
}

start_incus() {
	local t0=$SECONDS
	mkdir -p "$GARRISON_RUN" /var/log/incus
	if ! "$INCUSD" waitready --timeout=1 >/dev/null 2>&1; then
		log "starting incusd"
		setsid "$INCUSD" --group=incus-admin --logfile=/var/log/incus/incusd.log \
			</dev/null >>/var/log/incus/incusd.out 2>&1 &
		echo $! >"$GARRISON_RUN/incusd.pid"
		"$INCUSD" waitready --timeout=60
	fi
	if ! incus network show "$INCUS_BRIDGE" >/dev/null 2>&1; then
		log "initialising Incus with the explicit preseed (no NAT, fixed subnet)"
		incus admin init --preseed <"$here/preseed.yaml"
	fi
	local addr nat
	addr=$(incus network get "$INCUS_BRIDGE" ipv4.address)
	nat=$(incus network get "$INCUS_BRIDGE" ipv4.nat)
	[ "$addr" = "$INCUS_SUBNET" ] && [ "$nat" = false ] ||
		die "$INCUS_BRIDGE has ipv4.address=$addr ipv4.nat=$nat; want $INCUS_SUBNET and false"
	if ! incus storage show "$INCUS_FAST_POOL" >/dev/null 2>&1; then
		log "creating the btrfs pool $INCUS_FAST_POOL (loop file) and profile $INCUS_FAST_PROFILE"
		incus storage create "$INCUS_FAST_POOL" btrfs size=8GiB
	fi
	if ! incus profile show "$INCUS_FAST_PROFILE" >/dev/null 2>&1; then
		incus profile create "$INCUS_FAST_PROFILE" >/dev/null
		incus profile device add "$INCUS_FAST_PROFILE" root disk path=/ pool="$INCUS_FAST_POOL" >/dev/null
	fi
	log "incus ready ($((SECONDS - t0)) s)"
}

import_incus_image() {
	local dir=$1 want have
	want=$(cat "$dir/meta.tar" "$dir/rootfs.tar.gz" | sha256sum | cut -d' ' -f1)
	have=$(incus image info "$INCUS_IMAGE_ALIAS" 2>/dev/null | awk '/^Fingerprint:/{print $2}' || true)
	if [ "$have" = "$want" ]; then
		log "incus image $INCUS_IMAGE_ALIAS is current"
		return
	fi
	[ -z "$have" ] || incus image delete "$INCUS_IMAGE_ALIAS"
	if incus image info "$want" >/dev/null 2>&1; then
		incus image alias create "$INCUS_IMAGE_ALIAS" "$want"
	else
		log "importing incus image $INCUS_IMAGE_ALIAS"
		incus image import "$dir/meta.tar" "$dir/rootfs.tar.gz" --alias "$INCUS_IMAGE_ALIAS"
	fi
}

start_docker() {
	local t0=$SECONDS
	mkdir -p "$DOCKER_DIR"
	if ! DOCKER_HOST=unix://$DOCKER_SOCKET $DOCKER version >/dev/null 2>&1; then
		log "starting dockerd (no iptables, no forwarding, no masquerading)"
		setsid /usr/sbin/dockerd -H "unix://$DOCKER_SOCKET" --data-root "$DOCKER_DIR/data" \
			--exec-root "$DOCKER_DIR/exec" --pidfile "$DOCKER_DIR/dockerd.pid" \
			--iptables=false --ip-forward=false --ip-masq=false --bip="$DOCKER_BIP" \
			</dev/null >>"$DOCKER_DIR/dockerd.log" 2>&1 &
		local i
		for i in $(seq 300); do
			DOCKER_HOST=unix://$DOCKER_SOCKET $DOCKER version >/dev/null 2>&1 && break
			sleep 0.1
		done
		DOCKER_HOST=unix://$DOCKER_SOCKET $DOCKER version >/dev/null || die "dockerd did not start; see $DOCKER_DIR/dockerd.log"
	fi
	log "docker ready ($((SECONDS - t0)) s)"
}

import_docker_image() {
	local dir=$1 tag
	tag=$DOCKER_IMAGE_REPO:$(basename "$dir")
	export DOCKER_HOST=unix://$DOCKER_SOCKET
	if ! $DOCKER image inspect "$tag" >/dev/null 2>&1; then
		log "importing docker image $tag"
		# on failure show why: the cleanup that follows removes dockerd's log
		$DOCKER import "$dir/rootfs.tar.gz" "$tag" >/dev/null ||
			{ tail -n 40 "$DOCKER_DIR/dockerd.log" >&2; die "docker import failed (dockerd log above)"; }
	fi
	$DOCKER tag "$tag" "$DOCKER_IMAGE"
}

write_env() {
	mkdir -p "$GARRISON_RUN"
	{
		echo "GARRISON_INCUS_SOCKET=$INCUS_SOCKET"
		echo "GARRISON_INCUS_IMAGE=$INCUS_IMAGE_ALIAS"
		echo "GARRISON_INCUS_FAST_PROFILE=$INCUS_FAST_PROFILE"
		echo "GARRISON_DOCKER_HOST=unix://$DOCKER_SOCKET"
		echo "GARRISON_DOCKER_IMAGE=$DOCKER_IMAGE"
	} >"$GARRISON_ENV_FILE"
}

t_all=$SECONDS
safety_check before
install_packages
t_img=$SECONDS
image_dir=$("$here/image.sh")
log "image ready ($((SECONDS - t_img)) s)"
if [ "$what" != docker ]; then
	start_incus
	import_incus_image "$image_dir"
fi
if [ "$what" != incus ]; then
	start_docker
	import_docker_image "$image_dir"
fi
write_env
safety_check after
log "setup done in $((SECONDS - t_all)) s; variables in $GARRISON_ENV_FILE"
