#!/bin/sh
# Compile the numba kernels once, into numba's on-disk cache, so that a first run starts at once: a tiny proof
# and a solved game on Mini Nerdle (uint16 codes, as Nerdle) and on 60 Wordle answers (uint8 codes, as Wordle).
# Each proof runs twice: with every task in this process and with every task a Ray task, since Ray hands tasks
# read-only arrays where an in-process task may get writable ones, and numba compiles a kernel for each (a cluster
# runs only Ray tasks; the default executor mixes both).  `make install` and the image (docker/Dockerfile) both
# run it.  The Ray it starts is embedded and stopped; the image removes the ~/.ray and /tmp/ray it leaves.
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
prove() { executor=$1; shift; "$py" -m pipeline experiment=prove_wordle "$@" ray.executor="$executor" progress=false \
    paths.outputs="$dir/out-$executor" > /dev/null; }
for executor in local ray; do
    prove "$executor" game=mini_nerdle
    prove "$executor" game=words game.secrets.path="$dir/words.txt"
done
"$py" -m pipeline solve game=mini_nerdle secret=28/7=4 paths.outputs="$dir/out-local" > /dev/null
"$py" -m pipeline solve game=words game.secrets.path="$dir/words.txt" secret="$first" paths.outputs="$dir/out-local" \
    > /dev/null
echo "kernels compiled in $(( $(date +%s) - start )) s"
