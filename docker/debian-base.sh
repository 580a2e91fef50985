#!/bin/sh
# A base image for docker/Dockerfile made from Debian's packages alone, for machines that reach Debian's
# archive but not Docker Hub: debootstrap's minimal system plus python3 and python3-venv (bookworm's Python is
# 3.11, as python:3.11-slim's), imported as one layer.  `make image` runs it, as root, when the image is absent.
#   usage: docker/debian-base.sh <image name> [suite] [mirror]
set -eu
image=$1
suite=${2:-bookworm}
mirror=${3:-http://deb.debian.org/debian}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=python3,python3-venv "$suite" "$root" "$mirror"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
# An imported image has no environment: PATH is written here so that the Dockerfile's ENV PATH=...:$PATH
# extends the usual one; LANG as python:3.11-slim sets it.
tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    - "$image"
