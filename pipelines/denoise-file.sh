#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Denoises a WAV file. The input may have any rate, sample format and 1 to
# 8 channels: audioconvert and audioresample bring it to what the element
# takes (F32 or S16 at 48 or 16 kHz, each rate with its model; audioresample
# picks the one nearest the input); the output is 16-bit WAV at that rate.
#
# Usage: pipelines/denoise-file.sh IN.wav OUT.wav [PROPERTY=VALUE...]
#   e.g. pipelines/denoise-file.sh noisy.wav denoised.wav attenuation-limit=30
#
# Extra arguments are rnndenoise properties (attenuation-limit, vad-threshold,
# vad-hold, model=FILE, ...). BUILD_DIR (default: build) picks the build
# directory; without one, the installed plugin is used.
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname -- "$0")/common.sh"

if [ $# -lt 2 ]; then
  sed -n '2,14s/^# \{0,1\}//p' "$0" >&2
  exit 2
fi
in=$1
out=$2
shift 2

$GST_LAUNCH -q filesrc location="$in" ! wavparse ! audioconvert ! \
  audioresample ! rnndenoise "$@" ! audioconvert ! \
  audio/x-raw,format=S16LE ! wavenc ! filesink location="$out"
echo "denoised: $out"
