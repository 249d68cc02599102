#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rnndenoise-features list files: the band limit (the fifth field), and
band_variants.py, which writes lists with it.

    features-band-limit.py RNNDENOISE_FEATURES

One mixture, a 250 Hz tone as the speech and a 900 Hz tone as the noise,
with and without a band limit of 500 Hz, read back through --bins 20 (the
noisy power of bins 0-19, 50 Hz each). With the limit the noise's bin
(18) is at least 50 dB below the plain pair's (the filter is 70 dB down
there; the window's leakage of the tones' onsets is what is left), while
the speech's bin (5) keeps its power within 0.2 dB; the gain targets of
the bands centred above the limit are -1, the speech's band keeps its
target. A
limit at or above the Nyquist frequency gives the plain pair's file byte
for byte; a limit that is not a positive number is refused naming the
line. band_variants.py gives a share of the pairs a limit from its list,
keeps their other fields, draws only limits below 8 kHz with --rate
16000, and refuses to write its list elsewhere.
"""

import math
import os
import subprocess
import sys
import tempfile

import checks

np, featfile, band_variants = checks.need("numpy", "featfile",
                                          "band_variants")

N_BINS = 20
LIMIT_HZ = 500
RATE = 48000
SPEECH_HZ, NOISE_HZ = 250, 900  # bins 5 and 18


def write_tone(path, freq):
    """One second of a tone at -20 dBFS, raw float32."""
    k = np.arange(RATE)
    (0.1 * np.sin(2 * math.pi * freq * k / RATE)).astype("<f4").tofile(path)


def run(tool, folder, name, line):
    """The features and bins of a one-line list; the finished process."""
    with open(os.path.join(folder, name + ".txt"), "w") as f:
        f.write(line + "\n")
    out = os.path.join(folder, name + ".rndf")
    bins = os.path.join(folder, name + ".bins")
    proc = subprocess.run([tool, "--layout", "3", "--bins", str(N_BINS), bins,
                           "--list", os.path.join(folder, name + ".txt"),
                           out], capture_output=True, text=True)
    return proc, out, bins


def noisy_power(bins):
    """Each bin's noisy power summed over the frames."""
    values = np.fromfile(bins, dtype="<f4").reshape(-1, 3, N_BINS)
    return values[:, 0, :].sum(axis=0)


def check_limit(check, plain, limited):
    """The bins and targets of the limited pair against the plain one's."""
    down = 10 * np.log10(noisy_power(limited[2]) / noisy_power(plain[2]))
    noise_bin, speech_bin = NOISE_HZ // 50, SPEECH_HZ // 50
    check(down[noise_bin] < -50, "the noise's bin is %.1f dB down"
          % down[noise_bin])
    check(abs(down[speech_bin]) < 0.2, "the speech's bin keeps its power "
          "(%+.2f dB)" % down[speech_bin])
    a, b = featfile.FeatureFile(plain[1]), featfile.FeatureFile(limited[1])
    edges = np.array(a.band_edges) * 50.0
    above = 0.5 * (edges[:-1] + edges[1:]) > LIMIT_HZ
    check(np.all(b.gains[:, above] == -1), "targets of the %d bands centred "
          "above the limit are -1" % above.sum())
    band = np.searchsorted(edges, SPEECH_HZ, side="right") - 1
    apart = np.abs(a.gains[5:-5, band] - b.gains[5:-5, band]).max()
    check(apart < 0.02, "the speech's band keeps its target (%.3g apart)"
          % apart)


def check_variants(check, folder):
    """band_variants.py on a list of 200 pairs."""
    lst = os.path.join(folder, "many.txt")
    with open(lst, "w") as f:
        f.write("".join("c%d.wav n%d.wav 9000 -6.0\n" % (k, k)
                        for k in range(200)))
    out = os.path.join(folder, "many-band.txt")
    proc = checks.run_train_tool("band_variants.py", lst, out, "--share",
                                 "0.5")
    with open(out) as f:
        rows = [line.split() for line in f if line.strip()]
    check(proc.returncode == 0 and 70 < len(rows) < 130,
          "band_variants.py keeps about half of 200 pairs (%d)" % len(rows))
    check(all(r[2:4] == ["9000", "-6.0"] for r in rows)
          and all(int(r[4]) in band_variants.LIMITS_HZ for r in rows)
          and len({r[4] for r in rows}) > 3,
          "with their fields and limits drawn from its list")
    proc = checks.run_train_tool("band_variants.py", lst, out, "--rate",
                                 "16000")
    with open(out) as f:
        limits = {int(line.split()[4]) for line in f if line.strip()}
    check(proc.returncode == 0 and limits and max(limits) < 8000,
          "with --rate 16000 the limits lie below 8 kHz (%s)"
          % " ".join(str(hz) for hz in sorted(limits)))
    proc = checks.run_train_tool("band_variants.py", lst,
                                 os.path.join(folder, "sub", "x.txt"))
    check(proc.returncode == 2 and "same folder" in proc.stderr,
          "it refuses a list written elsewhere")


def main():
    tool = sys.argv[1]
    check = checks.Checks()
    with tempfile.TemporaryDirectory() as folder:
        write_tone(os.path.join(folder, "clean.raw"), SPEECH_HZ)
        write_tone(os.path.join(folder, "noise.raw"), NOISE_HZ)
        plain = run(tool, folder, "plain", "clean.raw noise.raw")
        limited = run(tool, folder, "limited",
                      "clean.raw noise.raw - 0 %d" % LIMIT_HZ)
        above = run(tool, folder, "nyquist", "clean.raw noise.raw - 0 24000")
        check(all(p[0].returncode == 0 for p in (plain, limited, above)),
              "the tool reads the fifth field (%s)"
              % (limited[0].stderr.strip() or "ok"))
        check_limit(check, plain, limited)
        with open(plain[1], "rb") as f, open(above[1], "rb") as g:
            check(f.read() == g.read(), "a limit at the Nyquist frequency "
                  "takes nothing away")
        bad = run(tool, folder, "bad", "clean.raw noise.raw - 0 -3")
        check(bad[0].returncode != 0 and "band limit" in bad[0].stderr,
              "a negative limit is refused (%s)" % bad[0].stderr.strip())
        check_variants(check, folder)
    sys.exit(check.status())


if __name__ == "__main__":
    main()
