#!/bin/sh
# Measures b14fs mount with fio against plain files and gocryptfs, all kept on
# one tmpfs, so that no disk is measured (docs/benchmarks.md, section "mount",
# "fio over tmpfs"). Five fio jobs on a 256 MiB file (psync, one job, no
# O_DIRECT, fio's own cache invalidation off):
#
#   read      rw=read bs=1M, after dropping the page cache
#   reread    the same again at once (page cache warm where there is one)
#   randfirst rw=randread bs=4k io_size=64M after dropping the cache: 16384
#             reads, most of them of blocks not yet read (no page cache helps)
#   randread  rw=randread bs=4k for RUNTIME seconds (default 20), after
#             dropping the cache: a page cache fills up meanwhile
#   write     rw=write bs=1M end_fsync=1 into a new file, then removed
#
# on plain files (a directory of the tmpfs), gocryptfs (its cipher directory
# on the tmpfs), b14fs mount -w as mounted by default (read-only opens through
# the page cache, docs/mount.md "Coherence") and b14fs mount -w --cache (every
# open through it, kept across opens), each a directory of the same tmpfs.
# Every round runs each job on all four, one after the other, so that the
# load of the machine falls on all alike; ROUNDS rounds (default 3). Prints a
# markdown table: medians of plain MB/s (IOPS for the random reads), of each
# mount's and of its ratio to plain taken round by round; then every round.
# (echo 3 > drop_caches drops the page cache of the mounts' files; the
# tmpfs keeps its data in memory.)
#
# Installs nothing. Needs root (to mount the tmpfs and drop caches), fio,
# gocryptfs, fusermount3 (apt-get install fio gocryptfs fuse3) and a b14fs
# binary: B14FS=path (default: b14fs on PATH).
#
#   go build -o /tmp/b14fs ./cmd/b14fs
#   sudo B14FS=/tmp/b14fs sh internal/mount/testdata/fio.sh
set -eu
B14FS=${B14FS:-b14fs}
ROUNDS=${ROUNDS:-3}
RUNTIME=${RUNTIME:-20}
TMPFS_SIZE=${TMPFS_SIZE:-2500m}

need() { command -v "$1" >/dev/null 2>&1 || { echo "fio.sh: needs $1 ($2)" >&2; exit 2; }; }
need fio "apt-get install fio"
need gocryptfs "apt-get install gocryptfs"
need fusermount3 "apt-get install fuse3"
need "$B14FS" "go build -o /tmp/b14fs ./cmd/b14fs, then B14FS=/tmp/b14fs"
[ "$(id -u)" = 0 ] || { echo "fio.sh: needs root (mount -t tmpfs, drop_caches)" >&2; exit 2; }

work=$(mktemp -d "${WORK:-/var/tmp}/b14fs-fio.XXXXXX")
fs="plain gocryptfs b14fs cache"
pids=""
cleanup() {
	set +e
	for m in gocryptfs b14fs cache; do
		if grep -q " $work/$m " /proc/mounts; then
			fusermount3 -u "$work/$m" 2>/dev/null || umount -l "$work/$m"
		fi
	done
	for p in $pids; do
		kill -INT "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	grep -q " $work/t " /proc/mounts && umount "$work/t"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

mkdir "$work/t" "$work/gocryptfs" "$work/b14fs" "$work/cache"
mount -t tmpfs -o size="$TMPFS_SIZE" b14fs-fio "$work/t"
mkdir "$work/t/plain" "$work/t/cipher" "$work/t/b14" "$work/t/b14cache"
gocryptfs -q -init -extpass 'echo pw' -scryptn 10 "$work/t/cipher" >/dev/null
gocryptfs -q -nosyslog -extpass 'echo pw' "$work/t/cipher" "$work/gocryptfs"
"$B14FS" mount -w "$work/t/b14" "$work/b14fs" 2>"$work/log" &
pids="$pids $!"
"$B14FS" mount -w --cache "$work/t/b14cache" "$work/cache" 2>"$work/clog" &
pids="$pids $!"
i=0
until grep -q " $work/b14fs " /proc/mounts && grep -q " $work/cache " /proc/mounts; do
	i=$((i+1)); [ $i -lt 200 ] || { cat "$work/log" "$work/clog"; exit 1; }; sleep 0.05
done
dir() { case $1 in plain) echo "$work/t/plain" ;; *) echo "$work/$1" ;; esac; }

# The file the read jobs read: the same random bytes written through each.
head -c 268435456 /dev/urandom > "$work/t/src"
for f in $fs; do
	dd if="$work/t/src" of="$(dir "$f")/file" bs=1M conv=fsync status=none
	cmp "$work/t/src" "$(dir "$f")/file"
done
rm "$work/t/src"

drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
# job FILE FIELD FIO-OPTIONS...: fio's figure number FIELD of terse output
# version 3 (7: read KiB/s, 8: read IOPS, 48: write KiB/s).
job() {
	file=$1 field=$2; shift 2
	fio --name=j --filename="$file" --size=256M --ioengine=psync --numjobs=1 --direct=0 \
		--invalidate=0 --fallocate=none --output-format=terse --terse-version=3 "$@" |
		awk -F';' -v f="$field" '{print $f}'
}
mb() { awk -v k="$1" 'BEGIN {printf "%.0f", k*1024/1e6}'; }

# Each result goes to $work/res as "JOB FS ROUND VALUE".
for r in $(seq "$ROUNDS"); do
	for f in $fs; do
		d=$(dir "$f")
		drop
		echo "read $f $r $(mb "$(job "$d/file" 7 --rw=read --bs=1M)")" >> "$work/res"
		echo "reread $f $r $(mb "$(job "$d/file" 7 --rw=read --bs=1M)")" >> "$work/res"
	done
	for f in $fs; do
		drop
		echo "randfirst $f $r $(job "$(dir "$f")/file" 8 --rw=randread --bs=4k --io_size=64M)" >> "$work/res"
	done
	for f in $fs; do
		drop
		echo "randread $f $r $(job "$(dir "$f")/file" 8 --rw=randread --bs=4k \
			--runtime="$RUNTIME" --time_based)" >> "$work/res"
	done
	for f in $fs; do
		d=$(dir "$f")
		drop
		echo "write $f $r $(mb "$(job "$d/new" 48 --rw=write --bs=1M --end_fsync=1)")" >> "$work/res"
		rm -f "$d/new"
	done
done

echo "fio over tmpfs, $ROUNDS rounds (medians; ratios to plain taken in each round)"
echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), Linux $(uname -r), $(date -u +%Y-%m-%d)"
echo
awk -v rounds="$ROUNDS" -v runtime="$RUNTIME" '
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1]+0 > a[j]+0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{ v[$1, $2, $3] = $4 }
END {
	split("read reread randfirst randread write", jobs, " ")
	split("gocryptfs b14fs cache", fss, " ")
	name["read"] = "sequential read, 1 MiB (`rw=read bs=1M`)"
	name["reread"] = "second read, at once"
	name["randfirst"] = "random read, 4 KiB, first 64 MiB (`rw=randread bs=4k io_size=64M`)"
	name["randread"] = "random read, 4 KiB, " runtime " s (`rw=randread bs=4k runtime=" runtime " time_based`)"
	name["write"] = "sequential write, 1 MiB (`rw=write bs=1M end_fsync=1`)"
	print "| fio job | plain | gocryptfs | gocryptfs / plain | b14fs | b14fs / plain | b14fs `--cache` | `--cache` / plain |"
	print "|---|---|---|---|---|---|---|---|"
	for (j = 1; j <= 5; j++) {
		jb = jobs[j]; unit = jb ~ /^rand/ ? " IOPS" : " MB/s"
		p = ""; for (r = 1; r <= rounds; r++) p = p " " v[jb, "plain", r]
		line = "| " name[jb] " | " median(p) unit
		for (k = 1; k <= 3; k++) {
			x = ""; q = ""
			for (r = 1; r <= rounds; r++) {
				x = x " " v[jb, fss[k], r]
				q = q " " (v[jb, "plain", r] > 0 ? v[jb, fss[k], r] / v[jb, "plain", r] : 0)
			}
			line = line sprintf(" | %d%s | %.2f", median(x), unit, median(q))
		}
		print line " |"
	}
	print ""
	print "Rounds (plain, gocryptfs, b14fs, --cache):"
	for (j = 1; j <= 5; j++) {
		jb = jobs[j]; line = "  " jb ":"
		for (r = 1; r <= rounds; r++)
			line = line sprintf(" %s/%s/%s/%s", v[jb, "plain", r], v[jb, "gocryptfs", r], v[jb, "b14fs", r], v[jb, "cache", r])
		print line
	}
}' "$work/res"
