#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The signal and the checks of pipewire-test.sh.

  pipewire-test.py make NOISY_WAV
      writes the test signal: 4 s of speech-like harmonic bursts (0.5 s on,
      0.5 s off) in white noise, then 0.25 s of silence so that the whole
      signal gets through the filter before playback stops; 48 kHz mono
      16-bit.

  pipewire-test.py check NOISY_WAV RECORDED_WAV LIBRNNDENOISE [LADSPA_DIR]
      checks what pw-record recorded from the filter-chain:
      (a) not silent: the bursts keep most of their energy;
      (b) the noise-only stretches are at least 10 dB quieter than the
          input's;
      (c) the samples are the plugin's, bit for bit. The filter-chain runs
          (on silence) from the moment pw-record links to it, so the
          plugin has processed some silence before the file's first
          sample, and that silence moves the 10 ms frame grid and the
          recurrent state. The check finds that amount of silence Z: the
          recording is aligned with the library's output by
          cross-correlation, the frame phase follows from the first
          non-zero output sample, and Z is the one of that phase whose
          library output (rnndenoise_process_float on Z zeros then the
          file, called through ctypes) equals the recording; then every
          recorded sample must equal the library's. With LADSPA_DIR and
          applyplugin, the LADSPA plugin through applyplugin on the same
          Z zeros and the file must match it within 2 LSB (applyplugin
          writes 16-bit files, truncating). Exits 75 when the first 0.5 s
          are the plugin's but later samples differ (a dropped cycle), 76
          when even the first 0.5 s differ, so that the caller can run the
          playback again; (a) and (b) are checked on whole recordings.
"""
import array
import ctypes
import math
import operator
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import wave

RATE = 48000
FRAME = 480
LATENCY = 1440  # 30 ms: the 48 kHz model reads one frame ahead
PERIOD = RATE // 2          # bursts and gaps alternate every 0.5 s
SIGNAL = 8 * PERIOD         # 4 s: gap, burst, gap, burst, ...
TAIL = RATE // 4            # silence after the signal
NOISE_RMS = 0.03
# Exit statuses of check when the samples differ, for pipewire-test.sh to
# run the playback again (see check): the first 0.5 s are the plugin's but
# later samples differ (a dropped cycle), or even the first 0.5 s differ.
DROPPED = 75
NO_MATCH = 76


def make_signal():
    """int16 samples; the gaps (even half-seconds) are noise only."""
    out = array.array("h")
    x = 12345
    for i in range(SIGNAL + TAIL):
        v = 0.0
        if i < SIGNAL:
            # Uniform white noise from a fixed LCG: the same file every run.
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            v = (x / 0x7FFFFFFF - 0.5) * NOISE_RMS * math.sqrt(12.0)
        if i < SIGNAL and (i // PERIOD) % 2 == 1:
            # Two 0.25 s "syllables" of a voice with vibrato: harmonics of
            # 140..180 Hz falling off as 1/k up to 3.5 kHz.
            t = i / RATE
            u = (i % PERIOD) / (PERIOD / 2.0)
            env = 0.5 - 0.5 * math.cos(2.0 * math.pi * u)
            f0 = 160.0 + 20.0 * math.sin(2.0 * math.pi * 5.0 * t)
            phase = 2.0 * math.pi * (160.0 * t - 20.0 / (2.0 * math.pi * 5.0)
                                     * math.cos(2.0 * math.pi * 5.0 * t))
            k_max = int(3500.0 / f0)
            v += 0.12 * env * sum(math.sin(k * phase) / k for k in range(1, k_max + 1))
        out.append(max(-32768, min(32767, int(round(v * 32768.0)))))
    return out


def write_wav(path, samples):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.tobytes())


def read_wav(path):
    """A mono 16-bit or float WAV (plain or extensible) as floats in -1..1."""
    with open(path, "rb") as f:
        data = f.read()
    pos, fmt, body = 12, None, b""
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        chunk = data[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            fmt, channels = struct.unpack("<HH", chunk[:4])
            if fmt == 0xFFFE:
                fmt = struct.unpack("<H", chunk[24:26])[0]
            assert channels == 1, "%s: %d channels" % (path, channels)
        elif cid == b"data":
            body = chunk
        pos += 8 + size + (size & 1)
    samples = array.array("f" if fmt == 3 else "h")
    samples.frombytes(body[:len(body) - len(body) % samples.itemsize])
    if fmt == 3:
        return samples
    return array.array("f", (s / 32768.0 for s in samples))


class Library:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.rnndenoise_new.restype = ctypes.c_void_p

    def process(self, samples):
        """rnndenoise_process_float on a fresh mono stream (a copy)."""
        buf = array.array("f", samples)
        st = ctypes.c_void_p(self.lib.rnndenoise_new(None, 1, None))
        assert st.value, "rnndenoise_new failed"
        cbuf = (ctypes.c_float * len(buf)).from_buffer(buf)
        n = self.lib.rnndenoise_process_float(st, cbuf, cbuf, len(buf))
        self.lib.rnndenoise_free(st)
        assert n == len(buf)
        return buf


def db(samples):
    return 10.0 * math.log10(sum(v * v for v in samples) / max(1, len(samples)) + 1e-20)


def first_sound(out):
    return next(i for i, v in enumerate(out) if v != 0.0)


def align(out, ref):
    """The index in out of ref[0], found by cross-correlation.

    The plugin outputs exact zeros until its first frame with input, so
    the first non-zero recorded sample is 1..LATENCY samples after ref[0]
    (see find_silence): only those lags are tried. The window is in the
    first gap, noise only: the bursts are nearly periodic, so their
    correlation peaks at every pitch period too, while what the denoiser
    leaves of white noise peaks only at the true lag; and a dropped cycle
    later in the recording does not move it."""
    first = first_sound(out)
    start, width = RATE // 10 + LATENCY, 4800
    window = ref[start:start + width]
    lags = range(max(0, first - LATENCY), first)

    def score(lag):
        seg = out[lag + start:lag + start + width]
        return sum(map(operator.mul, seg, window)) / math.sqrt(sum(map(operator.mul, seg, seg)) + 1e-30)
    return max(lags, key=score)


def find_silence(lib, out, x, lag):
    """The number of zeros Z the plugin ran on before x, such that
    out[lag + n] is the library's output of zeros(Z) + x at Z + n."""
    first = first_sound(out)
    # With Z >= 480 zeros first, the first non-zero output sample is that
    # of the frame whose window reaches Z (480 * (Z // 480 - 1)), LATENCY
    # later; so first - lag is LATENCY - 480 - Z % 480, or LATENCY - Z
    # when Z < 480 (the stream's first frame).
    phase = (FRAME - (first - lag)) % FRAME
    head = x[:PERIOD]
    # pw-record's file starts at most a few quanta after the filter's first
    # output (Z >= lag), seldom before it: search 0.1 s before, 2 s after.
    lo, hi = max(0, (lag - RATE // 10) // FRAME), (lag + 2 * RATE) // FRAME + 1
    ks = sorted(range(lo, hi + 1), key=lambda k: abs(FRAME * k + phase - lag - FRAME))
    want = out[lag:lag + len(head)]
    for k in ks:
        z = FRAME * k + phase
        y = lib.process(array.array("f", bytes(4 * z)) + head)
        if y[z:] == want:
            return z
    return None


def check(noisy_wav, recorded_wav, libpath, ladspa_dir):
    x = read_wav(noisy_wav)
    out = read_wav(recorded_wav)
    lib = Library(libpath)
    ref = lib.process(x)
    if len(out) < SIGNAL + TAIL or not any(out):
        print("recorded %d samples, %s" % (len(out), "all zero" if len(out) else "none"))
        sys.exit(NO_MATCH)
    lag = align(out, ref)
    print("recorded %d samples; the library's output starts at sample %d" % (len(out), lag))

    # (c) the plugin's samples, first: the energies below mean something
    # only once the recording is known to be whole. A cycle the graph
    # misses (an xrun, which a busy machine can cause) drops samples, and
    # from there on the frames and the state no longer match.
    z = find_silence(lib, out, x, lag)
    if z is None:
        print("no amount of leading silence gives the first 0.5 s of the recording")
        sys.exit(NO_MATCH)
    y = lib.process(array.array("f", bytes(4 * z)) + x)[z:]
    n = min(len(y), len(out) - lag)
    differ = [i for i, (a, b) in enumerate(zip(out[lag:lag + n], y[:n])) if a != b]
    print("the plugin ran on %d samples (%.2f s) of silence first; %d samples "
          "compared with the library's output: %d differ" % (z, z / RATE, n, len(differ)))
    if differ or n < len(y):
        first = differ[0] if differ else n
        print("the recording is the library's output up to sample %d (%.3f s into "
              "the signal), not after" % (first, (first - LATENCY) / RATE))
        sys.exit(DROPPED)

    # (a) and (b), per half-second: bursts keep their energy, gaps lose it.
    seen = out[lag + LATENCY:lag + LATENCY + SIGNAL]
    failed = False
    for p in range(SIGNAL // PERIOD):
        burst = p % 2 == 1
        # Gaps are measured from 0.15 s after the burst: the gains follow
        # the speech's end over a few frames.
        a = p * PERIOD + (0 if burst or p == 0 else RATE * 3 // 20)
        b = (p + 1) * PERIOD - (0 if burst else RATE // 20)
        change = db(seen[a:b]) - db(x[a:b])
        ok = change > -10.0 if burst else change <= -10.0
        failed |= not ok
        print("%.2f-%.2f s %-5s input %6.1f dBFS, output %6.1f dBFS, %+5.1f dB %s" % (
            a / RATE, b / RATE, "burst" if burst else "noise", db(x[a:b]),
            db(seen[a:b]), change, "ok" if ok else "FAILED"))
    if failed:
        sys.exit("the recorded output is not the denoised signal")

    if ladspa_dir and shutil.which("applyplugin"):
        compare_applyplugin(ladspa_dir, x, z, out[lag:lag + n])
    elif ladspa_dir:
        print("applyplugin not run: it is not installed (ladspa-sdk)")


def compare_applyplugin(ladspa_dir, x, z, recorded):
    tmp = tempfile.mkdtemp()
    try:
        in_wav, out_wav = os.path.join(tmp, "in.wav"), os.path.join(tmp, "out.wav")
        write_wav(in_wav, array.array("h", bytes(2 * z)) +
                  array.array("h", (int(v * 32768.0) for v in x)))
        env = dict(os.environ, LADSPA_PATH=ladspa_dir)
        # The input controls as pipewire-test.conf sets them, in port order:
        # attenuation limit, VAD threshold, VAD hold, hum removal, speech
        # protection, stationary suppression, harmonic lift, speech hold,
        # level normalization.
        subprocess.run(["applyplugin", in_wav, out_wav, "rnndenoise-ladspa",
                        "rnndenoise_mono", "0", "0", "200", "1", "1", "1", "0.5", "0.8", "1"],
                       env=env, check=True, capture_output=True)
        got = read_wav(out_wav)[z:z + len(recorded)]
        worst = max(abs(a - b) for a, b in zip(got, recorded)) * 32768.0
        print("applyplugin rnndenoise_mono on the same input: %d samples, largest "
              "difference %.2f LSB" % (len(got), worst))
        if len(got) < len(recorded) or worst > 2.0:
            sys.exit("applyplugin's output differs from the recording")
    finally:
        shutil.rmtree(tmp)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        write_wav(sys.argv[2], make_signal())
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "check":
        check(*sys.argv[2:5], sys.argv[5] if len(sys.argv) == 6 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
