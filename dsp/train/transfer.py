#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Start a network for another frame layout from a trained one.

    transfer.py FROM.pt FROM.rndf TO.rndf OUT.pt

FROM.rndf and TO.rndf are the features of the same mixtures in both
layouts (rnndenoise-features on one list, e.g. --rate 48000 and --rate
16000). OUT.pt is a checkpoint for TO's layout that train.py --init
continues from:

- the GRUs and the VAD head are FROM's;
- the input layer sees TO's features through the least-squares map from
  TO's normalised features to FROM's, fitted on the paired frames, so its
  pre-activations are as close as a linear map can make them to FROM's on
  the same audio (the feature normalisation is TO's own);
- each gain of TO's bands comes from FROM's gain rows interpolated at the
  band's centre frequency.

The 16 kHz model starts so from the 48 kHz one: training it from scratch
would take the hours the 48 kHz chain took.
"""

import argparse
import sys

import numpy as np
import torch

import featfile
from net import DenoiseNet, load_checkpoint

RIDGE = 1e-3  # relative to the mean diagonal of the normal equations


def paired_rows(src, dst):
    """Row indices of the frames both files have, sequence by sequence."""
    if len(src.lengths) != len(dst.lengths):
        sys.exit("transfer.py: %d sequences against %d: not the same mixtures"
                 % (len(src.lengths), len(dst.lengths)))
    rows_src, rows_dst = [], []
    for (s0, n0), (s1, n1) in zip(src.sequences(), dst.sequences()):
        if abs(n0 - n1) > 1:
            sys.exit("transfer.py: sequences of %d and %d frames: not the "
                     "same mixtures" % (n0, n1))
        n = min(n0, n1)
        rows_src.append(np.arange(s0, s0 + n))
        rows_dst.append(np.arange(s1, s1 + n))
    return np.concatenate(rows_src), np.concatenate(rows_dst)


def feature_map(z_dst, z_src):
    """B (n_dst x n_src) and c (n_src) minimising |z_src - z_dst B - c|^2
    with a small ridge."""
    x = np.hstack([z_dst, np.ones((len(z_dst), 1))]).astype(np.float64)
    gram = x.T @ x
    gram += RIDGE * np.trace(gram) / len(gram) * np.eye(len(gram))
    coef = np.linalg.solve(gram, x.T @ z_src.astype(np.float64))
    return coef[:-1], coef[-1]


def band_centres_hz(cfg):
    edges = np.array(cfg["band_edges"], dtype=np.float64)
    return 0.5 * (edges[:-1] + edges[1:]) * cfg["sample_rate"] / cfg["window"]


def interpolate_rows(weight, bias, src_cfg, dst_cfg):
    """FROM's per-band head rows at TO's band centres (linear in Hz)."""
    f_src, f_dst = band_centres_hz(src_cfg), band_centres_hz(dst_cfg)
    w = np.stack([np.interp(f_dst, f_src, weight[:, j])
                  for j in range(weight.shape[1])], axis=1)
    return w, np.interp(f_dst, f_src, bias)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src_ckpt")
    ap.add_argument("src_features")
    ap.add_argument("dst_features")
    ap.add_argument("out")
    args = ap.parse_args()

    src_net, src_ckpt = load_checkpoint(args.src_ckpt)
    src = featfile.FeatureFile(args.src_features)
    dst = featfile.FeatureFile(args.dst_features)
    src_cfg, dst_cfg = src.frame_config(), dst.frame_config()
    if src_ckpt["frame_config"] != src_cfg:
        sys.exit("transfer.py: %s is not in %s's layout"
                 % (args.src_features, args.src_ckpt))

    sizes = dict(src_net.sizes, n_features=dst_cfg["n_features"],
                 n_bands=dst_cfg["n_bands"])
    net = DenoiseNet(**sizes)
    net.set_normalisation(dst.features.mean(0), dst.features.std(0))

    i_src, i_dst = paired_rows(src, dst)
    z_src = ((src.features[i_src] - src_net.feat_mean.numpy())
             / src_net.feat_std.numpy())
    z_dst = ((dst.features[i_dst] - net.feat_mean.numpy())
             / net.feat_std.numpy())
    b_map, c_map = feature_map(z_dst, z_src)
    fit = z_dst @ b_map + c_map
    explained = 1.0 - ((z_src - fit) ** 2).sum() / (
        (z_src - z_src.mean(0)) ** 2).sum()

    w_in = src_net.inp.weight.detach().double().numpy()
    b_in = src_net.inp.bias.detach().double().numpy()
    w_gain, b_gain = interpolate_rows(
        src_net.gain.weight.detach().double().numpy(),
        src_net.gain.bias.detach().double().numpy(), src_cfg, dst_cfg)
    with torch.no_grad():
        net.inp.weight.copy_(torch.from_numpy(w_in @ b_map.T))
        net.inp.bias.copy_(torch.from_numpy(b_in + w_in @ c_map))
        net.gru1.load_state_dict(src_net.gru1.state_dict())
        net.gru2.load_state_dict(src_net.gru2.state_dict())
        net.vad.load_state_dict(src_net.vad.state_dict())
        net.gain.weight.copy_(torch.from_numpy(w_gain))
        net.gain.bias.copy_(torch.from_numpy(b_gain))

    torch.save({"sizes": net.sizes, "state_dict": net.state_dict(),
                "frame_config": dst_cfg, "epoch": 0, "log": [],
                "args": vars(args), "transfer": {
                    "from": args.src_ckpt, "paired_frames": len(i_src),
                    "explained_variance": float(explained)}}, args.out)
    print("transfer: %d x %d bands -> %d features x %d bands; %d paired "
          "frames, the feature map explains %.1f %% of the variance"
          % (src_cfg["n_features"], src_cfg["n_bands"], dst_cfg["n_features"],
             dst_cfg["n_bands"], len(i_src), 100 * explained))


if __name__ == "__main__":
    main()
