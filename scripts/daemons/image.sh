#!/usr/bin/env bash
# Builds the runner image once and caches it by the content hash of this
# script: a debootstrap minbase bookworm root with systemd, udev, curl,
# ca-certificates, sudo and cloud-init (real-daemons.md §5), packed as
#   $GARRISON_IMAGE_CACHE/<hash>/rootfs.tar.gz   (Incus rootfs, docker import)
#   $GARRISON_IMAGE_CACHE/<hash>/meta.tar        (Incus metadata + templates)
# Prints the cache directory. Safe to run again: a cached build is reused.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

hash=$(cat "$here/image.sh" | sha256sum | cut -c1-16)
out=$GARRISON_IMAGE_CACHE/$hash
if [ -s "$out/rootfs.tar.gz" ] && [ -s "$out/meta.tar" ]; then
	log "image: cached in $out"
	echo "$out"
	exit 0
fi

command -v debootstrap >/dev/null || die "debootstrap is not installed (run setup.sh)"
mkdir -p "$GARRISON_IMAGE_CACHE"
work=$(mktemp -d "$GARRISON_IMAGE_CACHE/build.XXXXXX")
root=$work/rootfs
cleanup() {
	mountpoint -q "$root/proc" && umount "$root/proc"
	rm -rf "$work"
}
trap cleanup EXIT

start=$(date +%s)
log "image: debootstrap bookworm minbase into $root"
debootstrap --variant=minbase \
	--include=systemd-sysv,iproute2,curl,ca-certificates,procps,sudo \
	bookworm "$root" "$(mirror)" >"$work/debootstrap.log" 2>&1 ||
	{ tail -n 30 "$work/debootstrap.log" >&2; die "debootstrap failed"; }

log "image: installing udev and cloud-init"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
mount -t proc proc "$root/proc"
chroot "$root" apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -q --no-install-recommends \
	udev cloud-init >"$work/apt.log" 2>&1 ||
	{ tail -n 30 "$work/apt.log" >&2; die "apt-get install in the image failed"; }
umount "$root/proc"
rm -f "$root/usr/sbin/policy-rc.d"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin
: >"$root/etc/resolv.conf"

log "image: network and cloud-init configuration"
mkdir -p "$root/etc/systemd/network" "$root/etc/cloud/cloud.cfg.d"
cat >"$root/etc/systemd/network/eth0.network" <<'NET'
[Match]
Name=eth0

[Network]
DHCP=ipv4
LinkLocalAddressing=no
IPv6AcceptRA=no
NET
systemctl --root="$root" enable systemd-networkd systemd-networkd-wait-online >/dev/null 2>&1
cat >"$root/etc/cloud/cloud.cfg.d/90-garrison.cfg" <<'CFG'
datasource_list: [ NoCloud, None ]
network: {config: disabled}
locale: false
CFG

log "image: Incus metadata"
meta=$work/meta
mkdir -p "$meta/templates"
cat >"$meta/metadata.yaml" <<'META'
architecture: x86_64
creation_date: 1763683200
properties: {description: garrison runner, os: debian, release: bookworm}
templates:
  /etc/hostname: {when: [create, copy], template: hostname.tpl}
  /var/lib/cloud/seed/nocloud-net/meta-data: {when: [create, copy, start], template: meta-data.tpl}
  /var/lib/cloud/seed/nocloud-net/user-data: {when: [create, copy, start], template: user-data.tpl, properties: {default: "#cloud-config\n{}"}}
META
printf '%s\n' '{{ instance.name }}' >"$meta/templates/hostname.tpl"
printf '%s\n' 'instance-id: {{ config_get("volatile.cloud-init.instance-id", instance.name) }}' >"$meta/templates/meta-data.tpl"
printf '%s\n' '{{ config_get("cloud-init.user-data", properties.default) }}' >"$meta/templates/user-data.tpl"

log "image: packing"
tar -C "$meta" -cf "$work/meta.tar" metadata.yaml templates
tar -C "$root" --numeric-owner -czf "$work/rootfs.tar.gz" .
mkdir -p "$out.tmp"
mv "$work/meta.tar" "$work/rootfs.tar.gz" "$out.tmp/"
rm -rf "$out" && mv "$out.tmp" "$out"
log "image: built in $(($(date +%s) - start)) s: $out ($(du -sh "$out/rootfs.tar.gz" | cut -f1))"
echo "$out"
