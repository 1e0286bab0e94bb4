#!/usr/bin/env bash
# Makes a Node.js base image from Debian and the npm registry alone, for hosts that can reach no
# image registry: a minimal Debian root filesystem (debootstrap), Node from the registry's
# node-linux-<arch> package (the binary the `node` package installs), npm from the `npm` package,
# and a `node` user (uid 1000) as in the official node images. The Dockerfile then builds on it:
#   podman build --build-arg NODE_IMAGE=localhost/ledger-node-base:24 -t ledger .
# Needs root (debootstrap, chroot), debootstrap, podman, and a Node.js with npm on the host.
# Usage: scripts/make-base-image.sh   (env: NODE_MAJOR=24 NPM_VERSION=11 SUITE=bookworm
#        MIRROR=http://deb.debian.org/debian IMAGE=localhost/ledger-node-base:$NODE_MAJOR)
set -euo pipefail

NODE_MAJOR=${NODE_MAJOR:-24}
NPM_VERSION=${NPM_VERSION:-11}
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
IMAGE=${IMAGE:-localhost/ledger-node-base:$NODE_MAJOR}

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "make-base-image: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "make-base-image: run as root (debootstrap and chroot need it)" >&2; exit 1; }
for tool in debootstrap podman npm tar; do
  command -v "$tool" >/dev/null || { echo "make-base-image: $tool is missing (apt-get install -y debootstrap podman)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ledger-base.XXXXXX")
# the root filesystem has device nodes and root-owned files: remove it whatever happens
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR"

(cd "$work" && npm pack --silent "node-linux-$arch@$NODE_MAJOR" "npm@$NPM_VERSION" >/dev/null)
tar -xzf "$work"/node-linux-"$arch"-*.tgz -C "$work" package/bin/node
install -m 0755 "$work/package/bin/node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

chroot "$rootfs" /bin/sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
chroot "$rootfs" /usr/local/bin/node -e 'console.log(`node ${process.version} in the root filesystem`)'
# apt's package lists are large and stale by the time the image is used
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb

tar --numeric-owner -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  --message "Debian $SUITE with Node.js $NODE_MAJOR from the npm registry" \
  - "$IMAGE"
echo "made $IMAGE"
