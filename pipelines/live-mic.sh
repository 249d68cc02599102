#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Denoises the microphone live and plays the result (use headphones to
# avoid feedback). Stop with Ctrl-C.
#
# Usage: pipelines/live-mic.sh [ATTENUATION_DB] [PROPERTY=VALUE...]
#   ATTENUATION_DB: the largest attenuation in dB (default 0: no limit, the
#   element's default; speech-protection, on by default, is what keeps the
#   voice: docs/quality.md shows both trade-offs). Extra arguments are
#   rnndenoise properties, e.g. vad-threshold=0.6 to silence frames without
#   voice, or speech-protection=0.
#
# BUILD_DIR (default: build) picks the build directory; without one, the
# installed plugin is used. With audiobuffersplit (gst-plugins-bad) the
# input is cut into 10 ms buffers and the element runs with
# low-latency=true: it adds 20 ms of latency; without it, 30 ms.
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname -- "$0")/common.sh"

limit=0
if [ $# -gt 0 ]; then
  case $1 in
    *=*) ;;
    *) limit=$1; shift ;;
  esac
fi

if gst-inspect-1.0 audiobuffersplit >/dev/null 2>&1; then
  set -- low-latency=true "$@"
  split="audiobuffersplit output-buffer-duration=1/100 !"
else
  echo "live-mic.sh: no audiobuffersplit (gst-plugins-bad): 30 ms latency" >&2
  split=
fi

# shellcheck disable=SC2086 # $split is a pipeline fragment or nothing
exec $GST_LAUNCH autoaudiosrc ! audioconvert ! audioresample ! \
  audio/x-raw,rate=48000 ! $split \
  rnndenoise attenuation-limit="$limit" "$@" ! audioconvert ! \
  audioresample ! autoaudiosink
