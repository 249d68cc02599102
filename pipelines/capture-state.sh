#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Denoises a stream and captures its recurrent state: after every buffer
# that completed a 10 ms frame, the element pushes the state on the side
# pad state_0 (caps application/x-rnn-state: format, cell, layers,
# hidden-sizes, batch, scale, zero-point, model-id, layout=layer-major).
# Each state buffer is batch x sum(hidden-sizes) values, layer-major; S8
# and S16LE values are (q - zero-point) x scale.
#
# Usage: pipelines/capture-state.sh [IN.wav] [STATE_FILE] [FORMAT]
#   IN.wav: input (default: 3 s of pink noise)
#   STATE_FILE: where the state stream goes (default: state.bin)
#   FORMAT: F32LE, S16LE or S8 (default: S8)
#
# The denoised audio goes to fakesink. Both branches need a queue: the
# audio and the state come from the same streaming thread, and each sink
# would otherwise wait in preroll for the other. BUILD_DIR (default: build)
# picks the build directory; without one, the installed plugin is used.
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname -- "$0")/common.sh"

in=${1:-}
state=${2:-state.bin}
format=${3:-S8}
case $format in
  F32LE | S16LE | S8) ;;
  *) sed -n '2,19s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ -n "$in" ]; then
  $GST_LAUNCH -v filesrc location="$in" ! wavparse ! audioconvert ! \
    audioresample ! rnndenoise name=d ! queue ! fakesink \
    d.state_0 ! queue ! "application/x-rnn-state,format=$format" ! \
    filesink location="$state" >"$log"
else
  $GST_LAUNCH -v audiotestsrc wave=pink-noise num-buffers=150 \
    samplesperbuffer=960 ! audio/x-raw,rate=48000 ! rnndenoise name=d ! \
    queue ! fakesink \
    d.state_0 ! queue ! "application/x-rnn-state,format=$format" ! \
    filesink location="$state" >"$log"
fi

# The state pad's caps, as gst-launch -v printed them.
caps=$(sed -n 's/^.*:d\.GstPad:state_0: caps = //p' "$log" | head -n 1)
echo "state caps: $caps"
batch=$(echo "$caps" | sed -n 's/.*batch=(int)\([0-9]*\).*/\1/p')
# shellcheck disable=SC1003 # a backslash for sed, not an escaped quote
hidden=$(echo "$caps" | sed -n 's/.*hidden-sizes=(string)"*\([0-9\\,]*\)"*.*/\1/p' |
  tr -d '\\')
case $format in
  F32LE) bytes=4 ;;
  S16LE) bytes=2 ;;
  *) bytes=1 ;;
esac
values=0
for h in $(echo "$hidden" | tr ',' ' '); do
  values=$((values + batch * h))
done
size=$(wc -c <"$state")
if [ "$values" -gt 0 ]; then
  echo "$state: $size bytes = $((size / (values * bytes))) state buffers" \
    "of $values values x $bytes byte(s)"
fi
