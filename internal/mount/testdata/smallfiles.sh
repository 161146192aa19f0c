#!/bin/sh
# Measures b14fs mount on a tree of small files against plain files and
# gocryptfs, all kept on one tmpfs, so that no disk is measured
# (docs/benchmarks.md, section "mount", "Small files over tmpfs"). The tree
# is TREE (default: Go's src/go and src/net, 969 files, 8.8 MB); three jobs:
#
#   cp     cp -r of the tree into the file system
#   read   cat of every file of it (find -type f -exec cat)
#   rm     rm -r of it
#
# on plain files (a directory of the tmpfs), gocryptfs (its cipher directory
# on the tmpfs) and b14fs mount -w (its directory on the tmpfs). Every round
# runs each job on all three, one after the other, so that the load of the
# machine falls on all alike; ROUNDS rounds (default 5). Prints a markdown
# table: medians of the seconds each job takes, and of the CPU seconds the
# FUSE server process used meanwhile; then every round.
#
# Installs nothing. Needs root (to mount the tmpfs), gocryptfs, fusermount3
# (apt-get install gocryptfs fuse3) and a b14fs binary: B14FS=path (default:
# b14fs on PATH).
#
#   go build -o /tmp/b14fs ./cmd/b14fs
#   sudo B14FS=/tmp/b14fs sh internal/mount/testdata/smallfiles.sh
set -eu
B14FS=${B14FS:-b14fs}
ROUNDS=${ROUNDS:-5}
TREE=${TREE:-$(go env GOROOT)/src/go $(go env GOROOT)/src/net}

need() { command -v "$1" >/dev/null 2>&1 || { echo "smallfiles.sh: needs $1 ($2)" >&2; exit 2; }; }
need gocryptfs "apt-get install gocryptfs"
need fusermount3 "apt-get install fuse3"
need "$B14FS" "go build -o /tmp/b14fs ./cmd/b14fs, then B14FS=/tmp/b14fs"
[ "$(id -u)" = 0 ] || { echo "smallfiles.sh: needs root (mount -t tmpfs)" >&2; exit 2; }

work=$(mktemp -d "${WORK:-/var/tmp}/b14fs-small.XXXXXX")
cleanup() {
	set +e
	for m in gocryptfs b14fs; do
		grep -q " $work/t/$m " /proc/mounts && { fusermount3 -u "$work/t/$m" 2>/dev/null || umount -l "$work/t/$m"; }
	done
	sleep 0.5
	grep -q " $work/t " /proc/mounts && umount "$work/t"
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/t"
mount -t tmpfs -o size=1g tmpfs "$work/t"
t=$work/t
mkdir "$t/tree" "$t/plain" "$t/gocryptfs" "$t/gcipher" "$t/b14fs" "$t/back"
for d in $TREE; do cp -r "$d" "$t/tree/"; done
echo pass > "$work/pass"
gocryptfs -q -init -passfile "$work/pass" "$t/gcipher" >/dev/null
gocryptfs -q -nosyslog -passfile "$work/pass" "$t/gcipher" "$t/gocryptfs"
"$B14FS" mount -w "$t/back" "$t/b14fs" 2>"$work/log" &
i=0
until grep -q " $t/b14fs " /proc/mounts; do
	i=$((i+1)); [ $i -lt 200 ] || { cat "$work/log"; exit 1; }; sleep 0.05
done
server() {
	case $1 in
	plain) echo ;;
	gocryptfs) pgrep -f "gocryptfs.*$t/gcipher" | head -1 ;;
	b14fs) pgrep -f "mount -w $t/back" | head -1 ;;
	esac
}
# cpu PID: the CPU seconds PID used so far (0 without one).
cpu() {
	[ -n "$1" ] || { echo 0; return; }
	awk -v hz="$(getconf CLK_TCK)" '{printf "%.3f", ($14+$15)/hz}' "/proc/$1/stat"
}
# run FS JOB: prints "seconds cpu-seconds" of JOB on FS.
run() {
	dir=$t/$1 pid=$(server "$1")
	c0=$(cpu "$pid") s=$(date +%s.%N)
	case $2 in
	cp) cp -r "$t/tree" "$dir/tree" ;;
	read) find "$dir/tree" -type f -exec cat {} + >/dev/null ;;
	rm) rm -r "$dir/tree" ;;
	esac
	e=$(date +%s.%N) c1=$(cpu "$pid")
	echo "$s $e $c0 $c1" | awk '{printf "%.3f %.3f\n", $2-$1, $4-$3}'
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
fs="plain gocryptfs b14fs"
jobs="cp read rm"
for r in $(seq "$ROUNDS"); do
	for j in $jobs; do
		for f in $fs; do
			echo "$r $j $f $(run "$f" "$j")" >> "$work/rounds"
		done
	done
done
echo "| job | plain files | gocryptfs | b14fs | b14fs / gocryptfs | CPU of the server: gocryptfs, b14fs |"
echo "|---|---|---|---|---|---|"
for j in $jobs; do
	p=$(awk -v j="$j" '$2==j && $3=="plain" {print $4}' "$work/rounds" | median)
	g=$(awk -v j="$j" '$2==j && $3=="gocryptfs" {print $4}' "$work/rounds" | median)
	b=$(awk -v j="$j" '$2==j && $3=="b14fs" {print $4}' "$work/rounds" | median)
	gc=$(awk -v j="$j" '$2==j && $3=="gocryptfs" {print $5}' "$work/rounds" | median)
	bc=$(awk -v j="$j" '$2==j && $3=="b14fs" {print $5}' "$work/rounds" | median)
	echo "| $j | $p s | $g s | $b s | $(echo "$b $g" | awk '{printf "%.2f", $1/$2}') | $gc s, $bc s |"
done
echo
echo "rounds (round job fs seconds cpu-seconds):"
cat "$work/rounds"
