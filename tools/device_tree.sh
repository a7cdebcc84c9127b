#!/usr/bin/env bash
# The GPU machine receives the working tree (tracked and untracked files) plus `carry`, 64 MiB
# in all; .gpu/ alone is ~61 MiB. For a device run that needs none of some top-level folders:
#   tools/device_tree.sh out [DIR ...]   # take them out of the index and the tree (kept in
#                                        # /tmp); default: docs tests
#   ... the device run ...
#   tools/device_tree.sh in              # put them back exactly as they were
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
stash=/tmp/t2t-device-stash
case "${1:-}" in
  out)
    if [ -e "$stash" ]; then echo "$stash exists: run '$0 in' first" >&2; exit 1; fi
    shift
    dirs=("$@"); [ ${#dirs[@]} -gt 0 ] || dirs=(docs tests)
    mkdir -p "$stash"
    printf '%s\n' "${dirs[@]}" > "$stash/.dirs"
    git rm -r -q --cached "${dirs[@]}"
    mv "${dirs[@]}" "$stash/"
    ;;
  in)
    mapfile -t dirs < "$stash/.dirs"
    for d in "${dirs[@]}"; do mv "$stash/$d" .; done
    rm "$stash/.dirs"; rmdir "$stash"
    git reset -q -- "${dirs[@]}"
    ;;
  *) echo "usage: $0 out [DIR ...] | in" >&2; exit 2 ;;
esac
