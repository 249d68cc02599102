#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Average the weights of two networks of one lineage.

    average.py START.pt TUNED.pt OUT.pt [--weight W]

START.pt and TUNED.pt are train.py checkpoints of the same sizes (a
lookahead is one of them), frame layout and feature normalisation: a network and the one a
training round made from it (train.py --init START.pt keeps START's
normalisation, so a round's checkpoint and its start always match). OUT.pt
holds (1 - W) START + W TUNED, parameter by parameter (W 0.5 by default),
and train.py, export.py and ablation.py take it as any checkpoint.

Why: a fine-tune round moves a network a short way from where it
started, and the point between the two often keeps what the round learnt
about sounds it had not heard before with less of what it unlearnt
(weight-space ensembling of a fine-tuned model with its start). The
shipped 16 kHz model is its fifth round averaged with its fourth this way
(docs/model.md). Networks of another lineage are not averaged: their units
need not correspond, and the mean of two unrelated networks is neither.
"""

import argparse
import sys

import torch

from net import load_checkpoint


def same_shape(a, b):
    """Why two checkpoints cannot be averaged, or None if they can. The
    sizes name the lookahead too, so a network reading frames ahead and
    one that does not differ there."""
    if a["sizes"] != b["sizes"]:
        return "the networks' sizes differ (%s, %s)" % (a["sizes"],
                                                         b["sizes"])
    if a["frame_config"] != b["frame_config"]:
        return "the frame layouts differ"
    for key in ("feat_mean", "feat_std"):
        if not torch.equal(a["state_dict"][key], b["state_dict"][key]):
            return ("the feature normalisations differ: not a network and "
                    "a round trained from it")
    return None


def average(start, tuned, weight):
    """(1 - weight) start + weight tuned, parameter by parameter; the
    normalisation buffers are the same in both and kept as they are."""
    return {key: value if key.startswith("feat_")
            else (1.0 - weight) * value + weight * tuned[key]
            for key, value in start.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("start", help="the network a round started from")
    ap.add_argument("tuned", help="the round's network")
    ap.add_argument("out")
    ap.add_argument("--weight", type=float, default=0.5,
                    help="the tuned network's share, 0..1 (0.5)")
    args = ap.parse_args()
    if not 0.0 <= args.weight <= 1.0:
        ap.error("--weight %g is outside 0..1" % args.weight)

    _, start = load_checkpoint(args.start)
    _, tuned = load_checkpoint(args.tuned)
    why = same_shape(start, tuned)
    if why is not None:
        sys.exit("average.py: %s and %s cannot be averaged: %s"
                 % (args.start, args.tuned, why))
    ckpt = dict(tuned, state_dict=average(start["state_dict"],
                                          tuned["state_dict"], args.weight),
                log=[], averaged_from=[args.start, args.tuned],
                average_weight=args.weight)
    torch.save(ckpt, args.out)
    moved = max(float((tuned["state_dict"][k] - start["state_dict"][k])
                      .abs().max()) for k in start["state_dict"])
    print("average: %s = %.2f x %s + %.2f x %s (the round moved a weight by "
          "at most %.3g)" % (args.out, 1.0 - args.weight, args.start,
                             args.weight, args.tuned, moved))


if __name__ == "__main__":
    main()
