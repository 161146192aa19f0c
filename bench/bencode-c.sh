#!/usr/bin/env bash
# bench/bencode-c.sh: b14fs's bencode beside bencode-c (github.com/trim21/bencode-c, "maybe the
# fastest bencode library in Python", a C extension), on the same files, and the ratios of their
# times: bencode-c's time / b14fs's, so that above 1 b14fs is the faster.
#
# Each round times bencode-c (bench/bencode-c.py) and then the Go benchmark BenchmarkBencodeC
# (bench/bencodec_test.go) on the files bencode-c decodes, each figure the best of REPEATS runs
# of PASSES passes over all the files, on both sides; the rounds alternate, and the summary gives
# the ratio of the best times of all the rounds (the least disturbed by other work), and the
# median ratio of the rounds and their range, of wall and of CPU time. It prints and fails
# nothing (exit status 0 whatever happens, bencode-c missing included), so that a regression
# shows in every CI log without a noisy machine failing a run.
#
# Usage: bench/bencode-c.sh [ROUNDS]     (default 3)
#
# Environment:
#   BENCODE_C        a directory from which `import bencode_c` works (src/ of a built checkout);
#                    otherwise bencode-c is built, once, from $B14FS_PEERS/bencode-c-*.tar.gz
#                    (default: ../shared/peers beside the repository) in $B14FS_PEER_CACHE
#                    (default: ${TMPDIR:-/tmp}/b14fs-peers), outside the repository; building
#                    needs python3-dev and python3-setuptools
#   PYTHON           the Python bencode-c is built for (default: /usr/bin/python3)
#   B14FS_TESTDATA   the shared test data (default: ../shared/testdata beside the repository):
#                    its bencode/valid files (real torrents) are measured; without it, the
#                    repository's compact set (plugins/bencode/testdata/corpus/valid and
#                    torrent/testdata/*.torrent)
#   REPEATS, PASSES  7 and 20
#   BENCH_TEST       a test binary of this module to run instead of building one (one built
#                    from another revision, say, to compare)
set -uo pipefail
cd "$(dirname "$0")" || exit 0
repo=$(cd .. && pwd)
rounds=${1:-3}
repeats=${REPEATS:-7}
passes=${PASSES:-20}
python=${PYTHON:-/usr/bin/python3}
say() { printf 'bencode-c.sh: %s\n' "$*"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/b14fs-bencode-c.XXXXXX") || exit 0
trap 'rm -rf "$work"' EXIT

# bencode-c: given, or built once from the archive.
bc=${BENCODE_C:-}
if [ -z "$bc" ]; then
	peers=${B14FS_PEERS:-$repo/../shared/peers}
	archive=$(ls "$peers"/bencode-c-*.tar.gz 2>/dev/null | tail -1)
	if [ -z "$archive" ]; then
		say "no bencode-c archive in $peers (set B14FS_PEERS or BENCODE_C); nothing measured"
		exit 0
	fi
	cache=${B14FS_PEER_CACHE:-${TMPDIR:-/tmp}/b14fs-peers}/$(basename "$archive" .tar.gz)
	bc=$cache/bencode-c/src
	if ! PYTHONPATH=$bc "$python" -c 'import bencode_c' 2>/dev/null; then
		say "building bencode-c from $archive in $cache"
		rm -rf "$cache" && mkdir -p "$cache" &&
			tar xzf "$archive" -C "$cache" &&
			(cd "$cache/bencode-c" && "$python" setup.py build_ext --inplace) >"$work/build.log" 2>&1
		if ! PYTHONPATH=$bc "$python" -c 'import bencode_c' 2>/dev/null; then
			say "could not build bencode-c (it needs python3-dev and python3-setuptools); nothing measured:"
			tail -5 "$work/build.log"
			exit 0
		fi
	fi
fi
export PYTHONPATH=$bc

# The files: the shared corpus of real torrents, else the repository's own.
testdata=${B14FS_TESTDATA:-$repo/../shared/testdata}
if [ -d "$testdata/bencode/valid" ]; then
	corpus="$(cd "$testdata/bencode/valid" && pwd) (real torrents)"
	files=("$testdata"/bencode/valid/*)
else
	corpus="the repository's compact set"
	files=("$repo"/plugins/bencode/testdata/corpus/valid/* "$repo"/torrent/testdata/*.torrent)
fi
"$python" bencode-c.py filter "$work/files" "${files[@]}" || { say "bencode-c failed; nothing measured"; exit 0; }
export B14FS_BENCODE_C_FILES=$work/files

gotest=${BENCH_TEST:-$work/bench.test}
if [ -z "${BENCH_TEST:-}" ] && ! go test -c -o "$gotest" . >"$work/build.log" 2>&1; then
	say "the benchmark module does not build; nothing measured:"
	tail -20 "$work/build.log"
	exit 0
fi

for round in $(seq "$rounds"); do
	"$python" bencode-c.py time "$work/files" "$repeats" "$passes" >"$work/c.$round" || { say "bencode-c failed"; exit 0; }
	"$gotest" -test.run '^$' -test.bench '^BenchmarkBencodeC$' -test.benchtime "${passes}x" \
		-test.count "$repeats" >"$work/go.$round" 2>&1 || { say "the Go benchmark failed:"; tail -20 "$work/go.$round"; exit 0; }
done

awk '/^files/ { printf "bencode-c.sh: %d files, %d bytes, of ", $2, $4 }' "$work/c.1"
echo "$corpus;"
echo "each figure the best of $repeats runs of $passes passes over them; $rounds rounds alternating bencode-c"
echo "and b14fs; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)."
for round in $(seq "$rounds"); do
	awk -v round="$round" '
		FNR == NR { wall[$1] = $2; cpu[$1] = $3; next }   # bencode-c: decode WALL CPU, encode WALL CPU
		/^BenchmarkBencodeC\// {
			name = $1; sub(/^BenchmarkBencodeC\//, "", name); sub(/-[0-9]+$/, "", name)
			for (i = 2; i < NF; i++) {
				if ($(i+1) == "ns/op" && (!(name in gw) || $i + 0 < gw[name])) gw[name] = $i + 0
				if ($(i+1) == "cpu-ns/op" && (!(name in gc) || $i + 0 < gc[name])) gc[name] = $i + 0
			}
		}
		END {
			printf "round %d: bencode-c decode %.3f ms (CPU %.3f), encode %.3f ms (CPU %.3f)\n", round,
				wall["decode"] / 1e6, cpu["decode"] / 1e6, wall["encode"] / 1e6, cpu["encode"] / 1e6
			n = split("op=decode/form=any op=decode/form=Value floor=maps op=encode/form=any op=encode/form=Value floor=encode", names, " ")
			for (i = 1; i <= n; i++) {
				name = names[i]; op = name ~ /encode/ ? "encode" : "decode"
				if (name in gw && gc[name] > 0)   # name op b14fs-wall C-wall b14fs-CPU C-CPU (ns)
					printf "R %s %s %d %d %d %d\n", name, op, gw[name], wall[op], gc[name], cpu[op]
			}
		}' "$work/c.$round" "$work/go.$round"
done >"$work/rounds"
grep -v '^R ' "$work/rounds"
echo
echo "ratio: bencode-c's time / b14fs's (above 1, b14fs is faster): of the best times of all the rounds"
echo "(the least disturbed), and in each round (the median of the rounds, and their range); wall time,"
echo "and CPU time (all threads: the Go garbage collector's too)."
printf '%-21s %-7s %-5s %9s %9s %7s  %s\n' "b14fs" "against" "time" "b14fs ms" "C ms" "ratio" "per round"
awk '
	function median(s, a, k, i, j, t) {
		k = split(s, a, " ")
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		lo = a[1]; hi = a[k]
		return k % 2 ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2
	}
	/^R / {
		if (!($2 in op)) { order[++n] = $2; gw[$2] = $4; cw[$2] = $5; gc[$2] = $6; cc[$2] = $7 }
		op[$2] = $3
		if ($4 < gw[$2]) gw[$2] = $4
		if ($5 < cw[$2]) cw[$2] = $5
		if ($6 < gc[$2]) gc[$2] = $6
		if ($7 < cc[$2]) cc[$2] = $7
		rw[$2] = rw[$2] " " $5 / $4; rc[$2] = rc[$2] " " $7 / $6
	}
	END {
		for (i = 1; i <= n; i++) {
			x = order[i]
			m = median(rw[x])
			printf "%-21s %-7s %-5s %9.3f %9.3f %6.2fx  %.2fx (%.2f-%.2f)\n", x, op[x], "wall", gw[x] / 1e6, cw[x] / 1e6, cw[x] / gw[x], m, lo, hi
			m = median(rc[x])
			printf "%-21s %-7s %-5s %9.3f %9.3f %6.2fx  %.2fx (%.2f-%.2f)\n", "", "", "CPU", gc[x] / 1e6, cc[x] / 1e6, cc[x] / gc[x], m, lo, hi
		}
	}' "$work/rounds"
echo "(floor=maps makes the maps of the any form and nothing else; floor=encode iterates over its maps"
echo "and allocates and fills the outputs: what no decoder into, or encoder of, map[string]any can go"
echo "below. See BenchmarkFloor.)"
exit 0
