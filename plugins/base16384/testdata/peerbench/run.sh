#!/bin/sh
# run.sh measures base16384 beside the reference Go package,
# github.com/fumiama/go-base16384 at 313ea7a with its assembly, in one
# process, size by size, and prints benchstat tables with the reference as
# the first column. The reference is GPL and not on the module proxy: it is
# unpacked outside the repository and used only by a temporary module made
# here, which replaces both modules with local directories.
#
#	plugins/base16384/testdata/peerbench/run.sh [-count N] [-bench REGEXP] [-benchtime T] [FILE.test ...]
#
# -count N      rounds (default 6); a round runs every test binary once; 0
#               builds $B14_BENCH_DIR/peerbench.test and runs nothing
# -bench RE     the benchmarks (default .)
# -benchtime T  go test's -benchtime (default 0.2s)
# FILE.test     test binaries built here earlier (copies of
#               $B14_BENCH_DIR/peerbench.test, say from another tree), run in
#               every round beside the new one: before/after in the same run
#
# Environment: B14_PEER_TGZ, the reference's archive (default
# ../shared/peers/go-base16384-313ea7a.tar.gz beside the repository);
# B14_PEER_DIR, where it is unpacked (default /tmp/peers/go-base16384);
# B14_BENCH_DIR, the temporary module (default /tmp/b14bench); B14_REPO,
# the tree of module github.com/b14fs/b14fs measured (default this one; for
# an earlier commit, say: git archive adde148 | tar -x -C /tmp/b14-adde148).
# Without the archive or an unpacked copy it says so and exits 0.
set -eu

count=6 bench=. benchtime=0.2s
while [ $# -gt 0 ]; do
	case $1 in
	-count) count=$2; shift 2 ;;
	-bench) bench=$2; shift 2 ;;
	-benchtime) benchtime=$2; shift 2 ;;
	-*) echo "usage: $0 [-count N] [-bench REGEXP] [-benchtime T] [FILE.test ...]" >&2; exit 2 ;;
	*) break ;;
	esac
done
also=
for b in "$@"; do
	also="$also $(cd "$(dirname "$b")" && pwd)/$(basename "$b")"
done

here=$(cd "$(dirname "$0")" && pwd)
own=$(cd "$here/../../../.." && pwd)
repo=${B14_REPO:-$own}
tgz=${B14_PEER_TGZ:-$own/../shared/peers/go-base16384-313ea7a.tar.gz}
peer=${B14_PEER_DIR:-/tmp/peers/go-base16384}
dir=${B14_BENCH_DIR:-/tmp/b14bench}

if [ ! -f "$peer/go.mod" ]; then
	if [ ! -f "$tgz" ]; then
		echo "peerbench: no reference at $peer or $tgz: skipped"
		exit 0
	fi
	mkdir -p "$(dirname "$peer")"
	tar -xzf "$tgz" -C "$(dirname "$peer")"
fi
benchstat=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")
if [ ! -x "$benchstat" ]; then
	go install golang.org/x/perf/cmd/benchstat@latest
fi

mkdir -p "$dir"
rm -f "$dir"/*.go "$dir"/*.s
cp "$here"/*.go "$here"/*.s "$dir"/
cat >"$dir/go.mod" <<MOD
module b14bench

go 1.26.0

require (
	github.com/b14fs/b14fs v0.0.0
	github.com/fumiama/go-base16384 v0.0.0
)

replace github.com/fumiama/go-base16384 => $peer

replace github.com/b14fs/b14fs => $repo
MOD
(cd "$dir" && GOFLAGS=-mod=mod go mod tidy && go vet . && go test -run TestSame -count 1 . >/dev/null &&
	go test -c -o peerbench.test .)

[ "$count" -gt 0 ] || exit 0
bins="$dir/peerbench.test$also"
out=$dir/out
rm -rf "$out" && mkdir -p "$out"
i=0
while [ $i -lt "$count" ]; do
	for b in $bins; do
		name=$(basename "$b" .test)
		"$b" -test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime" >>"$out/$name.txt"
	done
	i=$((i + 1))
done
for b in $bins; do
	name=$(basename "$b" .test)
	for unit in sec/op cpu-ns/op allocs/op; do
		echo "## $b: $unit, the reference first"
		"$benchstat" -col /impl -filter "-.name:Speedup .unit:$unit" "$out/$name.txt"
	done
	echo "## $b: BenchmarkSpeedup, interleaved: the reference's time, the speedups and our own times"
	"$benchstat" -filter ".name:Speedup -.unit:sec/op" "$out/$name.txt"
done
if [ -n "$also" ]; then
	# The builds compared by their own times (the reference's moves from
	# one build to the next, and the speedups with it).
	echo "## the builds side by side, BenchmarkSpeedup: our own times, the new build last"
	(cd "$out" && "$benchstat" -filter ".name:Speedup .unit:/-ns.op$/ -.unit:ref-ns/op" \
		$(for b in $also; do echo "$(basename "$b" .test).txt"; done) peerbench.txt)
fi
echo "raw results: $out"
