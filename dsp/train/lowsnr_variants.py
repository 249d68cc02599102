#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write a features list that learns a set's quiet voices under steady noise.

    lowsnr_variants.py LIST OUT_LIST [--also LIST2 ...] [--seed S]
                       [--snr LOW HIGH] [--min-snr M]
                       [--min-band-limit HZ]

Every pair of LIST and of each LIST2 (lists of one synth.py training
folder, e.g. its list.txt and the band_variants.py list beside it) whose
noise is steady (STEADY_KINDS, or two of them joined by "+", as
manifest.tsv names them) and whose SNR is M (0) dB or more appears once
more in OUT_LIST, its noise gain (the fourth field) raised so that its SNR
falls to a value drawn uniformly from LOW..HIGH (-5..3) dB; a band limit
(the fifth field) stays; a pair band-limited below HZ (0: none) gets no
copy: below 4 kHz a voice under noise raised to -5 dB is mostly noise, and
the low gains learnt there cost speech in telephone-band input
(docs/model.md, "Low-SNR copies of the band-limited pairs too"). Under
steady noise at -5 dB the network hears no voice in runs of whole frames
of a quiet speaker and cuts them as deep as the noise (docs/model.md,
"Holding the gains within a word"); the sets synth.py makes hold few
such frames. rnndenoise-features applies the gain,
so no audio is written. Paths stay relative to LIST's folder, so every
list must be in it.
"""

import argparse
import os

import numpy as np

import pairlist

STEADY_KINDS = {"fan", "white", "brown", "pink", "hum", "room"}


def mixture_name(clean_path):
    """The manifest name of a pair from its clean file (NAME_clean.wav)."""
    name = os.path.basename(clean_path)
    if not name.endswith("_clean.wav"):
        raise ValueError("%s: not a synth.py clean file" % clean_path)
    return name[:-len("_clean.wav")]


def is_steady(noise):
    return set(noise.split("+")) <= STEADY_KINDS


def band_limit(fields):
    """A pair's band limit in Hz (its fifth field), or None for full band."""
    return float(fields[4]) if len(fields) > 4 else None


def low_snr_lines(pairs, manifest, rng, snr_range, min_snr,
                  min_band_limit=0.0):
    """The copies of @pairs under steady noise at @min_snr dB or more, none
    of a pair band-limited below @min_band_limit Hz, and how many of them
    each noise kind gave."""
    lines, kinds = [], {}
    for fields in pairs:
        row = manifest[mixture_name(fields[0])]
        snr = float(row["snr"])
        if not is_steady(row["noise"]) or snr < min_snr:
            continue
        limit = band_limit(fields)
        if limit is not None and limit < min_band_limit:
            continue
        gain = float(fields[3]) + snr - rng.uniform(*snr_range)
        lines.append(" ".join(fields[:3] + ["%.1f" % gain] + fields[4:]))
        kinds[row["noise"]] = kinds.get(row["noise"], 0) + 1
    return lines, kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("list")
    ap.add_argument("out")
    ap.add_argument("--also", action="append", default=[])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--snr", type=float, nargs=2, default=(-5.0, 3.0),
                    metavar=("LOW", "HIGH"))
    ap.add_argument("--min-snr", type=float, default=0.0)
    ap.add_argument("--min-band-limit", type=float, default=0.0,
                    metavar="HZ", help="no copies of pairs band-limited "
                    "below HZ (0: copies of every band limit)")
    args = ap.parse_args()
    for path in [args.out] + args.also:
        pairlist.require_beside(ap, args.list, path)
    if args.snr[0] > args.snr[1]:
        ap.error("--snr LOW HIGH: LOW above HIGH")

    folder = os.path.dirname(os.path.abspath(args.list))
    manifest = {row["name"]: row for row in
                pairlist.read_manifest(os.path.join(folder, "manifest.tsv"))}
    rng = np.random.default_rng(args.seed)
    lines = []
    for path in [args.list] + args.also:
        pairs = pairlist.read_pairs(path)
        try:
            copies, kinds = low_snr_lines(pairs, manifest, rng, args.snr,
                                          args.min_snr, args.min_band_limit)
        except (KeyError, ValueError) as e:
            ap.error("%s: a pair not in manifest.tsv (%s)" % (path, e))
        lines += copies
        print("lowsnr_variants: %s: %d pairs -> %d copies (%s)"
              % (os.path.basename(path), len(pairs), len(copies),
                 ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
    pairlist.write_lines(args.out, lines)
    print("lowsnr_variants: %d sequences in %s" % (len(lines), args.out))


if __name__ == "__main__":
    main()
