#!/bin/sh
# Compile the numba kernels once, into numba's on-disk cache, so that a first run starts at once: a tiny proof
# and a solved game on Mini Nerdle (uint16 codes, as Nerdle) and on 60 Wordle answers (uint8 codes, as Wordle).
# `make install` and the image (docker/Dockerfile) both run it.  Nothing here starts Ray, so no Ray session
# folder or token is left behind.
#   usage: docker/warm-kernels.sh <python> <a Wordle answers file>
set -eu
py=$1
answers=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -60 "$answers" > "$dir/words.txt"
first=$(head -1 "$dir/words.txt")
echo "compiling the numba kernels once (several minutes); later runs start at once"
start=$(date +%s)
prove() { "$py" -m pipeline experiment=prove_wordle "$@" ray.executor=local progress=false \
    paths.outputs="$dir/out" > /dev/null; }
prove game=mini_nerdle
prove game=words game.secrets.path="$dir/words.txt"
"$py" -m pipeline solve game=mini_nerdle secret=28/7=4 paths.outputs="$dir/out" > /dev/null
"$py" -m pipeline solve game=words game.secrets.path="$dir/words.txt" secret="$first" paths.outputs="$dir/out" > /dev/null
echo "kernels compiled in $(( $(date +%s) - start )) s"
