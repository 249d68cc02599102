#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Check exported model files against PyTorch on the same features.

    check_export.py CHECKPOINT.pt FEATURES.rndf FORWARD_TOOL MODEL.rnnm
                    [--int8 MODEL_INT8.rnnm] [--int8x8 MODEL_INT8X8.rnnm]
                    [--tolerance T]

Runs every sequence of FEATURES through the C inference
(`rnndenoise-forward run`, i.e. dsp_model_forward(), each sequence from the
zero state) and through the PyTorch network, and prints the largest
absolute difference of the band gains and the VAD. A checkpoint with
lookahead reads the rows train.py's gather() makes: each frame's features,
then the next frames' (a sequence's last frames repeat its last frame),
as rnndenoise-forward builds them.

  float32 file vs PyTorch (float32)
  int8 file vs PyTorch computing with the same dequantised int8 weights
    (float64): the C int8 path itself
  int8 file vs PyTorch (float32): what quantisation costs
  int8x8 file vs PyTorch (float32): what quantising weights and inputs
    costs (the int8x8 arithmetic itself is checked bit for bit by the unit
    tests; over long sequences a float64 twin would differ wherever one
    input falls on the other side of a rounding step)

Exits with status 1 if either of the first two exceeds the tolerance.
"""

import argparse
import copy
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

import featfile
from modelfile import S8, dequantize, int8_weight_types, quantize_rows
from net import load_checkpoint
from train import gather


def c_outputs(tool, model, features_path, n_frames, n_bands):
    """Gains and VAD of every frame from the C forward pass."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.f32")
        subprocess.run([tool, "run", model, features_path, out], check=True)
        rows = np.fromfile(out, dtype="<f4").reshape(n_frames, n_bands + 1)
    return rows[:, :n_bands].astype(np.float64), rows[:, n_bands].astype(
        np.float64)


@torch.no_grad()
def torch_outputs(net, data, dtype=torch.float32, lookahead=0):
    """Gains and VAD of every frame, each sequence from the zero state,
    with the input rows training gives a network with that lookahead."""
    gains, vad = [], []
    for start, length in data.sequences():
        x, _, _ = gather(data, np.array([start]), length, lookahead)
        g, v, _ = net(x.to(dtype))
        gains.append(g[0].double().numpy())
        vad.append(v[0].double().numpy())
    return np.concatenate(gains), np.concatenate(vad)


def int8_twin(net):
    """A float64 copy of the network computing with exactly the weights of
    the int8 file: normalisation folded, the int8 layers' matrices
    quantised per row."""
    twin = copy.deepcopy(net).double()
    layers, _, _ = net.export_layers()
    types = int8_weight_types(len(layers))
    for layer, wtype in zip(layers, types):
        if wtype == S8:
            layer["weights"] = [dequantize(*quantize_rows(m))
                                for m in layer["weights"]]
    with torch.no_grad():
        twin.feat_mean.zero_()
        twin.feat_std.fill_(1.0)
    twin.load_layers(layers)
    return twin


def max_diff(a, b):
    """Largest absolute difference of gains and of VAD."""
    return np.abs(a[0] - b[0]).max(), np.abs(a[1] - b[1]).max()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("features")
    ap.add_argument("forward_tool")
    ap.add_argument("model")
    ap.add_argument("--int8", metavar="MODEL_INT8")
    ap.add_argument("--int8x8", metavar="MODEL_INT8X8")
    ap.add_argument("--tolerance", type=float, default=1e-4)
    args = ap.parse_args()

    torch.set_num_threads(2)
    net, ckpt = load_checkpoint(args.checkpoint)
    lookahead = ckpt.get("lookahead", 0)
    data = featfile.FeatureFile(args.features)
    n_frames, n_bands = len(data.vad), data.header["n_bands"]
    reference = torch_outputs(net, data, lookahead=lookahead)
    print("check: lookahead %d frame(s)" % lookahead)
    print("check: %d sequences, %d frames" % (len(data.lengths), n_frames))

    failed = False
    c_float = c_outputs(args.forward_tool, args.model, args.features,
                        n_frames, n_bands)
    dg, dv = max_diff(c_float, reference)
    print("check: float32 file vs PyTorch: max |diff| gains %.2e, vad %.2e"
          % (dg, dv))
    failed |= max(dg, dv) > args.tolerance
    if args.int8:
        c_int8 = c_outputs(args.forward_tool, args.int8, args.features,
                           n_frames, n_bands)
        twin = torch_outputs(int8_twin(net), data, torch.float64,
                             lookahead)
        dg, dv = max_diff(c_int8, twin)
        print("check: int8 file vs PyTorch with the same int8 weights: "
              "max |diff| gains %.2e, vad %.2e" % (dg, dv))
        failed |= max(dg, dv) > args.tolerance
        dg, dv = max_diff(c_int8, reference)
        mg = np.abs(c_int8[0] - reference[0]).mean()
        print("check: int8 file vs float PyTorch (quantisation): max |diff| "
              "gains %.2e (mean %.1e), vad %.2e" % (dg, mg, dv))
    if args.int8x8:
        c_int8x8 = c_outputs(args.forward_tool, args.int8x8, args.features,
                             n_frames, n_bands)
        dg, dv = max_diff(c_int8x8, reference)
        mg = np.abs(c_int8x8[0] - reference[0]).mean()
        print("check: int8x8 file vs float PyTorch (quantisation): max "
              "|diff| gains %.2e (mean %.1e), vad %.2e" % (dg, mg, dv))
    print("check: %s (tolerance %.0e)" % ("FAILED" if failed else "ok",
                                          args.tolerance))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
