#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The plugins in PipeWire's filter-chain, end to end, with no audio
# device: a private pipewire and wireplumber (in a D-Bus session of their
# own, runtime, config and state folders in a temporary folder) load
# pipewire-test.conf, whose filter runs the LADSPA plugin between the
# virtual sink rnndenoise_test_in and the virtual source
# rnndenoise_test_out, and, given the LV2 module, pipewire-test-lv2.conf,
# the same with the LV2 plugin (rnndenoise_test_lv2_in, _out). pw-record
# records each source while pw-play plays a noisy signal into each sink,
# and pipewire-test.py checks each recording (the plugin's samples bit for
# bit, not silent, the noise at least 10 dB lower; a run that dropped
# samples is run again, three runs at most).
# Exits 77 (skipped) when PipeWire, WirePlumber or pw-cat is missing.
# Usage: pipewire-test.sh LADSPA_DIR LIBRNNDENOISE [LV2_MODULE LV2_TTL_DIR]
set -eu

here=$(cd "$(dirname "$0")" && pwd)

# Polls "$@" every 0.1 s for up to 10 s.
wait_for () {
  i=0
  until "$@" >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 100 ] || return 1
    sleep 0.1
  done
}

has_ports () {
  pw-link -o | grep -q "^$1_out:" && pw-link -i | grep -q "^$1_in:"
}

recorder_linked () {
  pw-link -l | grep -A1 "^$1_out:" | grep -q "|->"
}

stop () {
  for pid in "$@"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "$@"; do
    wait "$pid" 2>/dev/null || true
  done
}

# Plays $tmp/noisy.wav into the filter $1 (node name prefix) and records
# its output to $tmp/$1.wav.
play_through () {
  # WirePlumber gives the filter's nodes their ports.
  if ! wait_for has_ports "$1"; then
    pw-cli ls Node || true
    echo "the ports of $1_in and $1_out did not appear"
    return 1
  fi
  pw-record --target "$1_out" --rate 48000 --channels 1 --format f32 \
      "$tmp/$1.wav" &
  rec=$!
  if ! wait_for recorder_linked "$1"; then
    pw-link -l || true
    stop $rec
    echo "pw-record was not linked to $1_out"
    return 1
  fi
  status=0
  timeout 30 pw-play --target "$1_in" "$tmp/noisy.wav" || status=$?
  # The plugin's latency and the last quanta, then stop recording.
  sleep 0.5
  kill -INT $rec 2>/dev/null || true
  wait $rec || true
  [ $status -eq 0 ] || { echo "pw-play into $1_in failed ($status)"; return 1; }
}

# Inside dbus-run-session: $1 the temporary folder, then the filters, one
# after the other (one client pair at a time loads a busy machine less).
session () {
  tmp=$1
  shift
  pipewire >"$tmp/pipewire.log" 2>&1 &
  pw=$!
  wait_for pw-cli info 0 || { stop $pw; echo "pipewire did not start"; return 1; }
  wireplumber >"$tmp/wireplumber.log" 2>&1 &
  wp=$!
  for filter in "$@"; do
    play_through "$filter" || { stop $wp $pw; return 1; }
  done
  stop $wp $pw
}

if [ "${1:-}" = --session ]; then
  shift
  session "$@"
  exit
fi

[ $# -eq 2 ] || [ $# -eq 4 ] || {
  echo "usage: $0 LADSPA_DIR LIBRNNDENOISE [LV2_MODULE LV2_TTL_DIR]" >&2
  exit 2
}
for prog in pipewire wireplumber pw-cat pw-play pw-record pw-cli pw-link \
    dbus-run-session timeout python3; do
  if ! command -v $prog >/dev/null 2>&1; then
    echo "SKIP: $prog is not installed"
    exit 77
  fi
done

ladspa_dir=$(cd "$1" && pwd)
lib=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
conf_d="$tmp/config/pipewire/pipewire.conf.d"
mkdir -p "$conf_d"
cp "$here/pipewire-test.conf" "$conf_d/"
filters=rnndenoise_test
if [ $# -eq 4 ]; then
  # The LV2 bundle as it is installed: the module next to its .ttl files.
  bundle="$tmp/lv2/rnndenoise.lv2"
  mkdir -p "$bundle"
  ln -s "$(cd "$(dirname "$3")" && pwd)/$(basename "$3")" "$bundle/"
  cp "$4/manifest.ttl" "$4/rnndenoise.ttl" "$bundle/"
  cp "$here/pipewire-test-lv2.conf" "$conf_d/"
  export LV2_PATH="$tmp/lv2"
  filters="$filters rnndenoise_test_lv2"
fi

# A private instance: its own socket, config and WirePlumber state; the
# plugins from the build (and librnndenoise next to them).
unset PIPEWIRE_REMOTE PIPEWIRE_RUNTIME_DIR PIPEWIRE_CONFIG_DIR
LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export XDG_RUNTIME_DIR="$tmp/run" XDG_CONFIG_HOME="$tmp/config" \
    XDG_STATE_HOME="$tmp/state" LADSPA_PATH="$ladspa_dir" LD_LIBRARY_PATH

python3 "$here/pipewire-test.py" make "$tmp/noisy.wav"
# A graph cycle missed on a busy machine drops samples. Then the check
# exits 75 (the first 0.5 s were the plugin's, later samples differ) or 76
# (even the first 0.5 s differ), and the playback runs again, at most
# three times in all. Three runs that all dropped samples after matching
# the plugin's first 0.5 s mean that this machine is too busy to run the
# graph in real time: the test is then skipped, not failed; three runs
# none of which matched fail.
attempt=1
matched=no
while :; do
  # Each run starts afresh: no recording, socket or WirePlumber state
  # (which restores streams' targets and volumes) from the one before.
  rm -rf "$tmp"/rnndenoise_test*.wav "$tmp/run" "$tmp/state"
  mkdir -m 700 "$tmp/run"
  mkdir "$tmp/state"
  # shellcheck disable=SC2086 # filters is a list of names
  if ! dbus-run-session -- "$0" --session "$tmp" $filters; then
    echo "--- pipewire.log"; tail -20 "$tmp/pipewire.log" 2>/dev/null || true
    echo "--- wireplumber.log"; tail -20 "$tmp/wireplumber.log" 2>/dev/null || true
    exit 1
  fi
  result=0
  for filter in $filters; do
    status=0
    if [ "$filter" = rnndenoise_test ]; then
      echo "LADSPA rnndenoise_mono in the filter-chain:"
      python3 "$here/pipewire-test.py" check "$tmp/noisy.wav" \
          "$tmp/$filter.wav" "$lib" "$ladspa_dir" || status=$?
    else
      echo "LV2 urn:rnndenoise:lv2:mono in the filter-chain:"
      python3 "$here/pipewire-test.py" check "$tmp/noisy.wav" \
          "$tmp/$filter.wav" "$lib" || status=$?
    fi
    case $status in
      0) ;;
      75) matched=yes; result=$status ;;
      76) [ $result -ne 0 ] || result=$status ;;
      *) exit $status ;;
    esac
  done
  [ $result -ne 0 ] || exit 0
  if [ $attempt -eq 3 ]; then
    if [ $matched = yes ]; then
      echo "SKIP: every run dropped samples (the machine is too busy)"
      exit 77
    fi
    echo "no run gave the plugins' samples"
    exit 1
  fi
  attempt=$((attempt + 1))
  echo "run $attempt"
done
