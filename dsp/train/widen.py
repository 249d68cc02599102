#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Start a wider network from a trained one, computing the same function.

    widen.py FROM TRAIN.rndf OUT.pt --sizes DENSE,GRU1,GRU2 [--seed N]

FROM is a checkpoint written by train.py or a float32 model file (the
shipped network's twin, `dsp/models/rnndenoise-48k-f32.rnnm`); TRAIN.rndf
is a features file in FROM's layout. OUT.pt is a checkpoint that
train.py --init continues from. A model file's bin-gain head
(docs/model-format.md) is left out: bin_head.py trains one on the
network frozen.

Every layer keeps its units and gains new ones: the new units' own weights
are drawn as PyTorch draws them, and every weight that carries a new
unit's output into an old unit or a head is zero. So the wider network
gives FROM's gains and VAD exactly (to float rounding) until training moves
those zeros, and training starts where FROM's ended instead of from
scratch, which took the first model's chain many hours.

A model file holds the first layer with the feature normalisation folded
in (export.py); it is unfolded with TRAIN.rndf's mean and standard
deviation, the normalisation train.py would have used, so the result
trains as a checkpoint would.

A network that reads frames ahead (train.py --lookahead) is widened the
same way, the weights of the frames ahead with the first layer's; at its
own sizes it is read back: a float32 file of one becomes a checkpoint
that train.py --init --lookahead continues from, its first layer split
into the frame's own columns and those of the frames ahead.
"""

import argparse
import sys

import numpy as np
import torch

import featfile
from modelfile import (DENSE, GRU, INPUT_FEATURES, layers_without_bin_head,
                       read_model)
from net import DenoiseNet, load_checkpoint
from train import gather


def net_from_model_file(path, train, train_path):
    """A DenoiseNet holding a float32 model file's weights, normalised by
    the training features' statistics (repeated for each frame a network
    with lookahead reads), and the file's frame layout."""
    model = read_model(path)
    frame, layers, gain_layer, vad_layer, lookahead = model[:5]
    if model.bin_layer:
        # The bin-gain head is no part of the network train.py trains:
        # bin_head.py trains one on the network frozen.
        print("widen.py: %s: its bin-gain head (layer %d) is left out"
              % (path, model.bin_layer), file=sys.stderr)
        layers = layers_without_bin_head(model, path)
    kinds = [(l["kind"], l["input"]) for l in layers]
    if (kinds != [(DENSE, INPUT_FEATURES), (GRU, 1), (GRU, 2), (DENSE, 3),
                  (DENSE, 3)] or (gain_layer, vad_layer) != (3, 4)):
        sys.exit("widen.py: %s is not dense -> GRU -> GRU with two heads"
                 % path)
    cfg = train.frame_config()
    if dict(frame, n_features=cfg["n_features"]) != cfg:
        sys.exit("widen.py: %s is not in %s's frame layout"
                 % (path, train_path))
    w_in = layers[0]["weights"][0].astype(np.float64)
    b_in = layers[0]["biases"][0].astype(np.float64)
    n_inputs = cfg["n_features"] * (1 + lookahead)
    if w_in.shape[1] != n_inputs:
        sys.exit("widen.py: %s reads %d features, the training file has %d"
                 " per frame" % (path, w_in.shape[1], cfg["n_features"]))
    net = DenoiseNet(n_inputs, cfg["n_bands"], w_in.shape[0],
                     layers[1]["biases"][0].size // 3,
                     layers[2]["biases"][0].size // 3, lookahead)
    # As train.py's with_lookahead_inputs(): one frame's statistics, once
    # for the frame and once for each frame ahead.
    net.set_normalisation(np.tile(train.features.mean(0), 1 + lookahead),
                          np.tile(train.features.std(0), 1 + lookahead))
    mean = net.feat_mean.double().numpy()
    std = net.feat_std.double().numpy()
    # export_layers() wrote w_in = W / std and b_in = b - W / std @ mean.
    layers[0] = dict(layers[0], weights=[w_in * std[None, :]],
                     biases=[b_in + w_in @ mean])
    net.load_layers(layers)
    return net, cfg


def embed(old, new, row_groups=1):
    """Copy the parameter old into the top-left corner of new, gate block by
    gate block for a GRU's (3 units, inputs) matrices and (3 units) biases:
    rows beyond old's units keep new's draw, columns beyond old's inputs
    become zero (a new unit's output must not reach an old unit)."""
    old = old.detach()
    rows = old.shape[0] // row_groups
    new_rows = new.shape[0] // row_groups
    for g in range(row_groups):
        dst = new.data[g * new_rows:g * new_rows + rows]
        src = old[g * rows:(g + 1) * rows]
        if old.dim() == 2:
            dst[:, :old.shape[1]] = src
            dst[:, old.shape[1]:] = 0.0
        else:
            dst.copy_(src)


def widen(old, sizes):
    """A DenoiseNet of the given sizes computing old's function. A network
    with lookahead keeps it: the weights of the frames ahead (inp_ahead,
    which feed the dense layer as inp does) are embedded the same way."""
    for key in ("dense", "gru1", "gru2"):
        if sizes[key] < old.sizes[key]:
            sys.exit("widen.py: %s %d is narrower than the network's %d"
                     % (key, sizes[key], old.sizes[key]))
    lookahead = old.sizes.get("lookahead", 0)
    net = DenoiseNet(old.sizes["n_features"], old.sizes["n_bands"],
                     sizes["dense"], sizes["gru1"], sizes["gru2"], lookahead)
    with torch.no_grad():
        net.feat_mean.copy_(old.feat_mean)
        net.feat_std.copy_(old.feat_std)
        embed(old.inp.weight, net.inp.weight)
        embed(old.inp.bias, net.inp.bias)
        if lookahead:
            embed(old.inp_ahead.weight, net.inp_ahead.weight)
        for src, dst in ((old.gru1, net.gru1), (old.gru2, net.gru2)):
            for name in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0",
                         "bias_hh_l0"):
                embed(getattr(src, name), getattr(dst, name), row_groups=3)
        # The new units of the last GRU must not reach the heads either.
        for src, dst in ((old.gain, net.gain), (old.vad, net.vad)):
            embed(src.weight, dst.weight)
            embed(src.bias, dst.bias)
    return net


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source", help="a train.py checkpoint or a float32 "
                    "model file")
    ap.add_argument("train", help="training features in the same layout")
    ap.add_argument("out")
    ap.add_argument("--sizes", required=True,
                    help="dense, first GRU, second GRU units")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    train = featfile.FeatureFile(args.train)
    if args.source.endswith(".pt"):
        old, ckpt = load_checkpoint(args.source)
        cfg = ckpt["frame_config"]
        if cfg != train.frame_config():
            sys.exit("widen.py: %s is not in %s's frame layout"
                     % (args.train, args.source))
    else:
        old, cfg = net_from_model_file(args.source, train, args.train)
    dense, gru1, gru2 = (int(v) for v in args.sizes.split(","))
    net = widen(old, {"dense": dense, "gru1": gru1, "gru2": gru2})

    # The proof that nothing changed: both networks on the first sequence
    # (with the frames ahead a network with lookahead reads).
    start, length = next(train.sequences())
    x = gather(train, np.array([start]), length,
               old.sizes.get("lookahead", 0))[0]
    with torch.no_grad():
        g_old, v_old, _ = old(x)
        g_new, v_new, _ = net(x)
    diff = max(float((g_old - g_new).abs().max()),
               float((v_old - v_new).abs().max()))
    if diff > 1e-5:
        sys.exit("widen.py: the wider network differs by %.3g" % diff)

    torch.save({"sizes": net.sizes, "state_dict": net.state_dict(),
                "frame_config": cfg, "epoch": 0, "log": [],
                "args": vars(args), "widened_from": args.source,
                "lookahead": net.sizes.get("lookahead", 0)}, args.out)
    print("widen: %s -> %s, %d -> %d parameters; on %d frames the outputs "
          "differ by at most %.2g"
          % (",".join(str(old.sizes[k]) for k in ("dense", "gru1", "gru2")),
             args.sizes, old.n_params(), net.n_params(), length, diff))


if __name__ == "__main__":
    main()
