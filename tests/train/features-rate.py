#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rnndenoise-features --rate: 48 kHz mixtures make 16 kHz features.

    features-rate.py RNNDENOISE_FEATURES

Writes 48 kHz WAV files (a 1 kHz tone as speech, a 12 kHz tone as noise)
and the same 1 kHz tone as a 16 kHz WAV, runs the tool with --rate 16000
and reads the features back: the header says 16 kHz and 10 ms frames; the
12 kHz noise, above the new Nyquist frequency, is filtered out rather than
folded down to 4 kHz (every gain target stays near 1); the decimated tone
gives the features of the tone made at 16 kHz; a file at a rate that is
not a whole multiple is refused with a message naming both rates.
Standard library only.
"""

import math
import os
import struct
import subprocess
import sys
import tempfile


def write_wav(path, rate, freq, amp, seconds=0.5):
    """A mono 32-bit float WAV of a sine."""
    n = int(rate * seconds)
    data = struct.pack("<%df" % n, *(
        amp * math.sin(2 * math.pi * freq * k / rate) for k in range(n)))
    fmt = struct.pack("<HHIIHH", 3, 1, rate, 4 * rate, 4, 32)
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data)))
        f.write(b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt)
        f.write(b"data" + struct.pack("<I", len(data)) + data)


def read_rows(path):
    """The header fields and the rows (features, gains) of a features
    file."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"RNDF", "not a features file"
    (_, rate, hop, _, n_bands, _, n_features, row_size, _, n_frames) = \
        struct.unpack_from("<10I", data, 4)
    at = 44 + 4 * (n_bands + 1)
    flat = struct.unpack_from("<%df" % (n_frames * row_size), data, at)
    rows = [flat[t * row_size:(t + 1) * row_size] for t in range(n_frames)]
    return {"rate": rate, "hop": hop, "n_bands": n_bands,
            "n_features": n_features, "n_frames": n_frames}, rows


def features(tool, folder, clean, noise, name):
    out = os.path.join(folder, name + ".rndf")
    proc = subprocess.run([tool, "--layout", "2", "--rate", "16000",
                           os.path.join(folder, clean),
                           os.path.join(folder, noise), out],
                          capture_output=True, text=True)
    return proc, out


def main():
    tool = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        write_wav(os.path.join(folder, "speech48.wav"), 48000, 1000.0, 0.1)
        write_wav(os.path.join(folder, "noise48.wav"), 48000, 12000.0, 0.1)
        write_wav(os.path.join(folder, "silence48.wav"), 48000, 0.0, 0.0)
        write_wav(os.path.join(folder, "speech16.wav"), 16000, 1000.0, 0.1)
        write_wav(os.path.join(folder, "silence16.wav"), 16000, 0.0, 0.0)
        write_wav(os.path.join(folder, "odd.wav"), 44100, 1000.0, 0.1)

        proc, mixed = features(tool, folder, "speech48.wav", "noise48.wav",
                               "mixed")
        assert proc.returncode == 0, proc.stderr
        head, rows = read_rows(mixed)
        if (head["rate"], head["hop"], head["n_frames"]) != (16000, 160, 50):
            failures.append("header: %r, expected 16000 Hz, hop 160, 50 "
                            "frames" % head)
        nf, nb = head["n_features"], head["n_bands"]
        lowest = min(g for row in rows[2:] for g in row[nf:nf + nb]
                     if g >= 0)
        if not lowest > 0.99:
            failures.append("12 kHz noise after decimation: lowest gain "
                            "target %.4f, expected > 0.99 (filtered out)"
                            % lowest)

        proc, down = features(tool, folder, "speech48.wav", "silence48.wav",
                              "down")
        assert proc.returncode == 0, proc.stderr
        proc, native = features(tool, folder, "speech16.wav",
                                "silence16.wav", "native")
        assert proc.returncode == 0, proc.stderr
        _, rows_down = read_rows(down)
        _, rows_native = read_rows(native)
        # The filter's start-up changes the first frame, and the noise
        # floor features carry that for a few frames more.
        diff = max(abs(a - b)
                   for r0, r1 in zip(rows_down[20:], rows_native[20:])
                   for a, b in zip(r0[:nf], r1[:nf]))
        if not diff < 0.01:
            failures.append("decimated 1 kHz tone: features differ from the "
                            "16 kHz tone's by %.4f, expected < 0.01" % diff)

        proc, _ = features(tool, folder, "odd.wav", "odd.wav", "odd")
        if proc.returncode == 0 or "44100" not in proc.stderr \
                or "16000" not in proc.stderr:
            failures.append("44.1 kHz file: exit %d, stderr %r (expected a "
                            "refusal naming both rates)"
                            % (proc.returncode, proc.stderr))
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("features-rate: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
