#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write a features list that learns training pairs again band-limited.

    band_variants.py LIST OUT_LIST [--seed S] [--share F] [--rate HZ]

A share F (0.5) of the pairs of LIST ("CLEAN NOISE [BANDWIDTH_HZ
[NOISE_GAIN_DB]]", as synth.py or snr_variants.py write it) appears in
OUT_LIST once more with a band limit drawn from LIMITS_HZ, the upper ends
of the bands real recordings come with: a telephone (3.4-4 kHz), audio
sampled at 11.025, 16, 22.05 or 24 kHz, the wideband codecs' 7 kHz, an
MP3 encoder's 16-19 kHz. rnndenoise-features low-passes the speech and
the noise there before mixing (the list's fifth field), so no audio is
written. A network that only ever hears full-band mixtures reads empty top
bands as a cue it never learnt: fed a mixture with nothing above 8 kHz,
the 48 kHz model took 3.7 dB of its speech (docs/model.md, "Band-limited
input"). Limits at or above a features run's Nyquist frequency take
nothing away there; with --rate HZ (16000 for the 16 kHz model's
features) the limits are drawn from those below half of HZ only.
Paths stay relative to LIST's folder, so OUT_LIST must be written next
to LIST.
"""

import argparse

import numpy as np

import pairlist

LIMITS_HZ = (3400, 4000, 5512, 7000, 8000, 11025, 12000, 16000, 19000)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("list")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--share", type=float, default=0.5)
    ap.add_argument("--rate", type=int, default=48000,
                    help="the features' rate: limits below half of it only")
    args = ap.parse_args()
    pairlist.require_beside(ap, args.list, args.out)
    if not 0.0 <= args.share <= 1.0:
        ap.error("--share %g: want 0..1" % args.share)

    limits = [hz for hz in LIMITS_HZ if hz < args.rate / 2]
    if not limits:
        ap.error("--rate %d: no band limit below %g Hz" % (args.rate,
                                                           args.rate / 2))

    rng = np.random.default_rng(args.seed)
    pairs = pairlist.read_pairs(args.list)
    lines = [" ".join(fields[:4]) + " %d" % rng.choice(limits)
             for fields in pairs if rng.random() < args.share]
    pairlist.write_lines(args.out, lines)
    print("band_variants: %d pairs -> %d band-limited sequences in %s"
          % (len(pairs), len(lines), args.out))


if __name__ == "__main__":
    main()
