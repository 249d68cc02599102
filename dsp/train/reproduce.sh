#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Reproduce the shipped models: recorded sources -> synthesise -> features ->
# train (three stages) -> export -> check, deterministic from the seed; then
# the 16 kHz model from the 48 kHz one.
#
# Stage 1 trains from scratch on the mixtures (-5..20 dB). Stage 2 starts
# from stage 1's checkpoint and trains on twice as many mixtures (a second
# set synthesised from seed SEED + 1: other utterances, noise excerpts,
# SNRs, colourings and rooms), each of them also with its noise 6-25 dB
# lower and a quarter nearly clean (snr_variants.py), with a larger weight
# on speech taken away: a network that never hears quiet noise takes
# something from every voice, and one that sees the same mixtures again
# and again learns them rather than speech. Stages 3 and 4 each start from
# the stage before, add one more set (seeds SEED + 2, SEED + 3) with its
# variants, continue the learning-rate decay and weigh speech a little
# more: more voices and rooms rather than more passes over the same ones,
# whose validation score had stopped improving.
#
# From stage PITCH_STAGE (3) on, the network also reads the pitch
# correlation of each band (feature layout 3, docs/dsp-frames.md): the stage
# before's network is extended by transfer.py with zero weights on the new
# inputs (the same gains at first), then that stage and the later ones
# learn from layout-3 features of the same mixtures (BUILD_DIR/train-data/l3).
#
# The 16 kHz model (calls and VoIP run at 16 kHz) learns from the same
# mixtures, decimated to 16 kHz by rnndenoise-features --rate, with the
# 16 kHz bands of feature layout LAYOUT. It starts from the 48 kHz network
# without pitch features at the last stage (so that chain is trained to the
# end too) (transfer.py: its GRUs, its input layer through a feature map
# fitted on the paired frames, its gain rows at the new band centres) rather
# than from scratch, and learns from every set the last 48 kHz stage learnt
# from.
#
# A wide stage (WIDE_EPOCHS > 0) follows the last stage at 48 kHz: its
# network widened to WIDE_SIZES (widen.py: the same outputs at first)
# learns from a fresh set (seed SEED + 4) with its variants and the first
# set again. The 16 kHz model still starts from the narrower network.
# A fine-tune stage (FINETUNE_EPOCHS > 0) follows it: the wide network
# learns, at a lower rate, from another fresh set (seed SEED + 5) whose
# recorded voices are played at speeds drawn from FINETUNE_SPEED (synth.py
# --real-speed: pitch and formants move, more voices from the same
# recordings), with its variants and the wide stage's set again; then, in a
# second round (FINETUNE_EPOCHS2 > 0), from one more such set (seed
# SEED + 7) with its variants and the first round's set again, and so on
# up to an eighth round (seeds SEED + 8 ... SEED + 13; FINETUNE_EPOCHS3
# ... FINETUNE_EPOCHS8; a ninth and a tenth round, alike, were measured
# and did not improve on the eighth: docs/model.md). From round
# ADDED_NOISES_ROUND on, the fresh sets hold split.txt's added noise kinds
# too (synth.py --added-noises: recordings found after the earlier sets
# were made, which stay as they were); from round NOISE_AUGMENT_ROUND on,
# their recorded noise is augmented (synth.py --noise-augment: other
# speeds, random equalisers, sudden events). From round LOOKAHEAD_ROUND
# on, the network reads LOOKAHEAD frames ahead (train.py --lookahead: the
# model file's lookahead, LOOKAHEAD hops more latency), the new input
# weights starting from zero and learning at LOOKAHEAD_LR; at 48 kHz that
# round weighs speech LOOKAHEAD_SPEECH_WEIGHT48 in the loss and starts from
# the round before's network read back from its float32 file (widen.py at
# the same sizes, which unfolds the input normalisation with the round's
# set's statistics), as the shipped 48 kHz model was made. From round
# ENERGY_WEIGHT_ROUND on, the 48 kHz rounds weigh the loss's speech term by
# each band's speech energy (train.py --energy-weight ENERGY_WEIGHT48), the
# 16 kHz rounds by ENERGY_WEIGHT16.
# The rounds' networks are all scored on the selection mixtures (below);
# the one kept at 48 kHz is round KEEP_ROUND48's, at 16 kHz round
# KEEP_ROUND16's (or the last round run, if fewer ran). The 48 kHz model
# file names SPEECH_PROTECTION48, the speech protection the element starts
# with (export.py --speech-protection; chosen on the selection mixtures
# for the network as it ships, with its head trained with it: 0.75);
# the 16 kHz file names SPEECH_PROTECTION16 (empty: a version 1 file,
# which stands for 1; chosen the same way: 1). At 16 kHz the networks of
# rounds AVERAGE16_ROUNDS are averaged with the start the stretch of
# rounds they close read back
# from a float32 file (average.py, the round's share AVERAGE16; empty: not
# averaged), and the round after an average goes on from it: on the
# selection mixtures the fifth round's average kept its gain over unheard
# noise without its loss on the trained kinds, and the seventh's (rounds
# 6 and 7 from the fifth's average) lost less speech than the fifth's.
#
# The kept networks then get a bin-gain head each (HEAD_EPOCHS > 0): a
# dense layer on the last GRU that corrects the gains of the bins below
# 1 kHz, trained by bin_head.py on one more fresh set (seed SEED + 15, at
# 16 kHz decimated) with the network frozen; the files without it stay as
# -nohead.
#
# Which round is kept was chosen on the selection mixtures (synth.py
# --selection: recorded voices that neither training, validation nor the
# test hears, split.txt's selection-real-speech), not on the validation
# score, which reads voices the network has heard: every round's network is
# exported and scored there by ablation.py, and the table goes to
# DATA/selection-48k.md (and selection-16k.md) next to the models.
#
# The 16 kHz model then takes the same fine-tune rounds (FINETUNE16=yes):
# the same sets decimated to 16 kHz, the same learning rates and seeds, its
# own narrower network kept (a wider one would cost more CPU than
# speexdsp at 16 kHz). The first round starts from the 16 kHz model's
# float32 file, read back by widen.py at the same sizes, which unfolds the
# input normalisation with the round's set's statistics (the 16 kHz model
# was made from the file shipped before it that way: the same network, its
# first layer parameterised anew); the rounds after it from the round
# before's checkpoint, except round ENERGY_WEIGHT_ROUND and the round after
# an averaged one, which start from the network before them read back
# from its float32 file the same way (the shipped 16 kHz model's fifth
# round started from the fourth's shipped file, its sixth from the fifth's
# average as shipped before it).
#
#   dsp/train/reproduce.sh [BUILD_DIR] [--smoke]
#
# BUILD_DIR is a meson build dir (default: build; set up if missing). All
# generated data goes to BUILD_DIR/train-data/ (Debian data packages with
# recorded speech and noise, audio, features, checkpoint, model files);
# nothing is written into the source tree. --smoke makes a few minutes of
# audio and trains for 2 epochs, to test the chain.
#
# Settings (environment): SEED (1), TRAIN_MINUTES (150), VAL_MINUTES (12),
# TEST_SECONDS (10), EPOCHS (stage 1, 10), EPOCHS2, EPOCHS3, EPOCHS4
# (stages 2-4: 3, 2, 0; 0 ends the chain before that stage), LR2, LR3, LR4
# (0.001, 0.0007, 0.0005), SPEECH_WEIGHT2, SPEECH_WEIGHT3, SPEECH_WEIGHT4
# (6, 8, 8), EPOCHS16, LR16, SPEECH_WEIGHT16 (the 16 kHz model: 2,
# 0.001, 8; 0 epochs skips it), TRAIN_BUDGET (600, minutes of training
# wall time per stage: training stops early rather than pass it, and
# EPOCHS=K reproduces a run so stopped after K epochs exactly), LAYOUT
# (feature layout, 2), PITCH_STAGE (the first stage with feature layout 3:
# 3; 0 never), SIZES (dense, GRU, GRU units: 64,96,128), WIDE_EPOCHS,
# WIDE_SIZES, WIDE_LR, WIDE_SPEECH_WEIGHT (the wide stage: 1, 64,128,160,
# 0.0004, 8; 0 epochs skips it), FINETUNE_EPOCHS, FINETUNE_LR,
# FINETUNE_SPEED (the fine-tune stage after it: 1, 0.0002, 0.9,1.1; 0
# epochs skips it), FINETUNE_EPOCHS2, FINETUNE_LR2 (its second round: 1,
# 0.00015; 0 epochs ends the stage before it), FINETUNE_EPOCHS3,
# FINETUNE_LR3 (its third round: 1, 0.0001), FINETUNE_EPOCHS4, FINETUNE_LR4
# (its fourth round: 1, 0.00007), FINETUNE_EPOCHS5, FINETUNE_LR5 (its
# fifth round: 1, 0.00005), FINETUNE_EPOCHS6 ... FINETUNE_EPOCHS8,
# FINETUNE_LR6 ... FINETUNE_LR8 (its sixth to eighth rounds: 1 each,
# 0.000035, 0.000025, 0.0000175), ADDED_NOISES_ROUND (the first round
# whose set has the added noise kinds: 4), NOISE_AUGMENT_ROUND (the first round whose
# set has augmented recorded noise: 5), LOOKAHEAD_ROUND, LOOKAHEAD,
# LOOKAHEAD_LR (the first round whose network reads frames ahead, how
# many, and the learning rate of their input weights: 4, 1, 0.001),
# LOOKAHEAD_SPEECH_WEIGHT48 (the speech weight of the 48 kHz rounds from
# LOOKAHEAD_ROUND on: 16), ENERGY_WEIGHT_ROUND, ENERGY_WEIGHT48 (the first
# round whose speech term is weighed by the speech energy, and the power
# at 48 kHz: 5, 0.5), ENERGY_WEIGHT16 (that power at 16 kHz: 0.5),
# KEEP_ROUND48, KEEP_ROUND16 (the fine-tune round whose network ships at
# each rate: 8, 7), AVERAGE16_ROUNDS (the 16 kHz rounds averaged with
# their stretch's read-back start: "5 7"), AVERAGE16 (an averaged round's
# share: 0.5; empty: none averaged), SPEECH_PROTECTION48,
# SPEECH_PROTECTION16 (the speech protection each model file names: 0.75,
# 1), FINETUNE16 (yes: the 16 kHz model takes the fine-tune rounds too;
# no), FINETUNE16_ROUNDS (how many of them: 7),
# HEAD_EPOCHS, HEAD_SPEECH_WEIGHT (each model's bin-gain head: 3 epochs,
# speech weight 2; 0 epochs: no head), HEAD_BINS (the bins it corrects:
# 20), HEAD_MINUTES (its set's mixtures: 240), HEAD_JOINT_EPOCHS48,
# HEAD_JOINT_EPOCHS16 (epochs the head then trains on with the network at
# each rate: 2, 2), HEAD_JOINT_LR (the network's learning rate then:
# 0.00003), HEAD_BAND_WEIGHT (the band loss's weight then: 4),
# BAND_JOINT_LRS48, BAND_JOINT_LRS16 (the band steps below: the network's
# learning rate in each, one step per value; empty: none. 48 kHz:
# "0.00003 0.0001 0.0001", 16 kHz: "0.00003 0.0001"), BAND_LAST_SHARE48,
# BAND_LAST_SHARE16 (the last band step's share when its network is
# averaged with the one it started from: 0.5 at 48 kHz, 1 at 16 kHz, where
# 1 keeps the last step as it is), BAND_FRESH_LRS48, BAND_FRESH_LRS16 (band
# steps after those, on a fresh set with the added recorded speech; empty:
# none. "0.0001" at each rate), BAND_FRESH_SHARE48,
# BAND_FRESH_SHARE16 (their last step's share: 0.5), BAND_FRESH_PROTECTION48,
# BAND_FRESH_PROTECTION16 (the speech protection their file then names:
# 1 at 48 kHz, 1.25 at 16 kHz; empty: the one it named),
# BAND_CROWD_LRS48, BAND_CROWD_LRS16 (a band step after those, on a
# fresh set with crowd babble and a wider head; empty: none. "0.0001" at
# each rate), BAND_CROWD_BINS (the bins its head corrects: 80),
# BAND_CROWD_SHARE (its share when averaged with its start: 0.5),
# BAND_CROWD_PROTECTION (the speech protection its file names: 1.25),
# BAND_CROWD2_LRS48, BAND_CROWD2_LRS16 (the same step once more, on a
# fresh crowd set; empty: none. "0.0001" at 48 kHz, none at 16 kHz),
# BAND_CROWD3_LRS48, BAND_CROWD3_LRS16 (once more, on another fresh crowd
# set; empty: none. None at 48 kHz, "0.0001" at 16 kHz),
# BAND_CROWD3_SPEECH_WEIGHT16 (its band speech weight at 16 kHz, and the
# fourth's: 16, the 48 kHz steps'),
# BAND_CROWD4_LRS48, BAND_CROWD4_LRS16 (once more, on one more fresh crowd
# set, with a head of BAND_CROWD4_BINS bins; empty: none. "0.0001" at
# each rate), BAND_CROWD4_BINS (160: 0-8 kHz),
# BAND_CROWD5_LRS48, BAND_CROWD5_LRS16 (once more, on one more fresh crowd
# set whose steady-noise pairs are learnt again at low SNR, with the head
# of BAND_CROWD4_BINS bins; empty: none; none at either rate),
# BAND_CROWD5_MIN_LIMIT (no low-SNR copies of its pairs band-limited
# below it, in Hz: 0, copies of every band limit),
# SHIPPED_PROTECTION (the speech protection the shipped files name in the
# end, their networks unchanged: 1; empty: the last step's),
# BAND_LATER_HEAD_EPOCHS (the frozen head
# epochs of the band steps after the first: 2), BAND_JOINT_EPOCHS (their
# epochs with the network: 2),
# SELECTION (yes: score every round on
# the selection mixtures; no), JOBS (2).
# Needs Debian's python3-torch, python3-scipy, python3-numpy, python3-soundfile,
# espeak-ng, flite, festival, festvox-kallpc16k, festvox-kdlpc16k and
# festvox-us-slt-hts, and apt-get download access to the data packages
# that dsp/train/sources.py lists.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
BUILD=build
SMOKE=no
for arg in "$@"; do
  case "$arg" in
    --smoke) SMOKE=yes ;;
    -h|--help) sed -n '2,100p' "$0"; exit 0 ;;
    *) BUILD=$arg ;;
  esac
done
case "$BUILD" in
  /*) ;;
  *) BUILD="$SRC/$BUILD" ;;
esac

SEED=${SEED:-1}
JOBS=${JOBS:-2}
LAYOUT=${LAYOUT:-2}
PITCH_STAGE=${PITCH_STAGE:-3}
SIZES=${SIZES:-64,96,128}
LR2=${LR2:-0.001}
LR3=${LR3:-0.0007}
LR4=${LR4:-0.0005}
SPEECH_WEIGHT2=${SPEECH_WEIGHT2:-6}
SPEECH_WEIGHT3=${SPEECH_WEIGHT3:-8}
SPEECH_WEIGHT4=${SPEECH_WEIGHT4:-8}
WIDE_SIZES=${WIDE_SIZES:-64,128,160}
WIDE_LR=${WIDE_LR:-0.0004}
WIDE_SPEECH_WEIGHT=${WIDE_SPEECH_WEIGHT:-8}
FINETUNE_LR=${FINETUNE_LR:-0.0002}
FINETUNE_LR2=${FINETUNE_LR2:-0.00015}
FINETUNE_LR3=${FINETUNE_LR3:-0.0001}
FINETUNE_LR4=${FINETUNE_LR4:-0.00007}
FINETUNE_LR5=${FINETUNE_LR5:-0.00005}
FINETUNE_LR6=${FINETUNE_LR6:-0.000035}
FINETUNE_LR7=${FINETUNE_LR7:-0.000025}
FINETUNE_LR8=${FINETUNE_LR8:-0.0000175}
SELECTION=${SELECTION:-yes}
FINETUNE_SPEED=${FINETUNE_SPEED:-0.9,1.1}
ADDED_NOISES_ROUND=${ADDED_NOISES_ROUND:-4}
NOISE_AUGMENT_ROUND=${NOISE_AUGMENT_ROUND:-5}
LOOKAHEAD_ROUND=${LOOKAHEAD_ROUND:-4}
LOOKAHEAD=${LOOKAHEAD:-1}
LOOKAHEAD_LR=${LOOKAHEAD_LR:-0.001}
LOOKAHEAD_SPEECH_WEIGHT48=${LOOKAHEAD_SPEECH_WEIGHT48:-16}
ENERGY_WEIGHT_ROUND=${ENERGY_WEIGHT_ROUND:-5}
ENERGY_WEIGHT48=${ENERGY_WEIGHT48:-0.5}
ENERGY_WEIGHT16=${ENERGY_WEIGHT16:-0.5}
KEEP_ROUND48=${KEEP_ROUND48:-8}
KEEP_ROUND16=${KEEP_ROUND16:-7}
AVERAGE16=${AVERAGE16-0.5}
AVERAGE16_ROUNDS=${AVERAGE16_ROUNDS-5 7}
SPEECH_PROTECTION48=${SPEECH_PROTECTION48-0.75}
SPEECH_PROTECTION16=${SPEECH_PROTECTION16-1}
LR16=${LR16:-0.001}
FINETUNE16=${FINETUNE16:-yes}
FINETUNE16_ROUNDS=${FINETUNE16_ROUNDS:-7}
SPEECH_WEIGHT16=${SPEECH_WEIGHT16:-8}
HEAD_BINS=${HEAD_BINS:-20}
HEAD_SPEECH_WEIGHT=${HEAD_SPEECH_WEIGHT:-2}
HEAD_JOINT_EPOCHS48=${HEAD_JOINT_EPOCHS48:-2}
HEAD_JOINT_EPOCHS16=${HEAD_JOINT_EPOCHS16:-2}
HEAD_JOINT_LR=${HEAD_JOINT_LR:-0.00003}
HEAD_BAND_WEIGHT=${HEAD_BAND_WEIGHT:-4}
BAND_JOINT_LRS48=${BAND_JOINT_LRS48-0.00003 0.0001 0.0001}
BAND_JOINT_LRS16=${BAND_JOINT_LRS16-0.00003 0.0001}
BAND_LAST_SHARE48=${BAND_LAST_SHARE48:-0.5}
BAND_LAST_SHARE16=${BAND_LAST_SHARE16:-1}
BAND_FRESH_LRS48=${BAND_FRESH_LRS48-0.0001}
BAND_FRESH_LRS16=${BAND_FRESH_LRS16-0.0001}
BAND_FRESH_SHARE48=${BAND_FRESH_SHARE48:-0.5}
BAND_FRESH_SHARE16=${BAND_FRESH_SHARE16:-0.5}
BAND_FRESH_PROTECTION48=${BAND_FRESH_PROTECTION48-1}
BAND_FRESH_PROTECTION16=${BAND_FRESH_PROTECTION16-1.25}
BAND_CROWD_LRS48=${BAND_CROWD_LRS48-0.0001}
BAND_CROWD_LRS16=${BAND_CROWD_LRS16-0.0001}
BAND_CROWD_BINS=${BAND_CROWD_BINS:-80}
BAND_CROWD_SHARE=${BAND_CROWD_SHARE:-0.5}
BAND_CROWD_PROTECTION=${BAND_CROWD_PROTECTION-1.25}
BAND_CROWD2_LRS48=${BAND_CROWD2_LRS48-0.0001}
BAND_CROWD2_LRS16=${BAND_CROWD2_LRS16-}
BAND_CROWD3_LRS48=${BAND_CROWD3_LRS48-}
BAND_CROWD3_LRS16=${BAND_CROWD3_LRS16-0.0001}
BAND_CROWD3_SPEECH_WEIGHT16=${BAND_CROWD3_SPEECH_WEIGHT16:-16}
BAND_CROWD4_LRS48=${BAND_CROWD4_LRS48-0.0001}
BAND_CROWD4_LRS16=${BAND_CROWD4_LRS16-0.0001}
BAND_CROWD4_BINS=${BAND_CROWD4_BINS:-160}
BAND_CROWD5_LRS48=${BAND_CROWD5_LRS48-}
BAND_CROWD5_LRS16=${BAND_CROWD5_LRS16-}
BAND_CROWD5_MIN_LIMIT=${BAND_CROWD5_MIN_LIMIT:-0}
SHIPPED_PROTECTION=${SHIPPED_PROTECTION-1}
BAND_LATER_HEAD_EPOCHS=${BAND_LATER_HEAD_EPOCHS:-2}
BAND_JOINT_EPOCHS=${BAND_JOINT_EPOCHS:-2}
if [ "$SMOKE" = yes ]; then
  TRAIN_MINUTES=${TRAIN_MINUTES:-4}
  VAL_MINUTES=${VAL_MINUTES:-1}
  TEST_SECONDS=${TEST_SECONDS:-4}
  EPOCHS=${EPOCHS:-2}
  EPOCHS2=${EPOCHS2:-1}
  EPOCHS3=${EPOCHS3:-1}
  EPOCHS4=${EPOCHS4:-1}
  EPOCHS16=${EPOCHS16:-1}
  WIDE_EPOCHS=${WIDE_EPOCHS:-1}
  FINETUNE_EPOCHS=${FINETUNE_EPOCHS:-1}
  FINETUNE_EPOCHS2=${FINETUNE_EPOCHS2:-1}
  FINETUNE_EPOCHS3=${FINETUNE_EPOCHS3:-1}
  FINETUNE_EPOCHS4=${FINETUNE_EPOCHS4:-1}
  FINETUNE_EPOCHS5=${FINETUNE_EPOCHS5:-1}
  FINETUNE_EPOCHS6=${FINETUNE_EPOCHS6:-1}
  FINETUNE_EPOCHS7=${FINETUNE_EPOCHS7:-1}
  FINETUNE_EPOCHS8=${FINETUNE_EPOCHS8:-1}
  HEAD_EPOCHS=${HEAD_EPOCHS:-1}
  HEAD_MINUTES=${HEAD_MINUTES:-$TRAIN_MINUTES}
  TRAIN_BUDGET=${TRAIN_BUDGET:-10}
  DATA="$BUILD/train-data/smoke"
else
  TRAIN_MINUTES=${TRAIN_MINUTES:-150}
  VAL_MINUTES=${VAL_MINUTES:-12}
  TEST_SECONDS=${TEST_SECONDS:-10}
  EPOCHS=${EPOCHS:-10}
  EPOCHS2=${EPOCHS2:-3}
  EPOCHS3=${EPOCHS3:-2}
  # Stage 4 scored worse than stage 3 and is not in the shipped model.
  EPOCHS4=${EPOCHS4:-0}
  EPOCHS16=${EPOCHS16:-2}
  WIDE_EPOCHS=${WIDE_EPOCHS:-1}
  FINETUNE_EPOCHS=${FINETUNE_EPOCHS:-1}
  FINETUNE_EPOCHS2=${FINETUNE_EPOCHS2:-1}
  FINETUNE_EPOCHS3=${FINETUNE_EPOCHS3:-1}
  # The eighth round ships at 48 kHz (KEEP_ROUND48); the seventh, averaged
  # with the fifth's average, at 16 kHz (KEEP_ROUND16, FINETUNE16_ROUNDS,
  # AVERAGE16_ROUNDS).
  FINETUNE_EPOCHS4=${FINETUNE_EPOCHS4:-1}
  FINETUNE_EPOCHS5=${FINETUNE_EPOCHS5:-1}
  FINETUNE_EPOCHS6=${FINETUNE_EPOCHS6:-1}
  FINETUNE_EPOCHS7=${FINETUNE_EPOCHS7:-1}
  FINETUNE_EPOCHS8=${FINETUNE_EPOCHS8:-1}
  HEAD_EPOCHS=${HEAD_EPOCHS:-3}
  HEAD_MINUTES=${HEAD_MINUTES:-240}
  TRAIN_BUDGET=${TRAIN_BUDGET:-600}
  DATA="$BUILD/train-data"
fi
# Debian's interpreter, which has python3-torch (not whatever is first on
# PATH).
PY=/usr/bin/python3
FEATURES="$BUILD/dsp/train/rnndenoise-features"
FORWARD="$BUILD/dsp/train/rnndenoise-forward"
MODEL_TOOL="$BUILD/dsp/rnndenoise-model"

step() {
  echo
  echo "== $* ($(date +%H:%M:%S))"
}

step "build the tools in $BUILD"
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" "$SRC"
fi
ninja -C "$BUILD" dsp/train/rnndenoise-features dsp/train/rnndenoise-forward \
    dsp/rnndenoise-model

REAL="$BUILD/train-data/real"
step "recorded speech and noise from Debian data packages into $REAL"
$PY "$HERE/sources.py" "$REAL" --jobs "$JOBS"

AUDIO="$DATA/audio"
STAMP="seed=$SEED train=$TRAIN_MINUTES val=$VAL_MINUTES test=$TEST_SECONDS"
STAMP="$STAMP split=$(cksum < "$HERE/split.txt" | cut -d' ' -f1)"
STAMP="$STAMP code=$(cat "$HERE/synth.py" "$HERE/tts.py" "$HERE/noises.py" \
    "$HERE/sources.py" "$REAL/catalogue.tsv" | cksum | cut -d' ' -f1)"
step "synthesise mixtures into $AUDIO ($STAMP)"
if [ -f "$AUDIO/stamp" ] && [ "$(cat "$AUDIO/stamp")" = "$STAMP" ]; then
  echo "up to date, kept"
else
  rm -rf "$AUDIO"
  mkdir -p "$AUDIO"
  $PY "$HERE/synth.py" "$AUDIO" --seed "$SEED" \
      --train-minutes "$TRAIN_MINUTES" --val-minutes "$VAL_MINUTES" \
      --test-seconds "$TEST_SECONDS" --jobs "$JOBS" --real "$REAL"
  echo "$STAMP" > "$AUDIO/stamp"
fi

# Stages 2, 3, 4 each add a training set, synthesised from seed
# SEED + k - 1 for stage k (other utterances, noise excerpts, SNRs,
# colourings and rooms; only its training set is used: the smallest
# validation and test sets), and learn from all sets so far with their
# higher-SNR variants, starting from the stage before's checkpoint. A stage
# with 0 epochs ends the chain there.
stage_setting () {  # STAGE NAME: the value of NAME<STAGE>, e.g. LR3
  eval "echo \"\$$2$1\""
}
LAST_STAGE=1
for k in 2 3 4; do
  [ "$(stage_setting $k EPOCHS)" -gt 0 ] || break
  LAST_STAGE=$k
done

extra_set () {  # SEED DIR [SPEED [ADDED [AUGMENT [MINUTES [SPEECH [MORE]]]]]]:
  # recorded voices at speeds in SPEED; ADDED=yes: split.txt's added noise
  # kinds too; AUGMENT=yes: recorded noise augmented; MINUTES of mixtures
  # (TRAIN_MINUTES if not given); SPEECH=yes: split.txt's added recorded
  # speech too; MORE: more synth.py options (e.g. "--crowds")
  minutes=${6:-$TRAIN_MINUTES}
  stamp="$(echo "$STAMP" | sed "s/^seed=$SEED /seed=$1 /")"
  stamp="$(echo "$stamp" | sed "s/ train=$TRAIN_MINUTES / train=$minutes /")"
  options=
  if [ $# -ge 3 ]; then
    stamp="$stamp speed=$3"
    options="--real-speed $3"
  fi
  if [ "${4:-no}" = yes ]; then
    stamp="$stamp added-noises"
    options="$options --added-noises"
  fi
  if [ "${5:-no}" = yes ]; then
    stamp="$stamp noise-augment"
    options="$options --noise-augment"
  fi
  if [ "${7:-no}" = yes ]; then
    stamp="$stamp added-speech"
    options="$options --added-speech"
  fi
  if [ -n "${8:-}" ]; then
    stamp="$stamp $8"
    options="$options $8"
  fi
  step "synthesise the training set of seed $1 into $2"
  if [ -f "$2/stamp" ] && [ "$(cat "$2/stamp")" = "$stamp" ]; then
    echo "up to date, kept"
  else
    rm -rf "$2"
    mkdir -p "$2"
    # shellcheck disable=SC2086 # options: empty, or options and values
    $PY "$HERE/synth.py" "$2" --seed "$1" \
        --train-minutes "$minutes" --val-minutes 1 --test-seconds 2 \
        --jobs "$JOBS" --real "$REAL" $options
    echo "$stamp" > "$2/stamp"
  fi
}
k=2
while [ "$k" -le "$LAST_STAGE" ]; do
  extra_set $((SEED + k - 1)) "$DATA/audio-seed$((SEED + k - 1))"
  k=$((k + 1))
done

# Stages from PITCH_STAGE on read feature layout 3 (layout $LAYOUT plus
# the pitch correlation per band, docs/dsp-frames.md), made from the same
# lists into $DATA/l3.
PITCH=no
if [ "$PITCH_STAGE" -ge 2 ] && [ "$PITCH_STAGE" -le "$LAST_STAGE" ]; then
  PITCH=yes
fi
# Stage k learns, in this order: train.rndf, its higher-SNR variants, then
# each later set and its higher-SNR variants (each list's gains drawn from
# its own seed).
all_features () {  # LAYOUT DIR
  step "features and targets (the element's C feature code, layout $1)"
  mkdir -p "$2"
  for set in train val test test-real; do
    "$FEATURES" --layout "$1" --list "$AUDIO/$set/list.txt" "$2/$set.rndf"
  done
  if [ "$LAST_STAGE" -ge 2 ]; then
    "$FEATURES" --layout "$1" --list "$AUDIO/train/list-snr.txt" \
        "$2/train-snr.rndf"
  fi
  k=2
  while [ "$k" -le "$LAST_STAGE" ]; do
    list="$DATA/audio-seed$((SEED + k - 1))/train/list.txt"
    "$FEATURES" --layout "$1" --list "$list" "$2/train$k.rndf"
    "$FEATURES" --layout "$1" --list "${list%.txt}-snr.txt" \
        "$2/train$k-snr.rndf"
    k=$((k + 1))
  done
}
if [ "$LAST_STAGE" -ge 2 ]; then
  $PY "$HERE/snr_variants.py" "$AUDIO/train/list.txt" \
      "$AUDIO/train/list-snr.txt" --seed "$SEED"
fi
k=2
while [ "$k" -le "$LAST_STAGE" ]; do
  list="$DATA/audio-seed$((SEED + k - 1))/train/list.txt"
  $PY "$HERE/snr_variants.py" "$list" "${list%.txt}-snr.txt" \
      --seed $((SEED + k - 1))
  k=$((k + 1))
done
all_features "$LAYOUT" "$DATA"
[ "$PITCH" = no ] || all_features 3 "$DATA/l3"

step "train, stage 1 (at most $EPOCHS epochs, $TRAIN_BUDGET min)"
$PY "$HERE/train.py" "$DATA/train.rndf" "$DATA/val.rndf" \
    "$DATA/model-stage1.pt" \
    --seed "$SEED" --epochs "$EPOCHS" --minutes "$TRAIN_BUDGET" \
    --sizes "$SIZES" --val-manifest "$AUDIO/val/manifest.tsv"

train_stage () {  # STAGE DIR START.pt: DIR/model-stageSTAGE.pt
  files="--also $2/train-snr.rndf"
  j=2
  while [ "$j" -le "$1" ]; do
    files="$files --also $2/train$j.rndf --also $2/train$j-snr.rndf"
    j=$((j + 1))
  done
  epochs=$(stage_setting "$1" EPOCHS)
  weight=$(stage_setting "$1" SPEECH_WEIGHT)
  # Stage 2 shuffles with SEED, the later ones with their set's seed.
  seed=$SEED
  [ "$1" -eq 2 ] || seed=$((SEED + $1 - 1))
  step "train, stage $1 in $2 (at most $epochs epochs, speech weight $weight)"
  # shellcheck disable=SC2086 # files is a list of options
  $PY "$HERE/train.py" "$2/train.rndf" "$2/val.rndf" "$2/model-stage$1.pt" \
      $files --init "$3" --speech-weight "$weight" \
      --lr "$(stage_setting "$1" LR)" --seed "$seed" --epochs "$epochs" \
      --epoch-checkpoints --minutes "$TRAIN_BUDGET" \
      --val-manifest "$AUDIO/val/manifest.tsv"
}
# Without pitch: every stage. With it, the stages before PITCH_STAGE, and
# all of them when the 16 kHz model needs the last one (it starts from the
# network without pitch, as the shipped one did).
LAST_PLAIN=$LAST_STAGE
if [ "$PITCH" = yes ] && [ "$EPOCHS16" -eq 0 ]; then
  LAST_PLAIN=$((PITCH_STAGE - 1))
fi
k=2
while [ "$k" -le "$LAST_PLAIN" ]; do
  train_stage "$k" "$DATA" "$DATA/model-stage$((k - 1)).pt"
  k=$((k + 1))
done
# FINAL holds the last stage's features, in layout FINAL_LAYOUT.
FINAL="$DATA"
FINAL_LAYOUT=$LAYOUT
if [ "$PITCH" = yes ]; then
  step "layout 3 starts from stage $((PITCH_STAGE - 1)) (new inputs' weights 0)"
  $PY "$HERE/transfer.py" "$DATA/model-stage$((PITCH_STAGE - 1)).pt" \
      "$DATA/train.rndf" "$DATA/l3/train.rndf" "$DATA/l3/model-transfer.pt"
  start="$DATA/l3/model-transfer.pt"
  k=$PITCH_STAGE
  while [ "$k" -le "$LAST_STAGE" ]; do
    train_stage "$k" "$DATA/l3" "$start"
    start="$DATA/l3/model-stage$k.pt"
    k=$((k + 1))
  done
  FINAL="$DATA/l3"
  FINAL_LAYOUT=3
fi
MODEL48="$FINAL/model-stage$LAST_STAGE.pt"

# A fresh set for the stages after the last one: synthesised from SEED
# (recorded voices at speeds in SPEED if given), with its higher-SNR
# variants, as features of the last stage's layout in
# $FINAL/train-NAME.rndf and train-NAME-snr.rndf.
fresh_set () {  # SEED NAME [SPEED [ADDED [AUGMENT]]]
  extra_set "$1" "$DATA/audio-seed$1" ${3:+"$3"} ${4:+"$4"} ${5:+"$5"}
  list="$DATA/audio-seed$1/train/list.txt"
  $PY "$HERE/snr_variants.py" "$list" "${list%.txt}-snr.txt" --seed "$1"
  step "features of the set of seed $1 (layout $FINAL_LAYOUT)"
  "$FEATURES" --layout "$FINAL_LAYOUT" --list "$list" "$FINAL/train-$2.rndf"
  "$FEATURES" --layout "$FINAL_LAYOUT" --list "${list%.txt}-snr.txt" \
      "$FINAL/train-$2-snr.rndf"
}

# The wide stage: the last stage's network, widened to WIDE_SIZES by
# widen.py (new units whose outputs start at zero weight, so it starts with
# the same gains), learns from a fresh set (seed SEED + 4) with its
# variants and from the first set again.
if [ "$WIDE_EPOCHS" -gt 0 ]; then
  fresh_set $((SEED + 4)) wide
  step "widen stage $LAST_STAGE's network to $WIDE_SIZES"
  $PY "$HERE/widen.py" "$MODEL48" "$FINAL/train.rndf" \
      "$FINAL/model-widened.pt" --sizes "$WIDE_SIZES"
  step "train, wide stage (at most $WIDE_EPOCHS epochs)"
  $PY "$HERE/train.py" "$FINAL/train-wide.rndf" "$FINAL/val.rndf" \
      "$FINAL/model-wide.pt" --also "$FINAL/train-wide-snr.rndf" \
      --also "$FINAL/train.rndf" --init "$FINAL/model-widened.pt" \
      --speech-weight "$WIDE_SPEECH_WEIGHT" --lr "$WIDE_LR" \
      --seed $((SEED + 6)) --epochs "$WIDE_EPOCHS" --epoch-checkpoints \
      --minutes "$TRAIN_BUDGET" --val-manifest "$AUDIO/val/manifest.tsv"
  MODEL48="$FINAL/model-wide.pt"
fi

# The fine-tune stage: the wide network, at a lower rate, in up to eight
# rounds, each on a fresh set whose recorded voices speak at other speeds,
# with its variants and the set before again: round 1 on seed SEED + 5
# (after the wide stage's set), round K after it on seed SEED + 5 + K.
# Round 1 reads FINETUNE_EPOCHS and FINETUNE_LR, round K FINETUNE_EPOCHSK
# and FINETUNE_LRK; a round with 0 epochs ends the stage there.
round_set_seed () {  # K: the seed of round K's fresh set
  if [ "$1" -eq 1 ]; then echo $((SEED + 5)); else echo $((SEED + 5 + $1)); fi
}
round_train_seed () {  # K: the seed round K's training shuffles with
  if [ "$1" -eq 1 ]; then echo $((SEED + 7)); else echo $((SEED + 6 + $1)); fi
}
round_name () {  # K: tune, tune2, tune3, ...
  if [ "$1" -eq 1 ]; then echo tune; else echo "tune$1"; fi
}
round_added_noises () {  # K: yes if round K's set has the added kinds
  if [ "$1" -ge "$ADDED_NOISES_ROUND" ]; then echo yes; else echo no; fi
}
round_noise_augment () {  # K: yes if round K's set has augmented noise
  if [ "$1" -ge "$NOISE_AUGMENT_ROUND" ]; then echo yes; else echo no; fi
}
round_lookahead () {  # K: train.py's lookahead options for round K
  if [ "$1" -ge "$LOOKAHEAD_ROUND" ]; then
    echo "--lookahead $LOOKAHEAD --lookahead-lr $LOOKAHEAD_LR"
  fi
}
round_speech_weight48 () {  # K: the speech weight of round K at 48 kHz
  if [ "$1" -ge "$LOOKAHEAD_ROUND" ]; then
    echo "$LOOKAHEAD_SPEECH_WEIGHT48"
  else
    echo "$WIDE_SPEECH_WEIGHT"
  fi
}
round_energy_weight () {  # K POWER: train.py's energy weight options, round K
  if [ "$1" -ge "$ENERGY_WEIGHT_ROUND" ]; then
    echo "--energy-weight $2"
  fi
}
round_readback48 () {  # K: yes if round K at 48 kHz starts from a file
  if [ "$1" -eq "$LOOKAHEAD_ROUND" ]; then echo yes; else echo no; fi
}
kept_round () {  # KEEP LAST: round KEEP, or LAST if fewer rounds ran
  if [ "$1" -le "$2" ]; then echo "$1"; else echo "$2"; fi
}
is_listed () {  # WORD LIST: true if WORD is one of LIST's words
  case " $2 " in
    *" $1 "*) return 0 ;;
    *) return 1 ;;
  esac
}
round_setting () {  # K NAME: NAME for round 1, NAME<K> after it
  if [ "$1" -eq 1 ]; then eval "echo \"\$$2\""; else stage_setting "$1" "$2"; fi
}
LAST_ROUND=0
if [ "$WIDE_EPOCHS" -gt 0 ]; then
  for k in 1 2 3 4 5 6 7 8; do
    [ "$(round_setting $k FINETUNE_EPOCHS)" -gt 0 ] || break
    LAST_ROUND=$k
  done
fi
# The network of MODEL (a .pt file) as the element runs it: exported to
# its float32 file OUT-f32.rnnm, then read back into OUT.pt by widen.py at
# the same SIZES, which unfolds the input normalisation folded into the
# file with FEATURES's statistics (a features file in MODEL's layout, the
# next round's set: the normalisation train.py would use on it).
read_back () {  # MODEL FEATURES OUT SIZES
  $PY "$HERE/export.py" "$1" "$3-f32.rnnm"
  $PY "$HERE/widen.py" "$3-f32.rnnm" "$2" "$3.pt" --sizes "$4"
}
tune_round () {  # SET_SEED NAME PREVIOUS_NAME EPOCHS LR TRAIN_SEED ADDED
  # AUGMENT TRAIN_OPTIONS SPEECH_WEIGHT READBACK
  fresh_set "$1" "$2" "$FINETUNE_SPEED" "$7" "$8"
  if [ "${11}" = yes ]; then
    step "read the network before $2 back from its float32 file"
    read_back "$MODEL48" "$FINAL/train-$2.rndf" "$FINAL/model-before-$2" \
        "$WIDE_SIZES"
    MODEL48="$FINAL/model-before-$2.pt"
  fi
  step "train, fine-tune stage, $2 (at most $4 epochs, speech weight ${10})"
  # shellcheck disable=SC2086 # $9 is a list of options
  $PY "$HERE/train.py" "$FINAL/train-$2.rndf" "$FINAL/val.rndf" \
      "$FINAL/model-$2.pt" --also "$FINAL/train-$2-snr.rndf" \
      --also "$FINAL/train-$3.rndf" --init "$MODEL48" \
      --sizes "$WIDE_SIZES" --speech-weight "${10}" \
      --lr "$5" --seed "$6" --epochs "$4" --epoch-checkpoints \
      --minutes "$TRAIN_BUDGET" --val-manifest "$AUDIO/val/manifest.tsv" $9
  MODEL48="$FINAL/model-$2.pt"
  ROUNDS48="$ROUNDS48 $2"
}
ROUNDS48=
[ "$WIDE_EPOCHS" -eq 0 ] || ROUNDS48=wide
k=1
previous=wide
while [ "$k" -le "$LAST_ROUND" ]; do
  tune_round "$(round_set_seed $k)" "$(round_name $k)" "$previous" \
      "$(round_setting $k FINETUNE_EPOCHS)" "$(round_setting $k FINETUNE_LR)" \
      "$(round_train_seed $k)" "$(round_added_noises $k)" \
      "$(round_noise_augment $k)" \
      "$(round_lookahead $k) $(round_energy_weight $k "$ENERGY_WEIGHT48")" \
      "$(round_speech_weight48 $k)" "$(round_readback48 $k)"
  previous=$(round_name $k)
  k=$((k + 1))
done
if [ "$LAST_ROUND" -gt 0 ]; then
  MODEL48="$FINAL/model-$(round_name "$(kept_round "$KEEP_ROUND48" \
      "$LAST_ROUND")").pt"
fi
cp "$MODEL48" "$DATA/model.pt"

# Every round's network as an int8x8 file, scored on the selection
# mixtures; the table goes to OUT.
selection_table () {  # DIR RATE OUT ROUNDS...
  dir=$1 rate=$2 out=$3
  shift 3
  step "score the rounds ($*) on the selection mixtures at $rate Hz"
  models=
  for round in "$@"; do
    $PY "$HERE/export.py" "$dir/model-$round.pt" \
        "$dir/select-$round-f32.rnnm" --int8x8 "$dir/select-$round.rnnm"
    models="$models $round=$dir/select-$round.rnnm"
    # At 48 kHz each round at SPEECH_PROTECTION48 too (ablation.py's
    # @LIMIT@PROTECTION; 0 is no attenuation limit, the element's default).
    if [ "$rate" = 48000 ] && [ -n "$SPEECH_PROTECTION48" ]; then
      models="$models $round-p$SPEECH_PROTECTION48=$dir/select-$round.rnnm"
      models="$models@0@$SPEECH_PROTECTION48"
    fi
  done
  # shellcheck disable=SC2086 # models is a list of arguments
  $PY "$HERE/ablation.py" "$FORWARD" "$SELECT/select-real" $models \
      --rate "$rate" --jobs "$JOBS" | tee "$out"
  # The same voices over noise no round has heard (split.txt's
  # selection-noises).
  if [ -d "$SELECT/select-noise" ]; then
    printf '\nOver noise no round has heard (select-noise):\n\n' | tee -a "$out"
    # shellcheck disable=SC2086 # models is a list of arguments
    $PY "$HERE/ablation.py" "$FORWARD" "$SELECT/select-noise" $models \
        --rate "$rate" --jobs "$JOBS" | tee -a "$out"
  fi
}
# The selection mixtures: recorded voices no round has heard, over the
# training noise kinds (the held-out kinds stay for the test), and over
# split.txt's selection noise kinds, which no round trains on. Made once
# there are rounds (the wide stage's, then the fine-tune ones), so the
# 16 kHz rounds below find them too.
SELECT="$DATA/select"
if [ "$SELECTION" = yes ] && [ -n "$ROUNDS48" ]; then
  step "synthesise the selection mixtures into $SELECT"
  rm -rf "$SELECT"
  $PY "$HERE/synth.py" "$SELECT" --selection --seed "$SEED" \
      --test-seconds "$TEST_SECONDS" --jobs "$JOBS" --real "$REAL"
  # shellcheck disable=SC2086 # ROUNDS48 is a list of names
  selection_table "$FINAL" 48000 "$DATA/selection-48k.md" $ROUNDS48
fi

# The shipped files are the int8x8 variants (weights and inputs quantised,
# integer sums: about twice as fast, docs/model.md); their float32 twins
# (-f32) stay next to them for the benchmarks and the quality comparison.
step "export the float32 model and its int8x8 twin (the one shipped)"
# An empty SPEECH_PROTECTION48 or SPEECH_PROTECTION16 writes a version 1
# file, which names none.
protection_options () {  # SPEECH_PROTECTION
  [ -z "$1" ] || echo "--speech-protection $1"
}
# shellcheck disable=SC2046 # protection_options gives a list of options
$PY "$HERE/export.py" "$DATA/model.pt" "$DATA/rnndenoise-48k-f32.rnnm" \
    --int8x8 "$DATA/rnndenoise-48k.rnnm" \
    $(protection_options "$SPEECH_PROTECTION48")
"$MODEL_TOOL" info "$DATA/rnndenoise-48k.rnnm"

step "check the C inference against PyTorch on the held-out test features"
$PY "$HERE/check_export.py" "$DATA/model.pt" "$FINAL/test.rndf" "$FORWARD" \
    "$DATA/rnndenoise-48k-f32.rnnm" --int8x8 "$DATA/rnndenoise-48k.rnnm"
$PY "$HERE/check_export.py" "$DATA/model.pt" "$FINAL/test-real.rndf" \
    "$FORWARD" "$DATA/rnndenoise-48k-f32.rnnm" \
    --int8x8 "$DATA/rnndenoise-48k.rnnm"

# The bin-gain head: a dense layer on the last GRU whose outputs correct,
# in the logit domain, the interpolated band gains of the first HEAD_BINS
# bins (below 1 kHz: where the voice's first harmonics and hum lines sit
# inside one band; docs/model.md, "Per-bin gains below 1 kHz"). bin_head.py
# trains it with the network frozen, on one more fresh set (seed
# SEED + 15, HEAD_MINUTES of mixtures, its recorded voices at other speeds,
# the added and augmented noise), for the mean SDR of 5 s chunks of those
# bins plus a speech weight times the speech lost there in dB. With
# joint epochs, the head then trains on with the network on the same set
# (bin_head.py --joint-epochs: that loss plus HEAD_BAND_WEIGHT times the
# last round's band loss, which holds the bands above 1 kHz), so the GRU
# state learns what the head needs. The network's files get the head (the
# float32 file, and the shipped int8x8 file quantised from it by
# quantise.py); the files without it stay beside them as NAME-nohead, and
# both are scored on the selection mixtures.
HEAD_SEED=$((SEED + 15))
# bin_head.py's options for JOINT_EPOCHS of training with the network at
# learning rate LR (HEAD_JOINT_LR if not given), whose last round weighed
# speech BAND_SPEECH_WEIGHT at ENERGY_WEIGHT.
head_joint_options () {  # JOINT_EPOCHS BAND_SPEECH_WEIGHT ENERGY_WEIGHT [LR]
  [ "$1" -gt 0 ] || return 0
  echo "--joint-epochs $1 --joint-lr ${4:-$HEAD_JOINT_LR}" \
      "--band-weight $HEAD_BAND_WEIGHT --band-speech-weight $2" \
      "--energy-weight $3"
}
with_head () {  # NAME DIR RATE PROTECTION WEIGHT EPOCHS FEATURE_OPTIONS
  # JOINT_OPTIONS
  extra_set "$HEAD_SEED" "$DATA/audio-seed$HEAD_SEED" "$FINETUNE_SPEED" \
      yes yes "$HEAD_MINUTES"
  step "features of the head's set and the validation set, $HEAD_BINS bins ($7)"
  # shellcheck disable=SC2086 # $7 is a list of options
  "$FEATURES" $7 --bins "$HEAD_BINS" "$2/train-head.bins" \
      --list "$DATA/audio-seed$HEAD_SEED/train/list.txt" "$2/train-head.rndf"
  # shellcheck disable=SC2086 # $7 is a list of options
  "$FEATURES" $7 --bins "$HEAD_BINS" "$2/val-head.bins" \
      --list "$AUDIO/val/list.txt" "$2/val-head.rndf"
  cp "$DATA/$1.rnnm" "$DATA/$1-nohead.rnnm"
  cp "$DATA/$1-f32.rnnm" "$DATA/$1-nohead-f32.rnnm"
  step "train the bin-gain head of $1 ($6 epochs, speech weight $5; ${8:-frozen network})"
  # shellcheck disable=SC2086 # $8 is a list of options
  $PY "$HERE/bin_head.py" "$DATA/$1-nohead-f32.rnnm" "$2/train-head.rndf" \
      "$2/val-head.rndf" --heads hidden --loss chunks --speech-weight "$5" \
      --epochs "$6" --seed "$SEED" --save "$DATA/$1-f32.rnnm" $8
  $PY "$HERE/quantise.py" "$DATA/$1-f32.rnnm" "$DATA/$1.rnnm"
  "$MODEL_TOOL" info "$DATA/$1.rnnm"
  if [ "$SELECTION" = yes ] && [ -d "$SELECT/select-real" ]; then
    step "score $1 with and without its head on the selection mixtures"
    settings=
    [ -z "$4" ] || settings="@0@$4"
    for set in select-real select-noise; do
      [ -d "$SELECT/$set" ] || continue
      echo "$set:"
      $PY "$HERE/ablation.py" "$FORWARD" "$SELECT/$set" \
          "without=$DATA/$1-nohead.rnnm$settings" \
          "with=$DATA/$1.rnnm$settings" --rate "$3" --jobs "$JOBS"
    done | tee "$DATA/selection-$1-head.md"
  fi
}
# The band steps: real recordings often come with nothing above 3.4-19 kHz
# (a telephone, audio sampled at 11.025-24 kHz, a wideband codec, an MP3
# encoder), and a network that only ever heard full-band mixtures reads
# the empty bands as a cue it never learnt (docs/model.md, "Band-limited
# input"). Each model with its head takes more joint head steps as
# with_head's (bin_head.py, the same options; a new head first, HEAD_EPOCHS
# epochs on the frozen network in the first step, BAND_LATER_HEAD_EPOCHS
# in the later ones, seed SEED + the step's index, counted on over the
# calls for one model) on one more fresh set (seed SEED + 16, made as the
# head's) and half of its pairs again band-limited (band_variants.py:
# limits below the rate's Nyquist frequency; rnndenoise-features low-passes
# speech and noise there), its features computed as the processor
# computes them with level normalisation (--level-normalization): one
# step per learning rate of the network in BAND_JOINT_LRS48 or
# BAND_JOINT_LRS16, each from the step before; the last step's network is
# then averaged weight for weight with the one it started from, at its
# share BAND_LAST_SHARE48 or BAND_LAST_SHARE16 (average.py; 1: kept as it
# is; a half-way network kept most of a last step's gains on band-limited
# input and gave back its loss of STOI at full band; docs/model.md,
# "Band-limited input"). Then the steps of BAND_FRESH_LRS48 or
# BAND_FRESH_LRS16 go on the same way on another fresh set (seed
# SEED + 17), which also hears split.txt's added recorded speech (a
# telephone voice, as a call carries it), their last averaged at
# BAND_FRESH_SHARE48 or BAND_FRESH_SHARE16 and the file naming
# BAND_FRESH_PROTECTION48 or BAND_FRESH_PROTECTION16 (the average lost
# less speech than the model before it at protection 1 at 48 kHz and at
# 1.25 at 16 kHz, with as much ΔSI-SDR at full band; docs/model.md, "A
# band step on a fresh set with a telephone voice"). One more step,
# BAND_CROWD_LRS48 or BAND_CROWD_LRS16, goes on from there on a third
# fresh set (seed SEED + 18, with the telephone voice, crowd babble and
# babble as the main noise of a tenth of its mixtures: synth.py --crowds
# --babble-share 0.1) with a head of BAND_CROWD_BINS bins (0-4 kHz at
# both rates), averaged at BAND_CROWD_SHARE and naming
# BAND_CROWD_PROTECTION (at 48 kHz the same step with the 20-bin head
# gained nothing; docs/model.md, "A bin-gain head up to 4 kHz"), and
# BAND_CROWD2_LRS48 or BAND_CROWD2_LRS16 takes the same step once more on a
# fourth (seed SEED + 19): at 48 kHz it kept more speech and STOI for as
# much ΔSI-SDR as the protection would give, at 16 kHz it only moved along
# that trade-off (docs/model.md, "A second crowd step on a fresh set").
# BAND_CROWD3_LRS48 or BAND_CROWD3_LRS16 takes it once more on a fifth
# (seed SEED + 20), at 16 kHz with the band speech weight of the 48 kHz
# steps, BAND_CROWD3_SPEECH_WEIGHT16: at 16 kHz (from the model after its
# first crowd step) it went past the front, at 48 kHz (after its second,
# at its own weight) only along it (docs/model.md, "A third crowd step on
# a fresh set" and "A 16 kHz crowd step at the 48 kHz speech weight").
# BAND_CROWD4_LRS48 or BAND_CROWD4_LRS16 takes it once more on a sixth
# (seed SEED + 21) with a head of BAND_CROWD4_BINS bins: at 16 kHz a head
# over the whole band went past the front where a fourth step with the
# 80-bin head had not, and so did the same head (0-8 kHz) at 48 kHz, where
# a third step with the 80-bin head had not (docs/model.md, "A bin-gain
# head over the whole band at 16 kHz" and "A 160-bin head at 48 kHz").
# BAND_CROWD5_LRS48 or BAND_CROWD5_LRS16 takes it once more on a seventh
# (seed SEED + 22) whose pairs under steady noise at 0 dB SNR or more,
# full-band and band-limited, are listed once more with their noise raised
# to -5..3 dB SNR (lowsnr_variants.py): under steady noise at -5 dB the
# network hears no voice in whole frames of a quiet speaker
# (docs/model.md, "More quiet speech under steady noise"); none of the
# pairs band-limited below BAND_CROWD5_MIN_LIMIT (docs/model.md, "Low-SNR
# copies without the telephone band").
# The files
# before each call's first step stay beside them as NAME-before-seedS (S
# the call's set), and both are scored on the selection mixtures,
# full-band and band-limited (to 4 and 8 kHz at 48 kHz, to 3.4 and 5.5 kHz
# at 16 kHz).
BAND_SEED=$((SEED + 16))
BAND_FRESH_SEED=$((SEED + 17))
BAND_CROWD_SEED=$((SEED + 18))
BAND_CROWD2_SEED=$((SEED + 19))
BAND_CROWD3_SEED=$((SEED + 20))
BAND_CROWD4_SEED=$((SEED + 21))
BAND_CROWD5_SEED=$((SEED + 22))
CROWD_SYNTH="--crowds --babble-share 0.1"
band_steps () {  # NAME DIR RATE FEATURE_OPTIONS LRS BAND_SPEECH_WEIGHT
  # ENERGY_WEIGHT LIMITS LAST_SHARE SET_SEED ADDED_SPEECH [PROTECTION
  # [BINS [SYNTH_OPTIONS [LOW_SNR]]]]; the steps are counted on in
  # band_index (1 before a model's first call); a PROTECTION is the speech
  # protection the last step's file then names; BINS the bins the steps'
  # heads correct (HEAD_BINS if empty; a head wider than its start's is
  # averaged with the start's read as zero for the bins it lacks,
  # average.py); SYNTH_OPTIONS more synth.py options for the set; LOW_SNR
  # yes: the set's steady-noise pairs once more at low SNR
  # (lowsnr_variants.py)
  bins=${13:-$HEAD_BINS}
  extra_set "${10}" "$DATA/audio-seed${10}" "$FINETUNE_SPEED" \
      yes yes "$HEAD_MINUTES" "${11}" "${14:-}"
  list="$DATA/audio-seed${10}/train/list.txt"
  step "band-limited variants and features of seed ${10}'s set ($4)"
  $PY "$HERE/band_variants.py" "$list" "${list%.txt}-band$3.txt" \
      --seed "${10}" --rate "$3"
  cat "$list" "${list%.txt}-band$3.txt" > "${list%.txt}-mixband$3.txt"
  if [ "${15:-no}" = yes ]; then
    $PY "$HERE/lowsnr_variants.py" "$list" "${list%.txt}-lowsnr$3.txt" \
        --also "${list%.txt}-band$3.txt" --seed "${10}" \
        --min-band-limit "$BAND_CROWD5_MIN_LIMIT"
    cat "${list%.txt}-lowsnr$3.txt" >> "${list%.txt}-mixband$3.txt"
  fi
  # shellcheck disable=SC2086 # $4 is a list of options
  "$FEATURES" $4 --level-normalization --bins "$bins" \
      "$2/train-band.bins" --list "${list%.txt}-mixband$3.txt" \
      "$2/train-band.rndf"
  # shellcheck disable=SC2086 # $4 is a list of options
  "$FEATURES" $4 --level-normalization --bins "$bins" \
      "$2/val-band.bins" --list "$AUDIO/val/list.txt" "$2/val-band.rndf"
  before="$DATA/$1-before-seed${10}"
  cp "$DATA/$1.rnnm" "$before.rnnm"
  cp "$DATA/$1-f32.rnnm" "$before-f32.rnnm"
  for lr in $5; do
    # A new head each step: HEAD_EPOCHS frozen epochs in the first.
    head_epochs=$BAND_LATER_HEAD_EPOCHS
    [ "$band_index" -gt 1 ] || head_epochs=$HEAD_EPOCHS
    step "band step $band_index of $1 (the network at LR $lr)"
    cp "$DATA/$1-f32.rnnm" "$DATA/$1-band-start-f32.rnnm"
    # shellcheck disable=SC2046 # head_joint_options gives a list of options
    $PY "$HERE/bin_head.py" "$DATA/$1-band-start-f32.rnnm" \
        "$2/train-band.rndf" "$2/val-band.rndf" --heads hidden \
        --loss chunks --speech-weight "$HEAD_SPEECH_WEIGHT" \
        --epochs "$head_epochs" --seed "$((SEED + band_index - 1))" \
        --save "$DATA/$1-f32.rnnm" \
        $(head_joint_options "$BAND_JOINT_EPOCHS" "$6" "$7" "$lr")
    band_index=$((band_index + 1))
  done
  if [ "$9" != 1 ] || [ -n "${12:-}" ]; then
    # (A share of 1 gives the last step's network itself.)
    step "average the last band step of $1 with its start (its share $9)"
    cp "$DATA/$1-f32.rnnm" "$DATA/$1-band-last-f32.rnnm"
    # shellcheck disable=SC2046 # protection_options gives a list of options
    $PY "$HERE/average.py" "$DATA/$1-band-start-f32.rnnm" \
        "$DATA/$1-band-last-f32.rnnm" "$DATA/$1-f32.rnnm" --weight "$9" \
        $(protection_options "${12:-}")
  fi
  $PY "$HERE/quantise.py" "$DATA/$1-f32.rnnm" "$DATA/$1.rnnm"
  "$MODEL_TOOL" info "$DATA/$1.rnnm"
  if [ "$SELECTION" = yes ] && [ -d "$SELECT/select-real" ]; then
    step "score $1 before and after seed ${10}'s band steps on the selection mixtures"
    for limit in 0 $8; do
      options=
      [ "$limit" -eq 0 ] || options="--band-limit $limit"
      echo "select-real, band limit ${limit} Hz (0: none):"
      # shellcheck disable=SC2086 # options: empty, or an option and value
      $PY "$HERE/ablation.py" "$FORWARD" "$SELECT/select-real" \
          "before=$before.rnnm" "after=$DATA/$1.rnnm" \
          --rate "$3" --jobs "$JOBS" $options
    done | tee "$DATA/selection-$1-band-seed${10}.md"
  fi
}
crowd_step () {  # NAME DIR RATE FEATURE_OPTIONS LRS BAND_SPEECH_WEIGHT
  # ENERGY_WEIGHT LIMITS SET_SEED [BINS [LOW_SNR]]: band_steps on a crowd
  # set, with the crowd steps' share, protection, synth.py options and head
  # (BAND_CROWD_BINS bins unless BINS), LOW_SNR as band_steps takes it;
  # nothing where LRS is empty
  [ -n "$5" ] || return 0
  band_steps "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$BAND_CROWD_SHARE" \
      "$9" yes "$BAND_CROWD_PROTECTION" "${10:-$BAND_CROWD_BINS}" \
      "$CROWD_SYNTH" "${11:-no}"
}
if [ "$HEAD_EPOCHS" -gt 0 ]; then
  with_head rnndenoise-48k "$FINAL" 48000 "$SPEECH_PROTECTION48" \
      "$HEAD_SPEECH_WEIGHT" "$HEAD_EPOCHS" "--layout $FINAL_LAYOUT" \
      "$(head_joint_options "$HEAD_JOINT_EPOCHS48" \
          "$LOOKAHEAD_SPEECH_WEIGHT48" "$ENERGY_WEIGHT48")"
  band_index=1
  if [ -n "$BAND_JOINT_LRS48" ]; then
    band_steps rnndenoise-48k "$FINAL" 48000 "--layout $FINAL_LAYOUT" \
        "$BAND_JOINT_LRS48" "$LOOKAHEAD_SPEECH_WEIGHT48" "$ENERGY_WEIGHT48" \
        "4000 8000" "$BAND_LAST_SHARE48" "$BAND_SEED" no
  fi
  if [ -n "$BAND_FRESH_LRS48" ]; then
    band_steps rnndenoise-48k "$FINAL" 48000 "--layout $FINAL_LAYOUT" \
        "$BAND_FRESH_LRS48" "$LOOKAHEAD_SPEECH_WEIGHT48" "$ENERGY_WEIGHT48" \
        "4000 8000" "$BAND_FRESH_SHARE48" "$BAND_FRESH_SEED" yes \
        "$BAND_FRESH_PROTECTION48"
  fi
  crowd_step rnndenoise-48k "$FINAL" 48000 "--layout $FINAL_LAYOUT" \
      "$BAND_CROWD_LRS48" "$LOOKAHEAD_SPEECH_WEIGHT48" "$ENERGY_WEIGHT48" \
      "4000 8000" "$BAND_CROWD_SEED"
  crowd_step rnndenoise-48k "$FINAL" 48000 "--layout $FINAL_LAYOUT" \
      "$BAND_CROWD2_LRS48" "$LOOKAHEAD_SPEECH_WEIGHT48" "$ENERGY_WEIGHT48" \
      "4000 8000" "$BAND_CROWD2_SEED"
  crowd_step rnndenoise-48k "$FINAL" 48000 "--layout $FINAL_LAYOUT" \
      "$BAND_CROWD3_LRS48" "$LOOKAHEAD_SPEECH_WEIGHT48" "$ENERGY_WEIGHT48" \
      "4000 8000" "$BAND_CROWD3_SEED"
  crowd_step rnndenoise-48k "$FINAL" 48000 "--layout $FINAL_LAYOUT" \
      "$BAND_CROWD4_LRS48" "$LOOKAHEAD_SPEECH_WEIGHT48" "$ENERGY_WEIGHT48" \
      "4000 8000" "$BAND_CROWD4_SEED" "$BAND_CROWD4_BINS"
  crowd_step rnndenoise-48k "$FINAL" 48000 "--layout $FINAL_LAYOUT" \
      "$BAND_CROWD5_LRS48" "$LOOKAHEAD_SPEECH_WEIGHT48" "$ENERGY_WEIGHT48" \
      "4000 8000" "$BAND_CROWD5_SEED" "$BAND_CROWD4_BINS" yes
fi

if [ "$EPOCHS16" -gt 0 ]; then
  D16="$DATA/16k"
  mkdir -p "$D16"
  step "16 kHz features and targets (layout $LAYOUT)"
  features16 () {  # LIST OUT
    "$FEATURES" --layout "$LAYOUT" --rate 16000 --list "$1" "$2"
  }
  for set in train val test test-real; do
    features16 "$AUDIO/$set/list.txt" "$D16/$set.rndf"
  done
  FILES16=
  if [ "$LAST_STAGE" -ge 2 ]; then
    features16 "$AUDIO/train/list-snr.txt" "$D16/train-snr.rndf"
    FILES16="--also $D16/train-snr.rndf"
  fi
  k=2
  while [ "$k" -le "$LAST_STAGE" ]; do
    list="$DATA/audio-seed$((SEED + k - 1))/train/list.txt"
    features16 "$list" "$D16/train$k.rndf"
    features16 "${list%.txt}-snr.txt" "$D16/train$k-snr.rndf"
    FILES16="$FILES16 --also $D16/train$k.rndf --also $D16/train$k-snr.rndf"
    k=$((k + 1))
  done

  step "start the 16 kHz network from the 48 kHz one"
  $PY "$HERE/transfer.py" "$DATA/model-stage$LAST_STAGE.pt" \
      "$DATA/train.rndf" "$D16/train.rndf" "$D16/model-transfer.pt"

  step "train the 16 kHz model (at most $EPOCHS16 epochs)"
  # shellcheck disable=SC2086 # FILES16 is a list of options
  $PY "$HERE/train.py" "$D16/train.rndf" "$D16/val.rndf" "$D16/model.pt" \
      $FILES16 --init "$D16/model-transfer.pt" \
      --speech-weight "$SPEECH_WEIGHT16" --lr "$LR16" --seed "$SEED" \
      --epochs "$EPOCHS16" --epoch-checkpoints --minutes "$TRAIN_BUDGET" \
      --val-manifest "$AUDIO/val/manifest.tsv"

  MODEL16="$D16/model.pt"
  # One fine-tune round at 16 kHz: the 48 kHz round's fresh set (its
  # recorded voices at other speeds) with its variants and the set before
  # it, all decimated to 16 kHz (the set before's features are there from
  # the round before, or made before the first); from MODEL16, read back
  # from its float32 file first if FROM_FILE is yes.
  tune16_round () {  # SET_SEED PREVIOUS_SET_SEED NAME EPOCHS LR TRAIN_SEED FROM_FILE
    # TRAIN_OPTIONS
    list="$DATA/audio-seed$1/train/list.txt"
    step "16 kHz fine-tune round $3 on the set of seed $1"
    features16 "$list" "$D16/train-seed$1.rndf"
    features16 "${list%.txt}-snr.txt" "$D16/train-seed$1-snr.rndf"
    if [ "$7" = yes ]; then
      read_back "$MODEL16" "$D16/train-seed$1.rndf" "$D16/model-before-$3" \
          "$SIZES"
      MODEL16="$D16/model-before-$3.pt"
    fi
    # Its start, for average.py.
    cp "$MODEL16" "$D16/model-$3-start.pt"
    # shellcheck disable=SC2086 # $8 is a list of options
    $PY "$HERE/train.py" "$D16/train-seed$1.rndf" "$D16/val.rndf" \
        "$D16/model-$3.pt" --also "$D16/train-seed$1-snr.rndf" \
        --also "$D16/train-seed$2.rndf" --init "$MODEL16" \
        --speech-weight "$SPEECH_WEIGHT16" --lr "$5" --seed "$6" \
        --epochs "$4" --epoch-checkpoints --minutes "$TRAIN_BUDGET" \
        --val-manifest "$AUDIO/val/manifest.tsv" $8
    MODEL16="$D16/model-$3.pt"
    ROUNDS16="$ROUNDS16 $3"
  }
  ROUNDS16=
  LAST_ROUND16=0
  if [ "$FINETUNE16" = yes ]; then
    LAST_ROUND16=$LAST_ROUND
    [ "$FINETUNE16_ROUNDS" -ge "$LAST_ROUND16" ] ||
        LAST_ROUND16=$FINETUNE16_ROUNDS
  fi
  if [ "$LAST_ROUND16" -gt 0 ]; then
    features16 "$DATA/audio-seed$((SEED + 4))/train/list.txt" \
        "$D16/train-seed$((SEED + 4)).rndf"
  fi
  # A round reads the network before it back from its float32 file when
  # it is the first, the energy weight's first, or the one after an
  # averaged round; that read-back start is the anchor the averaged rounds
  # (AVERAGE16_ROUNDS) are averaged with (average.py: the same
  # normalisation, so the same lineage), and the next round goes on from
  # the average.
  kept16=$(kept_round "$KEEP_ROUND16" "$LAST_ROUND16")
  after_average=no
  k=1
  previous_seed=$((SEED + 4))
  while [ "$k" -le "$LAST_ROUND16" ]; do
    from_file=no
    if [ "$k" -eq 1 ] || [ "$k" -eq "$ENERGY_WEIGHT_ROUND" ] ||
        [ "$after_average" = yes ]; then
      from_file=yes
    fi
    name=$(round_name $k)
    tune16_round "$(round_set_seed $k)" "$previous_seed" "$name" \
        "$(round_setting $k FINETUNE_EPOCHS)" \
        "$(round_setting $k FINETUNE_LR)" "$(round_train_seed $k)" \
        "$from_file" \
        "$(round_lookahead $k) $(round_energy_weight $k "$ENERGY_WEIGHT16")"
    [ "$from_file" = no ] || anchor16="$D16/model-$name-start.pt"
    after_average=no
    if [ -n "$AVERAGE16" ] && is_listed "$k" "$AVERAGE16_ROUNDS"; then
      step "average round $name with the start it read back (its share $AVERAGE16)"
      $PY "$HERE/average.py" "$anchor16" "$MODEL16" \
          "$D16/model-$name-average.pt" --weight "$AVERAGE16"
      MODEL16="$D16/model-$name-average.pt"
      ROUNDS16="$ROUNDS16 $name-average"
      after_average=yes
    fi
    [ "$k" -ne "$kept16" ] || KEPT_MODEL16=$MODEL16
    previous_seed=$(round_set_seed $k)
    k=$((k + 1))
  done
  [ "$LAST_ROUND16" -eq 0 ] || MODEL16=$KEPT_MODEL16
  # 16 kHz rounds run only after 48 kHz ones, so the mixtures are there.
  if [ "$SELECTION" = yes ] && [ -n "$ROUNDS16" ]; then
    # shellcheck disable=SC2086 # ROUNDS16 is a list of names
    selection_table "$D16" 16000 "$DATA/selection-16k.md" $ROUNDS16
  fi
  step "export and check the 16 kHz model"
  # shellcheck disable=SC2046 # protection_options gives a list of options
  $PY "$HERE/export.py" "$MODEL16" "$DATA/rnndenoise-16k-f32.rnnm" \
      --int8x8 "$DATA/rnndenoise-16k.rnnm" \
      $(protection_options "$SPEECH_PROTECTION16")
  "$MODEL_TOOL" info "$DATA/rnndenoise-16k.rnnm"
  $PY "$HERE/check_export.py" "$MODEL16" "$D16/test-real.rndf" \
      "$FORWARD" "$DATA/rnndenoise-16k-f32.rnnm" \
      --int8x8 "$DATA/rnndenoise-16k.rnnm"
  if [ "$HEAD_EPOCHS" -gt 0 ]; then
    with_head rnndenoise-16k "$D16" 16000 "$SPEECH_PROTECTION16" \
        "$HEAD_SPEECH_WEIGHT" "$HEAD_EPOCHS" "--layout $LAYOUT --rate 16000" \
        "$(head_joint_options "$HEAD_JOINT_EPOCHS16" "$SPEECH_WEIGHT16" \
            "$ENERGY_WEIGHT16")"
    band_index=1
    if [ -n "$BAND_JOINT_LRS16" ]; then
      band_steps rnndenoise-16k "$D16" 16000 \
          "--layout $LAYOUT --rate 16000" "$BAND_JOINT_LRS16" \
          "$SPEECH_WEIGHT16" "$ENERGY_WEIGHT16" "3400 5512" \
          "$BAND_LAST_SHARE16" "$BAND_SEED" no
    fi
    if [ -n "$BAND_FRESH_LRS16" ]; then
      band_steps rnndenoise-16k "$D16" 16000 \
          "--layout $LAYOUT --rate 16000" "$BAND_FRESH_LRS16" \
          "$SPEECH_WEIGHT16" "$ENERGY_WEIGHT16" "3400 5512" \
          "$BAND_FRESH_SHARE16" "$BAND_FRESH_SEED" yes \
          "$BAND_FRESH_PROTECTION16"
    fi
    crowd_step rnndenoise-16k "$D16" 16000 \
        "--layout $LAYOUT --rate 16000" "$BAND_CROWD_LRS16" \
        "$SPEECH_WEIGHT16" "$ENERGY_WEIGHT16" "3400 5512" "$BAND_CROWD_SEED"
    crowd_step rnndenoise-16k "$D16" 16000 \
        "--layout $LAYOUT --rate 16000" "$BAND_CROWD2_LRS16" \
        "$SPEECH_WEIGHT16" "$ENERGY_WEIGHT16" "3400 5512" "$BAND_CROWD2_SEED"
    crowd_step rnndenoise-16k "$D16" 16000 \
        "--layout $LAYOUT --rate 16000" "$BAND_CROWD3_LRS16" \
        "$BAND_CROWD3_SPEECH_WEIGHT16" "$ENERGY_WEIGHT16" "3400 5512" \
        "$BAND_CROWD3_SEED"
    crowd_step rnndenoise-16k "$D16" 16000 \
        "--layout $LAYOUT --rate 16000" "$BAND_CROWD4_LRS16" \
        "$BAND_CROWD3_SPEECH_WEIGHT16" "$ENERGY_WEIGHT16" "3400 5512" \
        "$BAND_CROWD4_SEED" "$BAND_CROWD4_BINS"
    crowd_step rnndenoise-16k "$D16" 16000 \
        "--layout $LAYOUT --rate 16000" "$BAND_CROWD5_LRS16" \
        "$BAND_CROWD3_SPEECH_WEIGHT16" "$ENERGY_WEIGHT16" "3400 5512" \
        "$BAND_CROWD5_SEED" "$BAND_CROWD4_BINS" yes
  fi
fi

# The speech protection the shipped files name: with the element's
# speech-hold (0.8) protection 1 gives what 1.25 gave without it, with
# more STOI (docs/model.md, "Holding the gains within a word"). The
# network is the same: average.py of a file with itself.
if [ -n "$SHIPPED_PROTECTION" ]; then
  for name in rnndenoise-48k rnndenoise-16k; do
    [ -f "$DATA/$name-f32.rnnm" ] || continue
    step "name speech protection $SHIPPED_PROTECTION in $name"
    cp "$DATA/$name-f32.rnnm" "$DATA/$name-steps-f32.rnnm"
    $PY "$HERE/average.py" "$DATA/$name-steps-f32.rnnm" \
        "$DATA/$name-steps-f32.rnnm" "$DATA/$name-f32.rnnm" \
        --speech-protection "$SHIPPED_PROTECTION"
    $PY "$HERE/quantise.py" "$DATA/$name-f32.rnnm" "$DATA/$name.rnnm"
    "$MODEL_TOOL" info "$DATA/$name.rnnm"
  done
fi

step "done"
echo "model: $DATA/rnndenoise-48k.rnnm (float32: $DATA/rnndenoise-48k-f32.rnnm)"
[ "$EPOCHS16" -eq 0 ] || echo "16 kHz model: $DATA/rnndenoise-16k.rnnm"
echo "to ship them: cp $DATA/rnndenoise-*k.rnnm $DATA/rnndenoise-*k-f32.rnnm $SRC/dsp/models/"
