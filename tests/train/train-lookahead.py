#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dsp/train/train.py --lookahead: the network reads the next frames too.

    train-lookahead.py RNNDENOISE_FEATURES RNNDENOISE_FORWARD

Makes a features file from a voiced tone complex in noise and a random
network as a train.py checkpoint. With one frame of lookahead, each input
row is the frame's features followed by the next frame's (a chunk's last
frame repeated), the targets stay the frame's own; the network widened
for it gives exactly the original's gains and losses; one epoch of
train.py --lookahead 1 from the checkpoint writes a network that reads
twice the features and says so; export.py writes it as a model file with
lookahead 1, whose C forward pass (rnndenoise-forward run) gives PyTorch's
gains and VAD over the whole sequence with the same rows (gather() with
lookahead 1), as check_export.py also finds. From it, a second frame
ahead (train.py --lookahead 2) starts with the same losses and trains,
exports and runs in C alike; train.py refuses to go back to fewer frames
ahead. Skipped (77) without PyTorch
(python3-torch).
"""

import os
import struct
import subprocess
import sys
import tempfile

from checks import TRAIN, Checks, make_features, need, random_checkpoint

np, torch, featfile, modelfile, net_module, train = need(
    "numpy", "torch", "featfile", "modelfile", "net", "train")

check = Checks()


def check_rows(feats):
    """gather() with one frame of lookahead, on two chunks of 20 frames:
    one inside the sequence, one at its end."""
    end = int(feats.lengths[0])
    starts = np.array([0, end - 20])
    x0, g0, v0 = train.gather(feats, starts, 20)
    x1, g1, v1 = train.gather(feats, starts, 20, lookahead=1)
    n = feats.features.shape[1]
    check(tuple(x1.shape) == (2, 20, 2 * n),
          "lookahead rows hold two frames' features (%s)" % (tuple(x1.shape),))
    check(torch.equal(x1[:, :, :n], x0), "the first half is the frame's own")
    check(torch.equal(x1[:, :-1, n:], x0[:, 1:]),
          "the second half is the next frame's")
    check(np.array_equal(x1[0, -1, n:].numpy(), feats.features[20]),
          "a chunk's last frame reads the next frame of its sequence")
    check(torch.equal(x1[1, -1, n:], x0[1, -1]),
          "the sequence's last frame is its own lookahead")
    check(torch.equal(g1, g0) and torch.equal(v1, v0),
          "the targets are the frame's own")


@torch.no_grad()
def torch_outputs(net, feats, lookahead, own_twice=False):
    """Gains and VAD of every frame, each sequence from the zero state, on
    the rows training makes (or, own_twice, on rows that repeat the frame's
    own features where the next frames' belong)."""
    gains, vad = [], []
    for start, length in feats.sequences():
        x, _, _ = train.gather(feats, np.array([start]), length, lookahead)
        if own_twice:
            x, _, _ = train.gather(feats, np.array([start]), length)
            x = torch.cat([x] * (1 + lookahead), dim=-1)
        g, v, _ = net(x)
        gains.append(g[0].double().numpy())
        vad.append(v[0].double().numpy())
    return np.concatenate(gains), np.concatenate(vad)


def c_outputs(forward_tool, model, features, n_bands):
    """Gains and VAD of every frame from rnndenoise-forward run."""
    out = model + ".out"
    subprocess.run([forward_tool, "run", model, features, out], check=True)
    rows = np.fromfile(out, dtype="<f4").reshape(-1, n_bands + 1)
    return rows[:, :n_bands].astype(np.float64), rows[:, n_bands].astype(
        np.float64)


def check_export(folder, trained, feats, forward_tool, name, lookahead):
    """export.py writes the lookahead checkpoint NAME.pt; the C forward pass
    of the file matches PyTorch's."""
    def at(name):
        return os.path.join(folder, name)

    proc = subprocess.run(
        [sys.executable, os.path.join(TRAIN, "export.py"), at(name + ".pt"),
         at(name + ".rnnm")], capture_output=True, text=True)
    check(proc.returncode == 0 and os.path.exists(at(name + ".rnnm")),
          "export.py writes it (exit %d)%s" % (
              proc.returncode, ": " + proc.stderr.strip()[-70:]
              if proc.returncode else ""))
    if proc.returncode != 0:
        return
    n = feats.header["n_features"]
    with open(at(name + ".rnnm"), "rb") as f:
        head = f.read(48)
    in_header = struct.unpack_from("<I", head, 44)[0]
    check(in_header == lookahead, "its header says lookahead %d"
          % in_header)
    _, layers, _, _, read_ahead = modelfile.read_model(at(name + ".rnnm"))[:5]
    check(read_ahead == lookahead
          and layers[0]["weights"][0].shape[1] == (1 + lookahead) * n,
          "its layer 0 reads %d x %d features (%d)"
          % (1 + lookahead, n, layers[0]["weights"][0].shape[1]))

    n_bands = feats.header["n_bands"]
    want = torch_outputs(trained, feats, lookahead)
    got = c_outputs(forward_tool, at(name + ".rnnm"), at("l3.rndf"), n_bands)
    dg = np.abs(got[0] - want[0]).max()
    dv = np.abs(got[1] - want[1]).max()
    check(got[0].shape == want[0].shape and max(dg, dv) <= 1e-5,
          "rnndenoise-forward run gives PyTorch's outputs with lookahead %d "
          "over %d frames: max |diff| gains %.2e, vad %.2e (1e-5)"
          % (lookahead, len(want[1]), dg, dv))
    # The agreement means something only if rows off by a frame would not
    # agree.
    wrong = torch_outputs(trained, feats, lookahead, own_twice=True)
    dw = np.abs(wrong[0] - want[0]).max()
    check(dw > 1e-3, "the next frames' features matter: the frame's own in "
          "their place move the gains by %.2e" % dw)
    proc = subprocess.run(
        [sys.executable, os.path.join(TRAIN, "check_export.py"), at(name + ".pt"),
         at("l3.rndf"), forward_tool, at(name + ".rnnm"), "--tolerance", "1e-5"],
        capture_output=True, text=True)
    check(proc.returncode == 0
          and "lookahead %d" % lookahead in proc.stdout,
          "check_export.py agrees (exit %d): %s"
          % (proc.returncode, (proc.stdout + proc.stderr).strip()[-70:]))


def run_train(folder, features, init, out, lookahead):
    return subprocess.run(
        [sys.executable, os.path.join(TRAIN, "train.py"), features, features,
         os.path.join(folder, out), "--epochs", "1", "--chunk-frames", "50",
         "--batch", "2", "--threads", "1", "--init", init,
         "--lookahead", str(lookahead), "--lookahead-lr", "3e-3"],
        capture_output=True, text=True)


def check_second_frame(folder, trained, feats, forward_tool):
    """From the one-frame network trained, a second frame ahead: the same
    losses before training, one epoch of --lookahead 2 that moves the new
    weights, its export; going back to one frame is refused."""
    def at(name):
        return os.path.join(folder, name)

    own = feats.header["n_features"]
    two = train.with_lookahead_inputs(trained, 2)
    one_loss = train.evaluate(trained, feats, lookahead=1)
    two_loss = train.evaluate(two, feats, lookahead=2)
    check(np.array_equal(one_loss, two_loss)
          and torch.equal(two.inp_ahead.weight[:, :own],
                          trained.inp_ahead.weight),
          "a second frame ahead added: the same losses (%s, %s), the first "
          "frame ahead's weights kept" % (one_loss, two_loss))
    proc = run_train(folder, at("l3.rndf"), at("la.pt"), "la2.pt", 2)
    check(proc.returncode == 0, "one epoch with --lookahead 2 from it%s"
          % (": " + proc.stderr.strip()[-70:] if proc.returncode else ""))
    if proc.returncode != 0:
        return
    trained2, ckpt = net_module.load_checkpoint(at("la2.pt"))
    moved = trained2.inp_ahead.weight[:, own:].abs().max().item()
    check(ckpt.get("lookahead") == 2 and moved > 1e-3,
          "the checkpoint reads 3 x %d features, lookahead %s; the second "
          "frame's weights moved from zero (%.3g)"
          % (own, ckpt.get("lookahead"), moved))
    check_export(folder, trained2, feats, forward_tool, "la2", 2)
    proc = run_train(folder, at("l3.rndf"), at("la2.pt"), "back.pt", 1)
    check(proc.returncode != 0 and "ahead" in proc.stderr,
          "going on from it with --lookahead 1 is refused (exit %d): %s"
          % (proc.returncode, proc.stderr.strip()[-70:]))


def main():
    features_tool, forward_tool = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as folder:
        def at(name):
            return os.path.join(folder, name)

        make_features(folder, features_tool, 2.0)
        feats = featfile.FeatureFile(at("l3.rndf"))
        cfg = feats.frame_config()
        check_rows(feats)

        net = random_checkpoint(at("start.pt"), feats)
        wide = train.with_lookahead_inputs(net, 1)
        plain = train.evaluate(net, feats)
        ahead = train.evaluate(wide, feats, lookahead=1)
        check(np.array_equal(plain, ahead),
              "the widened network gives the same losses (%s, %s)"
              % (plain, ahead))
        check(wide.sizes["n_features"] == 2 * cfg["n_features"],
              "it reads %d features" % wide.sizes["n_features"])
        opt = train.optimiser(wide, 1e-4, 3e-3)
        ahead = [g["lr"] for g in opt.param_groups
                 if any(p is wide.inp_ahead.weight for p in g["params"])]
        check(ahead == [3e-3] and sorted(g["lr"] for g in opt.param_groups)
              == [1e-4, 3e-3] and sum(len(g["params"]) for g in
                                      opt.param_groups)
              == len(list(wide.parameters())),
              "--lookahead-lr: the weights ahead learn at their own rate, "
              "the rest at --lr (%s)" % [g["lr"] for g in opt.param_groups])

        proc = run_train(folder, at("l3.rndf"), at("start.pt"), "la.pt", 1)
        check(proc.returncode == 0, "one epoch with --lookahead 1%s"
              % (": " + proc.stderr.strip()[-70:] if proc.returncode else ""))
        if proc.returncode == 0:
            trained, ckpt = net_module.load_checkpoint(at("la.pt"))
            check(ckpt.get("lookahead") == 1
                  and trained.sizes["n_features"] == 2 * cfg["n_features"],
                  "the checkpoint reads 2 x %d features, lookahead %s"
                  % (cfg["n_features"], ckpt.get("lookahead")))
            moved = trained.inp_ahead.weight.abs().max().item()
            check(moved > 1e-3, "the weights ahead moved from zero (%.3g)"
                  % moved)
            check_export(folder, trained, feats, forward_tool, "la", 1)
            check_second_frame(folder, trained, feats, forward_tool)
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
