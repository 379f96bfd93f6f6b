#!/usr/bin/env bash
# shellcheck disable=SC2317 # step functions run in a child bash via run_step
# device-check.sh: check xlajit against a real PJRT plugin, typically an
# NVIDIA GPU through JAX's CUDA plugin (jax_plugins/xla_cuda*/xla_cuda_plugin.so
# under python3's site-packages). Runs from any directory; works in the
# repository root.
#
# usage: scripts/device-check.sh [--prepare] [--plugin PATH] [--budget SECONDS]
#
#   --prepare  only build ./xlajit and pjrt/plugin/plugin.test (on a machine
#              with Go and the module cache) and exit; carry both (they are
#              git-ignored) to a device machine without Go.
#   --plugin   the PJRT plugin to test (default: $PJRT_DEVICE when it is a
#              path, else the newest xla_cuda_plugin.so python3 knows of).
#   --budget   seconds for the whole run (default 450: under 8 minutes).
#
# Steps, each with its own time limit inside the budget:
#   locate the plugin and the GPU; build xlajit and the plugin package's test
#   binary (or use the prebuilt ones: XLAJIT_BIN, XLAJIT_PLUGIN_TEST);
#   `xlajit devices` on the plugin; a junk plugin path must fail cleanly; the
#   plugin package's tests against the plugin (XLAJIT_TEST_PLUGIN); SPMD:
#   an annotated tensor-parallel MLP partitioned by XLA over every device of
#   the plugin against the embedded partitioner (TestRealSPMD), then
#   examples/spmd on the plugin (with Go); the conformance corpus through
#   the plugin (`xlajit conform --device`); the differential harness,
#   embedded device vs plugin, on a sample of the corpus (`xlajit devices
#   --diff`); the examples that exist (with Go). Prints a
#   summary table; exit status 1 when a step failed.
#
# Environment: OUT (where logs go; default a temporary directory),
# XLAJIT_CORPUS (default shared/conformance/stablehlo), DIFF_EVERY (take every
# K-th corpus file for the differential run, default 8), EXAMPLE_ARGS_<name>
# (arguments for examples/<name>), XLAJIT_PLUGIN_OPTIONS (PJRT_Client_Create
# options, see pjrt/plugin).
set -uo pipefail

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
ROOT="$(dirname "$(dirname "$SELF")")"
cd "$ROOT" || exit 2

PREPARE=0
PLUGIN=""
BUDGET=450
while (($# > 0)); do
	case "$1" in
	--prepare) PREPARE=1 ;;
	--plugin)
		PLUGIN="${2:?--plugin needs a path}"
		shift
		;;
	--budget)
		BUDGET="${2:?--budget needs seconds}"
		shift
		;;
	-h | --help)
		sed -n '3,/^set -uo/p' "$SELF" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "device-check: unknown argument $1 (try --help)" >&2
		exit 2
		;;
	esac
	shift
done
if ! [[ "$BUDGET" =~ ^[0-9]+$ ]]; then
	echo "device-check: --budget wants seconds, got $BUDGET" >&2
	exit 2
fi

XLAJIT="${XLAJIT_BIN:-$ROOT/xlajit}"
PLUGIN_TEST="${XLAJIT_PLUGIN_TEST:-$ROOT/pjrt/plugin/plugin.test}"
CORPUS="${XLAJIT_CORPUS:-$ROOT/shared/conformance/stablehlo}"
DIFF_EVERY="${DIFF_EVERY:-8}"
HAVE_GO=0
command -v go >/dev/null 2>&1 && HAVE_GO=1

build() {
	CGO_ENABLED=1 go build -o "$XLAJIT" ./cmd/xlajit &&
		CGO_ENABLED=1 go test -c -o "$PLUGIN_TEST" ./pjrt/plugin
}

if ((PREPARE)); then
	((HAVE_GO)) || {
		echo "device-check --prepare: no go command" >&2
		exit 2
	}
	build || exit 1
	echo "built $XLAJIT and $PLUGIN_TEST"
	exit 0
fi

START=$(date +%s)
DEADLINE=$((START + BUDGET))
RESERVE=5 # seconds kept for the summary
LOGDIR="${OUT:-}"
if [[ -z "$LOGDIR" ]]; then
	LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/device-check.XXXXXX")"
fi
mkdir -p "$LOGDIR" || exit 2

NPROC=$(nproc 2>/dev/null || echo 2)
JOBS=$((NPROC / 2))
((JOBS < 2)) && JOBS=2
((JOBS > 8)) && JOBS=8

STEPS=()   # "name|status|seconds|note" per step
FAILED=0

record() { # name status seconds note
	STEPS+=("$1|$2|$3|$4")
}

# run_step NAME MAX_SECONDS SUMMARY_REGEX COMMAND...: runs COMMAND with a time
# limit (MAX_SECONDS, cut to what is left of the budget), logs its output to
# $LOGDIR/NAME.log, shows the log's tail, and records the status and the last
# log line matching SUMMARY_REGEX.
run_step() {
	local name=$1 max=$2 pattern=$3
	shift 3
	local now left limit log rc t0 secs note status
	now=$(date +%s)
	left=$((DEADLINE - now - RESERVE))
	if ((left < 10)); then
		record "$name" SKIP 0 "budget used up"
		return 0
	fi
	limit=$((max < left ? max : left))
	log="$LOGDIR/$name.log"
	echo "== $name (limit ${limit}s): $*"
	t0=$(date +%s)
	if declare -F "$1" >/dev/null; then
		# A shell function of this script (exported below): run it in a
		# child bash so that timeout can stop it.
		timeout --kill-after=10 "$limit" bash -c '"$@"' "$name" "$@" >"$log" 2>&1
	else
		timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1
	fi
	rc=$?
	secs=$(($(date +%s) - t0))
	tail -n 12 "$log" | sed 's/^/   | /'
	note=""
	if [[ -n "$pattern" ]]; then
		note=$(grep -E "$pattern" "$log" | tail -n 1 | cut -c1-110)
	fi
	case $rc in
	0) status=PASS ;;
	124 | 137) status=TIMEOUT ;;
	*) status=FAIL ;;
	esac
	[[ $status == FAIL && -z "$note" ]] && note="exit status $rc"
	record "$name" "$status" "$secs" "$note"
	return 0
}

# --- the plugin and the GPU -------------------------------------------------

find_plugin() {
	if [[ -n "$PLUGIN" ]]; then
		echo "$PLUGIN"
		return
	fi
	if [[ "${PJRT_DEVICE:-}" == */* ]]; then
		echo "$PJRT_DEVICE"
		return
	fi
	command -v python3 >/dev/null 2>&1 || return
	python3 - <<'PY' 2>/dev/null
import glob, os, site, sys
dirs = list(getattr(site, "getsitepackages", lambda: [])())
dirs.append(site.getusersitepackages())
dirs += [p for p in sys.path if p.endswith("-packages")]
found = []
for d in dict.fromkeys(dirs):
    found += sorted(glob.glob(os.path.join(d, "jax_plugins", "xla_cuda*", "xla_cuda_plugin.so")), reverse=True)
print(found[0] if found else "")
PY
}

PLUGIN="$(find_plugin)"
echo "== device-check: logs in $LOGDIR, budget ${BUDGET}s, $NPROC CPUs"
if command -v nvidia-smi >/dev/null 2>&1; then
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/   gpu: /'
else
	echo "   no nvidia-smi: is there an NVIDIA GPU?"
fi
if [[ -z "$PLUGIN" || ! -f "$PLUGIN" ]]; then
	echo "device-check: no PJRT plugin found (pass --plugin PATH, or PJRT_DEVICE=/path/plugin.so; looked for jax_plugins/xla_cuda*/xla_cuda_plugin.so under python3's site-packages)" >&2
	exit 2
fi
echo "   plugin: $PLUGIN"
export GOPJRT_CUDA_CHECKS="${GOPJRT_CUDA_CHECKS:-0}"

# --- steps ----------------------------------------------------------------------

# bad_plugin: a junk file as PJRT_DEVICE must fail with an error naming it,
# not with a Go panic.
bad_plugin() {
	local junk out rc
	junk="$LOGDIR/not-a-plugin.so"
	echo "this is not a shared object" >"$junk"
	out=$(PJRT_DEVICE="$junk" "$XLAJIT" devices 2>&1)
	rc=$?
	echo "$out"
	if ((rc == 0)); then
		echo "bad-plugin: exit status 0 for a junk PJRT_DEVICE"
		return 1
	fi
	if grep -qE '^(panic:|goroutine [0-9]+ )' <<<"$out"; then
		echo "bad-plugin: Go panic"
		return 1
	fi
	if ! grep -qF "$junk" <<<"$out"; then
		echo "bad-plugin: the error does not name $junk"
		return 1
	fi
	echo "bad-plugin: ok (exit status $rc, error names the file)"
}

plugin_tests() {
	local out st
	out=$(cd "$ROOT/pjrt/plugin" && XLAJIT_TEST_PLUGIN="$PLUGIN" "$PLUGIN_TEST" -test.count=1 -test.v -test.timeout=200s 2>&1)
	st=$?
	grep -E '^(=== RUN|--- |ok|PASS|FAIL|panic|\s+\S+_test\.go)' <<<"$out"
	echo "plugin-tests: $(grep -c '^--- PASS' <<<"$out") passed, $(grep -c '^--- FAIL' <<<"$out") failed, $(grep -c '^--- SKIP' <<<"$out") skipped (exit status $st)"
	return "$st"
}

# spmd_check: XLA's partitioner (num_partitions = the plugin's device
# count, mhlo.sharding annotations) against the embedded partitioner, then
# examples/spmd on the plugin when Go is here (data-parallel MNIST and a
# tensor-parallel MLP; on one device the mesh has one device).
spmd_check() {
	local out st rc=0 ex="skipped (no go command)"
	out=$(cd "$ROOT/pjrt/plugin" && XLAJIT_TEST_PLUGIN="$PLUGIN" "$PLUGIN_TEST" -test.count=1 -test.v -test.run '^TestRealSPMD$' -test.timeout=100s 2>&1)
	st=$?
	echo "$out"
	grep -q '^--- PASS: TestRealSPMD' <<<"$out" || rc=1
	if command -v go >/dev/null 2>&1; then
		if PJRT_DEVICE="$PLUGIN" timeout 120 go run ./examples/spmd -steps 10; then
			ex="ok"
		else
			ex="failed"
			rc=1
		fi
	fi
	echo "spmd: TestRealSPMD exit status $st ($(grep -Eo 'spmd: [0-9]+ partitions[^$]*' <<<"$out" | head -n 1)), examples/spmd $ex"
	return "$rc"
}

# run_examples runs every examples/NAME/main.go on the plugin, with the
# arguments in $EXAMPLE_ARGS_NAME (NAME with non-alphanumerics as _), 60 s
# each; an example still running then counts as working, not as failed.
run_examples() {
	local found=0 rc=0 d name var st
	local -a args
	for d in examples/*/; do
		[[ -f "$d/main.go" ]] || continue
		found=1
		name=$(basename "$d")
		var="EXAMPLE_ARGS_${name//[^A-Za-z0-9]/_}"
		read -r -a args <<<"${!var:-}"
		echo "-- $name ${args[*]}"
		PJRT_DEVICE="$PLUGIN" timeout 60 go run "./${d%/}" "${args[@]}"
		st=$?
		if ((st == 124)); then
			echo "example $name: still running after 60s (stopped)"
		elif ((st != 0)); then
			echo "example $name failed (exit status $st)"
			rc=1
		else
			echo "example $name: ok"
		fi
	done
	((found)) || echo "examples: none with a main.go"
	return "$rc"
}

export XLAJIT PLUGIN PLUGIN_TEST LOGDIR ROOT
export -f build bad_plugin plugin_tests spmd_check run_examples

# --- build --------------------------------------------------------------------

# Build when Go is here (the module cache must hold the dependencies: the
# device machine may have no network); otherwise, or when that fails, use
# the prebuilt binaries that --prepare made elsewhere.
built=0
if ((HAVE_GO)) && [[ -z "${XLAJIT_BIN:-}" ]]; then
	run_step build 150 "" build
	[[ "${STEPS[-1]}" == build\|PASS\|* ]] && built=1
fi
if ((!built)); then
	if [[ -x "$XLAJIT" ]]; then
		note="prebuilt $XLAJIT"
		if [[ -n "$(find cmd pjrt hlo -name '*.go' -newer "$XLAJIT" -print -quit 2>/dev/null)" ]]; then
			note+=" (older than the sources)"
		fi
		if ((HAVE_GO)) && [[ -z "${XLAJIT_BIN:-}" ]]; then
			# The build failed (see its log); go on with the prebuilt
			# binaries instead of failing the run.
			IFS='|' read -r _ st secs _ <<<"${STEPS[-1]}"
			STEPS[-1]="build|NOBUILD|$secs|$st, using $note"
		else
			record build SKIP 0 "$note"
		fi
	else
		((HAVE_GO)) || record build FAIL 0 "no go command and no prebuilt $XLAJIT (run --prepare where Go is)"
		XLAJIT=""
	fi
fi

if [[ -n "$XLAJIT" ]]; then
	run_step devices 60 "" "$XLAJIT" devices --device "$PLUGIN"
	run_step bad-plugin 30 "bad-plugin:" bad_plugin
else
	record devices SKIP 0 "no xlajit binary"
fi

if [[ -x "$PLUGIN_TEST" ]]; then
	run_step plugin-tests 150 "^plugin-tests: " plugin_tests
	run_step spmd 150 "^spmd: " spmd_check
else
	record plugin-tests SKIP 0 "no $PLUGIN_TEST"
	record spmd SKIP 0 "no $PLUGIN_TEST"
fi

if [[ -n "$XLAJIT" && -d "$CORPUS" ]]; then
	# Two runs, so that a time-out in the big one still leaves a summary.
	run_step conform-interp 60 "conform: " "$XLAJIT" conform --device "$PLUGIN" -j "$JOBS" --root "$CORPUS" "$CORPUS/interpret"
	run_step conform-jax 150 "conform: " "$XLAJIT" conform --device "$PLUGIN" -j "$JOBS" --root "$CORPUS" "$CORPUS/testdata"
	run_step diff 90 "^diff: " "$XLAJIT" devices --diff --device "$PLUGIN" -j "$JOBS" --every "$DIFF_EVERY" "$CORPUS/interpret" "$CORPUS/testdata"
else
	record conform SKIP 0 "no xlajit binary or no corpus at $CORPUS"
	record diff SKIP 0 "no xlajit binary or no corpus at $CORPUS"
fi

if ((HAVE_GO)); then
	run_step examples 90 "^example " run_examples
else
	record examples SKIP 0 "no go command"
fi

# --- summary --------------------------------------------------------------------

echo
echo "== device-check summary ($(($(date +%s) - START))s, plugin $PLUGIN)"
printf '%-15s %-8s %5s  %s\n' step status secs note
for s in "${STEPS[@]}"; do
	IFS='|' read -r name status secs note <<<"$s"
	case "$status" in
	FAIL | TIMEOUT) FAILED=1 ;;
	esac
	printf '%-15s %-8s %5s  %s\n' "$name" "$status" "$secs" "$note"
done
echo "logs: $LOGDIR"
exit "$FAILED"
