#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rnndenoise-features --bins N BINS: the first N bins of every frame.

    features-bins.py RNNDENOISE_FEATURES

Writes a 250 Hz tone as speech and a louder 600 Hz tone as noise (raw
float32) and runs the tool with --bins 20: the bins file holds 3 x 20
values for each frame of the features file (noisy power, clean power, their
cross term); where the tone's bin lies (250 Hz is bin 5 at 50 Hz a bin) the
clean power peaks, at 600 Hz (bin 12) the noisy power does and the clean
one is small; |X|^2 - 2 Re (S conj X) + |S|^2, the power of X - S, is the
noise's power (never negative); without noise the three terms are equal;
the features file is the same as without --bins; N = 0 and N beyond the
frame's bins are refused with a message naming the range. Standard
library only.
"""

import math
import os
import struct
import subprocess
import sys
import tempfile

N = 20
RATE = 48000


def write_tone(path, freq, amp, seconds=0.5):
    n = int(RATE * seconds)
    data = struct.pack("<%df" % n, *(
        amp * math.sin(2 * math.pi * freq * k / RATE) for k in range(n)))
    with open(path, "wb") as f:
        f.write(data)


def n_frames(path):
    with open(path, "rb") as f:
        data = f.read()
    return struct.unpack_from("<I", data, 40)[0], data


def read_bins(path):
    with open(path, "rb") as f:
        data = f.read()
    values = struct.unpack("<%df" % (len(data) // 4), data)
    frames = [values[t:t + 3 * N] for t in range(0, len(values), 3 * N)]
    return [(f[:N], f[N:2 * N], f[2 * N:]) for f in frames], len(values)


def run(tool, *args):
    return subprocess.run([tool] + list(args), capture_output=True,
                          text=True)


def main():
    tool = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        speech = os.path.join(tmp, "speech.f32")
        noise = os.path.join(tmp, "noise.f32")
        silence = os.path.join(tmp, "silence.f32")
        write_tone(speech, 250, 0.3)
        write_tone(noise, 600, 0.5)
        write_tone(silence, 600, 0.0)
        out, bins = os.path.join(tmp, "a.rndf"), os.path.join(tmp, "a.bins")
        plain = os.path.join(tmp, "plain.rndf")
        proc = run(tool, "--layout", "3", "--bins", str(N), bins, speech,
                   noise, out)
        if proc.returncode != 0:
            print("FAIL: --bins run: %s" % proc.stderr)
            return 1
        run(tool, "--layout", "3", speech, noise, plain)
        frames, data = n_frames(out)
        if data != n_frames(plain)[1]:
            failures.append("--bins changed the features file")
        rows, count = read_bins(bins)
        if count != 3 * N * frames:
            failures.append("bins file holds %d values, expected 3 x %d x %d"
                            % (count, N, frames))
        mid = rows[len(rows) // 2]
        noisy, clean, cross = mid
        if max(range(N), key=lambda k: clean[k]) != 5:
            failures.append("the clean power does not peak at bin 5: %s"
                            % list(clean))
        if max(range(N), key=lambda k: noisy[k]) != 12:
            failures.append("the noisy power does not peak at bin 12: %s"
                            % list(noisy))
        if not clean[12] < 1e-3 * noisy[12]:
            failures.append("the clean power at 600 Hz is not small")
        for noisy, clean, cross in rows:
            for k in range(N):
                diff = noisy[k] - 2 * cross[k] + clean[k]
                if diff < -1e-6 * max(noisy[k], 1e-12):
                    failures.append("|X - S|^2 < 0 at bin %d: %g" % (k, diff))
                    break
        run(tool, "--layout", "3", "--bins", str(N), bins, speech, silence,
            out)
        rows, _ = read_bins(bins)
        noisy, clean, cross = rows[len(rows) // 2]
        for k in range(N):
            if not (abs(noisy[k] - clean[k]) <= 1e-5 * max(noisy[k], 1e-9)
                    and abs(cross[k] - clean[k]) <= 1e-5 * max(noisy[k],
                                                               1e-9)):
                failures.append("without noise bin %d's terms differ: %g %g "
                                "%g" % (k, noisy[k], clean[k], cross[k]))
                break
        for bad in ("0", "482"):
            proc = run(tool, "--layout", "3", "--bins", bad, bins, speech,
                       noise, out)
            if proc.returncode == 0 or "1..481" not in proc.stderr:
                failures.append("--bins %s: exit %d, %r" % (
                    bad, proc.returncode, proc.stderr))
    for f in failures:
        print("FAIL:", f)
    print("features-bins: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
