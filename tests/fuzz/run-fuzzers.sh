#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the libFuzzer harnesses (clang, AddressSanitizer, UndefinedBehavior-
# Sanitizer, coverage instrumentation of state/ and dsp/) in their own build
# directory and runs each for SECONDS (default 60). See docs/fuzzing.md.
#
# Usage: tests/fuzz/run-fuzzers.sh [SECONDS] [HARNESS...]
#   HARNESS: snapshot, model, processor (default: all three, one after the
#   other).
# Environment:
#   BUILD_DIR               build directory (default: build-fuzz)
#   RNNDENOISE_SKIP_INSTALL=1  never apt-get install clang
#   FUZZ_ARGS               extra libFuzzer arguments (e.g. -jobs=2)
#
# Seeds come from tests/fuzz/corpus/<harness>/ (read only); what libFuzzer
# finds goes to $BUILD_DIR/fuzz-corpus/<harness>/, which later runs go on
# from. A crash, leak, timeout or out-of-memory input is kept in
# $BUILD_DIR/fuzz-artifacts/<harness>/ and makes the script exit non-zero
# after the remaining harnesses ran. Replay one with
#   $BUILD_DIR/tests/fuzz/fuzz_<harness> FILE
set -eu

cd "$(dirname "$0")/../.."
SECS=${1:-60}
[ $# -gt 0 ] && shift
HARNESSES=${*:-snapshot model processor}
BUILD_DIR=${BUILD_DIR:-build-fuzz}
FUZZ_ARGS=${FUZZ_ARGS:-}

# clang with the libFuzzer runtime (Debian: clang, libclang-rt-14-dev).
have_libfuzzer () {
  probe_dir=$(mktemp -d)
  printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput (const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput (const uint8_t *d, size_t n)' \
    '{ (void) d; (void) n; return 0; }' > "$probe_dir/probe.c"
  if clang -fsanitize=fuzzer,address,undefined "$probe_dir/probe.c" \
      -o "$probe_dir/probe" >/dev/null 2>&1; then
    rm -rf "$probe_dir"
    return 0
  fi
  rm -rf "$probe_dir"
  return 1
}

if ! command -v clang >/dev/null 2>&1 || ! have_libfuzzer; then
  if [ "${RNNDENOISE_SKIP_INSTALL:-0}" = 1 ]; then
    echo "run-fuzzers: clang with libFuzzer is missing" >&2
    exit 1
  fi
  if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    clang libclang-rt-14-dev
  have_libfuzzer
fi

# Coverage instrumentation (without libFuzzer's main) for everything; the
# harness executables add -fsanitize=fuzzer (tests/fuzz/meson.build).
cflags="-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined"
cflags="$cflags -fno-omit-frame-pointer"
cflags="$cflags -fsanitize-coverage-ignorelist=$PWD/tests/fuzz/coverage-ignorelist.txt"
if [ -f "$BUILD_DIR/build.ninja" ]; then
  if ! grep -q '"command": "clang' "$BUILD_DIR/compile_commands.json"; then
    echo "run-fuzzers: $BUILD_DIR is not a clang build; set BUILD_DIR" >&2
    exit 1
  fi
  meson configure "$BUILD_DIR" -Dc_args="$cflags"
else
  CC=clang meson setup "$BUILD_DIR" \
    -Dbuildtype=debugoptimized -Dplugin=disabled -Dtests=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dc_args="$cflags"
fi
targets=
for h in $HARNESSES; do
  targets="$targets tests/fuzz/fuzz_$h"
done
# shellcheck disable=SC2086
meson compile -C "$BUILD_DIR" $targets

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

status=0
summary=
for h in $HARNESSES; do
  corpus="$BUILD_DIR/fuzz-corpus/$h"
  seeds="$BUILD_DIR/fuzz-seeds/$h"
  artifacts="$BUILD_DIR/fuzz-artifacts/$h"
  log="$BUILD_DIR/fuzz-$h.log"
  mkdir -p "$corpus" "$artifacts"
  # The committed corpus without the reproducers of known bugs (crash-*),
  # which would stop libFuzzer at once.
  rm -rf "$seeds"
  mkdir -p "$seeds"
  for f in tests/fuzz/corpus/"$h"/*; do
    case "$(basename "$f")" in
      crash-*) ;;
      *) [ -f "$f" ] && cp "$f" "$seeds/" ;;
    esac
  done
  dict=
  [ -f "tests/fuzz/$h.dict" ] && dict="-dict=tests/fuzz/$h.dict"
  echo "== fuzz_$h for ${SECS} s (log: $log)"
  # shellcheck disable=SC2086
  if "$BUILD_DIR/tests/fuzz/fuzz_$h" -max_total_time="$SECS" \
      -rss_limit_mb=2048 -timeout=10 -max_len=16384 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" $dict $FUZZ_ARGS \
      "$corpus" "$seeds" >"$log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
    tail -n 60 "$log"
    echo "fuzz_$h FAILED; kept:"
    ls -l "$artifacts"
  fi
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[bKMG]?b' "$log" \
    | tail -n 1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  summary="$summary
fuzz_$h: $result; ${execs:-?} runs, ${rate:-?}/s; ${cov:-no coverage line}"

  # Known bugs: say whether each reproducer still fails (not an error).
  for f in tests/fuzz/corpus/"$h"/crash-*; do
    [ -f "$f" ] || continue
    if "$BUILD_DIR/tests/fuzz/fuzz_$h" "$f" >"$BUILD_DIR/fuzz-known-bug.log" 2>&1
    then
      summary="$summary
  known bug $f: PASSES now (fixed? rename it to regress-*)"
    else
      summary="$summary
  known bug $f: still fails"
    fi
  done
done

echo "== fuzzing summary ($SECS s each)$summary"
exit $status
