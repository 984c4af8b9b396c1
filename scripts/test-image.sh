#!/usr/bin/env bash
# make test-image: builds the real Dockerfile and checks the image it makes (tests/image).
#
# No Docker engine runs on the machines this project is built on, and no registry is reached,
# so the image is made with what Debian gives:
# - the base: python:3.11-slim's shape (Debian bookworm, /usr/local/bin/python3 with pip),
#   made by debootstrap and `podman import`ed once, cached in podman's storage under a tag
#   keyed by this script's base recipe;
# - the build: `podman build --isolation chroot` of the real Dockerfile on that base
#   (ARG PYTHON_IMAGE), its apt-get and pip reaching the package registries;
# - the run: `podman run` cannot start a container here (crun and runc fail at setrlimit), so
#   the tests run the image's filesystem (`podman mount` of a created container) under
#   bubblewrap as the outer runtime, as uid 10001 (tests/image/image_support.py).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/system-deps.sh image

started=$(date +%s)
say() { echo "test-image: $* ($(($(date +%s) - started)) s)"; }

# The base recipe: what debootstrap installs, and what makes it python:3.11-slim's shape.
SUITE=bookworm
MIRROR=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
INCLUDE=python3,python3-venv,python3-pip,bubblewrap,ca-certificates
key=$(printf '%s\n' "$SUITE" "$INCLUDE" "venv-at-/usr/local" "machine-ca" | sha256sum | cut -c1-12)
BASE=localhost/grader-test-base:$key
IMAGE=localhost/grader:test

if ! podman image exists "$BASE"; then
    root=$(mktemp -d /var/tmp/grader-base.XXXXXX)
    trap 'rm -rf "$root"' EXIT
    say "making the base $BASE with debootstrap ($SUITE, $MIRROR)"
    debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$root" "$MIRROR" >/dev/null
    # python:3.11-slim's Python is /usr/local/bin/python3 with pip beside it: a venv there.
    chroot "$root" /usr/bin/python3 -m venv /usr/local
    # The registries are reached through this machine's CA bundle (a proxy may sign them).
    cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
    printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >"$root/etc/pip.conf"
    rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
    tar -C "$root" -c . | podman import --quiet - "$BASE" >/dev/null
    rm -rf "$root"
    trap - EXIT
    say "base made"
else
    say "base $BASE (cached)"
fi

say "building the Dockerfile on it"
podman build --quiet --isolation chroot --network host --format docker \
    --build-arg PYTHON_IMAGE="$BASE" -t "$IMAGE" . >/dev/null
say "image built"

container=$(podman create "$IMAGE")
cleanup() {
    podman umount "$container" >/dev/null 2>&1 || true
    podman rm -f "$container" >/dev/null 2>&1 || true
}
trap cleanup EXIT
GRADER_TEST_IMAGE_ROOT=$(podman mount "$container")
export GRADER_TEST_IMAGE_ROOT
GRADER_TEST_IMAGE_CONFIG=$(podman image inspect "$IMAGE" --format '{{json .Config}}')
export GRADER_TEST_IMAGE_CONFIG
say "checking the image's filesystem at $GRADER_TEST_IMAGE_ROOT"
status=0
"${BIN:-.venv/bin}/pytest" tests/image -p no:randomly "$@" || status=$?
say "done"
exit "$status"
