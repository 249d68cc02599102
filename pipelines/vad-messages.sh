#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Prints the element messages rnndenoise posts on the bus with
# post-messages=true: one per stream and message-interval with pad,
# timestamp, vad (largest voice probability), vad-mean, speech,
# gated-frames, input-rms-db and output-rms-db.
#
# Usage: pipelines/vad-messages.sh [IN.wav] [INTERVAL_MS]
#   IN.wav: input (default: the microphone, until Ctrl-C); a file is
#   played in real time
#   INTERVAL_MS: audio time per message (default 100)
#
# BUILD_DIR (default: build) picks the build directory; without one, the
# installed plugin is used.
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname -- "$0")/common.sh"

in=${1:-}
interval=$((${2:-100} * 1000000))

if [ -n "$in" ]; then
  set -- filesrc location="$in" ! wavparse
else
  set -- autoaudiosrc
fi
# -m prints every bus message; keep those of the element.
$GST_LAUNCH -m "$@" ! audioconvert ! audioresample ! \
  rnndenoise post-messages=true message-interval="$interval" ! \
  fakesink sync=true |
  grep --line-buffered '(element): rnndenoise'
