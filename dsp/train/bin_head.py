#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What per-bin gains at low frequencies would win over a model's band
gains, measured on features files before anything is built in C.

    bin_head.py MODEL.rnnm TRAIN.rndf VAL.rndf [--epochs E] [--seed S]
                [--hidden H] [--frames-ahead A] [--loss sdr|gain|chunks]
                [--speech-weight W] [--heads hidden,hidden+bins]
                [--joint-epochs J [--joint-lr LR] [--joint-head-lr LR]
                 [--band-weight B] [--band-speech-weight S]
                 [--energy-weight A]]
                [--save OUT.rnnm]
    bin_head.py --self-check FEATURES_TOOL MODEL.rnnm

MODEL.rnnm is a float32 model file (the shipped network's twin); each
features file X.rndf comes with X.bins, written beside it by
`rnndenoise-features --bins N X.bins` for the same frames: the first N
bins' noisy and clean powers and their cross term, from which the error
energy of any real gain g on a bin, |g X - S|^2, follows without the
audio.

The network runs over every sequence as the element runs it (from the
zero state, frames ahead as its file says); its band gains, interpolated
to the bins as the element interpolates them, are the baseline. Small
heads then learn, on TRAIN, a per-bin correction of those gains in the
logit domain, g = sigmoid (logit (g_band) + d), with the network frozen:

  hidden       d from the network's last GRU state (a dense layer: what
               the network already knows, said per bin);
  hidden+bins  d from that state, each bin's own log power in this frame
               and the next A (what no band input holds: where a harmonic
               or a hum line sits inside a band), through one tanh layer
               of H units.

They learn to minimise the error energy of the N bins over the clean
energy (the region's SDR), each sequence weighed by its clean energy's
inverse (every mixture counts alike, as on the quality page); with --loss
gain, train.py's gain loss on the per-bin ideal gains instead (the band
loss, per bin: it weighs speech removed more than noise left); with
--loss chunks, the mean over 5 s chunks of each chunk's error energy over
its clean energy in dB (each chunk's own SDR, as the quality page
averages mixtures' SDRs, rather than one SDR over all), plus W times the
speech lost in dB (--speech-weight; as the scores below count it, losses
only). On VAL it
prints, for the baseline, both heads, the baseline squared (more
suppression, no resolution: the trade-off line to read the heads against)
and the ideal gains (per band, interpolated, and per bin, sqrt (|S|^2 /
|X|^2) held at 1): the region's SDR over all frames, the mean of each
sequence's SDR (as the quality page averages mixtures), and the speech
energy lost in its speech-dominated bins (clean power above the noise's:
10 log10 of clean over output power, weighed by the clean power, as the
quality page counts it), for docs/model.md. --save writes MODEL with the
`hidden` head as its bin-gain head (a version 3 model file,
docs/model-format.md), for the element to run.

--joint-epochs J then trains the hidden head on with the network, no
longer frozen, for J epochs: on windows of two chunks from the zero state,
the chunks loss of the head's bins plus B times train.py's loss of the
band gains (at its --speech-weight S and --energy-weight A), which holds
the bands above the head's bins where the network had them, so that the
GRU state learns to say what the head needs. The table gets the network's
band gains and the head after that training, and --save writes the
network so trained (MODEL's frame layout, lookahead and protection).

--self-check makes two short features files with FEATURES_TOOL from
synthetic speech and noise and checks that a zero head gives the band
gains exactly, that the per-bin ideal beats the interpolated band ideal,
that training lowers the head's loss (each loss), that the error energy
from the bins file equals the one from the spectra, that --save
writes the head trained (in place of the head MODEL has, if any), that
the network read from a file with a head is the one without it, and that
training with the network lowers the head's loss, changes the network and
is what --save then writes.
"""

import argparse
import functools
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch
from torch import nn

import featfile
from modelfile import (DENSE, F32, GRU, LINEAR, layers_without_bin_head,
                       model_bytes, read_model)
from train import (chunk_starts, gather, inverse_dct, loss_terms,
                   speech_term_weights, total_loss)
from widen import net_from_model_file

HERE = os.path.dirname(os.path.abspath(__file__))
CHUNK_FRAMES = 500  # 5 s: the "chunks" loss's unit, a short mixture
# Frames each window of train_joint() runs from the zero state: two chunks.
JOINT_WINDOW = 2 * CHUNK_FRAMES
HEADS = ("hidden", "hidden+bins")
# Gains are held in [LOGIT_FLOOR, 1 - LOGIT_FLOOR] before their logit, as
# the processor holds them (BIN_LOGIT_FLOOR).
LOGIT_FLOOR = 1e-4
POWER_FLOOR = 1e-12  # added to bin powers before their log
SDR_FLOOR = 1e-20
LOST_CAP_DB = 40.0  # as tests/quality/metrics.py


def read_bins(features_path, data):
    """The bins file beside a features file, as (noisy power, clean power,
    cross term), each n_frames x N, float32 as the file holds them (the
    head learns from float32 tensors of them; at 160 bins a float64 copy
    of a 240-minute set alone would take 8 GB)."""
    path = os.path.splitext(features_path)[0] + ".bins"
    values = np.fromfile(path, dtype="<f4")
    n_frames = int(data.lengths.sum())
    if n_frames == 0 or values.size % (3 * n_frames):
        sys.exit("bin_head.py: %s does not hold 3 N values for each of %s's"
                 " %d frames" % (path, features_path, n_frames))
    values = values.reshape(n_frames, 3, -1)
    return values[:, 0], values[:, 1], values[:, 2]


def interpolation(band_edges, n_bins):
    """The matrix M (n_bins x n_bands) with bin gains = M @ band gains, as
    dsp_features_interpolate_gains() weighs the two bands around a bin."""
    centre = [(band_edges[b] + band_edges[b + 1]) / 2
              for b in range(len(band_edges) - 1)]
    n_bands = len(centre)
    m = np.zeros((n_bins, n_bands))
    b = 0
    for k in range(n_bins):
        while b + 1 < n_bands and k >= centre[b + 1]:
            b += 1
        if k <= centre[b] or b + 1 == n_bands:
            m[k, b] = 1.0
        else:
            f = (k - centre[b]) / (centre[b + 1] - centre[b])
            m[k, b], m[k, b + 1] = 1.0 - f, f
    return m


@torch.no_grad()
def run_network(net, data, lookahead):
    """The band gains and last GRU state of every frame, in file order,
    each sequence from the zero state."""
    gains = np.zeros(data.gains.shape, dtype=np.float32)
    hidden = np.zeros((len(data.vad), net.gru2.hidden_size),
                      dtype=np.float32)
    for start, length in data.sequences():
        x, _, _ = gather(data, np.array([start]), length, lookahead)
        g, _, y, _ = net.run(x)
        gains[start:start + length] = g[0].numpy()
        hidden[start:start + length] = y[0].numpy()
    return gains, hidden


def log_powers(noisy, data, frames_ahead):
    """Each frame's bins' log10 power, then those of the next frames of its
    sequence (its last frame again past the end)."""
    logs = np.log10(noisy + POWER_FLOOR)
    cols = [logs]
    for a in range(1, frames_ahead + 1):
        shifted = np.empty_like(logs)
        for start, length in data.sequences():
            idx = np.minimum(np.arange(length) + a, length - 1) + start
            shifted[start:start + length] = logs[idx]
        cols.append(shifted)
    return np.concatenate(cols, axis=1)


class BinHead(nn.Module):
    """d = a correction of the band gains' logits, from the GRU state (and
    with bin inputs, the bins' log powers through a tanh layer); zero
    weights in the last layer, so it starts at the band gains."""

    def __init__(self, n_hidden, n_bins, bin_inputs=0, units=64):
        super().__init__()
        self.bin_inputs = bin_inputs
        if bin_inputs:
            self.mid = nn.Linear(n_hidden + bin_inputs, units)
            self.out = nn.Linear(units, n_bins)
        else:
            self.mid = None
            self.out = nn.Linear(n_hidden, n_bins)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, base_logit, hidden, bin_logs=None):
        x = hidden
        if self.mid is not None:
            x = torch.tanh(self.mid(torch.cat([hidden, bin_logs], dim=1)))
        return torch.sigmoid(base_logit + self.out(x))

    def n_params(self):
        return sum(p.numel() for p in self.parameters())


def error_energy(g, noisy, clean, cross):
    """|g X - S|^2 per frame and bin, from the bins file's terms."""
    return g * g * noisy - 2 * g * cross + clean


def logit(g):
    g = np.clip(g, LOGIT_FLOOR, 1 - LOGIT_FLOOR)
    return np.log(g / (1 - g))


def spread(logs):
    """The mean and the standard deviation (at least 1e-3) of each column
    of logs, by which a head's log power inputs are normalised."""
    return logs.mean(0), np.maximum(logs.std(0), 1e-3)


def ideal_bin_gains(noisy, clean):
    """Each bin's ideal gain, sqrt (clean / noisy) at most 1, in float64."""
    noisy, clean = noisy.astype(np.float64), clean.astype(np.float64)
    return np.clip(np.sqrt(clean / np.maximum(noisy, SDR_FLOOR)), 0.0, 1.0)


class Region:
    """One features file's low bins with the network's view of them. What
    only some uses need (the ideal gains, the bins' log powers) is made
    when first asked for: the training region of a 160-bin head is
    2 million frames of them."""

    def __init__(self, net, lookahead, path, frames_ahead, like=None):
        self.data = featfile.FeatureFile(path)
        self.noisy, self.clean, self.cross = read_bins(path, self.data)
        self.frames_ahead, self.like = frames_ahead, like
        n_bins = self.noisy.shape[1]
        self.interpolate = interpolation(self.data.band_edges, n_bins)
        gains, self.hidden = run_network(net, self.data, lookahead)
        self.band_gains = gains @ self.interpolate.T
        # Each frame weighs 1 / its sequence's clean energy, so that every
        # sequence counts alike, as the quality page's mean over mixtures.
        self.weights = np.zeros(len(self.noisy))
        for start, n in self.data.sequences():
            energy = self.clean[start:start + n].sum(dtype=np.float64)
            self.weights[start:start + n] = 1.0 / max(energy, SDR_FLOOR)

    @functools.cached_property
    def band_ideal(self):
        ideal = np.where(self.data.gains >= 0, self.data.gains, 1.0)
        return ideal @ self.interpolate.T

    @functools.cached_property
    def bin_ideal(self):
        return ideal_bin_gains(self.noisy, self.clean)

    @functools.cached_property
    def log_stats(self):
        """The mean and spread of the training region's bin log powers."""
        if self.like is not None:
            return self.like.log_stats
        return spread(log_powers(self.noisy, self.data, self.frames_ahead))

    @functools.cached_property
    def bin_logs(self):
        """The bins' log powers, normalised by the statistics of the
        training region (like), as a head would fold them in."""
        logs = log_powers(self.noisy, self.data, self.frames_ahead)
        if self.like is None and "log_stats" not in self.__dict__:
            # The training region's own: from these logs, not made again.
            self.log_stats = spread(logs)
        mu, sd = self.log_stats
        return ((logs - mu) / sd).astype(np.float32)

    def tensors(self, rows, with_logs=True, with_ideal=False):
        """The head's inputs for some frames (band gains' logits, GRU
        state, and with_logs the bins' log powers, else None) and a dict
        of what the losses need (with_ideal: the bins' ideal gains too,
        which only the "gain" loss reads)."""
        def f32(v):
            return torch.from_numpy(np.asarray(v, dtype=np.float32))
        targets = {name: f32(getattr(self, name)[rows])
                   for name in ("noisy", "clean", "cross")}
        if with_ideal:
            targets["bin_ideal"] = f32(ideal_bin_gains(self.noisy[rows],
                                                       self.clean[rows]))
        targets["weights"] = f32(self.weights[rows, None])
        logs = f32(self.bin_logs[rows]) if with_logs else None
        return (f32(logit(self.band_gains[rows])), f32(self.hidden[rows]),
                logs, targets)

    def head_gains(self, head):
        with torch.no_grad():
            base, hidden, logs, _ = self.tensors(slice(None),
                                                 head.bin_inputs > 0)
            return head(base, hidden, logs).double().numpy()

    def scores(self, g):
        """SDR over all frames, mean SDR over sequences, speech lost (dB)."""
        noisy, clean, cross = (v.astype(np.float64) for v in (
            self.noisy, self.clean, self.cross))
        err = error_energy(g, noisy, clean, cross)
        total = 10 * np.log10(clean.sum() / max(err.sum(), SDR_FLOOR))
        per_seq = [10 * np.log10(max(clean[s:s + n].sum(), SDR_FLOOR)
                                 / max(err[s:s + n].sum(), SDR_FLOOR))
                   for s, n in self.data.sequences()]
        # As tests/quality/metrics.py's speech_energy_lost(): where the
        # clean power exceeds the noise's, 10 log10 (clean / output power)
        # capped at LOST_CAP_DB either way, weighed by the clean power.
        noise = error_energy(1.0, noisy, clean, cross)
        sel = clean > noise
        out = g[sel] ** 2 * noisy[sel]
        lost = np.clip(10 * np.log10((clean[sel] + SDR_FLOOR)
                                     / (out + SDR_FLOOR)),
                       -LOST_CAP_DB, LOST_CAP_DB)
        weight = clean[sel]
        return (total, float(np.mean(per_seq)),
                float((weight * lost).sum() / max(weight.sum(), SDR_FLOOR)))


def head_loss(g, t, loss):
    """"sdr": the error energy over the clean energy, each frame weighed by
    Region.weights; "gain": train.py's gain loss on the per-bin ideal
    gains (the band loss, per bin)."""
    if loss == "gain":
        no_vad = torch.full(g.shape[:1], 0.5)
        return loss_terms(g, no_vad, t["bin_ideal"], no_vad)[0]
    w = t["weights"]
    return (w * error_energy(g, t["noisy"], t["clean"], t["cross"])).sum() \
        / (w * t["clean"]).sum().clamp(min=SDR_FLOOR)


def speech_lost_term(g, t):
    """The speech lost in dB where the speech dominates, as scores() counts
    it but only the losses (a gain above the speech is not a credit),
    weighed by the clean power."""
    noise = error_energy(1.0, t["noisy"], t["clean"], t["cross"])
    weight = torch.where(t["clean"] > noise, t["clean"],
                         torch.zeros_like(t["clean"]))
    lost = torch.clamp(10 * torch.log10((t["clean"] + SDR_FLOOR)
                                        / (g * g * t["noisy"] + SDR_FLOOR)),
                       0.0, LOST_CAP_DB)
    return (weight * lost).sum() / weight.sum().clamp(min=SDR_FLOOR)


def chunk_sdr_loss(g, t, unit, speech_weight=0.0):
    """The mean over chunks of 10 log10 (error energy / clean energy): each
    chunk's own SDR, negated, as the quality page's mean over mixtures
    counts them (unit: each frame's chunk, 0 .. n_chunks - 1); plus
    speech_weight times speech_lost_term()."""
    n = int(unit.max()) + 1
    err = error_energy(g, t["noisy"], t["clean"], t["cross"]).sum(dim=1)
    err = torch.zeros(n).index_add_(0, unit, err)
    clean = torch.zeros(n).index_add_(0, unit, t["clean"].sum(dim=1))
    keep = clean > 0
    # A difference of logs, not the log of a quotient: a chunk with next
    # to no speech below the head's edge (a gap, a voice low-passed above
    # it) can have a clean energy near 1e-41, a float32 denormal, and its
    # error over it overflows to inf, whose gradient ruins the step.
    sdr = 10 * (torch.log10(err[keep].clamp(min=SDR_FLOOR))
                - torch.log10(clean[keep])).mean()
    if speech_weight > 0:
        sdr = sdr + speech_weight * speech_lost_term(g, t)
    return sdr


def chunks(region):
    """(first, end) rows of every CHUNK_FRAMES-long piece of every
    sequence (the last piece of each may be shorter)."""
    return [(start + k, min(start + k + CHUNK_FRAMES, start + length))
            for start, length in region.data.sequences()
            for k in range(0, length, CHUNK_FRAMES)]


def batches(region, rng, batch, loss):
    """Rows (and for "chunks", each row's chunk within the batch) of one
    epoch's batches: shuffled frames, or whole chunks (chunks())."""
    if loss != "chunks":
        order = rng.permutation(len(region.hidden))
        for i in range(0, len(order), batch):
            yield order[i:i + batch], None
        return
    pieces = chunks(region)
    order = rng.permutation(len(pieces))
    per_batch = max(1, batch // CHUNK_FRAMES)
    for i in range(0, len(order), per_batch):
        picked = [pieces[j] for j in order[i:i + per_batch]]
        rows = np.concatenate([np.arange(a, b) for a, b in picked])
        unit = np.concatenate([np.full(b - a, u)
                               for u, (a, b) in enumerate(picked)])
        yield rows, torch.from_numpy(unit)


def train_head(head, region, epochs, seed, batch=4096, lr=3e-3, loss="sdr",
               speech_weight=0.0):
    """Adam on head_loss() (or chunk_sdr_loss() for "chunks", with
    speech_weight), batch by batch; returns the loss of each epoch."""
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(head.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        total, count = 0.0, 0
        for rows, unit in batches(region, rng, batch, loss):
            base, hidden, logs, targets = region.tensors(
                rows, head.bin_inputs > 0, loss == "gain")
            g = head(base, hidden, logs)
            value = chunk_sdr_loss(g, targets, unit, speech_weight) \
                if unit is not None else head_loss(g, targets, loss)
            opt.zero_grad()
            value.backward()
            opt.step()
            total += value.item() * len(base)
            count += len(base)
        losses.append(total / max(count, 1))
    return losses


class JointSet:
    """A features file's frames (data) and its bins file's terms (as
    read_bins() gives them), for training the network and the head
    together (train_joint())."""

    def __init__(self, data, terms):
        self.data = data
        self.terms = {name: v.astype(np.float32, copy=False)
                      for name, v in zip(("noisy", "clean", "cross"), terms)}
        n_bins = terms[0].shape[1]
        self.interpolate = torch.from_numpy(
            interpolation(self.data.band_edges, n_bins).T.astype(np.float32))


def joint_losses(net, head, jset, starts, window, lookahead, band_options):
    """The two losses of the windows of `window` frames at the rows
    starts, each run from the zero state: chunk_sdr_loss() of the head's
    bin gains and train.py's loss of the network's band gains and VAD
    (options: train_joint()'s)."""
    x, target_gains, target_vad = gather(jset.data, starts, window,
                                         lookahead)
    gains, vad, hidden, _ = net.run(x)
    weights = speech_term_weights(x, target_gains, band_options["idct"],
                                  band_options["energy_weight"], None)
    gain_loss, vad_loss = loss_terms(gains, vad, target_gains, target_vad,
                                     band_options["band_speech_weight"],
                                     weights)
    base = torch.logit(torch.clamp(gains @ jset.interpolate, LOGIT_FLOOR,
                                   1 - LOGIT_FLOOR))
    g = head(base.reshape(-1, base.shape[-1]),
             hidden.reshape(-1, hidden.shape[-1]))
    rows = (starts[:, None] + np.arange(window)[None, :]).ravel()
    targets = {name: torch.from_numpy(v[rows])
               for name, v in jset.terms.items()}
    unit = torch.from_numpy(np.arange(len(rows)) // CHUNK_FRAMES)
    bin_loss = chunk_sdr_loss(g, targets, unit,
                              band_options["speech_weight"])
    return bin_loss, total_loss(gain_loss, vad_loss)


def train_joint(net, head, jset, epochs, seed, lr, head_lr, band_weight,
                speech_weight, band_speech_weight, energy_weight, batch=12,
                window=JOINT_WINDOW):
    """Trains the network and a hidden head together, on windows of
    `window` frames of a JointSet's features file (and its bins): the
    head's chunk_sdr_loss() with speech_weight, plus band_weight times
    train.py's loss of the band gains (band_speech_weight and
    energy_weight as train.py's --speech-weight and --energy-weight),
    which holds the bands above the head's bins where the network had
    them. The network learns at lr, the head at head_lr. Returns each
    epoch's mean (bin loss, band loss)."""
    lookahead = net.sizes.get("lookahead", 0)
    options = {"idct": inverse_dct(jset.data.gains.shape[1]),
               "energy_weight": energy_weight,
               "band_speech_weight": band_speech_weight,
               "speech_weight": speech_weight}
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam([{"params": net.parameters(), "lr": lr},
                            {"params": head.parameters(), "lr": head_lr}])
    params = list(net.parameters()) + list(head.parameters())
    history = []
    for _ in range(epochs):
        net.train()
        starts = chunk_starts(jset.data, window, rng)
        rng.shuffle(starts)
        sums, steps = np.zeros(2), 0
        for i in range(0, len(starts) - batch + 1, batch):
            bin_loss, band_loss = joint_losses(
                net, head, jset, starts[i:i + batch], window, lookahead,
                options)
            opt.zero_grad()
            (bin_loss + band_weight * band_loss).backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sums += [bin_loss.item(), band_loss.item()]
            steps += 1
        history.append(sums / max(steps, 1))
    net.eval()
    return history


def model_with_head(model_path, head, out_path, net=None):
    """Writes MODEL with a `hidden` head as its bin-gain head: a float32
    version 3 file (docs/model-format.md), the head a dense layer of
    linear outputs reading the last GRU. With net, the network's layers
    are net's (trained with the head, train_joint()), MODEL's frame
    layout, lookahead and speech protection."""
    m = read_model(model_path)
    if head.mid is not None:
        sys.exit("bin_head.py: only the hidden head reads the network alone")
    if net is not None:
        layers = net.export_layers()[0]
    else:
        # A head MODEL already has is replaced (the network ran without it).
        layers = layers_without_bin_head(m, model_path)
    last_gru = max(i for i, layer in enumerate(layers)
                   if layer["kind"] == GRU)
    layers = layers + [{
        "kind": DENSE, "input": last_gru + 1, "activation": LINEAR,
        "weights": [head.out.weight.detach().numpy().astype(np.float32)],
        "biases": [head.out.bias.detach().numpy().astype(np.float32)]}]
    blob = model_bytes(m.frame, layers, m.gain_layer, m.vad_layer,
                       [F32] * len(layers), m.lookahead, m.speech_protection,
                       bin_layer=len(layers) - 1)
    with open(out_path, "wb") as f:
        f.write(blob)


def measure(model, train_path, val_path, epochs, seed, hidden_units,
            frames_ahead, loss="sdr", heads=HEADS, speech_weight=0.0,
            joint=None):
    """The table of scores on VAL, as rows (name, parameters, scores), the
    heads trained, by name, and the network. With joint (train_joint()'s
    options from epochs on, a dict), the hidden head then trains on with
    the network (which changes), from where it is."""
    torch.manual_seed(seed)
    train_data = featfile.FeatureFile(train_path)
    net, _ = net_from_model_file(model, train_data, train_path)
    lookahead = net.sizes.get("lookahead", 0)
    train = Region(net, lookahead, train_path, frames_ahead)
    val = Region(net, lookahead, val_path, frames_ahead, like=train)
    n_bins = train.noisy.shape[1]
    rows = [("band gains (the network's, interpolated)", 0,
             val.scores(val.band_gains))]
    trained = {}
    for name in heads:
        bin_inputs = 0 if name == "hidden" else train.bin_logs.shape[1]
        head = BinHead(net.gru2.hidden_size, n_bins, bin_inputs, hidden_units)
        trained[name] = head
        losses = train_head(head, train, epochs, seed, loss=loss,
                            speech_weight=speech_weight)
        print("%s: training loss by epoch %s" % (
            name, " ".join("%.4f" % v for v in losses)))
        rows.append(("head: " + name, head.n_params(),
                     val.scores(val.head_gains(head))))
    # More suppression everywhere, no resolution: the trade-off line the
    # heads are to be read against.
    rows.append(("band gains squared", 0, val.scores(val.band_gains ** 2)))
    rows.append(("ideal band gains, interpolated", 0,
                 val.scores(val.band_ideal)))
    rows.append(("ideal bin gains (<= 1)", 0, val.scores(val.bin_ideal)))
    if joint:
        # The training region's frames and bins, not read again.
        jset = JointSet(train.data, (train.noisy, train.clean, train.cross))
        history = train_joint(net, trained["hidden"], jset, seed=seed,
                              **joint)
        print("hidden, with the network: (bin loss, band loss) by epoch %s"
              % " ".join("(%.4f, %.5f)" % tuple(h) for h in history))
        after = Region(net, lookahead, val_path, frames_ahead, like=train)
        rows.append(("band gains, network trained with the head", 0,
                     after.scores(after.band_gains)))
        rows.append(("head: hidden, trained with the network",
                     trained["hidden"].n_params(),
                     after.scores(after.head_gains(trained["hidden"]))))
    return n_bins, val, rows, trained, net


def print_table(n_bins, val, rows):
    hz = val.data.header["sample_rate"] / val.data.header["window"]
    print("\nbins 0..%d (below %.0f Hz), %d validation sequences, %d frames"
          % (n_bins - 1, n_bins * hz, len(val.data.lengths),
             len(val.data.vad)))
    print("\n| gains | head parameters | SDR of the region (dB) | mean SDR "
          "per sequence (dB) | speech lost (dB) |")
    print("|---|---:|---:|---:|---:|")
    for name, n_params, (total, mean, lost) in rows:
        print("| %s | %s | %.2f | %.2f | %.2f |" % (
            name, n_params or "–", total, mean, lost))


def synthetic_pair(path_clean, path_noise, seed, seconds=3.0, rate=48000):
    """A voiced, pitch-gliding 'speech' with pauses and a hum-plus-noise,
    as raw float32 files."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    f0 = 110 + 40 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(f0) / rate
    speech = sum(np.sin(h * phase) / h for h in range(1, 20))
    speech *= (np.sin(2 * np.pi * 1.5 * t) > -0.2) * 0.1
    hum = sum(0.02 * np.sin(2 * np.pi * 50 * h * t + h) for h in range(1, 8))
    noise = hum + 0.01 * rng.standard_normal(t.size)
    speech.astype("<f4").tofile(path_clean)
    noise.astype("<f4").tofile(path_noise)


def joint_check(model, features, data, tmp):
    """train_joint() lowers the head's loss and moves the network, and
    --save then writes the network so trained with the head."""
    failures = []
    net, _ = net_from_model_file(model, data, features)
    before = [p.detach().clone() for p in net.parameters()]
    head = BinHead(net.gru2.hidden_size, 20)
    jset = JointSet(data, read_bins(features, data))
    history = train_joint(net, head, jset, epochs=15, seed=0, lr=1e-3,
                          head_lr=3e-2, band_weight=1.0, speech_weight=1.0,
                          band_speech_weight=2.0, energy_weight=0.5,
                          batch=1, window=int(data.lengths.min()))
    if not history[-1][0] < history[0][0]:
        failures.append("training with the network did not lower the "
                        "head's loss: %s" % history)
    if all(torch.equal(a, b) for a, b in zip(before, net.parameters())):
        failures.append("training with the network left it unchanged")
    out = os.path.join(tmp, "joint.rnnm")
    model_with_head(model, head, out, net)
    back = read_model(out)
    layers = net.export_layers()[0]
    if len(back.layers) != len(layers) + 1 or not all(
            np.array_equal(a["weights"][k], b["weights"][k])
            for a, b in zip(back.layers, layers)
            for k in range(len(b["weights"]))):
        failures.append("--save with --joint-epochs did not write the "
                        "network trained")
    return failures


def check_silent_chunk():
    """A chunk whose clean energy is a float32 denormal (no speech below
    the head's edge) keeps the chunks loss and its gradient finite."""
    n = 4
    g = torch.full((2 * n, 20), 0.5, requires_grad=True)
    t = {"noisy": torch.ones(2 * n, 20),
         "clean": torch.cat([torch.ones(n, 20), torch.full((n, 20), 1e-43)]),
         "cross": torch.cat([torch.ones(n, 20),
                             torch.full((n, 20), 1e-22)])}
    loss = chunk_sdr_loss(g, t, torch.tensor([0] * n + [1] * n), 1.0)
    loss.backward()
    if not (torch.isfinite(loss) and torch.isfinite(g.grad).all()):
        return ["the chunks loss of a silent chunk is not finite (%s)"
                % loss.item()]
    return []


def self_check(features_tool, model):
    """Returns a list of failures (empty when all checks pass)."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, seed in (("train", 1), ("val", 2)):
            clean = os.path.join(tmp, name + "-clean.f32")
            noise = os.path.join(tmp, name + "-noise.f32")
            synthetic_pair(clean, noise, seed)
            out = os.path.join(tmp, name + ".rndf")
            subprocess.run([features_tool, "--layout", "3", "--bins", "20",
                            os.path.join(tmp, name + ".bins"), clean, noise,
                            out], check=True, stdout=subprocess.DEVNULL)
            paths.append(out)
        # The error energy from the bins file equals the one from spectra:
        # with g = 1 it is the noise's power, with g = 0 the clean power.
        data = featfile.FeatureFile(paths[0])
        noisy, clean, cross = read_bins(paths[0], data)
        if noisy.shape[1] != 20:
            failures.append("bins file holds %d bins, not 20"
                            % noisy.shape[1])
        noise_power = error_energy(1.0, noisy, clean, cross)
        if noise_power.min() < -1e-6 * noisy.max():
            failures.append("|X - S|^2 is negative: the terms do not match")
        torch.manual_seed(0)
        net, _ = net_from_model_file(model, data, paths[0])
        lookahead = net.sizes.get("lookahead", 0)
        region = Region(net, lookahead, paths[0], 1)
        # The bins are kept as the file's float32, and what a hidden head
        # does not read is not made (a 160-bin set would not fit).
        if noisy.dtype != np.float32:
            failures.append("read_bins() gives %s, not the file's float32"
                            % noisy.dtype)
        hidden_only = BinHead(net.gru2.hidden_size, 20)
        region.head_gains(hidden_only)
        made = {"bin_logs", "bin_ideal", "band_ideal"} & set(region.__dict__)
        if made:
            failures.append("a hidden head made %s" % sorted(made))
        head = BinHead(net.gru2.hidden_size, 20, region.bin_logs.shape[1])
        zero = region.head_gains(head)
        base = np.clip(region.band_gains, LOGIT_FLOOR, 1 - LOGIT_FLOOR)
        if np.abs(zero - base).max() > 1e-5:
            failures.append("a zero head moves the band gains by %g"
                            % np.abs(zero - base).max())
        band = region.scores(region.band_ideal)[0]
        per_bin = region.scores(region.bin_ideal)[0]
        if not per_bin > band:
            failures.append("ideal bin gains (%.2f dB) do not beat ideal "
                            "band gains (%.2f dB)" % (per_bin, band))
        for loss, weight in (("sdr", 0), ("gain", 0), ("chunks", 0),
                             ("chunks", 1)):
            losses = train_head(head, region, 30, 0, batch=256, loss=loss,
                                speech_weight=weight)
            if not losses[-1] < losses[0]:
                failures.append("training on the %s loss did not lower it: "
                                "%s" % (loss, losses))
        failures += check_silent_chunk()
        n_bins, val, rows, trained, _ = measure(model, paths[0], paths[1],
                                                2, 0, 16, 1)
        # The hidden head as a model file's bin-gain head, read back.
        out = os.path.join(tmp, "with-head.rnnm")
        model_with_head(model, trained["hidden"], out)
        back = read_model(out)
        weight = trained["hidden"].out.weight.detach().numpy()
        if back.bin_layer != len(back.layers) - 1 or not np.array_equal(
                back.layers[-1]["weights"][0], weight.astype(np.float32)):
            failures.append("the head written is not the head trained "
                            "(bin_layer %d)" % back.bin_layer)
        # A file that has a head gets the new one in its place, and the
        # network read from it leaves the head out.
        again = os.path.join(tmp, "head-replaced.rnnm")
        zero_head = BinHead(net.gru2.hidden_size, 20, 0)
        model_with_head(out, zero_head, again)
        twice = read_model(again)
        if len(twice.layers) != len(back.layers) or np.any(
                twice.layers[-1]["weights"][0]):
            failures.append("--save on a file with a head did not replace "
                            "it (%d layers, were %d)"
                            % (len(twice.layers), len(back.layers)))
        net_back, _ = net_from_model_file(out, data, paths[0])
        if not np.array_equal(Region(net_back, lookahead, paths[0],
                                     1).band_gains, region.band_gains):
            failures.append("the network read from a file with a head "
                            "gives other band gains")
        # quantise.py keeps the head: version 3, the same bin_layer (from
        # the header: read_model() reads float32 files only).
        q = os.path.join(tmp, "with-head-int8x8.rnnm")
        subprocess.run([sys.executable, os.path.join(HERE, "quantise.py"),
                        out, q], check=True, stdout=subprocess.DEVNULL)
        with open(q, "rb") as f:
            header = f.read(56)
        version, = struct.unpack_from("<I", header, 4)
        bin_layer, = struct.unpack_from("<I", header, 52)
        if (version, bin_layer) != (3, back.bin_layer):
            failures.append("quantise.py wrote version %d, bin_layer %d"
                            % (version, bin_layer))
        if len(rows) != 6 or not all(np.isfinite(v) for r in rows
                                     for v in r[2]):
            failures.append("the table is incomplete: %s" % rows)
        failures += joint_check(model, paths[0], data, tmp)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--self-check", nargs=2,
                        metavar=("FEATURES_TOOL", "MODEL"))
    parser.add_argument("paths", nargs="*",
                        metavar="MODEL.rnnm TRAIN.rndf VAL.rndf")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", type=int, default=64,
                        help="units of the hidden+bins head's tanh layer")
    parser.add_argument("--frames-ahead", type=int, default=1,
                        help="frames ahead whose bin powers the head reads")
    parser.add_argument("--loss", choices=("sdr", "gain", "chunks"),
                        default="sdr",
                        help="what the heads learn (see head_loss())")
    parser.add_argument("--speech-weight", type=float, default=0.0,
                        help="with --loss chunks: weight of the speech "
                        "lost (dB) in the loss")
    parser.add_argument("--heads", default=",".join(HEADS),
                        help="the heads to train, of %s" % ", ".join(HEADS))
    parser.add_argument("--joint-epochs", type=int, default=0,
                        help="then train the hidden head and the network "
                        "together for this many epochs (--save writes "
                        "the network so trained)")
    parser.add_argument("--joint-lr", type=float, default=3e-5,
                        help="the network's learning rate when trained "
                        "with the head")
    parser.add_argument("--joint-head-lr", type=float, default=1e-3,
                        help="the head's learning rate then")
    parser.add_argument("--band-weight", type=float, default=1.0,
                        help="weight of train.py's band loss beside the "
                        "head's loss then")
    parser.add_argument("--band-speech-weight", type=float, default=16.0,
                        help="train.py's --speech-weight in that loss")
    parser.add_argument("--energy-weight", type=float, default=0.5,
                        help="train.py's --energy-weight in that loss")
    parser.add_argument("--save", metavar="OUT.rnnm",
                        help="write MODEL with the hidden head as its "
                        "bin-gain head")
    args = parser.parse_args()
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    if args.self_check:
        failures = self_check(*args.self_check)
        for f in failures:
            print("FAIL:", f)
        print("bin_head self-check: %s" % ("FAILED" if failures else "ok"))
        return 1 if failures else 0
    if len(args.paths) != 3:
        parser.error("expected MODEL.rnnm TRAIN.rndf VAL.rndf")
    heads = args.heads.split(",")
    if any(h not in HEADS for h in heads) or (args.save
                                              and "hidden" not in heads):
        parser.error("--heads: some of %s (hidden with --save)"
                     % ", ".join(HEADS))
    if args.joint_epochs and ("hidden" not in heads or args.loss != "chunks"):
        parser.error("--joint-epochs trains the hidden head on the chunks "
                     "loss: --heads hidden --loss chunks")
    joint = None
    if args.joint_epochs:
        joint = {"epochs": args.joint_epochs, "lr": args.joint_lr,
                 "head_lr": args.joint_head_lr,
                 "band_weight": args.band_weight,
                 "speech_weight": args.speech_weight,
                 "band_speech_weight": args.band_speech_weight,
                 "energy_weight": args.energy_weight}
    n_bins, val, rows, trained, net = measure(
        *args.paths, args.epochs, args.seed, args.hidden, args.frames_ahead,
        args.loss, heads, args.speech_weight, joint)
    print_table(n_bins, val, rows)
    if args.save:
        model_with_head(args.paths[0], trained["hidden"], args.save,
                        net if joint else None)
        print("bin_head.py: %s: the model with the hidden head" % args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
