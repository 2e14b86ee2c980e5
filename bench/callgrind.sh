#!/bin/sh
# callgrind.sh counts the instructions (valgrind's Ir: deterministic, unlike
# times on a shared machine) one iteration of a Go benchmark executes, and
# the inclusive share of named functions in it.
#
#   bench/callgrind.sh PKG BENCH TOGGLE [FUNC...]
#   bench/callgrind.sh ./edge 'HandleCached$' 'edge.(*Server).handle' \
#       'edge.(*Server).writeAccessHeaders' 'edge.writeResponse'
#
# PKG's test binary runs BENCH twice under callgrind, N and 6N iterations
# (N: $N, default 1000; BIN: a test binary of PKG built before), with the collector GC off (GOGC=off: a GC cycle
# would land in whichever step it interrupts) and asynchronous preemption
# off (callgrind 3.19 aborts on Go's preemption signal). Instructions are
# counted only inside TOGGLE (a function name, glob; "-" counts the whole
# process); the figures are the difference of the two runs divided by 5N,
# so the setup, the warm-up call and the benchmark's N=1 run cancel out.
# TOGGLE must be called directly by the benchmark's goroutine: callgrind
# loses its place across goroutine switches (fasthttp's ServeConn: count
# the whole process there with "-").
#
# Each FUNC (a fragment of a function's name, matched as a plain string
# against callgrind_annotate's inclusive listing) prints its inclusive
# instructions per iteration. Needs valgrind (apt-get install -y valgrind).
set -eu
if [ $# -lt 3 ]; then
	sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
pkg=$1 bench=$2 toggle=$3
shift 3
n=${N:-1000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${BIN:-}" ]; then # a test binary built before (to compare two commits)
	cp "$BIN" "$work/pkg.test"
else
	go test -c -o "$work/pkg.test" "$pkg"
fi
dir=$(go list -f '{{.Dir}}' "$pkg")
run() { # iterations -> callgrind.out
	set -- "$1" --tool=callgrind --callgrind-out-file="$work/cg.$1"
	if [ "$toggle" != "-" ]; then
		set -- "$@" --collect-atstart=no "--toggle-collect=*$toggle"
	fi
	iters=$1
	shift
	(cd "$dir" && GOGC=off GODEBUG=asyncpreemptoff=1 valgrind "$@" "$work/pkg.test" \
		-test.run '^$' -test.bench "$bench" -test.benchtime "${iters}x" -test.cpu 1 >"$work/log.$iters" 2>&1) ||
		{ cat "$work/log.$iters" >&2; exit 1; }
	callgrind_annotate --inclusive=yes "$work/cg.$iters" >"$work/ann.$iters" 2>/dev/null
}
run "$n"
run $((6 * n))
# total FILE: the program total; incl FILE FUNC: the largest inclusive count
# of a function whose name contains FUNC (the entry with the binary's name
# after it is the function itself, the others are its inlined lines).
total() { awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$1"; }
incl() {
	awk -v f="$2" 'index($0, f) && / \[/ { v = $1; gsub(",", "", v); if (v + 0 > m) m = v + 0 } END { print m + 0 }' "$1"
}
per() { awk -v a="$1" -v b="$2" -v n="$n" 'BEGIN { printf "%.0f", (b - a) / (5 * n) }'; }
echo "$bench (toggle $toggle): instructions per iteration, (Ir(6N) - Ir(N)) / 5N, N=$n"
printf '%10s  %s\n' "$(per "$(total "$work/ann.$n")" "$(total "$work/ann.$((6 * n))")")" "total"
for f in "$@"; do
	printf '%10s  %s\n' "$(per "$(incl "$work/ann.$n" "$f")" "$(incl "$work/ann.$((6 * n))" "$f")")" "$f"
done
