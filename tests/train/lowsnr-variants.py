#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""lowsnr_variants.py: the low-SNR copies of a set's steady-noise pairs.

    lowsnr-variants.py

A synth.py-like folder with a manifest of eight mixtures (steady noises,
a mix of two, babble, bursts, a steady noise mixed with babble; SNRs
below and above 0 dB), its list and a band-limited list with a gain and a
limit of their own. Only the steady-noise pairs at 0 dB or more are
copied, from both lists, each with its other fields and a gain that puts
its SNR inside -5..3 dB; the same seed gives the same list, another seed
other gains; --min-band-limit keeps the band-limited pairs below it
out and nothing else; a list elsewhere and a pair the manifest lacks are
refused.
"""

import os
import sys
import tempfile

import checks

checks.need("numpy", "lowsnr_variants")

MIXTURES = [  # name, noise, SNR (dB)
    ("000_a", "fan", "4.5"),
    ("001_b", "pink", "-2.0"),
    ("002_c", "white+hum", "12.0"),
    ("003_d", "babble", "6.0"),
    ("004_e", "bursts", "9.0"),
    ("005_f", "fan+babble", "3.0"),
    ("006_g", "room", "0.0"),
    ("007_h", "brown", "19.5"),
]
STEADY_AT_0_OR_MORE = {"000_a", "002_c", "006_g", "007_h"}


def write_folder(folder):
    with open(os.path.join(folder, "manifest.tsv"), "w") as f:
        f.write("name\tsnr\tnoise\tvoices\n")
        for name, noise, snr in MIXTURES:
            f.write("%s\t%s\t%s\treal\n" % (name, snr, noise))
    with open(os.path.join(folder, "list.txt"), "w") as f:
        for name, _, _ in MIXTURES:
            f.write("%s_clean.wav %s_noise.wav 24000\n" % (name, name))
    with open(os.path.join(folder, "list-band.txt"), "w") as f:
        for name, _, _ in MIXTURES[::2]:
            f.write("%s_clean.wav %s_noise.wav 24000 -6.0 4000\n"
                    % (name, name))


def read_rows(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def run(folder, out, *more):
    return checks.run_train_tool(
        "lowsnr_variants.py", os.path.join(folder, "list.txt"),
        os.path.join(folder, out), "--also",
        os.path.join(folder, "list-band.txt"), *more)


def main():
    check = checks.Checks()
    snr = {name: float(s) for name, _, s in MIXTURES}
    with tempfile.TemporaryDirectory() as folder:
        write_folder(folder)
        proc = run(folder, "low.txt", "--seed", "5")
        rows = read_rows(os.path.join(folder, "low.txt"))
        names = [r[0][:-len("_clean.wav")] for r in rows]
        plain = [r for r in rows if len(r) == 4]
        band = [r for r in rows if len(r) == 5]
        check(proc.returncode == 0 and set(names) == STEADY_AT_0_OR_MORE,
              "only the steady-noise pairs at 0 dB or more are copied (%s)"
              % (" ".join(sorted(set(names))) or proc.stderr.strip()))
        check(len(plain) == 4 and len(band) == 3
              and all(r[4] == "4000" and r[2] == "24000" for r in band),
              "from both lists, with their bandwidth and band limit")
        snrs = [snr[n] - (float(r[3]) - (-6.0 if len(r) == 5 else 0.0))
                for n, r in zip(names, rows)]
        check(all(-5.05 <= s <= 3.05 for s in snrs),
              "each copy's SNR lies in -5..3 dB (%s)"
              % " ".join("%.1f" % s for s in snrs))
        run(folder, "again.txt", "--seed", "5")
        run(folder, "other.txt", "--seed", "6")
        check(read_rows(os.path.join(folder, "again.txt")) == rows
              and read_rows(os.path.join(folder, "other.txt")) != rows,
              "the seed alone decides the gains")
        run(folder, "at-limit.txt", "--seed", "5", "--min-band-limit", "4000")
        run(folder, "above.txt", "--seed", "5", "--min-band-limit", "4001")
        above = read_rows(os.path.join(folder, "above.txt"))
        check(read_rows(os.path.join(folder, "at-limit.txt")) == rows
              and above == plain,
              "--min-band-limit drops the copies of pairs band-limited "
              "below it only (%d of %d kept above 4 kHz)"
              % (len(above), len(rows)))
        proc = run(folder, os.path.join("sub", "x.txt"))
        check(proc.returncode == 2 and "same folder" in proc.stderr,
              "a list written elsewhere is refused")
        with open(os.path.join(folder, "list-band.txt"), "a") as f:
            f.write("099_z_clean.wav 099_z_noise.wav 24000\n")
        proc = run(folder, "bad.txt")
        check(proc.returncode == 2 and "manifest" in proc.stderr,
              "a pair missing from manifest.tsv is refused (%s)"
              % proc.stderr.strip().split("\n")[-1])
    sys.exit(check.status())


if __name__ == "__main__":
    main()
