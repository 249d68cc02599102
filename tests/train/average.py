#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dsp/train/average.py: the weights of a network and of a round trained
from it, averaged.

    average.py RNNDENOISE_FEATURES RNNDENOISE_FORWARD

From a random network's checkpoint and a copy whose weights moved (the
normalisation kept, as train.py --init keeps it): --weight 0.25 gives
0.75 start + 0.25 moved for every parameter and the normalisation as it
was; --weight 0 and 1 give files that export.py writes byte for byte as
the start's and the moved network's; the average runs through the C
forward pass (rnndenoise-forward run) to finite gains between the two
networks'. Refused, naming why: other sizes (a wider GRU, or a
lookahead), another normalisation, a weight outside 0..1. Skipped (77)
without PyTorch (python3-torch).
"""

import os
import subprocess
import sys
import tempfile

from checks import Checks, need, random_network_files, run_train_tool

np, torch, export, net_module, train = need(
    "numpy", "torch", "export", "net", "train")

check = Checks()


def run_average(*args):
    return run_train_tool("average.py", *args)


def save_like(path, ckpt, state_dict, **changes):
    torch.save(dict(ckpt, state_dict=state_dict, **changes), path)


def forward(tool, model, features, out):
    subprocess.run([tool, "run", model, features, out], check=True)
    return np.fromfile(out, dtype="<f4")


def file_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def check_weights(at, start, moved):
    """--weight 0.25, 0 and 1 against the parameters and export.py."""
    proc = run_average(at("start.pt"), at("moved.pt"), at("quarter.pt"),
                       "--weight", "0.25")
    check(proc.returncode == 0, "--weight 0.25: %s"
          % (proc.stderr.strip()[-70:] or proc.stdout.strip()[-70:]))
    quarter = torch.load(at("quarter.pt"), map_location="cpu")["state_dict"]
    worst = max(float((quarter[k] - (0.75 * start[k] + 0.25 * moved[k]))
                      .abs().max()) for k in start
                if not k.startswith("feat_"))
    check(worst < 1e-6, "every parameter is 0.75 start + 0.25 moved "
          "(off by at most %.2g)" % worst)
    check(all(torch.equal(quarter[k], start[k])
              for k in ("feat_mean", "feat_std")),
          "the normalisation is kept as it was")
    for weight, same_as in (("0", "start"), ("1", "moved")):
        name = "w" + weight
        proc = run_average(at("start.pt"), at("moved.pt"), at(name + ".pt"),
                           "--weight", weight)
        export.export(at(name + ".pt"), at(name + ".rnnm"), "int8x8")
        export.export(at(same_as + ".pt"), at(same_as + ".rnnm"), "int8x8")
        check(proc.returncode == 0 and file_bytes(at(name + ".rnnm"))
              == file_bytes(at(same_as + ".rnnm")),
              "--weight %s exports the %s network's file byte for byte"
              % (weight, same_as))


def check_forward(at, tool, features):
    """The averaged network in C, between the two it came from."""
    export.export(at("quarter.pt"), at("quarter.rnnm"), "f32")
    outs = {}
    for name in ("start", "moved", "quarter"):
        if name != "quarter":
            export.export(at(name + ".pt"), at(name + ".rnnm"), "f32")
        outs[name] = forward(tool, at(name + ".rnnm"), features,
                             at(name + ".out"))
    ends = np.stack([outs["start"], outs["moved"]])
    inside = np.mean((outs["quarter"] >= ends.min(0) - 0.05)
                     & (outs["quarter"] <= ends.max(0) + 0.05))
    check(np.all(np.isfinite(outs["quarter"])) and inside > 0.9,
          "rnndenoise-forward runs the average: finite, %.0f %% of its "
          "outputs between the two networks' (within 0.05)" % (100 * inside))


def check_refusals(at, ckpt, moved):
    """Networks that are not a network and a round trained from it."""
    save_like(at("other-norm.pt"), ckpt,
              dict(moved, feat_mean=moved["feat_mean"] + 0.5))
    start_net = net_module.load_checkpoint(at("start.pt"))[0]
    ahead = train.with_lookahead_inputs(start_net, 1)
    save_like(at("ahead.pt"), ckpt, ahead.state_dict(), sizes=ahead.sizes,
              lookahead=1)
    sizes = dict(start_net.sizes, gru2=start_net.sizes["gru2"] + 8)
    wider = net_module.DenoiseNet(**sizes)
    wider.set_normalisation(start_net.feat_mean, start_net.feat_std)
    save_like(at("wider.pt"), ckpt, wider.state_dict(), sizes=sizes)
    for other, args, why in (
            ("other-norm.pt", [], "normalisations"),
            ("ahead.pt", [], "sizes"),
            ("wider.pt", [], "sizes"),
            ("moved.pt", ["--weight", "1.5"], "outside 0..1")):
        proc = run_average(at("start.pt"), at(other), at("bad.pt"), *args)
        check(proc.returncode != 0 and why in proc.stderr,
              "%s %s refused, naming the %s (exit %d): %s"
              % (other, " ".join(args), why, proc.returncode,
                 proc.stderr.strip()[-80:]))


def main():
    features_tool, forward_tool = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as tmp:
        def at(name):
            return os.path.join(tmp, name)

        path = random_network_files(tmp, features_tool, "start.pt")
        ckpt = torch.load(at("start.pt"), map_location="cpu")
        start = ckpt["state_dict"]
        gen = torch.Generator().manual_seed(5)
        moved = {k: v if k.startswith("feat_")
                 else v + 0.1 * torch.randn(v.shape, generator=gen)
                 for k, v in start.items()}
        save_like(at("moved.pt"), ckpt, moved)

        check_weights(at, start, moved)
        check_forward(at, forward_tool, path)
        check_refusals(at, ckpt, moved)
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
