#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Denoises the microphone live and plays the result (use headphones to
# avoid feedback). Stop with Ctrl-C.
#
# Usage: pipelines/live-mic.sh [ATTENUATION_DB] [PROPERTY=VALUE...]
#   ATTENUATION_DB: the largest attenuation in dB (default 30; 0 removes
#   the limit, which may sound harsh). Extra arguments are rnndenoise
#   properties, e.g. vad-threshold=0.6 to silence frames without voice.
#
# BUILD_DIR (default: build) picks the build directory; without one, the
# installed plugin is used. The element adds 20 ms of latency.
set -eu
. "$(dirname -- "$0")/common.sh"

limit=30
if [ $# -gt 0 ]; then
  case $1 in
    *=*) ;;
    *) limit=$1; shift ;;
  esac
fi

exec $GST_LAUNCH autoaudiosrc ! audioconvert ! audioresample ! \
  rnndenoise attenuation-limit="$limit" "$@" ! audioconvert ! \
  audioresample ! autoaudiosink
