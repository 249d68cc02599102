#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write a features list that learns the training pairs again at higher SNRs.

    snr_variants.py LIST OUT_LIST [--seed S] [--clean-share F]

Every pair of LIST ("CLEAN NOISE [BANDWIDTH_HZ]", as synth.py writes it)
appears once in OUT_LIST with its noise lowered by a random 6-25 dB, and a
share F (0.25) of the pairs once more with the noise 80 dB down, nearly
clean. The mixtures synth.py makes sit at -5..20 dB; a network that never
hears quieter noise than that learns to take something away from every
voice, which costs speech on clean and high-SNR input (the speech lost and
noise-free SI-SDR of docs/quality.md). rnndenoise-features applies the
gain (the list's fourth field), so no audio is written. Paths stay relative
to LIST's folder, so OUT_LIST must be written next to LIST.
"""

import argparse

import numpy as np

import pairlist

RAISE_DB = (6.0, 25.0)
CLEAN_DB = -80.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("list")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clean-share", type=float, default=0.25)
    args = ap.parse_args()
    pairlist.require_beside(ap, args.list, args.out)

    rng = np.random.default_rng(args.seed)
    pairs = pairlist.read_pairs(args.list)
    lines = []
    for fields in pairs:
        clean, noise, bandwidth = fields[:3]
        lines.append("%s %s %s %.1f" % (clean, noise, bandwidth,
                                        -rng.uniform(*RAISE_DB)))
        if rng.random() < args.clean_share:
            lines.append("%s %s %s %.1f" % (clean, noise, bandwidth,
                                            CLEAN_DB))
    pairlist.write_lines(args.out, lines)
    print("snr_variants: %d pairs -> %d sequences in %s"
          % (len(pairs), len(lines), args.out))


if __name__ == "__main__":
    main()
