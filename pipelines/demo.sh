#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job, from a fresh Debian 12 machine to figures: installs the
# packages (apt-get; sudo when not root), builds the plugin and the tools,
# synthesises speech with espeak-ng, resamples it to 48 kHz, adds pink
# noise from audiotestsrc at 5 dB SNR, denoises the mixture with the
# model built into the plugin through gst-launch-1.0, and prints the SI-SDR
# of the noisy and of the denoised speech against the clean speech.
# Nothing is downloaded but the Debian packages.
#
# Usage: pipelines/demo.sh            (from anywhere in the source tree)
#   RNNDENOISE_SKIP_INSTALL=1   skip the package step
#   BUILD_DIR=build             the meson build directory
#   OUT_DIR=$BUILD_DIR/demo     where clean.wav, noisy.wav, denoised.wav go
#   SNR=5                       the mixture's signal-to-noise ratio in dB
set -eu

cd "$(dirname -- "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${OUT_DIR:-$BUILD_DIR/demo}
SNR=${SNR:-5}

if [ "${RNNDENOISE_SKIP_INSTALL:-0}" != 1 ]; then
  echo "== installing packages"
  if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    meson ninja-build build-essential pkg-config python3 \
    libglib2.0-dev libfftw3-dev \
    libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
    gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
    espeak-ng
fi

echo "== building in $BUILD_DIR"
if [ -d "$BUILD_DIR" ]; then
  meson setup --reconfigure "$BUILD_DIR" >/dev/null
else
  meson setup "$BUILD_DIR" >/dev/null
fi
meson compile -C "$BUILD_DIR" >/dev/null
export BUILD_DIR
# shellcheck source-path=SCRIPTDIR/..
. pipelines/common.sh
launch () {
  $GST_LAUNCH -q "$@"
}

mkdir -p "$OUT_DIR"
speech=$OUT_DIR/speech-espeak.wav
clean=$OUT_DIR/clean.wav
noise=$OUT_DIR/noise.wav
noisy=$OUT_DIR/noisy.wav
denoised=$OUT_DIR/denoised.wav

echo "== clean speech: espeak-ng, resampled to 48 kHz"
espeak-ng -v en-us -s 150 -w "$speech" \
  "The recurrent state of every stream is an explicit object. It is kept \
between buffers, published on a side pad, and it can be exported and \
imported bit exactly. A noisy kitchen, a busy street and a humming fan \
should all fade into the background, while the voice stays clear and \
natural. Please call Stella and ask her to bring these things with her \
from the store."
launch filesrc location="$speech" ! wavparse ! audioconvert ! \
  audioresample ! audio/x-raw,rate=48000,channels=1,format=S16LE ! \
  wavenc ! filesink location="$clean"

echo "== pink noise from audiotestsrc, mixed at $SNR dB SNR"
# As long as the speech: 16-bit mono at 48 kHz is 9600 bytes per 4800-sample
# buffer.
buffers=$(($(wc -c <"$clean") / 9600 + 1))
launch audiotestsrc wave=pink-noise num-buffers="$buffers" \
  samplesperbuffer=4800 volume=0.5 ! \
  audio/x-raw,rate=48000,channels=1,format=S16LE ! \
  wavenc ! filesink location="$noise"
"$RNNDENOISE_BUILD_DIR/tools/rnndenoise-mix" --snr "$SNR" "$clean" "$noise" \
  "$noisy"

echo "== denoising with rnndenoise (embedded model)"
launch filesrc location="$noisy" ! wavparse ! audioconvert ! audioresample ! \
  rnndenoise ! audioconvert ! wavenc ! filesink location="$denoised"

sisdr="$RNNDENOISE_BUILD_DIR/tools/rnndenoise-sisdr"
noisy_db=$("$sisdr" --quiet "$clean" "$noisy")
denoised_db=$("$sisdr" --quiet "$clean" "$denoised")
delay=$("$sisdr" --max-delay-ms 50 "$clean" "$denoised" |
  sed -n 's/.*(delay \([-+0-9]*\) samples.*/\1/p')
echo
echo "SI-SDR against the clean speech ($clean):"
echo "  noisy     $noisy_db dB   ($noisy)"
echo "  denoised  $denoised_db dB   ($denoised)"
awk -v a="$noisy_db" -v b="$denoised_db" \
  'BEGIN { printf "  change    %+.2f dB\n", b - a }'
echo "  (best alignment of denoised to clean within ±50 ms: $delay samples)"
