#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write a trained checkpoint as a model file (docs/model-format.md).

    export.py CHECKPOINT.pt OUT.rnnm [--int8 OUT_INT8.rnnm]
                                     [--int8x8 OUT_INT8X8.rnnm]

The float32 file holds the weights as trained (the feature normalisation
folded into the first layer). The int8 file stores the weight matrices of
every layer but the first as int8 with one float32 scale per row, biases in
float32. The first layer stays float32: it reads the raw features, whose
scales differ by two orders of magnitude (the first cepstral coefficient is
near -30, the last ones near 0.2), so one scale per row would leave the
small-scale features with almost no resolution; it holds under 2 % of the
weights. The int8x8 file has the same int8 weights, marked so that the
runtime quantises their inputs to 8 bits too and sums in integers (twice
the products per instruction); every layer but the first may, since they
read tanh, GRU or sigmoid outputs, bounded by 1. A checkpoint trained
with --lookahead N gives a file whose lookahead field is N: its first layer
reads the frame's features and the next N frames' (train.py's
with_lookahead_inputs(), the normalisation folded in as usual). Prints the
sizes. With --speech-protection P the files name P, the speech protection
the processor starts with (format version 2): the one the network was
tuned with (docs/model.md); without it they are version 1 files, which
stand for the default, 1.
"""

import argparse

from modelfile import (F32, int8_weight_types, int8x8_weight_types,
                       model_bytes)
from net import load_checkpoint


def export(checkpoint, out, variant, speech_protection=None):
    """Write one model file from a checkpoint: variant "f32", "int8" or
    "int8x8", naming speech_protection if given; returns its size in
    bytes."""
    net, ckpt = load_checkpoint(checkpoint)
    # Checkpoints from before train.py --lookahead have no such key.
    lookahead = ckpt.get("lookahead", 0)
    frame = ckpt["frame_config"]
    if net.sizes["n_features"] != frame["n_features"] * (1 + lookahead):
        raise SystemExit("export.py: %s reads %d features, not %d frame(s) "
                         "of %d" % (checkpoint, net.sizes["n_features"],
                                    1 + lookahead, frame["n_features"]))
    layers, gain_layer, vad_layer = net.export_layers()
    types = {"f32": [F32] * len(layers),
             "int8": int8_weight_types(len(layers)),
             "int8x8": int8x8_weight_types(layers)}[variant]
    blob = model_bytes(frame, layers, gain_layer, vad_layer, types, lookahead,
                       speech_protection)
    with open(out, "wb") as f:
        f.write(blob)
    return len(blob)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    ap.add_argument("--int8", metavar="OUT_INT8")
    ap.add_argument("--int8x8", metavar="OUT_INT8X8")
    ap.add_argument("--speech-protection", type=float, metavar="P",
                    help="the speech protection the files name, the one "
                    "the processor starts with (a version 2 file; without "
                    "it, version 1: the default, 1)")
    args = ap.parse_args()
    # model_bytes() checks the range before any file is written.
    try:
        size = export(args.checkpoint, args.out, "f32", args.speech_protection)
    except ValueError as e:
        ap.error("--speech-protection: %s" % e)
    print("export: %s, float32, %d bytes" % (args.out, size))
    for variant, out in (("int8", args.int8), ("int8x8", args.int8x8)):
        if out:
            size = export(args.checkpoint, out, variant,
                          args.speech_protection)
            print("export: %s, %s (first layer float32), %d bytes"
                  % (out, variant, size))


if __name__ == "__main__":
    main()
