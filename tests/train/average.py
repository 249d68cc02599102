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
lookahead), another normalisation, a weight outside 0..1.

Float32 model files, bin-gain heads included: --weight 0.25 gives 0.75
start + 0.25 moved for every layer's arrays and keeps the header (the
head's index, the moved file's speech protection or --speech-protection);
--weight 1 writes the moved file byte for byte, and 0 with the start's
speech protection the start's; averaging the exported files gives the
export of the averaged checkpoint (the normalisation folded in is linear).
Heads of 20 and 40 bins: the narrower is read as having zero corrections
for the bins it lacks (rows 20-39 of the average are 0.25 of the moved
head's, the first 20 as any layer's), and --weight 0 gives the start's
head with zero rows added. Refused, naming why: a file with a
checkpoint, files of other sizes or lookahead. Skipped (77) without
PyTorch (python3-torch).
"""

import os
import subprocess
import sys
import tempfile

from checks import Checks, need, random_network_files, run_train_tool

np, torch, export, net_module, train, modelfile = need(
    "numpy", "torch", "export", "net", "train", "modelfile")

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


def with_head(path, out, speech_protection, seed, n_bins=20):
    """The float32 model file PATH with a random bin-gain head of N_BINS
    bins on its last GRU, naming SPEECH_PROTECTION, written to OUT."""
    m = modelfile.read_model(path)
    last_gru = max(i for i, layer in enumerate(m.layers)
                   if layer["kind"] == modelfile.GRU)
    width = m.layers[last_gru]["weights"][1].shape[1]
    rng = np.random.default_rng(seed)
    layers = list(m.layers) + [{
        "kind": modelfile.DENSE, "input": last_gru + 1,
        "activation": modelfile.LINEAR,
        "weights": [rng.normal(0, 0.1, (n_bins, width)).astype(np.float32)],
        "biases": [rng.normal(0, 0.1, n_bins).astype(np.float32)]}]
    with open(out, "wb") as f:
        f.write(modelfile.model_bytes(
            m.frame, layers, m.gain_layer, m.vad_layer,
            [modelfile.F32] * len(layers), m.lookahead, speech_protection,
            bin_layer=len(layers) - 1))


def largest_difference(a, b, weight):
    """How far model file b's arrays are from (1 - weight) x + weight y
    over the arrays x, y of the model files in a (a pair)."""
    start, moved = (modelfile.read_model(p) for p in a)
    mixed = modelfile.read_model(b)
    return max(float(np.abs(z - ((1 - weight) * x + weight * y)).max())
               for ls in zip(start.layers, moved.layers, mixed.layers)
               for x, y, z in zip(*(l["weights"] + l["biases"] for l in ls)))


def check_files(at):
    """Float32 model files with bin-gain heads, and the files against the
    checkpoints they were exported from."""
    for name in ("start", "moved", "quarter"):
        export.export(at(name + ".pt"), at(name + "-f32.rnnm"), "f32")
    with_head(at("start-f32.rnnm"), at("start-h.rnnm"), 0.5, 1)
    with_head(at("moved-f32.rnnm"), at("moved-h.rnnm"), 0.75, 2)
    pair = (at("start-h.rnnm"), at("moved-h.rnnm"))
    proc = run_average(*pair, at("quarter-h.rnnm"), "--weight", "0.25")
    ok = proc.returncode == 0
    check(ok, "two model files with heads averaged: %s"
          % (proc.stderr.strip()[-70:] or proc.stdout.strip()[-70:]))
    if ok:
        worst = largest_difference(pair, at("quarter-h.rnnm"), 0.25)
        out = modelfile.read_model(at("quarter-h.rnnm"))
        check(worst < 1e-6, "every layer's arrays, the head's too, are "
              "0.75 start + 0.25 moved (off by at most %.2g)" % worst)
        check(out.bin_layer == len(out.layers) - 1
              and out.speech_protection == 0.75,
              "the head's index and the moved file's speech protection "
              "are kept (%d, %g)" % (out.bin_layer, out.speech_protection))
    run_average(*pair, at("w1.rnnm"), "--weight", "1")
    run_average(*pair, at("w0.rnnm"), "--weight", "0",
                "--speech-protection", "0.5")
    check(os.path.exists(at("w1.rnnm")) and os.path.exists(at("w0.rnnm"))
          and file_bytes(at("w1.rnnm")) == file_bytes(at("moved-h.rnnm"))
          and file_bytes(at("w0.rnnm")) == file_bytes(at("start-h.rnnm")),
          "--weight 1 writes the moved file and 0 (with its speech "
          "protection) the start's, byte for byte")
    run_average(at("start-f32.rnnm"), at("moved-f32.rnnm"),
                at("files-quarter.rnnm"), "--weight", "0.25")
    worst = largest_difference((at("quarter-f32.rnnm"),) * 2,
                               at("files-quarter.rnnm"), 0.0)
    check(worst < 1e-5, "averaging the exported files gives the export of "
          "the averaged checkpoint (off by at most %.2g)" % worst)


def check_wider_head(at):
    """A start whose head corrects 20 bins and a step whose head corrects
    40: the start's head is read with zero corrections for bins 20-39."""
    with_head(at("moved-f32.rnnm"), at("moved-h40.rnnm"), 0.75, 3, 40)
    for weight in ("0.25", "0"):
        out = at("wider-head-%s.rnnm" % weight)
        proc = run_average(at("start-h.rnnm"), at("moved-h40.rnnm"), out,
                           "--weight", weight)
        check(proc.returncode == 0, "heads of 20 and 40 bins averaged at "
              "%s: %s" % (weight, proc.stderr.strip()[-70:]))
        if proc.returncode != 0:
            continue
        w = float(weight)
        start, moved, mixed = (modelfile.read_model(p) for p in (
            at("start-h.rnnm"), at("moved-h40.rnnm"), out))
        heads = [m.layers[m.bin_layer] for m in (start, moved, mixed)]
        padded = [np.vstack([heads[0]["weights"][0], np.zeros((20,
                  heads[0]["weights"][0].shape[1]), np.float32)]),
                  np.concatenate([heads[0]["biases"][0],
                                  np.zeros(20, np.float32)])]
        want = [(1 - w) * p + w * q for p, q in zip(
            padded, (heads[1]["weights"][0], heads[1]["biases"][0]))]
        got = (heads[2]["weights"][0], heads[2]["biases"][0])
        worst = max(float(np.abs(g - x).max()) for g, x in zip(got, want))
        check(got[1].shape == (40,) and worst < 1e-6,
              "--weight %s: a head of 40 bins, the start's read with zero "
              "corrections for bins 20-39 (off by at most %.2g)"
              % (weight, worst))


def check_file_refusals(at):
    """Model files that cannot be averaged."""
    export.export(at("wider.pt"), at("wider-f32.rnnm"), "f32")
    export.export(at("ahead.pt"), at("ahead-f32.rnnm"), "f32")
    for a, b, why in (
            ("start-f32.rnnm", "moved.pt", "not one of each"),
            ("start-f32.rnnm", "wider-f32.rnnm", "sizes or kind differ"),
            ("start-f32.rnnm", "ahead-f32.rnnm", "lookaheads differ"),
            ("start-f32.rnnm", "start-h.rnnm", "layers differ")):
        proc = run_average(at(a), at(b), at("bad.rnnm"))
        check(proc.returncode != 0 and why in proc.stderr,
              "%s with %s refused, naming why (exit %d): %s"
              % (a, b, proc.returncode, proc.stderr.strip()[-80:]))


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
        check_files(at)
        check_wider_head(at)
        check_file_refusals(at)
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
