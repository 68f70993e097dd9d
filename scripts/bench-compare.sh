#!/usr/bin/env bash
# bench-compare.sh — what `make bench-compare` runs: judging speed side by side with the
# physical limit of this machine, in one run, on the same inputs, printed as ratios, then
# all of it again with a fixed background disk writer.
#
#   (1) sandboxed /bin/true and static C A+B vs plain fork+exec, sequential and 2-way
#       (sandbox BenchmarkSandbox, p50 per run); also A+B the way the judge runs a case
#       (in a work dir: an overlay over a host directory; shown, not a target);
#   (2) Python A+B (1 case) judged through the whole core — submit, PostgreSQL, Redis,
#       worker, sandbox, verdict back in PostgreSQL, 2 slots (core/e2e) — and through the
#       judge alone (core/judge), vs a plain shell loop doing the same work without
#       isolation: byte-compile, `python3 main.pyc < in > out`, compare (two processes per
#       submission, as the judge runs), 2 at a time;
#   (3) C++ A+B with 10 cases, the judge's claim → verdict vs plain `g++ -O2` of the same
#       source (core/judge BenchmarkCppAPlusB10Cases);
#   (4) (1)–(3) again while `dd if=/dev/zero of=<file next to the work dirs> bs=1M
#       count=$DD_MB oflag=direct` runs in a loop (started and stopped here; a trap always
#       stops it and removes its file).
#
# Targets: (2) ≥ 0.8 of the plain loop; each figure under disk load within 15 % of the
# same figure without it; (1) ≤ 1.5× p50. The table says which are met.
#
# Variables: N (Python submissions per measurement, default 200), CPP_RUNS (default 5),
# SANDBOX_RUNS (runs per sandbox case, default 2000), DD_MB (MiB per dd pass, default 256),
# DISK_DIR (where the dd file goes, default /var/tmp: the disk that holds the benchmarks'
# work dirs, which the judge and e2e tests create under /var/tmp).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
# shellcheck source=scripts/deps.sh
. "$ROOT/scripts/deps.sh"

N=${N:-200}
CPP_RUNS=${CPP_RUNS:-5}
SANDBOX_RUNS=${SANDBOX_RUNS:-2000}
DD_MB=${DD_MB:-256}
DISK_DIR=${DISK_DIR:-/var/tmp}
# The end-to-end benchmark judges max(b.N, 200) submissions in each of its rounds; 1x is
# one round of 200.
E2E_TIMES=1x
((N > 200)) && E2E_TIMES="${N}x"

[[ $(id -u) -eq 0 ]] || { echo "bench-compare: needs root (the sandbox)" >&2; exit 2; }

WORK=$(mktemp -d "$DISK_DIR/oj-bench-compare.XXXXXX")
SHM=$(mktemp -d /dev/shm/oj-bench-compare.XXXXXX)
DD_PID=""
DD_FILE="$WORK/dd.fill"

stop_disk_load() {
	if [[ -n "$DD_PID" ]]; then
		kill "$DD_PID" 2>/dev/null || true
		kill -- -"$DD_PID" 2>/dev/null || true
		wait "$DD_PID" 2>/dev/null || true
		DD_PID=""
	fi
	rm -f "$DD_FILE"
}

start_disk_load() {
	# One loop, its own process group, so stopping it also stops the dd it is running.
	setsid bash -c 'trap "kill \$dd 2>/dev/null; exit 0" TERM
		while :; do
			dd if=/dev/zero of="$1" bs=1M count="$2" oflag=direct status=none & dd=$!
			wait $dd
		done' disk-load "$DD_FILE" "$DD_MB" &
	DD_PID=$!
	sleep 2 # let the writer reach a steady state
}

cleanup_compare() {
	stop_disk_load
	rm -rf "$WORK" "$SHM"
}

# shellcheck source=scripts/throwaway.sh
. "$ROOT/scripts/throwaway.sh"
oj_throwaway_stack bench-compare
# Ours first, then the stack's (which exits with the script's status).
trap 'rc=$?; cleanup_compare; (exit $rc); oj_throwaway_cleanup' EXIT

echo "== building the benchmark binaries"
BIN="$WORK/bin"
mkdir -p "$BIN"
go test -c -o "$BIN/sandbox.test" ./sandbox
go test -c -o "$BIN/judge.test" ./core/judge
go test -c -o "$BIN/e2e.test" ./core/e2e

# The plain Python loop: what judging one submission is without the judge.
PY="$SHM/py"
mkdir -p "$PY"
cp core/judge/testdata/corpus/python3/ac.py "$PY/main.py.src"
printf '1 2\n' >"$PY/in"
printf '3\n' >"$PY/ans"
# The interpreter the judge runs (core/judge/lang/languages.yaml), not whatever python3
# is first on PATH (a pyenv shim is a shell script: slower than the whole sandbox).
PYTHON=/usr/bin/python3
PLAIN_PY_CMD="2× loop: $PYTHON -I -S -c py_compile main.py; $PYTHON -I -S main.pyc <in >out; compare (bash read; tmpfs)"
plain_python() { # prints submissions/s for N submissions, 2 at a time
	local t0 t1 pids=() rc=0
	t0=$(date +%s.%N)
	for w in 1 2; do
		(
			d="$PY/w$w"
			mkdir -p "$d"
			cd "$d"
			cp ../main.py.src main.py
			IFS= read -r want <../ans
			# Two processes per submission, as the judge runs (compile, one case): the
			# loop itself forks nothing else.
			for ((i = 0; i < N / 2; i++)); do
				"$PYTHON" -I -S -c "import py_compile; py_compile.compile('main.py', cfile='main.pyc', doraise=True)"
				"$PYTHON" -I -S main.pyc <../in >out
				IFS= read -r got <out
				[[ "$got" == "$want" ]] || { echo "plain python: wrong answer" >&2; exit 1; }
			done
		) &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	((rc == 0)) || return 1
	t1=$(date +%s.%N)
	awk -v n="$N" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (n - n % 2) / (b - a) }'
}

# metric FILE BENCHNAME UNIT: the value go test printed for UNIT on BENCHNAME's result
# (the last one: go test may run a benchmark twice, and what the benchmark prints itself
# can split its result line).
metric() {
	awk -v name="$2" -v unit="$3" '
		$1 ~ "^" name "(-[0-9]+)?$" { on = 1 }
		on && $1 ~ "^Benchmark" && $1 !~ "^" name "(-[0-9]+)?$" { on = 0 }
		on { for (i = 2; i <= NF; i++) if ($i == unit) v = $(i-1) }
		END { print v }' "$1"
}

declare -A FIG # FIG[key,phase]
run_phase() {
	local phase=$1 out="$WORK/$1"
	mkdir -p "$out"
	echo "== [$phase] load: $(uptime | sed 's/.*load average/load average/')"
	echo "== [$phase] sandbox vs fork+exec"
	(cd sandbox && "$BIN/sandbox.test" -test.run '^$' -test.bench '^BenchmarkSandbox$' \
		-test.benchtime "${SANDBOX_RUNS}x" -test.count 1) | tee "$out/sandbox.txt"
	# The plain loop runs just before and just after the judged Python figures, and
	# counts as their mean: on a shared machine the load moves within minutes.
	echo "== [$phase] plain Python loop ×$N"
	local p1 p2
	p1=$(plain_python)
	echo "plain: $p1 submissions/s"
	echo "== [$phase] judge: Python A+B ×$N (2 at a time)"
	(cd core/judge && "$BIN/judge.test" -test.run '^$' \
		-test.bench '^BenchmarkPythonAPlusBConcurrent2$' -test.benchtime "${N}x" -test.count 1) | tee "$out/judge-py.txt"
	echo "== [$phase] end to end: Python A+B ×200"
	(cd core/e2e && "$BIN/e2e.test" -test.run '^$' -test.bench '^BenchmarkPythonAPlusBEndToEnd$' \
		-test.benchtime "$E2E_TIMES" -test.count 1) | tee "$out/e2e.txt"
	echo "== [$phase] plain Python loop ×$N"
	p2=$(plain_python)
	echo "plain: $p2 submissions/s"
	FIG[plainpy,$phase]=$(awk -v a="$p1" -v b="$p2" 'BEGIN { printf "%.1f", (a + b) / 2 }')
	echo "== [$phase] judge: C++ A+B 10 cases ×$CPP_RUNS (plain g++ timed in the same loop)"
	(cd core/judge && "$BIN/judge.test" -test.run '^$' \
		-test.bench '^BenchmarkCppAPlusB10Cases$' -test.benchtime "${CPP_RUNS}x" -test.count 1) | tee "$out/judge-cpp.txt"
	echo "== [$phase] load after: $(uptime | sed 's/.*load average/load average/')"

	local c
	for c in true/seq true/par2 aplusb/seq aplusb/par2; do
		FIG[plain/$c,$phase]=$(metric "$out/sandbox.txt" "BenchmarkSandbox/plain/$c" p50-ms)
		FIG[sandbox/$c,$phase]=$(metric "$out/sandbox.txt" "BenchmarkSandbox/sandbox/$c" p50-ms)
	done
	for c in aplusb/seq aplusb/par2; do
		FIG[sandboxdir/$c,$phase]=$(metric "$out/sandbox.txt" "BenchmarkSandbox/workdir/$c" p50-ms)
	done
	FIG[judgepy,$phase]=$(metric "$out/judge-py.txt" BenchmarkPythonAPlusBConcurrent2 submissions/s)
	FIG[e2epy,$phase]=$(metric "$out/e2e.txt" BenchmarkPythonAPlusBEndToEnd judged/s)
	FIG[cppjudge,$phase]=$(metric "$out/judge-cpp.txt" BenchmarkCppAPlusB10Cases judge-ms/op)
	FIG[cppgcc,$phase]=$(metric "$out/judge-cpp.txt" BenchmarkCppAPlusB10Cases g++-ms/op)
}

LOAD_IDLE="$(uptime | sed 's/.*load average: //')"
run_phase idle
start_disk_load
echo "== disk writer: pid $DD_PID, dd bs=1M count=$DD_MB oflag=direct to $DD_FILE, looping"
run_phase disk
stop_disk_load
LOAD_END="$(uptime | sed 's/.*load average: //')"

# The table. ratio: the figure against its physical limit; "disk/idle": the same figure
# with the writer running against without (for rates: disk ÷ idle; for times: idle ÷
# disk, so below 1 is always slower under load).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
verdict() { # value op bound
	awk -v v="$1" -v op="$2" -v b="$3" 'BEGIN { if (v == "-" || v == "") print "?"; else if ((op == "<=" && v + 0 <= b + 0) || (op == ">=" && v + 0 >= b + 0)) print "met"; else print "NOT met" }'
}
echo
echo "bench-compare: $(date -u '+%F %T UTC'), $(nproc) cores; load average before: $LOAD_IDLE; after: $LOAD_END"
echo "disk writer (phase 'disk'): dd if=/dev/zero of=$DISK_DIR/… bs=1M count=$DD_MB oflag=direct, in a loop"
echo
printf '%-34s %12s %12s %9s %9s %9s %9s  %s\n' figure idle disk "ratio" "ratio" "disk/" "target" "command"
printf '%-34s %12s %12s %9s %9s %9s %9s  %s\n' "" "" "" "idle" "disk" "idle" "" ""
row() { # name unit idleval diskval ratio_idle ratio_disk rate|time ratio_target command
	local di
	if [[ $7 == rate ]]; then di=$(ratio "$4" "$3"); else di=$(ratio "$3" "$4"); fi
	local tgt="" 
	[[ -n "$8" ]] && tgt="$8"
	printf '%-34s %12s %12s %9s %9s %9s %9s  %s\n' "$1" "$3 $2" "$4 $2" "$5" "$6" "$di" "$tgt" "$9"
	RESULTS+=("$1|$5|$6|$di|$8")
}
RESULTS=()
SB="cd sandbox && sandbox.test -test.bench '^BenchmarkSandbox\$' -test.benchtime ${SANDBOX_RUNS}x"
for c in true/seq true/par2 aplusb/seq aplusb/par2; do
	row "plain fork+exec $c p50" ms "${FIG[plain/$c,idle]}" "${FIG[plain/$c,disk]}" - - time "" "$SB"
	row "sandbox $c p50 (÷ plain)" ms "${FIG[sandbox/$c,idle]}" "${FIG[sandbox/$c,disk]}" \
		"$(ratio "${FIG[sandbox/$c,idle]}" "${FIG[plain/$c,idle]}")" "$(ratio "${FIG[sandbox/$c,disk]}" "${FIG[plain/$c,disk]}")" \
		time "<=1.5" "$SB"
done
# The judge's own path (work dir overlay, input from a file): shown, not a target.
for c in aplusb/seq aplusb/par2; do
	row "sandbox, work dir $c p50 (÷ plain)" ms "${FIG[sandboxdir/$c,idle]}" "${FIG[sandboxdir/$c,disk]}" \
		"$(ratio "${FIG[sandboxdir/$c,idle]}" "${FIG[plain/$c,idle]}")" "$(ratio "${FIG[sandboxdir/$c,disk]}" "${FIG[plain/$c,disk]}")" \
		time "" "$SB"
done
row "plain Python loop, 2-way (mean)" /s "${FIG[plainpy,idle]}" "${FIG[plainpy,disk]}" - - rate "" "$PLAIN_PY_CMD"
row "Python judged e2e (÷ plain)" /s "${FIG[e2epy,idle]}" "${FIG[e2epy,disk]}" \
	"$(ratio "${FIG[e2epy,idle]}" "${FIG[plainpy,idle]}")" "$(ratio "${FIG[e2epy,disk]}" "${FIG[plainpy,disk]}")" \
	rate ">=0.8" "cd core/e2e && e2e.test -test.bench '^BenchmarkPythonAPlusBEndToEnd\$' -test.benchtime $E2E_TIMES"
row "Python judge only (÷ plain)" /s "${FIG[judgepy,idle]}" "${FIG[judgepy,disk]}" \
	"$(ratio "${FIG[judgepy,idle]}" "${FIG[plainpy,idle]}")" "$(ratio "${FIG[judgepy,disk]}" "${FIG[plainpy,disk]}")" \
	rate ">=0.8" "cd core/judge && judge.test -test.bench '^BenchmarkPythonAPlusBConcurrent2\$' -test.benchtime ${N}x"
row "plain g++ -O2 C++ A+B" ms "${FIG[cppgcc,idle]}" "${FIG[cppgcc,disk]}" - - time "" \
	"g++ -std=c++17 -O2 -pipe (inside BenchmarkCppAPlusB10Cases)"
row "C++ A+B 10 cases judged (÷ g++)" ms "${FIG[cppjudge,idle]}" "${FIG[cppjudge,disk]}" \
	"$(ratio "${FIG[cppjudge,idle]}" "${FIG[cppgcc,idle]}")" "$(ratio "${FIG[cppjudge,disk]}" "${FIG[cppgcc,disk]}")" \
	time "" "cd core/judge && judge.test -test.bench '^BenchmarkCppAPlusB10Cases\$' -test.benchtime ${CPP_RUNS}x"

echo
echo "targets:"
for r in "${RESULTS[@]}"; do
	IFS='|' read -r name ri rd di tgt <<<"$r"
	if [[ -n "$tgt" ]]; then
		op=${tgt:0:2} bound=${tgt:2}
		echo "  $name: $tgt idle $ri ($(verdict "$ri" "$op" "$bound")), under disk load $rd ($(verdict "$rd" "$op" "$bound"))"
	fi
	echo "  $name: under disk load within 15 % (disk/idle ≥ 0.85): $di ($(verdict "$di" ">=" 0.85))"
done
