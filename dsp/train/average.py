#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Average the weights of two networks of one lineage.

    average.py START.pt TUNED.pt OUT.pt [--weight W]
    average.py START.rnnm TUNED.rnnm OUT.rnnm [--weight W]
        [--speech-protection P]

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

Float32 model files (docs/model-format.md) are averaged the same way,
layer by layer, bin-gain head included: a file and the one bin_head.py
--joint-epochs trains from it, whose heads checkpoints do not hold. The
feature normalisation is folded into a file's first layer, which is
linear in the weights, so averaging two files of one normalisation equals
exporting the averaged checkpoint. OUT.rnnm names TUNED's speech
protection unless --speech-protection P is given; quantise.py makes its
int8x8 variant. When the two bin-gain heads correct different numbers of
bins (a step that trained a wider head than its start's), the narrower
head is first given zero rows up to the wider's count: a zero correction
leaves a bin's gain as the band gains set it, so the padded file is the
same network, and the average then halves the new bins' corrections.
"""

import argparse
import sys

import numpy as np

import modelfile


def is_model_file(path):
    """Whether path starts as a model file does (else: a checkpoint)."""
    with open(path, "rb") as f:
        return f.read(len(modelfile.MAGIC)) == modelfile.MAGIC


def same_file_shape(a, b):
    """Why two model files (modelfile.read_model()) cannot be averaged, or
    None if they can."""
    if a.frame != b.frame:
        return "the frame layouts differ"
    if a.lookahead != b.lookahead:
        return "the lookaheads differ (%d, %d)" % (a.lookahead, b.lookahead)
    if (a.gain_layer, a.vad_layer, a.bin_layer) != \
            (b.gain_layer, b.vad_layer, b.bin_layer):
        return "the gain, VAD or bin-gain layers differ"
    if len(a.layers) != len(b.layers):
        return "the layer counts differ (%d, %d)" % (len(a.layers),
                                                     len(b.layers))
    for i, (x, y) in enumerate(zip(a.layers, b.layers)):
        if (x["kind"], x["input"], x["activation"]) != \
                (y["kind"], y["input"], y["activation"]) or \
                [m.shape for m in x["weights"] + x["biases"]] != \
                [m.shape for m in y["weights"] + y["biases"]]:
            return "layer %d's sizes or kind differ" % i
    return None


def pad_bin_heads(a, b):
    """Gives the narrower of two files' bin-gain heads zero rows up to the
    wider's output count, in place (see the module's docstring); other
    layers are left to same_file_shape()."""
    if a.bin_layer == 0 or a.bin_layer != b.bin_layer \
            or a.bin_layer >= min(len(a.layers), len(b.layers)):
        return
    heads = [m.layers[m.bin_layer] for m in (a, b)]
    n = max(h["biases"][0].shape[0] for h in heads)
    for head in heads:
        w, bias = head["weights"][0], head["biases"][0]
        extra = n - bias.shape[0]
        if extra > 0:
            head["weights"] = [np.vstack(
                [w, np.zeros((extra, w.shape[1]), dtype=w.dtype)])]
            head["biases"] = [np.concatenate(
                [bias, np.zeros(extra, dtype=bias.dtype)])]


def average_files(start, tuned, weight):
    """The layers of (1 - weight) start + weight tuned, array by array."""
    def mix(x, y):
        return ((1.0 - weight) * x + weight * y).astype("float32")

    return [dict(x, weights=[mix(a, b) for a, b in zip(x["weights"],
                                                      y["weights"])],
                 biases=[mix(a, b) for a, b in zip(x["biases"],
                                                   y["biases"])])
            for x, y in zip(start.layers, tuned.layers)]


def main_files(args):
    """average.py on two float32 model files."""
    start = modelfile.read_model(args.start)
    tuned = modelfile.read_model(args.tuned)
    pad_bin_heads(start, tuned)
    why = same_file_shape(start, tuned)
    if why is not None:
        sys.exit("average.py: %s and %s cannot be averaged: %s"
                 % (args.start, args.tuned, why))
    protection = tuned.speech_protection
    if args.speech_protection is not None:
        protection = args.speech_protection
    layers = average_files(start, tuned, args.weight)
    try:
        blob = modelfile.model_bytes(
            tuned.frame, layers, tuned.gain_layer, tuned.vad_layer,
            [modelfile.F32] * len(layers), tuned.lookahead, protection,
            tuned.bin_layer)
    except ValueError as e:
        sys.exit("average.py: %s" % e)
    with open(args.out, "wb") as f:
        f.write(blob)
    moved = max(float(abs(b - a).max())
                for x, y in zip(start.layers, tuned.layers)
                for a, b in zip(x["weights"] + x["biases"],
                                y["weights"] + y["biases"]))
    return moved


def same_shape(a, b):
    """Why two checkpoints cannot be averaged, or None if they can. The
    sizes name the lookahead too, so a network reading frames ahead and
    one that does not differ there."""
    import torch

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
    ap.add_argument("--speech-protection", type=float, metavar="P",
                    help="the speech protection OUT.rnnm names (model "
                    "files only; default: TUNED's)")
    args = ap.parse_args()
    if not 0.0 <= args.weight <= 1.0:
        ap.error("--weight %g is outside 0..1" % args.weight)
    try:
        files = [is_model_file(p) for p in (args.start, args.tuned)]
    except OSError as e:
        ap.error("%s: %s" % (e.filename, e.strerror))
    if any(files):
        if not all(files):
            ap.error("%s and %s: average two model files or two "
                     "checkpoints, not one of each" % (args.start,
                                                       args.tuned))
        moved = main_files(args)
    else:
        if args.speech_protection is not None:
            ap.error("--speech-protection is for model files; export.py "
                     "names it for a checkpoint")
        moved = main_checkpoints(args)
    print("average: %s = %.2f x %s + %.2f x %s (the round moved a weight by "
          "at most %.3g)" % (args.out, 1.0 - args.weight, args.start,
                             args.weight, args.tuned, moved))


def main_checkpoints(args):
    """average.py on two train.py checkpoints."""
    import torch

    from net import load_checkpoint

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
    return max(float((tuned["state_dict"][k] - start["state_dict"][k])
                     .abs().max()) for k in start["state_dict"])


if __name__ == "__main__":
    main()
