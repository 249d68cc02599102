#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# gst-launch-1.0 runs against the plugin in the build directory, each
# checked by pipeline-check. Run by meson (suite "pipeline"), which sets
# the plugin path and a per-test registry:
#   tests/pipelines/pipeline-tests.sh CASE PIPELINE_CHECK WORK_DIR
# CASE: equal-counts, two-streams, plain-filter, playbin, decodebin,
# state-stream, refuse-44k,
# refuse-44k-file, latency, state-eos-before-data, state-branch-gone.
set -eu

case=$1
check=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# gst-launch-1.0, or pipeline-check's own launcher when meson says the
# build has sanitizers (gst-launch-1.0 cannot load such a plugin).
if [ -n "${RNNDENOISE_TEST_LAUNCHER:-}" ]; then
  gst_launch () { "$check" launch "$@"; }
else
  gst_launch () { gst-launch-1.0 "$@"; }
fi

launch () {
  echo "+ gst-launch-1.0 $*"
  gst_launch -q "$@"
}

case $case in
  equal-counts)
    # Buffers of any size, in S16 and F32, mono and stereo, at both rates:
    # the output has exactly as many samples as the input (the tail is
    # drained at EOS).
    # samples-per-buffer buffers format channels rate
    while read -r spb n format channels rate; do
      out=out-$spb-$n-$format-$channels-$rate.wav
      launch audiotestsrc wave=pink-noise samplesperbuffer="$spb" \
        num-buffers="$n" ! \
        "audio/x-raw,rate=$rate,format=$format,channels=$channels" ! \
        rnndenoise ! wavenc ! filesink location="$out"
      "$check" wav-frames "$out" $((spb * n)) "$rate" "$channels"
    done <<LIST
1 2000 S16LE 1 48000
479 60 S16LE 1 48000
480 60 S16LE 1 48000
481 60 F32LE 2 48000
4096 12 S16LE 1 48000
4096 12 F32LE 8 48000
100 3 S16LE 1 48000
480 1 F32LE 1 48000
1 1 S16LE 1 48000
1 700 S16LE 1 16000
159 30 S16LE 1 16000
160 30 F32LE 2 16000
1000 7 F32LE 8 16000
LIST
    # File in, file out; then a 22.05 kHz file through audioresample,
    # against the same chain without rnndenoise: audioresample picks the
    # rate nearest its input that rnndenoise takes, 16 kHz here.
    launch audiotestsrc wave=pink-noise samplesperbuffer=1000 \
      num-buffers=37 ! audio/x-raw,rate=48000,channels=2 ! wavenc ! \
      filesink location=in48.wav
    launch filesrc location=in48.wav ! wavparse ! rnndenoise ! wavenc ! \
      filesink location=out48.wav
    "$check" wav-same in48.wav out48.wav
    launch audiotestsrc wave=pink-noise samplesperbuffer=777 \
      num-buffers=41 ! audio/x-raw,rate=22050,channels=1 ! wavenc ! \
      filesink location=in22.wav
    launch filesrc location=in22.wav ! wavparse ! audioconvert ! \
      audioresample ! audio/x-raw,rate=16000 ! wavenc ! \
      filesink location=ref22.wav
    launch filesrc location=in22.wav ! wavparse ! audioconvert ! \
      audioresample ! rnndenoise ! audioconvert ! wavenc ! \
      filesink location=out22.wav
    "$check" wav-same ref22.wav out22.wav
    ;;

  two-streams)
    # Two streams of different formats and lengths through one element:
    # both complete, each with as many samples as went in.
    launch rnndenoise name=d sink_1::attenuation-limit=20 \
      audiotestsrc wave=pink-noise samplesperbuffer=479 num-buffers=70 ! \
        audio/x-raw,rate=48000,format=S16LE,channels=1 ! d.sink \
      d.src ! wavenc ! filesink location=s0.wav \
      audiotestsrc freq=300 samplesperbuffer=1024 num-buffers=40 ! \
        audio/x-raw,rate=48000,format=F32LE,channels=2 ! d.sink_1 \
      d.src_1 ! wavenc ! filesink location=s1.wav
    "$check" wav-frames s0.wav $((479 * 70)) 48000 1
    "$check" wav-frames s1.wav $((1024 * 40)) 48000 2
    ;;

  state-stream)
    # The state stream in each format, for one and two channels: one state
    # buffer per input buffer that completed a 10 ms frame (480 samples),
    # each of the size the caps give, every value finite and bounded.
    # A queue on each branch: both come from one streaming thread.
    for format in F32LE S16LE S8; do
      for channels in 1 2; do
        out=state-$format-$channels.bin
        echo "+ gst-launch-1.0 -v ... d.state_0 ! $format ! filesink $out"
        gst_launch -v audiotestsrc wave=pink-noise samplesperbuffer=479 \
          num-buffers=60 ! "audio/x-raw,rate=48000,channels=$channels" ! \
          rnndenoise name=d ! queue ! fakesink \
          d.state_0 ! queue ! "application/x-rnn-state,format=$format" ! \
          filesink location="$out" >launch.log
        caps=$(sed -n 's/^.*:d\.GstPad:state_0: caps = //p' launch.log |
          head -n 1)
        "$check" state "$out" "$caps" 479 60 480
      done
    done
    ;;

  plain-filter)
    # The first stream on the always pads sink and src: linked with no pad
    # names, its state on state_0.
    launch audiotestsrc wave=pink-noise samplesperbuffer=480 num-buffers=30 ! \
      audio/x-raw,rate=48000 ! rnndenoise name=d ! wavenc ! \
      filesink location=plain.wav d.state_0 ! queue ! fakesink
    "$check" wav-frames plain.wav $((480 * 30)) 48000 1
    ;;

  playbin)
    # rnndenoise as playbin's audio filter: a 48 kHz file as it is, a
    # 44.1 kHz one with audioresample in the filter (playbin puts only an
    # audioconvert in front of its audio filter).
    launch audiotestsrc wave=pink-noise samplesperbuffer=1000 num-buffers=30 ! \
      audio/x-raw,rate=48000,channels=1 ! wavenc ! filesink location=in48.wav
    launch playbin uri="file://$PWD/in48.wav" audio-filter=rnndenoise \
      audio-sink="wavenc ! filesink location=out48.wav" video-sink=fakesink
    "$check" wav-frames out48.wav $((1000 * 30)) 48000 1
    launch audiotestsrc wave=pink-noise samplesperbuffer=1000 num-buffers=30 ! \
      audio/x-raw,rate=44100,channels=1 ! wavenc ! filesink location=in44.wav
    launch playbin uri="file://$PWD/in44.wav" \
      audio-filter="audioresample ! rnndenoise" audio-sink=fakesink \
      video-sink=fakesink
    ;;

  decodebin)
    # gst-launch-1.0 itself (skipped where it cannot load a sanitized plugin).
    [ -z "${RNNDENOISE_TEST_LAUNCHER:-}" ] || exit 77
    # decodebin's 44.1 kHz pad cannot link to rnndenoise (its caps name
    # only the model's rate): the link fails and the pipeline stops; with
    # audioconvert ! audioresample between them it runs.
    launch audiotestsrc num-buffers=10 ! audio/x-raw,rate=44100 ! wavenc ! \
      filesink location=in44.wav
    # (gst-launch-1.0 1.22 may hang after the error, in any pipeline whose
    # error comes before its main loop runs: a timeout counts as failed.)
    rc=0
    timeout 20 gst-launch-1.0 filesrc location=in44.wav ! decodebin ! \
      rnndenoise ! fakesink >out.txt 2>&1 || rc=$?
    cat out.txt
    if [ $rc -eq 0 ]; then
      echo "decodebin ! rnndenoise ran at 44.1 kHz"
      exit 1
    fi
    # gst-launch-1.0 prints the delayed-link warning, or only the error it
    # causes (streaming stopped, not-linked) when that comes first.
    grep -qE "linking failed|not-linked" out.txt
    launch filesrc location=in44.wav ! decodebin ! audioconvert ! \
      audioresample ! rnndenoise ! fakesink
    ;;

  refuse-44k)
    # gst-launch-1.0 itself (skipped where it cannot load a sanitized plugin).
    [ -z "${RNNDENOISE_TEST_LAUNCHER:-}" ] || exit 77
    # 44.1 kHz without audioresample, with gst-launch-1.0 itself, 30 times:
    # the caps name only the model's rate, so the pipeline fails when it
    # is built, naming the element and the rate, and never hangs (when it
    # got as far as playing, an error posted before gst-launch-1.0 ran
    # its main loop was lost and the pipeline stayed in preroll).
    n=0
    while [ $n -lt 30 ]; do
      n=$((n + 1))
      rc=0
      timeout 20 gst-launch-1.0 audiotestsrc num-buffers=10 ! \
        audio/x-raw,rate=44100 ! rnndenoise ! fakesink >out.txt 2>&1 || rc=$?
      if [ $rc -eq 124 ]; then
        cat out.txt
        echo "run $n hung"
        exit 1
      fi
      if [ $rc -eq 0 ] || ! grep -q "rnndenoise0 can't handle caps.*44100" out.txt
      then
        cat out.txt
        echo "run $n: exit status $rc, no refusal naming rnndenoise and 44100"
        exit 1
      fi
    done
    cat out.txt
    echo "30 runs, none hung"
    # With a queue between them the same.
    rc=0
    timeout 20 gst-launch-1.0 audiotestsrc num-buffers=10 ! \
      audio/x-raw,rate=44100 ! queue ! rnndenoise ! fakesink >out.txt 2>&1 \
      || rc=$?
    cat out.txt
    [ $rc -ne 0 ] && [ $rc -ne 124 ]
    ;;

  refuse-44k-file)
    # The same from a 44.1 kHz WAV file: wavparse sets its caps without a
    # caps query, so only the accept-caps query sees them.
    launch audiotestsrc num-buffers=10 ! audio/x-raw,rate=44100 ! wavenc ! \
      filesink location=in44.wav
    "$check" refusal "filesrc location=in44.wav ! wavparse ! rnndenoise ! \
      fakesink"
    ;;

  latency)
    # The latency query: the element adds 30 ms (10 ms of STFT overlap,
    # 10 ms of framing and the frame the 48 kHz model reads ahead).
    "$check" latency "audiotestsrc num-buffers=5 ! audio/x-raw,rate=48000 ! \
      rnndenoise name=d ! fakesink" 30000000
    # low-latency after audiobuffersplit (whole 10 ms frames): 20 ms, and the
    # pipeline runs to the end with no warning.
    "$check" latency "audiotestsrc num-buffers=5 ! audio/x-raw,rate=48000 ! \
      audiobuffersplit output-buffer-duration=1/100 ! \
      rnndenoise name=d low-latency=true ! fakesink" 20000000
    launch audiotestsrc num-buffers=20 ! audio/x-raw,rate=48000 ! \
      audiobuffersplit output-buffer-duration=1/100 ! \
      rnndenoise low-latency=true ! fakesink > low-latency.log 2>&1 ||
      { cat low-latency.log; echo "FAIL: low-latency pipeline"; exit 1; }
    if grep -q WARNING low-latency.log; then
      cat low-latency.log
      echo "FAIL: a warning with whole 10 ms frames"
      exit 1
    fi
    ;;

  state-eos-before-data)
    # EOS before the first buffer reaches a linked state pad (and its
    # stream-start before it), so the pipeline ends instead of waiting
    # for the state branch forever.
    for spec in "format=F32LE,rate=48000,channels=1" "rate=48000,channels=2"; do
      echo "+ gst-launch-1.0 audiotestsrc num-buffers=0 ! audio/x-raw,$spec" \
        "! rnndenoise name=d ! queue ! fakesink d.state_0 ! queue ! fakesink"
      timeout 30 "$check" launch audiotestsrc num-buffers=0 ! \
        "audio/x-raw,$spec" ! rnndenoise name=d ! queue ! fakesink \
        d.state_0 ! queue ! fakesink ||
        { echo "FAIL: no EOS (exit $?)"; exit 1; }
    done
    ;;

  state-branch-gone)
    # The state pad is an observer: when its branch is shut down (its
    # queue and sink set to NULL, so pushes return FLUSHING) or the pad is
    # released while playing, or before its branch prerolled, the audio goes
    # on to EOS with every sample (and a released pad ends its branch).
    for mode in sink-null release release-early; do
      "$check" observer "audiotestsrc is-live=true samplesperbuffer=480 \
        num-buffers=100 ! audio/x-raw,format=F32LE,rate=48000,channels=1 ! \
        rnndenoise name=d ! queue ! fakesink name=as \
        d.state_0 ! queue name=sq ! fakesink name=ss" "$mode" 48000
    done
    # Released in PAUSED with full queues (not live: the source filled
    # them during preroll), the release does not wait for the branch.
    "$check" observer "audiotestsrc samplesperbuffer=480 num-buffers=400 ! \
      audio/x-raw,format=F32LE,rate=48000,channels=1 ! rnndenoise name=d ! \
      queue ! fakesink name=as d.state_0 ! queue name=sq ! fakesink name=ss" \
      release-paused 192000
    ;;

  *)
    echo "unknown case $case" >&2
    exit 2
    ;;
esac
echo "PASS: $case"
