#!/bin/sh
# bench-create.sh [MIB [RUNS [THREADS...]]]: 'b14fs torrent create' beside
# mktorrent 1.1 on one tree of MIB MiB of random bytes (default 1024) in
# the page cache, each with -t N for every N of THREADS (default 1 2),
# RUNS times (default 5), the two tools taking turns. Both make v1
# torrents of 256 KiB pieces without a date, which must have the same
# info-hash. Prints the wall time of every run, then the median and range
# of each tool and thread count. $B14FS names the b14fs to run (default:
# the one in $PATH).
set -eu
mib=${1:-1024}
runs=${2:-5}
shift $(($# < 2 ? $# : 2))
threads=${*:-1 2}
b14fs=${B14FS:-b14fs}
command -v mktorrent >/dev/null || { echo "mktorrent not installed (Debian: mktorrent)" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/tree/sub" "$dir/tree/sub-b"
# Four large files (3/8, 1/4, 1/4 and 1/8 of the size) and a few small ones.
head -c $((mib * 3 / 8))M /dev/urandom > "$dir/tree/a.bin"
head -c $((mib / 4))M /dev/urandom > "$dir/tree/sub/b.bin"
head -c $((mib / 4))M /dev/urandom > "$dir/tree/sub-b/c.bin"
head -c $((mib / 8))M /dev/urandom > "$dir/tree/d.bin"
for i in 1 2 3 4 5 6 7 8; do head -c $((i * 1000)) /dev/urandom > "$dir/tree/small-$i"; done
cat "$dir"/tree/*.bin "$dir"/tree/*/*.bin > /dev/null

now() { date +%s.%N; }
for t in $threads; do
	for i in $(seq "$runs"); do
		rm -f "$dir/mk.torrent"
		s=$(now); mktorrent -t "$t" -d -l 18 -o "$dir/mk.torrent" "$dir/tree" > /dev/null; e=$(now)
		echo "mktorrent -t $t $(awk "BEGIN { print $e - $s }")"
		s=$(now); "$b14fs" torrent create -t "$t" -d -l 18 -f -o "$dir/b14fs.torrent" "$dir/tree"; e=$(now)
		echo "b14fs -t $t $(awk "BEGIN { print $e - $s }")"
		if [ "$("$b14fs" torrent infohash "$dir/mk.torrent")" != "$("$b14fs" torrent infohash "$dir/b14fs.torrent")" ]; then
			echo "the info-hashes differ" >&2
			exit 1
		fi
	done
done | tee "$dir/times"
echo
echo "tool, threads: median (min-max) seconds, $runs runs of $mib MiB"
sort -k1,1 -k3,3n -k4,4n "$dir/times" | awk '
	{ key = $1 " -t " $3; n[key]++; v[key, n[key]] = $4 }
	END { for (k in n) printf "%s: %.2f (%.2f-%.2f)\n", k, v[k, int((n[k] + 1) / 2)], v[k, 1], v[k, n[k]] }' | sort
