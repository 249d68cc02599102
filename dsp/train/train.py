#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Train the denoising network on features files from rnndenoise-features.

    train.py TRAIN.rndf VAL.rndf OUT.pt [--epochs N] [--minutes M]
             [--seed S] [--chunk-frames F] [--batch B] [--also MORE.rndf]
             [--init START.pt] [--speech-weight W] [--epoch-checkpoints]
             [--lookahead N [--lookahead-lr LR]] [--energy-weight A]
             [--log-speech-weight L] [--band-speech-weight LO,HI,W]

Training runs on random chunks of F frames (3 s by default) cut from the
training sequences, each from the zero state; validation runs on the whole
validation sequences, as a stream would. The checkpoint with the lowest
validation loss is kept in OUT.pt, with the sizes, the feature
normalisation, the frame layout and the per-epoch log. Training stops after
N epochs or before an epoch would end past M minutes of wall time; the
learning rate decays by LR_DECAY per epoch whatever N is, so a run the time
budget stopped after K epochs is reproduced exactly by --epochs K.

--also adds the sequences of another features file (repeatable); --init
starts from the weights and feature normalisation of a checkpoint instead
of a random network (a second training stage, e.g. on more data or with
another --speech-weight, the SPEECH_WEIGHT below). --epoch-checkpoints
also keeps every epoch's weights (OUT-e1.pt, OUT-e2.pt, ...), for
comparing epochs on the quality evaluation.

--lookahead N gives the network the features of the N frames after each
frame besides its own, as the element does for a model file whose
lookahead field is N (export.py writes it), delaying its output by N more
hops: each input row is those 1 + N frames' features side by side (past a
sequence's end, its last frame again). Started from a checkpoint that
reads fewer frames ahead (none, or 1 for N = 2), the new inputs get zero
weights, so training starts from that network's output exactly;
--lookahead-lr gives the weights of the frames ahead a learning rate of
their own (a fine-tune's rate would barely move them from zero).

The loss weighs speech distortion and residual noise (RNNoise-style): on
bands with a target (gain >= 0), with d = sqrt(g) - sqrt(g_target),
d^2 + 10 d^4 for the gain error, plus RESIDUAL_WEIGHT * max(d, 0)^2 for
gains above the target (noise let through), plus SPEECH_WEIGHT * g_target
* max(-d, 0)^2 for gains below it, which weighs most where speech
dominates the band (speech removed is worse than noise left), plus
VAD_WEIGHT times the binary cross-entropy of the VAD on frames whose VAD
target is 0 or 1. --energy-weight A scales that speech term per band and
frame by the band's speech energy relative to the chunk's mean, to the
power A (between 1 and ENERGY_WEIGHT_MAX; see speech_energy_weights()), so
that loud speech bands, the voice's harmonics and formants below 1 kHz
that hold most of its energy, count the most. --log-speech-weight L adds
L * max(0, log10(g_target / g))^2 on speech-dominated bands (target >=
SPEECH_DOMINATED), scaled by the same energy weights when there are any:
the speech lost in dB, as the quality evaluation counts it. The square-root
terms above saturate where a gain falls far below its target (at most
g_target there); this one keeps growing, so a band of speech wiped out
costs much more than one halved. --band-speech-weight LO,HI,W multiplies
those speech terms by W on the bands whose centre lies from LO to HI Hz
(more triples, more ranges; see band_speech_weights()): the bands where
the shipped network loses most speech beyond what ideal band gains lose
(2-4 kHz, docs/model.md).

The checkpoint kept is not the one of lowest loss but the one of lowest
selection score on the validation sequences spoken by recorded voices
(--val-manifest names them; all sequences without it): their gain loss
plus SELECT_SPEECH_WEIGHT times the speech lost, in dB, in speech-dominated
bands (target >= 0.5: mean of max(0, 20 log10(g_target / g))).
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch

import featfile
import pairlist
from net import DenoiseNet, load_checkpoint

RESIDUAL_WEIGHT = 0.5
SPEECH_WEIGHT = 2.0
SELECT_SPEECH_WEIGHT = 0.02
SPEECH_DOMINATED = 0.5
QUARTIC_WEIGHT = 10.0
VAD_WEIGHT = 0.1
ENERGY_WEIGHT_MAX = 8.0
LOG_GAIN_FLOOR = 1e-3
LR_DECAY = 0.88  # learning rate factor per epoch


def log_speech_lost(gains, target_gains):
    """Per band and frame, max(0, log10(g_target / g))^2 where the target is
    at least SPEECH_DOMINATED, else 0: the speech lost in units of 20 dB,
    squared. Gains are floored at LOG_GAIN_FLOOR (-60 dB) so that a gain of
    0 costs a finite amount."""
    dominated = (target_gains >= SPEECH_DOMINATED).float()
    ratio = target_gains.clamp(min=LOG_GAIN_FLOOR) \
        / gains.clamp(min=LOG_GAIN_FLOOR)
    return dominated * torch.relu(torch.log10(ratio)) ** 2


def loss_terms(gains, vad, target_gains, target_vad,
               speech_weight=SPEECH_WEIGHT, energy_weights=None,
               log_speech_weight=0.0):
    """The gain loss and the VAD loss, each averaged over what it counts;
    energy_weights (from speech_energy_weights()) scale the speech terms
    per band and frame; log_speech_weight weighs log_speech_lost()."""
    mask = (target_gains >= 0).float()
    d = torch.sqrt(gains + 1e-8) - torch.sqrt(torch.clamp(target_gains, 0))
    speech = torch.clamp(target_gains, 0) * torch.relu(-d) ** 2
    if energy_weights is not None:
        speech = energy_weights * speech
    per_band = d ** 2 + QUARTIC_WEIGHT * d ** 4 \
        + RESIDUAL_WEIGHT * torch.relu(d) ** 2 + speech_weight * speech
    if log_speech_weight > 0:
        lost = log_speech_lost(gains, target_gains)
        if energy_weights is not None:
            lost = energy_weights * lost
        per_band = per_band + log_speech_weight * lost
    gain_loss = (mask * per_band).sum() / mask.sum().clamp(min=1)
    vmask = (target_vad != 0.5).float()
    bce = torch.nn.functional.binary_cross_entropy(
        vad.clamp(1e-6, 1 - 1e-6), target_vad, reduction="none")
    vad_loss = (vmask * bce).sum() / vmask.sum().clamp(min=1)
    return gain_loss, vad_loss


def inverse_dct(n_bands):
    """The matrix M with log10 band energies = cepstrum @ M: the transpose
    of the features' orthonormal DCT-II (dsp_features.c)."""
    j = np.arange(n_bands)[:, None]
    b = np.arange(n_bands)[None, :]
    dct = np.sqrt(np.where(j == 0, 1.0, 2.0) / n_bands) \
        * np.cos(np.pi * j * (b + 0.5) / n_bands)
    return torch.from_numpy(dct.astype(np.float32))


def speech_log_energy(features, target_gains, idct):
    """log10 of each band's speech energy: the noisy band energy (the
    cepstrum of the frame's own features, undone by idct, from
    inverse_dct()) times the target gain squared."""
    n_bands = idct.shape[0]
    log_noisy = features[..., :n_bands] @ idct
    target = torch.clamp(target_gains, 0)
    return log_noisy + 2 * torch.log10(target.clamp(min=1e-4))


def speech_energy_weights(features, target_gains, idct, alpha):
    """Per band and frame, (speech energy / its mean over the chunk's
    speech-dominated bands)^alpha, between 1 and ENERGY_WEIGHT_MAX: the
    speech term then counts most where the speech energy is, as the speech
    lost of the quality evaluation does (it weighs each bin by its clean
    power), and nowhere less than without the weights (faint bands, the
    consonants' high ones, still count for intelligibility). The speech
    energy is speech_log_energy()'s."""
    log_speech = speech_log_energy(features, target_gains, idct)
    dominated = (target_gains >= SPEECH_DOMINATED).float()
    # In log10 units relative to each chunk's loudest band-frame, so that
    # the powers below stay in range whatever the level.
    top = log_speech.amax(dim=(1, 2), keepdim=True)
    power = 10 ** (alpha * (log_speech - top))
    mean = (dominated * power).sum(dim=(1, 2), keepdim=True) \
        / dominated.sum(dim=(1, 2), keepdim=True).clamp(min=1)
    return torch.clamp(power / mean.clamp(min=1e-12), min=1.0,
                       max=ENERGY_WEIGHT_MAX)


def parse_band_ranges(spec):
    """The (LO, HI, W) triples of a --band-speech-weight spec
    "LO,HI,W[,LO,HI,W...]"; ValueError if it is not one."""
    try:
        values = [float(v) for v in spec.split(",")]
    except ValueError:
        values = []
    triples = list(zip(*[iter(values)] * 3))
    if not values or len(values) % 3 or any(
            lo >= hi or w <= 0 for lo, hi, w in triples):
        raise ValueError(
            "%r: expected LO,HI,W (Hz, Hz, factor; LO < HI, W > 0), "
            "repeated for more ranges" % spec)
    return triples


def band_speech_ranges(spec):
    """argparse's type for --band-speech-weight: refuses a spec that
    parse_band_ranges() refuses, keeps the string (the checkpoint records
    it as given)."""
    try:
        parse_band_ranges(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))
    return spec


def band_speech_weights(band_edges, sample_rate, window, spec):
    """Per band, the product of the W of each range of spec
    ("LO,HI,W[,LO,HI,W...]") whose [LO, HI) Hz holds the band's centre,
    1 for a band in none (None: no spec, no weights). band_edges are FFT
    bins."""
    if spec is None:
        return None
    edges = np.asarray(band_edges, dtype=np.float64) * sample_rate / window
    centres = (edges[:-1] + edges[1:]) / 2
    weights = np.ones(len(centres))
    for lo, hi, weight in parse_band_ranges(spec):
        weights[(centres >= lo) & (centres < hi)] *= weight
    return torch.from_numpy(weights.astype(np.float32))


def speech_term_weights(x, target_gains, idct, energy_weight, band_weights):
    """The weights of the loss's speech terms per band and frame: the
    speech energy weights (energy_weight > 0) times the band weights (not
    None); None when there are neither."""
    weights = None
    if energy_weight > 0:
        weights = speech_energy_weights(x, target_gains, idct, energy_weight)
    if band_weights is not None:
        weights = band_weights if weights is None else weights * band_weights
    return weights


def total_loss(gain_loss, vad_loss):
    return gain_loss + VAD_WEIGHT * vad_loss


def chunk_starts(data, chunk, rng):
    """Start rows of non-overlapping chunks covering each sequence, from a
    random offset per sequence."""
    starts = []
    for start, length in data.sequences():
        if length < chunk:
            continue
        offset = int(rng.integers(0, length % chunk + 1))
        starts += [start + offset + k * chunk
                   for k in range((length - offset) // chunk)]
    return np.array(starts)


def last_rows(data, starts):
    """The last row of the sequence each of the start rows lies in."""
    firsts = np.concatenate([[0], np.cumsum(data.lengths)[:-1]])
    seq = np.searchsorted(firsts, starts, side="right") - 1
    return firsts[seq] + data.lengths[seq].astype(np.int64) - 1


def gather(data, starts, chunk, lookahead=0):
    """Batch tensors (features, gains, vad) for chunks at the given rows;
    with lookahead, each frame's features are followed by those of the
    next `lookahead` frames of its sequence (past its end, its last frame
    again), as a stream gives them."""
    idx = starts[:, None] + np.arange(chunk)[None, :]
    last = last_rows(data, starts)[:, None] if lookahead else idx
    rows = [np.minimum(idx + k, last) for k in range(lookahead + 1)]
    return (torch.from_numpy(np.concatenate(
                [data.features[r] for r in rows], axis=-1)),
            torch.from_numpy(data.gains[idx]),
            torch.from_numpy(data.vad[idx]))


def train_epoch(net, opt, data, chunk, batch, rng,
                speech_weight=SPEECH_WEIGHT, lookahead=0, energy_weight=0.0,
                log_speech_weight=0.0, band_weights=None):
    """One pass over random chunks; returns the mean loss terms. With an
    energy_weight, the speech terms are weighted by speech_energy_weights()
    at that exponent, and by band_weights (per band) when given;
    log_speech_weight: see loss_terms()."""
    net.train()
    starts = chunk_starts(data, chunk, rng)
    rng.shuffle(starts)
    sums = np.zeros(3)
    idct = inverse_dct(data.gains.shape[1])
    for i in range(0, len(starts) - batch + 1, batch):
        x, tg, tv = gather(data, starts[i:i + batch], chunk, lookahead)
        gains, vad, _ = net(x)
        weights = speech_term_weights(x, tg, idct, energy_weight,
                                      band_weights)
        g_loss, v_loss = loss_terms(gains, vad, tg, tv, speech_weight,
                                    weights, log_speech_weight)
        loss = total_loss(g_loss, v_loss)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        sums += [loss.item(), g_loss.item(), v_loss.item()]
    return sums / max(len(starts) // batch, 1)


def speech_lost_db(gains, target_gains):
    """Sum and count of max(0, 20 log10(target / gain)) over the band-frames
    whose target is at least SPEECH_DOMINATED."""
    sel = target_gains >= SPEECH_DOMINATED
    lost = torch.relu(20 * torch.log10(target_gains.clamp(min=1e-6)
                                       / gains.clamp(min=1e-6)))
    return float(lost[sel].sum()), int(sel.sum())


@torch.no_grad()
def evaluate(net, data, max_batch=16, only=None, lookahead=0):
    """Loss terms over whole sequences (grouped by length), each from the
    zero state, averaged over sequences, then the speech lost in dB; `only`
    (a set of sequence indices) restricts it to some sequences."""
    net.eval()
    seqs = [s for k, s in enumerate(data.sequences())
            if only is None or k in only]
    seqs = sorted(seqs, key=lambda s: s[1])
    sums, count = np.zeros(3), 0
    lost_sum, lost_count = 0.0, 0
    i = 0
    while i < len(seqs):
        length = seqs[i][1]
        group = [s for s, n in seqs[i:i + max_batch] if n == length]
        i += len(group)
        x, tg, tv = gather(data, np.array(group), length, lookahead)
        gains, vad, _ = net(x)
        g_loss, v_loss = loss_terms(gains, vad, tg, tv)
        sums += len(group) * np.array(
            [total_loss(g_loss, v_loss).item(), g_loss.item(), v_loss.item()])
        count += len(group)
        lost = speech_lost_db(gains, tg)
        lost_sum += lost[0]
        lost_count += lost[1]
    return np.append(sums / max(count, 1), lost_sum / max(lost_count, 1))


def with_lookahead_inputs(net, lookahead):
    """A copy of a network that reads 1 + lookahead frames' features, from
    one that reads fewer (none or some ahead): its input weights as they
    were for the frames it read, zero weights for the new ones (the same
    output), one frame's normalisation repeated for them."""
    start = net.sizes.get("lookahead", 0)
    if lookahead == start:
        return net
    own = net.own
    sizes = dict(net.sizes)
    sizes["n_features"] = own * (1 + lookahead)
    sizes["lookahead"] = lookahead
    wider = DenoiseNet(**sizes)
    state = net.state_dict()
    ahead = torch.zeros_like(wider.inp_ahead.weight)
    if start:
        ahead[:, :start * own] = state["inp_ahead.weight"]
    state["inp_ahead.weight"] = ahead
    for key in ("feat_mean", "feat_std"):
        state[key] = torch.cat([state[key],
                                state[key][:own].repeat(lookahead - start)])
    wider.load_state_dict(state)
    return wider


def optimiser(net, lr, lookahead_lr=None):
    """Adam over the network; the input weights of the frames ahead learn
    at lookahead_lr when given (they may start from zero in a network
    that is otherwise only fine-tuned)."""
    if net.inp_ahead is None or lookahead_lr is None:
        return torch.optim.Adam(net.parameters(), lr=lr)
    ahead = list(net.inp_ahead.parameters())
    rest = [p for p in net.parameters()
            if all(p is not q for q in ahead)]
    return torch.optim.Adam([{"params": rest},
                             {"params": ahead, "lr": lookahead_lr}], lr=lr)


def real_sequences(manifest):
    """Indices of the sequences of a manifest.tsv spoken by recorded voices
    (None if there are none, or no manifest)."""
    if manifest is None:
        return None
    rows = pairlist.read_manifest(manifest)
    real = {k for k, r in enumerate(rows) if r["voices"].startswith("real:")}
    return real or None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("train")
    ap.add_argument("val")
    ap.add_argument("out")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--minutes", type=float, default=40.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk-frames", type=int, default=300)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--val-manifest", help="the validation manifest.tsv")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sizes", default="64,96,128",
                    help="dense, first GRU, second GRU units")
    ap.add_argument("--also", action="append", default=[],
                    help="another training features file")
    ap.add_argument("--init", help="start from this checkpoint's weights")
    ap.add_argument("--speech-weight", type=float, default=SPEECH_WEIGHT)
    ap.add_argument("--epoch-checkpoints", action="store_true",
                    help="also save each epoch's weights as OUT-eN.pt")
    ap.add_argument("--lookahead", type=int, default=0,
                    help="frames the network reads ahead")
    ap.add_argument("--lookahead-lr", type=float,
                    help="learning rate of the frames ahead's input weights "
                    "(default: --lr)")
    ap.add_argument("--energy-weight", type=float, default=0.0,
                    help="weigh the speech term by the band's speech "
                    "energy to this power (0: alike for every band)")
    ap.add_argument("--log-speech-weight", type=float, default=0.0,
                    help="weight of the speech lost in dB (squared) on "
                    "speech-dominated bands (0: none)")
    ap.add_argument("--band-speech-weight", metavar="LO,HI,W",
                    type=band_speech_ranges,
                    help="multiply the speech terms by W on the bands "
                    "whose centre lies from LO to HI Hz (more ranges: "
                    "LO,HI,W,LO2,HI2,W2...)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    train_data = featfile.FeatureFile(args.train)
    for path in args.also:
        train_data.append(featfile.FeatureFile(path))
    val_data = featfile.FeatureFile(args.val)
    cfg = train_data.frame_config()
    if val_data.frame_config() != cfg:
        sys.exit("train.py: training and validation layouts differ")

    val_real = real_sequences(args.val_manifest)
    band_weights = band_speech_weights(cfg["band_edges"], cfg["sample_rate"],
                                       cfg["window"], args.band_speech_weight)
    if args.init:
        net, start_ckpt = load_checkpoint(args.init)
        if start_ckpt["frame_config"] != cfg:
            sys.exit("train.py: %s has another frame layout" % args.init)
        start_lookahead = start_ckpt.get("lookahead", 0)
        if start_lookahead > args.lookahead:
            sys.exit("train.py: %s reads %d frame(s) ahead, more than "
                     "--lookahead %d" % (args.init, start_lookahead,
                                         args.lookahead))
        net = with_lookahead_inputs(net, args.lookahead)
    else:
        dense, gru1, gru2 = (int(v) for v in args.sizes.split(","))
        net = DenoiseNet(cfg["n_features"], cfg["n_bands"], dense, gru1,
                         gru2)
        net.set_normalisation(train_data.features.mean(0),
                              train_data.features.std(0))
        net = with_lookahead_inputs(net, args.lookahead)
    opt = optimiser(net, args.lr, args.lookahead_lr)
    # A per-epoch decay that does not depend on the number of epochs: a run
    # cut short by the time budget after K epochs is the same as --epochs K.
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=LR_DECAY)
    print("train: %d frames (%.1f min) in %d sequences, validation %d "
          "frames; %d parameters; up to %d epochs or %.0f min"
          % (len(train_data.vad), len(train_data.vad) / 6000.0,
             len(train_data.lengths), len(val_data.vad), net.n_params(),
             args.epochs, args.minutes), flush=True)

    start = time.time()
    log, best = [], None
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        tr = train_epoch(net, opt, train_data, args.chunk_frames, args.batch,
                         rng, args.speech_weight, args.lookahead,
                         args.energy_weight, args.log_speech_weight,
                         band_weights)
        va = evaluate(net, val_data, lookahead=args.lookahead)
        vr = evaluate(net, val_data, only=val_real,
                      lookahead=args.lookahead) if val_real else va
        score = vr[1] + SELECT_SPEECH_WEIGHT * vr[3]
        sched.step()
        elapsed = time.time() - start
        log.append({"epoch": epoch, "train": tr.tolist(), "val": va.tolist(),
                    "val_real": vr.tolist(), "score": score,
                    "seconds": elapsed})
        print("epoch %3d  train %.4f (gain %.4f vad %.4f)  val %.4f (gain "
              "%.4f vad %.4f, speech lost %.2f dB)  real: gain %.4f, speech "
              "lost %.2f dB, score %.4f  %.0f s"
              % ((epoch,) + tuple(tr) + tuple(va) + (vr[1], vr[3], score,
                                                     time.time() - t0)),
              flush=True)
        ckpt = {"sizes": net.sizes, "state_dict": net.state_dict(),
                "frame_config": cfg, "epoch": epoch, "log": log,
                "args": vars(args), "lookahead": args.lookahead}
        if args.epoch_checkpoints:
            torch.save(ckpt, "%s-e%d.pt" % (os.path.splitext(args.out)[0],
                                            epoch))
        if best is None or score < best["score"]:
            best = log[-1]
            torch.save(ckpt, args.out)
        per_epoch = elapsed / epoch
        if elapsed + per_epoch > args.minutes * 60:
            print("train: stopping, the next epoch would pass %.0f min"
                  % args.minutes)
            break

    # Keep the whole log in the saved (best) checkpoint.
    ckpt = torch.load(args.out)
    ckpt["log"] = log
    ckpt["train_seconds"] = time.time() - start
    ckpt["data"] = {"train_frames": int(len(train_data.vad)),
                    "train_sequences": int(len(train_data.lengths)),
                    "val_frames": int(len(val_data.vad)),
                    "val_sequences": int(len(val_data.lengths))}
    torch.save(ckpt, args.out)
    print("train: best epoch %d, score %.4f, val loss %.4f (train %.4f), "
          "%.1f min; %s"
          % (best["epoch"], best["score"], best["val"][0], best["train"][0],
             ckpt["train_seconds"] / 60, json.dumps(ckpt["data"])))


if __name__ == "__main__":
    main()
