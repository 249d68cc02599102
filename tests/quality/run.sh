#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The quality report: rnndenoise against speexdsp and webrtcdsp on the
# held-out test mixtures, recorded voices first, then TTS voices; rewrites
# docs/quality.md and docs/quality-*.png.
#
#   tests/quality/run.sh [BUILD_DIR]
#
# BUILD_DIR is a meson build dir (default: build; set up if missing). Test
# mixtures, processed audio and per-file scores go to BUILD_DIR/quality/;
# only the report and its plots are written into the source tree.
#
# Settings (environment): MODEL (dsp/models/rnndenoise-48k.rnnm), SEEDS
# (test sets, "1 2 3 4 5 6"), TEST_SECONDS (10), JOBS (2), REAL_DIR (the
# recordings of dsp/train/sources.py, BUILD_DIR/train-data/real; fetched if
# missing), ATTENUATION_LIMITS (e.g. "0 6 12 18 24 30"),
# SPEECH_PROTECTIONS (e.g. "0 0.5 1 1.5 2"), STATIONARY_SUPPRESSIONS
# (e.g. "0 1 1.5 2 3") and HARMONIC_LIFTS (e.g. "0 0.25 0.5 1 2 3"):
# sweeps, rnndenoise once per value of that property on the recorded
# voices, each with its section of the report (empty: skipped;
# evaluate.py --sweep takes any numeric property), BAND_LIMITS ("16000
# 8000 4000": every method once more on the recorded voices of the first
# seed low-passed at each limit, in Hz; empty: skipped), BAND_LIMITS16
# ("7000 5512 3400": the same for the 16 kHz comparison), PHONE (1: the
# recorded telephone voices, synth.py --phone of the first seed, low-passed
# at 4 kHz, in both band-limited sections too; 0: not), RNNDENOISE_PROPS,
# WEBRTCDSP_PROPS, SPEEX_SUPPRESS (method settings),
# RNNDENOISE_SKIP_INSTALL=1 (no apt-get), RATE16 (1; 0 skips
# evaluate16k.py, the 16 kHz comparison of docs/quality-16k.md).
set -eu

QUALITY_START=$(date +%s)
export QUALITY_START
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
BUILD=build
for arg in "$@"; do
  case "$arg" in
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) BUILD=$arg ;;
  esac
done
case "$BUILD" in
  /*) ;;
  *) BUILD="$SRC/$BUILD" ;;
esac
MODEL=${MODEL:-$SRC/dsp/models/rnndenoise-48k.rnnm}
case "$MODEL" in
  /*) ;;
  *) MODEL="$SRC/$MODEL" ;;
esac
SEEDS=${SEEDS:-1 2 3 4 5 6}
TEST_SECONDS=${TEST_SECONDS:-10}
JOBS=${JOBS:-2}
REAL_DIR=${REAL_DIR:-$BUILD/train-data/real}
case "$REAL_DIR" in
  /*) ;;
  *) REAL_DIR="$SRC/$REAL_DIR" ;;
esac
ATTENUATION_LIMITS=${ATTENUATION_LIMITS:-}
SPEECH_PROTECTIONS=${SPEECH_PROTECTIONS:-}
STATIONARY_SUPPRESSIONS=${STATIONARY_SUPPRESSIONS:-}
HARMONIC_LIFTS=${HARMONIC_LIFTS:-}
BAND_LIMITS=${BAND_LIMITS-16000 8000 4000}
BAND_LIMITS16=${BAND_LIMITS16-7000 5512 3400}
PHONE=${PHONE:-1}
# Debian's interpreter with python3-numpy/scipy/matplotlib, not whatever
# is first on PATH.
PY=/usr/bin/python3
OUT="$BUILD/quality"

step() {
  echo
  echo "== $* ($(date +%H:%M:%S))"
}

step "packages"
# Build, GStreamer elements (wavparse/wavenc: good; webrtcdsp: bad),
# speexdsp, the metrics and plots, the TTS engines of synth.py and the
# audio decoder of sources.py.
PACKAGES="build-essential meson ninja-build pkg-config libglib2.0-dev
  libfftw3-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad libspeexdsp-dev python3-numpy python3-scipy
  python3-matplotlib python3-soundfile espeak-ng flite festival
  festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts"
MISSING=
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
    || MISSING="$MISSING $p"
done
if [ -z "$MISSING" ]; then
  echo "all installed"
elif [ "${RNNDENOISE_SKIP_INSTALL:-0}" = 1 ]; then
  echo "missing:$MISSING (RNNDENOISE_SKIP_INSTALL=1, not installing)"
else
  if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
  echo "installing:$MISSING"
  # shellcheck disable=SC2086 # MISSING is a list of packages
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $MISSING \
    || { $SUDO apt-get update -q \
      && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        $MISSING; }
fi

step "build in $BUILD"
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" "$SRC"
fi
ninja -C "$BUILD" plugin/libgstrnndenoise.so dsp/rnndenoise-model
mkdir -p "$OUT"
SPEEX="$BUILD/tests/quality/speex_denoise"
if ninja -C "$BUILD" -t targets all 2>/dev/null \
    | grep -q '^tests/quality/speex_denoise:'; then
  ninja -C "$BUILD" tests/quality/speex_denoise
else
  # The tests are not configured (no Check): build the baseline directly.
  SPEEX="$OUT/speex_denoise"
  # shellcheck disable=SC2046 # pkg-config gives a list of options
  cc -O2 -I"$BUILD" -o "$SPEEX" "$HERE/speex_denoise.c" \
    $(pkg-config --cflags --libs glib-2.0 speexdsp)
fi
"$BUILD/dsp/rnndenoise-model" info "$MODEL"

TRAIN="$SRC/dsp/train"
step "recorded speech and noise in $REAL_DIR"
# Fetched from Debian data packages (apt-get download, unpacked, never
# installed) unless its catalogue exists.
$PY "$TRAIN/sources.py" "$REAL_DIR" --jobs "$JOBS"

step "held-out test mixtures (seeds $SEEDS)"
STAMP="seconds=$TEST_SECONDS split=$(cksum < "$TRAIN/split.txt" | cut -d' ' -f1)"
STAMP="$STAMP code=$(cat "$TRAIN/synth.py" "$TRAIN/tts.py" "$TRAIN/noises.py" \
    "$TRAIN/sources.py" | cksum | cut -d' ' -f1)"
STAMP="$STAMP real=$(cksum < "$REAL_DIR/catalogue.tsv" | cut -d' ' -f1)"
TESTDIRS=
REAL_TESTDIRS=
PHONE_TESTDIR=
DATA_START=$(date +%s)
for seed in $SEEDS; do
  DIR="$OUT/data/seed$seed"
  if [ -f "$DIR/stamp" ] && [ "$(cat "$DIR/stamp")" = "$STAMP" ]; then
    echo "seed $seed: up to date, kept"
  else
    rm -rf "$DIR"
    mkdir -p "$DIR"
    # Only the test sets are used (test/: TTS voices, test-real/: recorded
    # voices): the training pools and mixtures are cut to the minimum and
    # removed.
    $PY "$TRAIN/synth.py" "$DIR" --seed "$seed" --train-minutes 0 \
        --val-minutes 0 --test-seconds "$TEST_SECONDS" --jobs "$JOBS" \
        --real "$REAL_DIR"
    rm -rf "$DIR/train" "$DIR/val"
    echo "$STAMP" > "$DIR/stamp"
  fi
  if [ "$PHONE" = 1 ] && [ -z "$PHONE_TESTDIR" ]; then
    # The telephone voices' mixtures, of the first seed only (they go with
    # its band-limited runs).
    if [ ! -f "$DIR/test-phone/manifest.tsv" ]; then
      $PY "$TRAIN/synth.py" "$DIR" --phone --seed "$seed" \
          --test-seconds "$TEST_SECONDS" --jobs "$JOBS" --real "$REAL_DIR"
    fi
    PHONE_TESTDIR="--phone-testdir $DIR/test-phone"
  fi
  TESTDIRS="$TESTDIRS $DIR/test"
  REAL_TESTDIRS="$REAL_TESTDIRS --real-testdir $DIR/test-real"
done
QUALITY_DATA_SECONDS=$(( $(date +%s) - DATA_START ))
export QUALITY_DATA_SECONDS

step "metrics self-check"
$PY "$HERE/metrics.py" --self-check

step "run the methods, score, write docs/quality.md"
rm -rf "$OUT/work"
MODEL_NAME=$MODEL
case "$MODEL" in
  "$SRC"/*) MODEL_NAME=${MODEL#"$SRC"/} ;;
esac
# The sweeps, as arguments that keep their spaces.
set --
if [ -n "$ATTENUATION_LIMITS" ]; then
  set -- "$@" --sweep "attenuation-limit=$ATTENUATION_LIMITS"
fi
if [ -n "$SPEECH_PROTECTIONS" ]; then
  set -- "$@" --sweep "speech-protection=$SPEECH_PROTECTIONS"
fi
if [ -n "$STATIONARY_SUPPRESSIONS" ]; then
  set -- "$@" --sweep "stationary-suppression=$STATIONARY_SUPPRESSIONS"
fi
if [ -n "$HARMONIC_LIFTS" ]; then
  set -- "$@" --sweep "harmonic-lift=$HARMONIC_LIFTS"
fi
for limit in $BAND_LIMITS; do
  set -- "$@" --band-limit "$limit"
done
if [ -n "$BAND_LIMITS" ] && [ -n "$PHONE_TESTDIR" ]; then
  # shellcheck disable=SC2086 # an option and its value
  set -- "$@" $PHONE_TESTDIR
fi
# shellcheck disable=SC2086 # lists of options and of directories
$PY "$HERE/evaluate.py" --build "$BUILD" --model "$MODEL" \
    --model-name "$MODEL_NAME" --speex "$SPEEX" --work "$OUT/work" \
    --docs "$SRC/docs" --jobs "$JOBS" "$@" $REAL_TESTDIRS $TESTDIRS

if [ "${RATE16:-1}" != 0 ]; then
  step "the 16 kHz comparison, write docs/quality-16k.md"
  rm -rf "$OUT/work16k"
  set --
  for limit in $BAND_LIMITS16; do
    set -- "$@" --band-limit "$limit"
  done
  if [ -n "$BAND_LIMITS16" ] && [ -n "$PHONE_TESTDIR" ]; then
    # shellcheck disable=SC2086 # an option and its value
    set -- "$@" $PHONE_TESTDIR
  fi
  # shellcheck disable=SC2086 # lists of options and of directories
  $PY "$HERE/evaluate16k.py" --build "$BUILD" --speex "$SPEEX" \
      --work "$OUT/work16k" --docs "$SRC/docs" --jobs "$JOBS" "$@" \
      $REAL_TESTDIRS $TESTDIRS
fi

step "done in $(( ($(date +%s) - QUALITY_START + 30) / 60 )) min"
echo "report: $SRC/docs/quality.md"
