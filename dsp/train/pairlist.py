# SPDX-License-Identifier: LGPL-2.1-or-later
"""Lists of training pairs as rnndenoise-features reads them: one pair a
line, "CLEAN NOISE [BANDWIDTH_HZ [NOISE_GAIN_DB [BAND_LIMIT_HZ]]]", paths
relative to the list's folder; empty lines and '#' lines skipped. Shared by
the scripts that list a set's pairs again with other fields
(snr_variants.py, band_variants.py, lowsnr_variants.py), with the reader of
the manifest.tsv synth.py writes beside them."""

import os


def require_beside(ap, list_path, out_path):
    """An argparse error unless OUT_PATH is in LIST_PATH's folder (the
    paths in the list are relative to it)."""
    if os.path.dirname(os.path.abspath(out_path)) != \
            os.path.dirname(os.path.abspath(list_path)):
        ap.error("OUT_LIST must be in the same folder as LIST")


def read_pairs(path):
    """The fields of every pair line, the optional ones filled in: clean,
    noise, bandwidth ("-": none) and noise gain ("0" dB)."""
    with open(path) as f:
        rows = [line.split() for line in f
                if line.strip() and not line.startswith("#")]
    return [r[:2] + [r[2] if len(r) > 2 else "-",
                     r[3] if len(r) > 3 else "0"] + r[4:] for r in rows]


def read_manifest(path):
    """The rows of a manifest.tsv, in order, each a dict by column name."""
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        return [dict(zip(header, line.rstrip("\n").split("\t")))
                for line in f if line.strip()]


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
