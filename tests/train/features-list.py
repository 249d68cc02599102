#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rnndenoise-features list files: the optional bandwidth and noise gain.

    features-list.py RNNDENOISE_FEATURES

Writes a clean tone and a noise tone as raw float32, runs the tool on lists
that use the fields, and reads the band gain targets back: the noise
lowered by 80 dB gives targets of about 1 where the plain pair does not; a
bandwidth masks the bands above it; a bad gain or bandwidth is refused with
a message naming the line. Standard library only.
"""

import math
import os
import struct
import subprocess
import sys
import tempfile

RATE = 48000


def write_tone(path, freq, amp, seconds=0.5):
    n = int(RATE * seconds)
    with open(path, "wb") as f:
        f.write(struct.pack("<%df" % n, *(
            amp * math.sin(2 * math.pi * freq * k / RATE) for k in range(n))))


def read_gains(path):
    """Mean target over the frames of each band (skipping -1), and the
    share of -1 per band."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"RNDF", "not a features file"
    (_, _, _, _, n_bands, _, n_features, row_size, _, n_frames) = \
        struct.unpack_from("<10I", data, 4)
    at = 44 + 4 * (n_bands + 1)
    rows = struct.unpack_from("<%df" % (n_frames * row_size), data, at)
    means, masked = [], []
    for b in range(n_bands):
        col = [rows[t * row_size + n_features + b] for t in range(n_frames)]
        kept = [g for g in col if g >= 0]
        means.append(sum(kept) / len(kept) if kept else -1.0)
        masked.append(1 - len(kept) / n_frames)
    return means, masked


def run(tool, folder, lines, name):
    lst = os.path.join(folder, name + ".txt")
    with open(lst, "w") as f:
        f.write("\n".join(lines) + "\n")
    out = os.path.join(folder, name + ".rndf")
    proc = subprocess.run([tool, "--layout", "2", "--list", lst, out],
                          capture_output=True, text=True)
    return proc, out


def main():
    tool = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        # Speech stand-in at 1 kHz, "noise" at 1.1 kHz in the same band and
        # as loud: the plain mix gives targets well below 1 there.
        write_tone(os.path.join(folder, "clean.raw"), 1000.0, 0.1)
        write_tone(os.path.join(folder, "noise.raw"), 1100.0, 0.1)

        proc, plain = run(tool, folder, ["clean.raw noise.raw"], "plain")
        assert proc.returncode == 0, proc.stderr
        proc, quiet = run(tool, folder, ["clean.raw noise.raw - -80"],
                          "quiet")
        assert proc.returncode == 0, proc.stderr
        plain_g, _ = read_gains(plain)
        quiet_g, _ = read_gains(quiet)
        band = max(range(len(plain_g)), key=lambda b: quiet_g[b])
        if not plain_g[band] < 0.9:
            failures.append("plain mix: target %.3f in the tone's band, "
                            "expected < 0.9" % plain_g[band])
        if not quiet_g[band] > 0.99:
            failures.append("noise -80 dB: target %.3f, expected > 0.99"
                            % quiet_g[band])

        proc, limited = run(tool, folder, ["clean.raw noise.raw 4000 0"],
                            "limited")
        assert proc.returncode == 0, proc.stderr
        _, masked = read_gains(limited)
        if not (masked[-1] == 1.0 and masked[band] == 0.0):
            failures.append("bandwidth 4000: top band masked %.2f, tone "
                            "band %.2f (expected 1 and 0)"
                            % (masked[-1], masked[band]))

        for bad, what in (("clean.raw noise.raw - loud", "noise gain"),
                          ("clean.raw noise.raw - 61", "noise gain"),
                          ("clean.raw noise.raw 0 0", "bandwidth"),
                          ("clean.raw noise.raw - 0 - extra", "need CLEAN")):
            proc, _ = run(tool, folder, [bad], "bad")
            if proc.returncode == 0 or what not in proc.stderr:
                failures.append("%r: exit %d, stderr %r (expected a refusal "
                                "naming the %s)" % (bad, proc.returncode,
                                                    proc.stderr, what))
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("features-list: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
