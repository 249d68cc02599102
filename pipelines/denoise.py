#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Denoise a WAV file with rnndenoise from Python (PyGObject).

    pipelines/denoise.py IN.wav OUT.wav [--split SECONDS] [--quiet]
    pipelines/denoise.py --self-test

Runs filesrc ! wavparse ! audioconvert ! audioresample ! rnndenoise !
audioconvert ! wavenc ! filesink and prints the element's VAD messages
(post-messages=true: one line per 100 ms with the voice probability and
the input and output levels).

With --split, the file is cut in two at SECONDS and each half runs in its
own pipeline: the first stream's state is exported with the element's
"export-state" action at its end and imported with "import-state" into the
second pipeline before it starts, so the second half continues the first
as if nothing had happened. The imported state still holds the first
half's last samples (the element's latency): the second pipeline gives
them again, continued exactly, and they replace the first pipeline's
drained tail. The output is then the same, sample for sample, as one pass
over the whole file (for 48 kHz input; a resampler's own state is not
carried over).

--self-test makes a 48 kHz test signal, checks that VAD messages arrive,
that the split run gives the one-pass samples bit for bit, and that a
damaged snapshot is refused; it exits non-zero on any failure.

Needs Debian's python3-gi and gir1.2-gstreamer-1.0; the plugin of the
build directory is used when BUILD_DIR (default build) holds one.
"""

import argparse
import array
import math
import os
import random
import struct
import sys
import tempfile
import wave

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

RATE = 48000


def use_build_plugin():
    """Put the build directory's plugin on GST_PLUGIN_PATH, if there is one
    (as pipelines/common.sh does), before GStreamer starts."""
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.environ.get("BUILD_DIR", "build")
    plugin_dir = os.path.join(top, build, "plugin")
    if os.path.isdir(plugin_dir):
        path = os.environ.get("GST_PLUGIN_PATH")
        os.environ["GST_PLUGIN_PATH"] = (
            plugin_dir + (os.pathsep + path if path else ""))


class Run:
    """One pipeline from a WAV file to a 32-bit float WAV file."""

    def __init__(self, src, dst, quiet=False):
        self.pipeline = Gst.parse_launch(
            "filesrc name=src ! wavparse ! audioconvert ! audioresample ! "
            "audio/x-raw,format=F32LE,rate=%d ! "
            "rnndenoise name=denoise post-messages=true ! "
            "audioconvert ! audio/x-raw,format=F32LE ! wavenc ! "
            "filesink name=dst" % RATE)
        self.pipeline.get_by_name("src").set_property("location", src)
        self.pipeline.get_by_name("dst").set_property("location", dst)
        self.denoise = self.pipeline.get_by_name("denoise")
        self.quiet = quiet
        self.vad_messages = 0
        self.warnings = []

    def import_state(self, snapshot):
        """Seeds the stream with @snapshot (GLib.Bytes) before it starts:
        READY, so that the sink pad and the loaded-on-PAUSED model exist
        when the first buffer comes. Returns whether it was accepted."""
        self.pipeline.set_state(Gst.State.READY)
        return self.denoise.emit("import-state", "sink", snapshot)

    def run(self):
        """Plays to EOS, printing the VAD messages; raises on an error."""
        bus = self.pipeline.get_bus()
        self.pipeline.set_state(Gst.State.PLAYING)
        try:
            while True:
                msg = bus.timed_pop_filtered(
                    10 * Gst.SECOND, Gst.MessageType.EOS
                    | Gst.MessageType.ERROR | Gst.MessageType.WARNING
                    | Gst.MessageType.ELEMENT)
                if msg is None:
                    raise RuntimeError("no EOS within 10 s")
                if msg.type == Gst.MessageType.EOS:
                    return
                if msg.type == Gst.MessageType.ERROR:
                    err, debug = msg.parse_error()
                    raise RuntimeError("%s (%s)" % (err.message, debug))
                if msg.type == Gst.MessageType.WARNING:
                    err, _ = msg.parse_warning()
                    self.warnings.append(err.message)
                    print("warning:", err.message, file=sys.stderr)
                elif msg.get_structure().get_name() == "rnndenoise":
                    self.on_vad(msg.get_structure())
        finally:
            # The stream state stays readable after EOS: export before NULL.
            self.pipeline.set_state(Gst.State.PAUSED)

    def on_vad(self, s):
        self.vad_messages += 1
        if self.quiet:
            return
        print("%8.2f s  vad %.2f (mean %.2f)  in %6.1f dB  out %6.1f dB"
              % (s.get_value("timestamp") / Gst.SECOND, s.get_value("vad"),
                 s.get_value("vad-mean"), s.get_value("input-rms-db"),
                 s.get_value("output-rms-db")))

    def export_state(self):
        return self.denoise.emit("export-state", "sink")

    def stop(self):
        self.pipeline.set_state(Gst.State.NULL)


def read_float_wav(path):
    """Samples of a 32-bit float mono WAV as written by wavenc (the data
    chunk found by walking the chunks, as the header size varies)."""
    with open(path, "rb") as f:
        data = f.read()
    at = 12
    while at + 8 <= len(data):
        tag, size = data[at:at + 4], struct.unpack_from("<I", data, at + 4)[0]
        if tag == b"data":
            samples = array.array("f")
            samples.frombytes(data[at + 8:at + 8 + size - size % 4])
            return samples
        at += 8 + size + size % 2
    raise ValueError("%s: no data chunk" % path)


def wav_frames(path):
    with wave.open(path, "rb") as w:
        return w.getnframes()


def split_wav(src, seconds, first, second):
    """Cuts a PCM WAV into two at @seconds (a whole number of samples)."""
    with wave.open(src, "rb") as w:
        params = w.getparams()
        cut = min(int(round(seconds * w.getframerate())), w.getnframes())
        head = w.readframes(cut)
        tail = w.readframes(w.getnframes() - cut)
    for path, frames in ((first, head), (second, tail)):
        with wave.open(path, "wb") as out:
            out.setparams(params)
            out.writeframes(frames)


def write_float_wav(path, samples):
    """Writes a 32-bit float mono WAV (format 3, no fact chunk needed for
    wavparse)."""
    payload = array.array("f", samples).tobytes()
    header = b"RIFF" + struct.pack("<I", 36 + len(payload)) + b"WAVE"
    header += b"fmt " + struct.pack("<IHHIIHH", 16, 3, 1, RATE, RATE * 4, 4,
                                    32)
    header += b"data" + struct.pack("<I", len(payload))
    with open(path, "wb") as f:
        f.write(header + payload)


def denoise(src, dst, quiet=False):
    run = Run(src, dst, quiet)
    try:
        run.run()
        return run
    finally:
        run.stop()


def denoise_split(src, dst, seconds, workdir, quiet=False):
    """The file in two pipelines, the state moved from the first to the
    second; returns the number of VAD messages and whether the import was
    accepted."""
    first, second = (os.path.join(workdir, n) for n in ("a.wav", "b.wav"))
    out_a, out_b = (os.path.join(workdir, n) for n in ("a-out.wav",
                                                       "b-out.wav"))
    split_wav(src, seconds, first, second)
    run_a = Run(first, out_a, quiet)
    try:
        run_a.run()
        snapshot = run_a.export_state()
    finally:
        run_a.stop()
    if snapshot is None:
        raise RuntimeError("export-state gave nothing")
    run_b = Run(second, out_b, quiet)
    try:
        accepted = run_b.import_state(snapshot)
        if not accepted:
            raise RuntimeError("import-state refused the first half's state")
        run_b.run()
    finally:
        run_b.stop()
    a, b = read_float_wav(out_a), read_float_wav(out_b)
    # The second stream starts with the samples the first still held.
    held = len(b) - wav_frames(second)
    write_float_wav(dst, a[:len(a) - held] + b)
    print("state moved at %.2f s: %d bytes, the second pipeline gave the "
          "first one's last %d samples again" % (seconds, snapshot.get_size(),
                                                 held))
    return run_a.vad_messages + run_b.vad_messages, held


def test_signal(path, seconds=3.0):
    """48 kHz 16-bit mono: voiced bursts (harmonics of a gliding pitch)
    with pauses, in white noise."""
    rng = random.Random(7)
    frames = array.array("h")
    for i in range(int(seconds * RATE)):
        t = i / RATE
        f0 = 140 + 30 * math.sin(2 * math.pi * 2 * t)
        voiced = 0.5 < (t % 1.0) < 0.9
        v = sum(0.15 / k * math.sin(2 * math.pi * k * f0 * t)
                for k in range(1, 6)) if voiced else 0.0
        v += rng.gauss(0.0, 0.02)
        frames.append(max(-32768, min(32767, int(v * 32767))))
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(frames.tobytes())


def self_test():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.wav")
        test_signal(src)
        one = os.path.join(tmp, "one.wav")
        run = denoise(src, one, quiet=True)
        if run.vad_messages < 20:
            failures.append("%d VAD messages for 3 s, expected 30"
                            % run.vad_messages)
        if run.warnings:
            failures.append("warnings: %s" % run.warnings)
        for cut in (1.0, 1.2345):
            split = os.path.join(tmp, "split.wav")
            _, held = denoise_split(src, split, cut, tmp, quiet=True)
            a, b = read_float_wav(one), read_float_wav(split)
            if len(a) != len(b) or a.tobytes() != b.tobytes():
                diff = sum(1 for x, y in zip(a, b) if x != y)
                failures.append("split at %g s: %d and %d samples, %d differ"
                                % (cut, len(a), len(b), diff))
            if held <= 0:
                failures.append("split at %g s: the imported state brought "
                                "no samples" % cut)

        # A damaged snapshot is refused and the stream runs from scratch.
        run_a = Run(src, os.path.join(tmp, "x.wav"), quiet=True)
        try:
            run_a.run()
            good = run_a.export_state().get_data()
        finally:
            run_a.stop()
        bad = bytearray(good)
        bad[len(bad) // 2] ^= 0x40
        run_b = Run(src, os.path.join(tmp, "y.wav"), quiet=True)
        try:
            if run_b.import_state(GLib.Bytes.new(bytes(bad))):
                failures.append("a damaged snapshot was accepted")
        finally:
            run_b.stop()
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("denoise.py self-test: VAD messages, split run bit-exact, "
              "damaged snapshot refused")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", nargs="?")
    ap.add_argument("output", nargs="?")
    ap.add_argument("--split", type=float,
                    help="run the second half from this time in a second "
                    "pipeline, with the first half's state imported")
    ap.add_argument("--quiet", action="store_true",
                    help="do not print the VAD messages")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    use_build_plugin()
    Gst.init(None)
    if Gst.ElementFactory.find("rnndenoise") is None:
        sys.exit("denoise.py: the rnndenoise element was not found; build "
                 "it (BUILD_DIR names the build directory) or install it")
    if args.self_test:
        return self_test()
    if not args.input or not args.output:
        ap.error("IN.wav and OUT.wav are needed")
    if args.split is None:
        denoise(args.input, args.output, args.quiet)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            denoise_split(args.input, args.output, args.split, tmp,
                          args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
