#!/bin/sh
# Measures b14fs mount against the directory it stores in (docs/benchmarks.md,
# section "mount"): sequential write and read of a 256 MiB file with dd bs=1M
# (reads with a cold and a warm page cache), random 4 KiB reads with fio, and
# cp -r of a source tree of small files. Each figure is taken on the mount
# and on plain files of the same disk in the same run, ROUNDS times (default
# 3), and the median is printed. Needs root (to drop the page cache), fio, and
# a b14fs binary: B14FS=path (default: b14fs on PATH). The mount is measured
# as mounted by default (mnt) and with --cache (cache).
#
#   go build -o /tmp/b14fs ./cmd/b14fs
#   sudo B14FS=/tmp/b14fs sh internal/mount/testdata/bench.sh
set -eu
B14FS=${B14FS:-b14fs}
ROUNDS=${ROUNDS:-3}
TREE=${TREE:-$(go env GOROOT)/src/go $(go env GOROOT)/src/net}
work=$(mktemp -d "${WORK:-/var/tmp}/b14fs-bench.XXXXXX")
mkdir "$work/back" "$work/mnt" "$work/cback" "$work/cache" "$work/plain" "$work/tree"
cleanup() {
	for m in mnt cache; do
		fusermount3 -u "$work/$m" 2>/dev/null || umount -l "$work/$m" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
"$B14FS" mount -w "$work/back" "$work/mnt" 2>"$work/log" &
"$B14FS" mount -w --cache "$work/cback" "$work/cache" 2>"$work/clog" &
i=0
until grep -q " $work/mnt " /proc/mounts && grep -q " $work/cache " /proc/mounts; do
	i=$((i+1)); [ $i -lt 200 ] || { cat "$work/log" "$work/clog"; exit 1; }; sleep 0.05
done
for d in $TREE; do cp -r "$d" "$work/tree/"; done
head -c 268435456 /dev/urandom > /dev/shm/b14fs-bench-src
trap 'rm -f /dev/shm/b14fs-bench-src; cleanup' EXIT

# secs CMD...: the seconds CMD takes.
secs() {
	s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
	echo "$s $e" | awk '{printf "%.3f", $2-$1}'
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
mbps() { awk -v s="$1" 'BEGIN {printf "%.0f MB/s", 268.435456/s}'; }

for where in plain mnt cache; do
	dir=$work/$where
	w=""; rc=""; rw=""; rr=""; cp=""
	for r in $(seq "$ROUNDS"); do
		rm -f "$dir/big"
		w="$w $(secs dd if=/dev/shm/b14fs-bench-src of="$dir/big" bs=1M conv=fsync)"
		drop
		rc="$rc $(secs dd if="$dir/big" of=/dev/null bs=1M)"
		rw="$rw $(secs dd if="$dir/big" of=/dev/null bs=1M)"
		drop
		rr="$rr $(fio --name=rr --filename="$dir/big" --rw=randread --bs=4k --size=256M --runtime=5 --time_based \
			--ioengine=psync --output-format=terse --terse-version=3 | awk -F';' '{print $8}')"
		rm -rf "$dir/tree"
		sync
		cp="$cp $(secs sh -c "cp -r '$work/tree' '$dir/tree' && sync")"
	done
	files=$(find "$work/tree" -type f | wc -l)
	echo "$where: write $(mbps "$(echo "$w" | median)"), read cold $(mbps "$(echo "$rc" | median)"), read warm $(mbps "$(echo "$rw" | median)"), random 4 KiB reads $(echo "$rr" | median) IOPS, cp -r of $files files $(echo "$cp" | median) s"
	echo "  rounds: write$w; read cold$rc; read warm$rw; iops$rr; cp$cp"
done
