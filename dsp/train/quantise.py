#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write the int8 or int8x8 variant of a float32 model file.

    quantise.py FLOAT.rnnm OUT.rnnm [--type int8x8|int8]

Reads a float32 model file (docs/model-format.md), quantises the weight
matrices of every layer that may be quantised, per row as export.py does
(scale = max |w| / 127), and writes the same network with those layers'
weight type changed; frame layout, biases and everything else are copied.
Which layers:

- int8x8 (the default): every layer whose inputs are bounded by 1 (a GRU's,
  or a tanh or sigmoid layer's outputs), the only ones whose inputs the
  runtime may quantise to 8 bits too;
- int8: every layer but those reading the raw features (their scales
  differ by orders of magnitude; export.py's int8 file does the same).

Quantising the float file gives the same bytes as quantising the
checkpoint: the float file holds the float32 weights export.py quantises.
A lookahead and a speech protection are kept.
Prints the size and the layers changed.
"""

import argparse

from modelfile import (F32, int8_weight_types, int8x8_weight_types,
                       model_bytes, read_model)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--type", choices=["int8", "int8x8"], default="int8x8")
    args = ap.parse_args()
    model = read_model(args.model)
    if args.type == "int8x8":
        types = int8x8_weight_types(model.layers)
    else:
        types = int8_weight_types(len(model.layers))
    blob = model_bytes(model.frame, model.layers, model.gain_layer,
                       model.vad_layer, types, model.lookahead,
                       model.speech_protection, model.bin_layer)
    with open(args.out, "wb") as f:
        f.write(blob)
    changed = [str(i) for i, t in enumerate(types) if t != F32]
    print("quantise: %s, %s (layers %s), %d bytes"
          % (args.out, args.type, ", ".join(changed), len(blob)))


if __name__ == "__main__":
    main()
