#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two independent streams through ONE rnndenoise element: sink → src
# and sink_1 → src_1. Each stream has its own recurrent state; per-pad
# properties go through the element's child proxy (sink_1::attenuation-limit).
#
# Usage: pipelines/two-streams.sh [IN0.wav IN1.wav [OUT0.wav OUT1.wav]]
#   With no input files, 3 s of a tone and 3 s of pink noise are used.
#   Outputs default to stream0.wav and stream1.wav (48 kHz, 16-bit).
#
# BUILD_DIR (default: build) picks the build directory; without one, the
# installed plugin is used.
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname -- "$0")/common.sh"

case $# in
  0) ;;
  2 | 4) in0=$1; in1=$2; shift 2 ;;
  *) sed -n '2,11s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
out0=${1:-stream0.wav}
out1=${2:-stream1.wav}

# Each branch runs in its own streaming thread, so no queue is needed.
# The element and its per-pad settings come first; the sources follow.
if [ -n "${in0:-}" ]; then
  $GST_LAUNCH -q rnndenoise name=d sink_1::attenuation-limit=20 \
    filesrc location="$in0" ! wavparse ! audioconvert ! audioresample ! \
      d.sink \
    d.src ! audioconvert ! audio/x-raw,format=S16LE ! wavenc ! \
      filesink location="$out0" \
    filesrc location="$in1" ! wavparse ! audioconvert ! audioresample ! \
      d.sink_1 \
    d.src_1 ! audioconvert ! audio/x-raw,format=S16LE ! wavenc ! \
      filesink location="$out1"
else
  $GST_LAUNCH -q rnndenoise name=d sink_1::attenuation-limit=20 \
    audiotestsrc num-buffers=150 samplesperbuffer=960 freq=300 ! \
      audio/x-raw,rate=48000 ! d.sink \
    d.src ! audioconvert ! audio/x-raw,format=S16LE ! wavenc ! \
      filesink location="$out0" \
    audiotestsrc num-buffers=150 samplesperbuffer=960 wave=pink-noise ! \
      audio/x-raw,rate=48000 ! d.sink_1 \
    d.src_1 ! audioconvert ! audio/x-raw,format=S16LE ! wavenc ! \
      filesink location="$out1"
fi
echo "stream 0: $out0"
echo "stream 1: $out1"
