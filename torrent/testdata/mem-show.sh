#!/bin/sh
# mem-show.sh [DIR]: the peak memory (maximum resident set size, from GNU
# time) of 'b14fs torrent show', 'show --json', 'infohash' and 'verify'
# (of a data directory where every file is missing) on torrents of a
# million files, v1, v2 and hybrid, which
#     go test ./torrent -run TestWriteManyFiles -manyfiles DIR
# writes to DIR (first, when DIR has none of them; default: a temporary
# directory). $B14FS names the b14fs to run (default: the one in $PATH).
set -eu
b14fs=${B14FS:-b14fs}
[ -x /usr/bin/time ] || { echo "GNU time not installed (Debian: time)" >&2; exit 1; }
if [ $# -gt 0 ]; then
	mkdir -p "$1"
	dir=$(cd "$1" && pwd)
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
if [ ! -f "$dir/hybrid.torrent" ]; then
	(cd "$(dirname "$0")/.." && go test -count=1 -run TestWriteManyFiles -manyfiles "$dir" . >&2)
fi
mkdir -p "$dir/empty"

echo "torrent, its size, and the peak RSS of: show, show --json, infohash, verify"
for v in v1 v2 hybrid; do
	t=$dir/$v.torrent
	printf '%-7s %4d MiB:' "$v" $(($(wc -c < "$t") >> 20))
	for cmd in show "show --json" infohash verify; do
		data=
		[ "$cmd" = verify ] && data=$dir/empty
		# verify exits 1: every file is missing.
		# shellcheck disable=SC2086
		kib=$(/usr/bin/time -f %M "$b14fs" torrent $cmd "$t" $data 2>&1 >/dev/null | tail -n 1)
		printf ' %5d MiB' $((kib >> 10))
	done
	echo
done
