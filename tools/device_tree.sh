#!/usr/bin/env bash
# The GPU machine receives the working tree (tracked and untracked files) plus `carry`, 64 MiB
# in all; .gpu/ alone is ~61 MiB. For a device run that needs neither docs/ nor tests/:
#   tools/device_tree.sh out   # take them out of the index and the tree (kept in /tmp)
#   ... the device run ...
#   tools/device_tree.sh in    # put them back exactly as they were
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
stash=/tmp/t2t-device-stash
case "${1:-}" in
  out)
    if [ -e "$stash" ]; then echo "$stash exists: run '$0 in' first" >&2; exit 1; fi
    mkdir -p "$stash"
    git rm -r -q --cached docs tests
    mv docs tests "$stash/"
    ;;
  in)
    mv "$stash/docs" "$stash/tests" .
    rmdir "$stash"
    git reset -q -- docs tests
    ;;
  *) echo "usage: $0 out|in" >&2; exit 2 ;;
esac
