#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The ceiling of gain masks on the test mixtures, given the clean speech.

    mask_ceiling.py --edges "0 1 2 ..." [--jobs N] TESTDIR ...
    mask_ceiling.py --self-check

Each TESTDIR is a test/ or test-real/ folder written by
dsp/train/synth.py. Every mixture is masked with ideal gains from its clean
speech in the element's STFT (evaluate.ideal_band_gains): gains on the
bands (--edges, as `rnndenoise-model info` prints them), then finer ones,
each bin below a frequency with its own gain, and at most 1 or allowed
above it. For each mask the table gives the mean ΔSI-SDR over −5…10 dB and
the speech energy lost (metrics.speech_energy_lost) at each SNR and over
all of them, the figures docs/quality.md gives for the element.

It answers which lever a network's outputs could pull: finer gains, or
gains above 1. Where the noise cancels part of the speech in a bin, only a
gain above 1 gives the speech back; a mask held at 1 or below loses that
energy however fine it is, while the noisy input, which also gains energy
where the noise adds to the speech, loses none on average.

--self-check runs the masks on a synthetic voice in noise and checks what
must hold: the unbounded per-bin mask gives the speech back (nothing lost),
finer masks gain SI-SDR, and gains above 1 lose less speech than gains
held at 1.
"""

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import evaluate
import metrics

HOP = 480
BIN_HZ = metrics.RATE / (2.0 * HOP)
LOW_SNRS = (-5.0, 0.0, 5.0, 10.0)
# (name, bins with their own gain, highest gain): band gains as the
# element's network gives them, finer below 1 kHz, per bin everywhere,
# then the same allowed above 1.
ALL_BINS = HOP + 1
MASKS = [("band gains ≤ 1", 0, 1.0),
         ("per-bin below 1 kHz, ≤ 1", int(1000 / BIN_HZ), 1.0),
         ("per-bin everywhere, ≤ 1", ALL_BINS, 1.0),
         ("band gains ≤ 1.25", 0, 1.25),
         ("band gains ≤ 1.5", 0, 1.5),
         ("per-bin everywhere, ≤ 1.25", ALL_BINS, 1.25),
         ("per-bin everywhere, ≤ 2", ALL_BINS, 2.0),
         ("per-bin everywhere, unbounded", ALL_BINS, 1e9)]


def mask_figures(clean, noisy, edges, masks=MASKS):
    """(ΔSI-SDR, speech lost) of each mask on one mixture."""
    base = metrics.si_sdr(clean, noisy)
    out = []
    for _, own_bins, highest in masks:
        y = evaluate.ideal_band_gains(clean, noisy, edges, HOP, own_bins,
                                      highest)
        out.append((metrics.si_sdr(clean, y) - base,
                    metrics.speech_energy_lost(clean, noisy - clean, y)))
    return out


def _score(job):
    clean_path, noisy_path, snr, edges = job
    clean = evaluate.read_wav(clean_path)
    noisy = evaluate.read_wav(noisy_path)
    return snr, mask_figures(clean, noisy, edges)


def table(results):
    """The markdown table of the masks' mean figures."""
    snrs = sorted({snr for snr, _ in results})
    lines = ["| mask | ΔSI-SDR −5…10 dB | speech lost (dB), %s | all |"
             % " / ".join("%g" % s for s in snrs),
             "|---|---|---|---|"]
    for i, (name, _, _) in enumerate(MASKS):
        low = [r[i][0] for snr, r in results if snr in LOW_SNRS]
        lost = {s: np.nanmean([r[i][1] for snr, r in results if snr == s])
                for s in snrs}
        every = np.nanmean([r[i][1] for _, r in results])
        lines.append("| %s | %+.2f | %s | %.2f |"
                     % (name, np.mean(low) if low else float("nan"),
                        " / ".join("%.2f" % lost[s] for s in snrs), every))
    return "\n".join(lines)


def self_check():
    """The masks on a synthetic voice in white noise at 0 dB; 0 if what
    must hold holds."""
    rng = np.random.default_rng(5)
    clean = metrics._speechlike(rng, 3.0)
    noise = rng.standard_normal(clean.size) * np.std(clean)
    edges = [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256,
             320, 400, 480]
    figures = dict(zip((m[0] for m in MASKS),
                       mask_figures(clean, clean + noise, edges)))
    for name, (d, lost) in figures.items():
        print("  %-32s ΔSI-SDR %+6.2f dB, speech lost %5.2f dB"
              % (name, d, lost))
    checks = [
        ("the unbounded per-bin mask loses no speech",
         abs(figures["per-bin everywhere, unbounded"][1]) < 0.1),
        ("per-bin gains beat band gains on SI-SDR",
         figures["per-bin everywhere, ≤ 1"][0]
         > figures["per-bin below 1 kHz, ≤ 1"][0]
         > figures["band gains ≤ 1"][0]),
        ("band gains above 1 lose less speech",
         figures["band gains ≤ 1.25"][1] < figures["band gains ≤ 1"][1]),
        ("per-bin gains held at 1 still lose speech",
         figures["per-bin everywhere, ≤ 1"][1]
         > figures["per-bin everywhere, unbounded"][1] + 0.1)]
    return report_checks(checks)


def report_checks(checks):
    """Prints each (what, ok) of a self-check; 0 if all are ok, else 1."""
    for what, ok in checks:
        print("%s: %s" % ("ok" if ok else "FAIL", what))
    return 0 if all(ok for _, ok in checks) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("testdirs", nargs="*")
    ap.add_argument("--edges", help="band edges in bins, as "
                    "rnndenoise-model info prints them")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--self-check", action="store_true")
    args = ap.parse_args()
    if args.self_check:
        return self_check()
    if not args.edges or not args.testdirs:
        ap.error("--edges and at least one TESTDIR are needed")
    edges = [int(v) for v in args.edges.split()]
    if edges[-1] != HOP:
        ap.error("the edges end at bin %d, a 48 kHz model's end at %d"
                 % (edges[-1], HOP))
    jobs = [(m["clean"], m["noisy"], m["snr"], edges)
            for m in evaluate.load_mixtures(args.testdirs, "test")]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(_score, jobs, chunksize=4))
    print("%d mixtures in %d folders\n" % (len(results), len(args.testdirs)))
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
