/* rnndenoise — dsp: the per-stream frame processor
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One call of dsp_processor_process() is one invocation of the recurrence:
 * the initial state (hidden state and DSP history) is read from the slot,
 * the samples are cut into frames on working copies, and the final state is
 * written back through the slot's fan-out. Samples are buffered a frame at a
 * time: each input sample goes into the partial frame and the output sample
 * comes from the previous frame's synthesis, so the signal is delayed by the
 * STFT delay plus one hop, whatever the buffer sizes. The first `latency`
 * output samples of a stream (the pre-roll) are dropped and the last ones
 * come from dsp_processor_drain(), so output sample i is input sample i
 * denoised, and the output has as many samples as the input. The partial
 * frame, the pending output and the pre-roll count are part of the DSP
 * history, so a migrated stream continues exactly.
 *
 * In frame-output mode (dsp_processor_set_frame_output()) a frame's
 * synthesis is written out as soon as the frame completes, instead of one
 * sample per input sample during the next frame: output sample i is the
 * same sample, only out earlier, so the delay is the STFT delay alone for
 * input that arrives in whole frames, and up to one hop more otherwise.
 * The pre-roll count means the same in both modes (it counts the input
 * samples of the stream's first `latency`), so the history is one format.
 *
 * A model with lookahead L (dsp_model_get_lookahead()) reads, for frame
 * t - L, the features of frames t - L .. t: each channel keeps the last L
 * frames' spectra, feature rows and noise-floor distances in a delay line,
 * and when frame t completes the network runs on the row [features (t - L),
 * ..., features (t)] and its gains go to frame t - L, which is then
 * synthesised. Everything after the analysis is L hops later, so the
 * latency is L hops more. The delay line and the count of the stream's
 * frames seen so far (0..L) are DSP history too; with L = 0 there is no
 * delay line and the history is what it always was.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "dsp_dense.h"
#include "dsp_error.h"
#include "dsp_features.h"
#include "dsp_frame_config.h"
#include "dsp_hum.h"
#include "dsp_level.h"
#include "dsp_pitch.h"
#include "dsp_processor.h"
#include "dsp_stft.h"

/* Larger magnitudes are clipped: they are not audio, and their energies
 * would overflow the feature computation. */
#define SAMPLE_LIMIT 65536.0f

struct _DspProcessor
{
  /* Immutable after _new. */
  DspModel *model;    /* owned reference; shared read-only */
  RnnStateSlot *slot; /* owned; the stream's persistent state */
  DspFrameConfig cfg;
  guint channels;
  guint hop;
  guint n_bins;
  guint n_bands;
  guint n_features;       /* per frame */
  guint lookahead;        /* frames the network reads ahead, L */
  guint n_inputs;         /* n_features x (1 + L): one channel's row */
  gboolean tracks_floor;  /* the layout has a noise-floor tracker */
  gsize stft_history;     /* floats per channel */
  gsize features_history; /* floats per channel */
  gsize pitch_history;    /* floats per channel, 0 below layout 3 */
  gsize hum_history;      /* floats per channel */
  gsize held_history;     /* floats per channel: the bins' last gains */
  gsize delay_history;    /* floats per channel: the delay line (L frames) */
  gsize history_per_channel;
  gsize history_size; /* floats: channels, frames seen, position, pre-roll */
  gsize state_size;   /* floats of hidden state */

  /* Streaming thread only. The objects below are working copies: they are
   * loaded from the slot at the start of each call and saved back at its
   * end, so the slot always holds the whole stream state. */
  DspProcessorSettings settings; /* as the setters left them */
  gfloat *gate_hold;      /* owned; channels; frames the gate stays open */
  DspLevel *level;        /* owned; channels; tracked even when not used */
  DspStft **stft;         /* owned, one per channel */
  DspFeatures **features; /* owned, one per channel */
  DspPitch **pitch;       /* owned, one per channel; NULL below layout 3 */
  DspHum **hum;           /* owned, one per channel; tracked even when the
                           * removal is off */
  gfloat *in_frame;       /* owned; channels x hop, partial frame */
  gfloat *out_frame;      /* owned; channels x hop, pending output */
  guint pos;              /* samples in the partial frame */
  guint frames_seen;      /* frames of the stream so far, up to L */
  guint preroll;          /* input samples until no output is dropped */
  guint latency;          /* samples: STFT delay + (1 + L) hops */
  gboolean frame_output;  /* write each frame out when it completes */
  gfloat *hidden;         /* owned; state_size */
  gfloat *history;        /* owned; history_size */
  /* Per channel, the delay line: 1 + L slots, frames t - L .. t, oldest
   * first; after each frame the slots move down one and slots 0 .. L - 1
   * are the history. */
  gfloat *spectrum;       /* owned; channels x (1 + L) x n_bins x 2 */
  gfloat *feature_rows;   /* owned; channels x n_inputs: the network rows */
  gfloat *floor_above;    /* owned; channels x (1 + L) x n_bands; NULL
                           * unless tracks_floor */
  gfloat *pitch_spectrum; /* owned; n_bins x 2, layout 3 only */
  gfloat *scaled;         /* owned; n_bins x 2: the level-normalised
                           * spectrum the features are computed on */
  gfloat *band_gains;     /* owned; channels x n_bands */
  gfloat *vad;            /* owned; channels */
  gfloat *bin_gains;      /* owned; n_bins */
  gfloat *held_gains;     /* owned; channels x n_bins: the gains each bin
                           * of each channel had in its last frame, which
                           * the speech hold reads (stream state) */
  gfloat *bin_power;      /* owned; n_bins: the frame's low bins' powers,
                           * which the lift and the floor keep both read */
  gfloat *scratch;        /* owned; dsp_model_scratch_size () */
  gfloat *zeros;          /* owned; hop x channels of silence */
};

/* Slot @slot (0 = the oldest) of channel @c's delay line. */
static gfloat *
spectrum_slot (const DspProcessor *self, guint c, guint slot)
{
  return self->spectrum
      + ((gsize) c * (1 + self->lookahead) + slot) * self->n_bins * 2;
}

static gfloat *
floor_above_slot (const DspProcessor *self, guint c, guint slot)
{
  return self->floor_above
      + ((gsize) c * (1 + self->lookahead) + slot) * self->n_bands;
}

/* Copies channel @c's delayed frames (slots 0 .. L - 1: spectra, feature
 * rows, floor distances) to @history, or back from it. */
static void
copy_delay_line (DspProcessor *self, guint c, gfloat *history, gboolean save)
{
  gsize n_spectra = (gsize) self->lookahead * self->n_bins * 2;
  gsize n_rows = (gsize) self->lookahead * self->n_features;
  gsize n_above = self->tracks_floor ? self->lookahead * self->n_bands : 0;
  gfloat *parts[3] = { spectrum_slot (self, c, 0),
    self->feature_rows + (gsize) c * self->n_inputs,
    self->tracks_floor ? floor_above_slot (self, c, 0) : NULL };
  gsize sizes[3] = { n_spectra, n_rows, n_above };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (parts); i++) {
    if (sizes[i] == 0)
      continue;
    if (save)
      memcpy (history, parts[i], sizes[i] * sizeof (gfloat));
    else
      memcpy (parts[i], history, sizes[i] * sizeof (gfloat));
    history += sizes[i];
  }
}

/* Channel @c's gains of its last frame, which the speech hold reads. */
static gfloat *
held_gains_of (const DspProcessor *self, guint c)
{
  return self->held_gains + (gsize) c * self->n_bins;
}

static void
save_history (DspProcessor *self, gfloat *history)
{
  gfloat *p = history;
  guint c;

  for (c = 0; c < self->channels; c++) {
    dsp_stft_save_history (self->stft[c], p);
    p += self->stft_history;
    dsp_features_save_history (self->features[c], p);
    p += self->features_history;
    if (self->pitch != NULL)
      dsp_pitch_save_history (self->pitch[c], p);
    p += self->pitch_history;
    memcpy (p, self->in_frame + c * self->hop, self->hop * sizeof (gfloat));
    p += self->hop;
    memcpy (p, self->out_frame + c * self->hop, self->hop * sizeof (gfloat));
    p += self->hop;
    *p++ = self->gate_hold[c];
    dsp_level_save (&self->level[c], p);
    p += DSP_LEVEL_HISTORY_SIZE;
    dsp_hum_save (self->hum[c], p);
    p += self->hum_history;
    memcpy (p, held_gains_of (self, c), self->held_history * sizeof (gfloat));
    p += self->held_history;
    copy_delay_line (self, c, p, TRUE);
    p += self->delay_history;
  }
  if (self->lookahead > 0)
    *p++ = (gfloat) self->frames_seen;
  p[0] = (gfloat) self->pos;
  p[1] = (gfloat) self->preroll;
}

/* TRUE if all @n values lie within +-SAMPLE_LIMIT (NaN does not): the
 * check every call makes, four values at a time, before the slower repair
 * that only a damaged import needs. */
static gboolean
all_within_limit (const gfloat *values, gsize n)
{
  DspVec4 limit = dsp_vec4_splat (SAMPLE_LIMIT);
  DspMask4 outside = { 0, 0, 0, 0 };
  gsize i;

  for (i = 0; i + 4 <= n; i += 4) {
    DspVec4 v = dsp_vec4_load (values + i);

    outside |= ~((v <= limit) & (v >= -limit));
  }
  for (; i < n; i++) {
    if (!(values[i] <= SAMPLE_LIMIT && values[i] >= -SAMPLE_LIMIT))
      return FALSE;
  }
  return (outside[0] | outside[1] | outside[2] | outside[3]) == 0;
}

/* Floor distances are never negative (dsp_features_smoothed_above_floor());
 * a damaged snapshot's would turn the speech protection's lift into a cut
 * below zero. */
static void
clamp_floor_above (DspProcessor *self, guint c)
{
  gfloat *above;
  guint i;

  if (!self->tracks_floor)
    return;
  above = floor_above_slot (self, c, 0);
  for (i = 0; i < self->lookahead * self->n_bands; i++)
    above[i] = MAX (above[i], 0.0f);
}

/* Channel @c's held gains from @history. Applied gains lie in 0..1; a
 * damaged snapshot's are brought back there, so that the hold can never
 * raise a bin above its input. */
static void
load_held_gains (DspProcessor *self, guint c, const gfloat *history)
{
  gfloat *held = held_gains_of (self, c);
  guint k;

  for (k = 0; k < self->n_bins; k++)
    held[k] = isfinite (history[k]) ? CLAMP (history[k], 0.0f, 1.0f) : 0.0f;
}

/* An imported history passed the snapshot checks but its values are not
 * trusted: non-finite values become silence, and every value is clipped to
 * the range input samples are clipped to (huge but finite history values
 * would otherwise overflow the synthesis to infinity); a bad position
 * becomes 0, the count of frames seen is clamped to 0..L. Valid histories
 * are within that range and pass unchanged. */
static void
load_history (DspProcessor *self, gfloat *history)
{
  gfloat *p = history;
  gfloat pos, preroll;
  gsize i;
  guint c;

  if (!all_within_limit (history, self->history_size - 2)) {
    for (i = 0; i + 2 < self->history_size; i++) {
      if (!isfinite (history[i]))
        history[i] = 0.0f;
      history[i] = CLAMP (history[i], -SAMPLE_LIMIT, SAMPLE_LIMIT);
    }
  }
  for (c = 0; c < self->channels; c++) {
    dsp_stft_load_history (self->stft[c], p);
    p += self->stft_history;
    dsp_features_load_history (self->features[c], p);
    p += self->features_history;
    if (self->pitch != NULL)
      dsp_pitch_load_history (self->pitch[c], p);
    p += self->pitch_history;
    memcpy (self->in_frame + c * self->hop, p, self->hop * sizeof (gfloat));
    p += self->hop;
    memcpy (self->out_frame + c * self->hop, p, self->hop * sizeof (gfloat));
    p += self->hop;
    self->gate_hold[c] = CLAMP (*p, 0.0f, 1e6f);
    p++;
    dsp_level_load (&self->level[c], p);
    p += DSP_LEVEL_HISTORY_SIZE;
    dsp_hum_load (self->hum[c], p);
    p += self->hum_history;
    load_held_gains (self, c, p);
    p += self->held_history;
    copy_delay_line (self, c, p, FALSE);
    p += self->delay_history;
    clamp_floor_above (self, c);
  }
  if (self->lookahead > 0) {
    gfloat seen = *p++;

    self->frames_seen = (guint) CLAMP (seen, 0.0f, (gfloat) self->lookahead);
  }
  pos = p[0];
  preroll = p[1];
  self->pos = (pos >= 0.0f && pos < (gfloat) self->hop) ? (guint) pos : 0;
  self->preroll = (preroll >= 0.0f && preroll <= (gfloat) self->latency)
      ? (guint) preroll
      : self->latency;
}

/* GRU states are tanh-bounded: the range side outputs are quantised for. */
#define STATE_ABS_MAX 1.0f

/* The algorithmic delay of @model, in samples: the STFT delay (window -
 * hop), one hop of frame buffering, and one hop per frame the network
 * reads ahead. */
static guint
latency_of (const DspModel *model)
{
  const DspFrameConfig *cfg = dsp_model_get_frame_config (model);

  return cfg->window - cfg->hop + cfg->hop
      + dsp_model_get_lookahead (model) * cfg->hop;
}

static gboolean
check_model (DspModel *model, guint channels, GError **error)
{
  const DspFrameConfig *cfg = dsp_model_get_frame_config (model);

  if (channels < 1 || channels > RNN_STATE_MAX_BATCH) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "%u channels, supported: 1..%u", channels, RNN_STATE_MAX_BATCH);
    return FALSE;
  }
  if (!dsp_frame_config_validate (cfg, error))
    return FALSE;
  if (dsp_model_get_n_gru_layers (model) < 1) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED,
        "the model has no GRU layer, so no recurrent state");
    return FALSE;
  }
  return TRUE;
}

/* Whether @features' layout keeps a noise-floor tracker, whose distances
 * the gains are limited and weighed by. */
static gboolean
tracks_floor (const DspFeatures *features)
{
  gfloat above[DSP_MAX_BANDS];

  return dsp_features_smoothed_above_floor (features, above);
}

static void
allocate_working_memory (DspProcessor *self)
{
  guint c;

  self->stft = g_new0 (DspStft *, self->channels);
  self->features = g_new0 (DspFeatures *, self->channels);
  self->hum = g_new0 (DspHum *, self->channels);
  for (c = 0; c < self->channels; c++) {
    self->stft[c] = dsp_stft_new (&self->cfg);
    self->features[c] = dsp_features_new (&self->cfg);
    self->hum[c] = dsp_hum_new (&self->cfg);
  }
  self->hum_history = dsp_hum_history_size (self->hum[0]);
  self->held_history = self->n_bins;
  self->tracks_floor = tracks_floor (self->features[0]);
  /* Only layout 3 reads the pitch, so only its snapshots carry the input
   * samples the pitch search needs. */
  if (self->cfg.feature_layout_id == DSP_FEATURE_LAYOUT_PITCH_V3) {
    self->pitch = g_new0 (DspPitch *, self->channels);
    for (c = 0; c < self->channels; c++)
      self->pitch[c] = dsp_pitch_new (&self->cfg);
    self->pitch_history = dsp_pitch_history_size (self->pitch[0]);
    self->pitch_spectrum = g_new0 (gfloat, (gsize) self->n_bins * 2);
  }
  self->stft_history = dsp_stft_history_size (self->stft[0]);
  self->features_history = dsp_features_history_size (self->features[0]);
  self->delay_history = (gsize) self->lookahead
      * ((gsize) self->n_bins * 2 + self->n_features
          + (self->tracks_floor ? self->n_bands : 0));
  /* Per channel: STFT, features, pitch, partial frame, pending output,
   * gate, level tracker, hum canceller, held gains, delay line; then the
   * frames seen (with lookahead only), the position and the pre-roll. */
  self->history_per_channel = self->stft_history + self->features_history
      + self->pitch_history + 2 * self->hop + 1 + DSP_LEVEL_HISTORY_SIZE
      + self->hum_history + self->held_history + self->delay_history;
  self->history_size = self->channels * self->history_per_channel
      + (self->lookahead > 0 ? 1 : 0) + 2;
  self->latency = latency_of (self->model);
  g_warn_if_fail (self->latency
      == dsp_stft_get_delay (self->stft[0])
          + (1 + self->lookahead) * self->hop);
  self->preroll = self->latency;

  self->in_frame = g_new0 (gfloat, (gsize) self->channels * self->hop);
  self->out_frame = g_new0 (gfloat, (gsize) self->channels * self->hop);
  self->hidden = g_new0 (gfloat, self->state_size);
  self->history = g_new0 (gfloat, self->history_size);
  self->spectrum = g_new0 (gfloat,
      (gsize) self->channels * (1 + self->lookahead) * self->n_bins * 2);
  self->feature_rows = g_new0 (gfloat, (gsize) self->channels * self->n_inputs);
  if (self->tracks_floor)
    self->floor_above = g_new0 (gfloat,
        (gsize) self->channels * (1 + self->lookahead) * self->n_bands);
  self->band_gains = g_new0 (gfloat, (gsize) self->channels * self->n_bands);
  self->vad = g_new0 (gfloat, self->channels);
  self->bin_gains = g_new0 (gfloat, self->n_bins);
  self->held_gains = g_new0 (gfloat, (gsize) self->channels * self->n_bins);
  self->bin_power = g_new0 (gfloat, self->n_bins);
  self->scratch = g_new0 (gfloat,
      dsp_model_scratch_size (self->model, self->channels) + 1);
  self->zeros = g_new0 (gfloat, (gsize) self->channels * self->hop);
  self->gate_hold = g_new0 (gfloat, self->channels);
  self->level = g_new0 (DspLevel, self->channels);
  for (c = 0; c < self->channels; c++)
    dsp_level_init (&self->level[c], self->cfg.sample_rate, self->hop);
  self->scaled = g_new0 (gfloat, (gsize) self->n_bins * 2);
}

/**
 * dsp_processor_new:
 * @model: the model (a reference is taken)
 * @channels: interleaved channels, 1..RNN_STATE_MAX_BATCH (one batch row
 *   each)
 * @error: return location for a #DSP_ERROR
 *
 * Creates the stream's objects and its state slot, sized once: nothing is
 * allocated while processing. The initial state is the zero hidden state
 * and the DSP history of a stream preceded by silence.
 *
 * Returns: (transfer full) (nullable): a new processor, or NULL.
 */
DspProcessor *
dsp_processor_new (DspModel *model, guint channels, GError **error)
{
  DspProcessor *self;
  DspProcessorSettings settings;
  RnnStateDescriptor desc;

  g_return_val_if_fail (model != NULL, NULL);

  if (!check_model (model, channels, error))
    return NULL;

  self = g_new0 (DspProcessor, 1);
  self->model = dsp_model_ref (model);
  self->cfg = *dsp_model_get_frame_config (model);
  self->channels = channels;
  self->hop = self->cfg.hop;
  self->n_bins = dsp_frame_config_get_n_bins (&self->cfg);
  self->n_bands = self->cfg.n_bands;
  self->n_features = dsp_model_get_n_features (model);
  self->lookahead = dsp_model_get_lookahead (model);
  self->n_inputs = dsp_model_get_n_inputs (model);
  self->state_size = dsp_model_state_size (model, channels);
  dsp_processor_settings_init (&settings);
  dsp_processor_apply_settings (self, &settings);
  allocate_working_memory (self);

  dsp_model_init_state_descriptor (model, channels, self->history_size, &desc);
  self->slot = rnn_state_slot_new (&desc, error);
  if (self->slot == NULL) {
    dsp_processor_free (self);
    return NULL;
  }
  /* The constant initial state: fresh objects' history, zero hidden. */
  save_history (self, self->history);
  rnn_state_slot_set_initial_state (self->slot, NULL, self->history);
  rnn_state_slot_reset (self->slot, TRUE);
  return self;
}

/**
 * dsp_processor_free:
 * @self: (nullable): a processor
 *
 * Frees the processor, its slot and its reference to the model.
 */
void
dsp_processor_free (DspProcessor *self)
{
  guint c;

  if (self == NULL)
    return;
  for (c = 0; c < self->channels && self->stft != NULL; c++) {
    dsp_stft_free (self->stft[c]);
    dsp_features_free (self->features[c]);
    dsp_hum_free (self->hum[c]);
    if (self->pitch != NULL)
      dsp_pitch_free (self->pitch[c]);
  }
  g_free (self->stft);
  g_free (self->features);
  g_free (self->hum);
  g_free (self->pitch);
  g_free (self->pitch_spectrum);
  g_free (self->in_frame);
  g_free (self->out_frame);
  g_free (self->hidden);
  g_free (self->history);
  g_free (self->spectrum);
  g_free (self->feature_rows);
  g_free (self->floor_above);
  g_free (self->band_gains);
  g_free (self->vad);
  g_free (self->bin_gains);
  g_free (self->held_gains);
  g_free (self->bin_power);
  g_free (self->scratch);
  g_free (self->zeros);
  g_free (self->gate_hold);
  g_free (self->level);
  g_free (self->scaled);
  rnn_state_slot_free (self->slot);
  g_clear_pointer (&self->model, dsp_model_unref);
  g_free (self);
}

/**
 * dsp_processor_get_channels:
 * @self: a processor
 *
 * Returns: the number of interleaved channels (batch rows).
 */
guint
dsp_processor_get_channels (const DspProcessor *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->channels;
}

/**
 * dsp_processor_get_model:
 * @self: a processor
 *
 * Returns: (transfer none): the model the processor runs, valid while
 *   @self lives (dsp_model_ref() it to keep it longer).
 */
DspModel *
dsp_processor_get_model (const DspProcessor *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->model;
}

/**
 * dsp_processor_get_hop:
 * @self: a processor
 *
 * Returns: samples per frame and channel (480 at 48 kHz).
 */
guint
dsp_processor_get_hop (const DspProcessor *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->hop;
}

/**
 * dsp_processor_get_latency:
 * @self: a processor
 *
 * Returns: the algorithmic delay in samples per channel: the STFT delay plus
 * one hop of frame buffering (960 samples, 20 ms, at 48 kHz), plus one hop
 * per frame the model reads ahead (dsp_model_get_lookahead()). Output
 * sample i is input sample i denoised, available once input sample i +
 * latency has been processed.
 */
guint
dsp_processor_get_latency (const DspProcessor *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->latency;
}

/**
 * dsp_processor_get_model_latency:
 * @model: a model
 *
 * Returns: what dsp_processor_get_latency() returns for every processor of
 * @model, in samples per channel at the model's rate: the latency is known
 * before any stream exists.
 */
guint
dsp_processor_get_model_latency (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);
  return latency_of (model);
}

/**
 * dsp_processor_get_aligned_latency:
 * @model: a model
 *
 * Returns: the delay of a frame-output processor of @model fed whole
 * frames, in samples per channel: the STFT delay (480 samples, 10 ms, at
 * 48 kHz) plus one hop per frame the model reads ahead, one hop less than
 * dsp_processor_get_model_latency().
 */
guint
dsp_processor_get_aligned_latency (const DspModel *model)
{
  const DspFrameConfig *cfg;

  g_return_val_if_fail (model != NULL, 0);
  cfg = dsp_model_get_frame_config (model);
  return latency_of (model) - cfg->hop;
}

/**
 * dsp_processor_get_state_descriptor:
 * @self: a processor
 *
 * Returns: (transfer none): the descriptor of the stream's state (its
 * slot's format); valid while @self lives.
 */
const RnnStateDescriptor *
dsp_processor_get_state_descriptor (DspProcessor *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return rnn_state_slot_get_descriptor (self->slot);
}

/**
 * dsp_processor_describe_side_output:
 * @self: a processor
 * @element_type: the element type of the side output
 * @desc: (out): the descriptor of a side output of that type
 *
 * Describes the final state after each call as dsp_processor_process()
 * writes it into a side output of @element_type: the stream's layout, with
 * a quantisation chosen for the recurrent cells' value range (GRU states
 * are tanh-bounded). Call from any thread.
 */
void
dsp_processor_describe_side_output (DspProcessor *self,
    RnnStateElementType element_type, RnnStateDescriptor *desc)
{
  g_return_if_fail (self != NULL && desc != NULL);
  *desc = *rnn_state_slot_get_descriptor (self->slot);
  rnn_state_descriptor_set_element_type (desc, element_type, STATE_ABS_MAX);
}

/**
 * dsp_processor_get_counters:
 * @self: a processor
 * @counters: (out): the counters of the stream's state slot
 *
 * Copies the slot's counters (see #RnnStateCounters). Safe from any
 * thread.
 */
void
dsp_processor_get_counters (DspProcessor *self, RnnStateCounters *counters)
{
  g_return_if_fail (self != NULL && counters != NULL);
  rnn_state_slot_get_counters (self->slot, counters);
}

/**
 * dsp_processor_has_pending_import:
 * @self: a processor
 *
 * Returns: TRUE if an accepted import waits for the next
 * dsp_processor_process() call. Safe from any thread.
 */
gboolean
dsp_processor_has_pending_import (DspProcessor *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return rnn_state_slot_has_pending_import (self->slot);
}

/**
 * dsp_processor_take_pending_import:
 * @self: a new processor that no other thread uses yet
 * @from: the processor @self replaces
 * @error: return location for a #RNN_STATE_ERROR_MISMATCH error
 *
 * Moves an import that @from accepted but has not applied yet into @self,
 * so that it seeds @self's first call instead (a stream that changes format
 * before its import took effect). See rnn_state_slot_move_pending_import().
 *
 * Returns: TRUE if nothing was pending or the import moved; FALSE if it
 * does not fit @self (@from keeps it).
 */
gboolean
dsp_processor_take_pending_import (DspProcessor *self, DspProcessor *from,
    GError **error)
{
  g_return_val_if_fail (self != NULL && from != NULL, FALSE);
  return rnn_state_slot_move_pending_import (from->slot, self->slot, error);
}

/**
 * dsp_processor_get_slot:
 * @self: a processor
 *
 * Returns: (transfer none): the stream's state slot, for its descriptor,
 * counters and snapshots; valid while @self lives.
 */
RnnStateSlot *
dsp_processor_get_slot (DspProcessor *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->slot;
}

/**
 * dsp_processor_set_vad_gate:
 * @self: a processor
 * @threshold: voice probability below which a frame is silenced (down to
 *   the attenuation limit), 0..1; 0 disables the gate
 * @hold_frames: frames the gate stays open after the last frame at or above
 *   the threshold, so that word endings are not clipped
 *
 * Takes effect at the next frame. Call from the streaming thread. The hold
 * counter of each channel is part of the stream state.
 */
void
dsp_processor_set_vad_gate (DspProcessor *self, gfloat threshold,
    guint hold_frames)
{
  g_return_if_fail (self != NULL);
  self->settings.vad_threshold
      = isfinite (threshold) ? CLAMP (threshold, 0.0f, 1.0f) : 0.0f;
  self->settings.vad_hold_frames = hold_frames;
}

/**
 * dsp_processor_set_frame_output:
 * @self: a processor
 * @frame_output: write each frame out as soon as it completes
 *
 * Frame-output mode: output sample i is the same sample as in the default
 * mode, written when the frame holding input sample i + the STFT delay and
 * the lookahead's hops (dsp_processor_get_aligned_latency()) completes
 * rather than one sample per input sample. Calls that bring whole frames
 * then give as many samples as they take, one hop (10 ms) sooner; other
 * calls give whole hops.
 * Call from the streaming thread, before the stream's first sample: the
 * mode is not part of the stream state, and a stream that changes mode
 * (or moves to a processor in the other mode) repeats or skips the samples
 * of one partial frame.
 */
void
dsp_processor_set_frame_output (DspProcessor *self, gboolean frame_output)
{
  g_return_if_fail (self != NULL);
  self->frame_output = frame_output;
}

/**
 * dsp_processor_get_frame_output:
 * @self: a processor
 *
 * Returns: whether @self is in frame-output mode.
 */
gboolean
dsp_processor_get_frame_output (const DspProcessor *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->frame_output;
}

/**
 * dsp_processor_set_speech_protection:
 * @self: a processor
 * @amount: 0..DSP_MAX_SPEECH_PROTECTION; 0 leaves the network's gains as they are
 *
 * Raises each band gain g of a frame to g (1 + @amount vad w (1 - g)), at
 * most 1, vad being the network's voice probability for the frame and w
 * how far the band's smoothed level stands above its noise floor in tens
 * of dB, 0..2 (1 for models of feature layout 1, which track no floor):
 * less of the voice is taken away where the network hears one, bands that
 * sit on their floor keep their cut, and frames without speech keep their
 * noise reduction. A processor starts with its model's
 * (dsp_model_get_speech_protection()). Takes effect at the next frame.
 * Call from the streaming thread.
 */
void
dsp_processor_set_speech_protection (DspProcessor *self, gfloat amount)
{
  g_return_if_fail (self != NULL);
  self->settings.speech_protection = isfinite (amount)
      ? CLAMP (amount, 0.0f, DSP_MAX_SPEECH_PROTECTION)
      : 0.0f;
}

/**
 * dsp_processor_set_stationary_suppression:
 * @self: a processor
 * @amount: 0..DSP_MAX_STATIONARY_SUPPRESSION; 0 leaves the network's gains
 *   as they are
 *
 * Holds each band gain at or below the spectral-subtraction gain of the
 * band's tracked noise floor taken @amount times (see
 * dsp_features_limit_to_noise_floor()), before the speech protection: a
 * noise that has been there all along (hum, fans, hiss) is removed even
 * where the network lets part of it through. Models of feature layout 1
 * track no floor and are not affected. Takes effect at the next frame. Call
 * from the streaming thread.
 */
void
dsp_processor_set_stationary_suppression (DspProcessor *self, gfloat amount)
{
  g_return_if_fail (self != NULL);
  self->settings.stationary_suppression = isfinite (amount)
      ? CLAMP (amount, 0.0f, DSP_MAX_STATIONARY_SUPPRESSION)
      : 0.0f;
}

/**
 * dsp_processor_set_harmonic_lift:
 * @self: a processor
 * @lift: 0..DSP_MAX_HARMONIC_LIFT; 0 gives every bin the gain interpolated
 *   from its bands
 *
 * Below 4 kHz, lets a bin that stands above its neighbours (a voice
 * harmonic) keep more of itself than its band's gain would leave it, up to
 * (1 + @lift) times that gain (see dsp_features_lift_peaks()): the band
 * gains take from the harmonics what they rightly take from the noise
 * between them. Any @lift above 0 also lets the bins below 300 Hz of a
 * frame with speech keep what stands above their band's steady noise (see
 * dsp_features_keep_above_floor(); models with a noise floor tracker
 * only). After the speech protection and the VAD gate, before the
 * attenuation limit. Keeps no state. Takes effect at the next frame. Call
 * from the streaming thread.
 */
void
dsp_processor_set_harmonic_lift (DspProcessor *self, gfloat lift)
{
  g_return_if_fail (self != NULL);
  self->settings.harmonic_lift
      = isfinite (lift) ? CLAMP (lift, 0.0f, DSP_MAX_HARMONIC_LIFT) : 0.0f;
}

/**
 * dsp_processor_set_speech_hold:
 * @self: a processor
 * @share: 0..1; 0 lets the gains fall as the network gives them
 *
 * In a frame the network is sure holds speech (and the VAD gate left
 * open), no bin's gain falls below @share times its gain in the frame
 * before (see dsp_features_hold_gains()): within a word, a bin the
 * network takes for noise for a frame or two is only turned down, and the
 * end of a sound fades over a few frames. Frames without speech keep their
 * full noise reduction. After the harmonic lift, before the attenuation
 * limit. The gains of each channel's last frame are stream state (they
 * travel in snapshots). Takes effect at the next frame. Call from the
 * streaming thread.
 */
void
dsp_processor_set_speech_hold (DspProcessor *self, gfloat share)
{
  g_return_if_fail (self != NULL);
  self->settings.speech_hold
      = isfinite (share) ? CLAMP (share, 0.0f, 1.0f) : 0.0f;
}

/**
 * dsp_processor_set_level_normalization:
 * @self: a processor
 * @enabled: whether the analysis sees the input at a fixed level
 *
 * With @enabled (the default), each channel's features are computed on its
 * spectrum scaled so that its loud frames stand at DSP_LEVEL_TARGET_DBFS
 * (see dsp_level.h), so that a quiet input loses no more speech than a
 * loud one; the output keeps the input's level. Without it, the features
 * read the input as it is, as the network was trained. The tracker runs
 * either way (it is part of the history), so turning this on mid-stream
 * takes the level already heard. Takes effect at the next frame. Call
 * from the streaming thread.
 */
void
dsp_processor_set_level_normalization (DspProcessor *self, gboolean enabled)
{
  g_return_if_fail (self != NULL);
  self->settings.level_normalization = enabled != FALSE;
}

/**
 * dsp_processor_set_hum_removal:
 * @self: a processor
 * @enabled: whether mains hum is subtracted before the network hears it
 *
 * With @enabled (the default), each channel's mains hum (the harmonics of
 * 50 or 60 Hz up to DSP_HUM_MAX_HZ that stay steady for seconds, see
 * dsp_hum.c) is subtracted from its spectrum before the features are
 * computed and the gains applied, so that the voice under it keeps its
 * level. The canceller follows the hum either way (it is part of the
 * history), so turning this on mid-stream takes out the hum already
 * heard at once. Takes effect at the next frame. Call from the streaming
 * thread.
 */
void
dsp_processor_set_hum_removal (DspProcessor *self, gboolean enabled)
{
  g_return_if_fail (self != NULL);
  self->settings.hum_removal = enabled != FALSE;
}

/**
 * dsp_processor_settings_init:
 * @settings: (out): the settings to fill
 *
 * Fills @settings with a fresh processor's: no attenuation limit, the
 * model's speech protection (DSP_SPEECH_PROTECTION_OF_MODEL), the
 * DSP_DEFAULT_* values of the others and no VAD gate.
 */
void
dsp_processor_settings_init (DspProcessorSettings *settings)
{
  g_return_if_fail (settings != NULL);
  memset (settings, 0, sizeof (*settings));
  settings->speech_protection = DSP_SPEECH_PROTECTION_OF_MODEL;
  settings->stationary_suppression = DSP_DEFAULT_STATIONARY_SUPPRESSION;
  settings->harmonic_lift = DSP_DEFAULT_HARMONIC_LIFT;
  settings->speech_hold = DSP_DEFAULT_SPEECH_HOLD;
  settings->level_normalization = DSP_DEFAULT_LEVEL_NORMALIZATION;
  settings->hum_removal = DSP_DEFAULT_HUM_REMOVAL;
}

/**
 * dsp_processor_apply_settings:
 * @self: a processor
 * @settings: every setting, any values (each setter clamps its own)
 *
 * Calls every setter with its value from @settings; a speech protection
 * below 0 sets the model's own. Takes effect at the next frame. Call from
 * the streaming thread.
 */
void
dsp_processor_apply_settings (DspProcessor *self,
    const DspProcessorSettings *settings)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (settings != NULL);
  dsp_processor_set_attenuation_limit (self, settings->attenuation_limit_db);
  dsp_processor_set_speech_protection (self,
      settings->speech_protection < 0.0f
          ? dsp_model_get_speech_protection (self->model)
          : settings->speech_protection);
  dsp_processor_set_stationary_suppression (self,
      settings->stationary_suppression);
  dsp_processor_set_harmonic_lift (self, settings->harmonic_lift);
  dsp_processor_set_speech_hold (self, settings->speech_hold);
  dsp_processor_set_level_normalization (self, settings->level_normalization);
  dsp_processor_set_hum_removal (self, settings->hum_removal);
  dsp_processor_set_vad_gate (self, settings->vad_threshold,
      settings->vad_hold_frames);
}

/**
 * dsp_processor_get_settings:
 * @self: a processor
 * @settings: (out): @self's settings as its setters left them (clamped, the
 *   speech protection resolved); applied to another processor of the same
 *   model, they give it the same ones
 *
 * Call from the streaming thread (or while it does not change them).
 */
void
dsp_processor_get_settings (const DspProcessor *self,
    DspProcessorSettings *settings)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (settings != NULL);
  *settings = self->settings;
}

/**
 * dsp_processor_set_attenuation_limit:
 * @self: a processor
 * @db: the largest attenuation in dB (0 = unlimited)
 *
 * Takes effect at the next frame. Call from the streaming thread.
 */
void
dsp_processor_set_attenuation_limit (DspProcessor *self, gfloat db)
{
  g_return_if_fail (self != NULL);
  self->settings.attenuation_limit_db = MAX (db, 0.0f);
}

static gboolean
hidden_is_finite (const DspProcessor *self)
{
  gsize i;

  for (i = 0; i < self->state_size; i++)
    if (!isfinite (self->hidden[i]))
      return FALSE;
  return TRUE;
}

/* The VAD gate: a frame below the threshold, once the hold time since the
 * last speech frame has run out, gets zero band gains (so the attenuation
 * limit decides how far it falls). Returns TRUE if the frame is gated. */
static gboolean
gate_frame (DspProcessor *self, guint c, gfloat vad, gfloat *band_gains)
{
  guint b;

  if (self->settings.vad_threshold <= 0.0f)
    return FALSE;
  if (vad >= self->settings.vad_threshold) {
    self->gate_hold[c] = (gfloat) self->settings.vad_hold_frames;
    return FALSE;
  }
  if (self->gate_hold[c] >= 1.0f) {
    self->gate_hold[c] -= 1.0f;
    return FALSE;
  }
  for (b = 0; b < self->n_bands; b++)
    band_gains[b] = 0.0f;
  return TRUE;
}

/* How much of the speech protection's lift a band gets: how far its
 * smoothed level stands above its noise floor, in tens of dB, at most
 * PROTECTION_MAX_WEIGHT; 1 for every band of a model that tracks no floor. */
#define PROTECTION_MAX_WEIGHT 2.0f

/* Raises a frame's band gains by how sure the network is that someone
 * speaks: g (1 + p vad w (1 - g)), at most 1, w the band's weight from its
 * floor distance @above (NULL: no floor tracked, w = 1). The network hedges
 * where it cannot tell voice from noise and then takes away part of the
 * voice; in frames it calls speech, deep cuts become shallower and mid
 * gains come up, while frames without speech keep their full noise
 * reduction. The weight lifts the bands that stand well above their noise
 * floor (where the voice is) and leaves those that sit on it (where a
 * steady noise is, which a uniform lift let back in during speech). */
static void
protect_speech (const DspProcessor *self, const gfloat *above, gfloat vad,
    gfloat *gains)
{
  gfloat lift = self->settings.speech_protection * vad;
  guint b;

  if (lift <= 0.0f)
    return;
  for (b = 0; b < self->n_bands; b++) {
    gfloat weight = above != NULL ? above[b] : 1.0f;
    gfloat l = lift * MIN (weight, PROTECTION_MAX_WEIGHT);

    gains[b] = MIN (gains[b] * (1.0f + l * (1.0f - gains[b])), 1.0f);
  }
}

/* The spectrum channel @c's features are computed on: @spectrum itself,
 * or with level normalisation a copy scaled by the tracked level's gain
 * (dsp_level.c says why). Only the analysis sees the scaled copy; the gains
 * are applied to @spectrum, so the output keeps the input's level. */
static const gfloat *
analysis_spectrum (DspProcessor *self, guint c, const gfloat *spectrum)
{
  dsp_level_update (&self->level[c], self->in_frame + c * self->hop, self->hop);
  if (!self->settings.level_normalization)
    return spectrum;
  dsp_level_scale_spectrum (&self->level[c], spectrum, self->n_bins,
      self->scaled);
  return self->scaled;
}

/* The analysis of the frame that just completed, frame t, for every
 * channel: its spectrum, its features (at the end of the channel's network
 * row) and its noise-floor distances go into the newest slot of the delay
 * line. The floor distances are kept because the tracker moves on with
 * every frame, and frame t's gains must be limited and weighed by frame
 * t's state, whatever frames the network read ahead. The pitch search
 * reads the input unscaled: its correlations do not depend on the level. */
static void
analyze_frame (DspProcessor *self)
{
  gfloat energies[DSP_MAX_BANDS];
  guint newest = self->lookahead, c;

  for (c = 0; c < self->channels; c++) {
    gfloat *spectrum = spectrum_slot (self, c, newest);
    const gfloat *in = self->in_frame + c * self->hop;
    gfloat *row = self->feature_rows + (gsize) c * self->n_inputs
        + (gsize) newest * self->n_features;
    const gfloat *analysed;

    dsp_stft_analyze (self->stft[c], in, spectrum);
    /* Before the features, so that the network hears what is left of
     * the hum, and the gains act on what is left of it. */
    dsp_hum_process (self->hum[c], spectrum, self->settings.hum_removal);
    analysed = analysis_spectrum (self, c, spectrum);
    dsp_features_compute (self->features[c], analysed, row, energies);
    if (self->pitch != NULL) {
      dsp_pitch_analyze (self->pitch[c], in, self->pitch_spectrum);
      dsp_pitch_features (self->pitch[c], self->features[c], energies, analysed,
          self->pitch_spectrum,
          row + DSP_PITCH_FEATURES_OFFSET (self->n_bands));
    }
    if (self->tracks_floor)
      dsp_features_smoothed_above_floor (self->features[c],
          floor_above_slot (self, c, newest));
  }
}

/* Gains are held this far inside 0..1 before their logit is taken, so
 * that a bin the band gains close (or open) fully still takes a finite
 * correction; training uses the same floor (dsp/train/bin_head.py). */
#define BIN_LOGIT_FLOOR 1e-4f

/* One lane group of correct_bin_gains(): @gains the interpolated gains,
 * @d the head's outputs. sigmoid (logit (g) + d) = g / (g + (1 - g) e^-d):
 * the same value with one exponential and no logarithm (e^-d stays finite,
 * dsp_exp4() clamps it, so the denominator is never 0). A lane whose d is
 * NaN or an infinity keeps its band gain: what the network got wrong stays
 * out. */
static inline DspVec4
correct_bin_gains4 (DspVec4 gains, DspVec4 d)
{
  DspVec4 one = dsp_vec4_splat (1.0f);
  DspMask4 finite = (d - d) == dsp_vec4_splat (0.0f);
  DspVec4 g = dsp_vec4_clamp (gains, dsp_vec4_splat (BIN_LOGIT_FLOOR),
      dsp_vec4_splat (1.0f - BIN_LOGIT_FLOOR));
  DspVec4 e;

  e = dsp_exp4 (dsp_vec4_select (finite, -d, dsp_vec4_splat (0.0f)));
  return dsp_vec4_select (finite, g / (g + (one - g) * e), gains);
}

/* The bin-gain head of a version 3 model: bin k < n of channel @c's frame
 * gets sigmoid (logit (g) + d[k]) for its interpolated gain g and the
 * head's output d[k] (docs/model-format.md). Runs on the gains the floor
 * limit and the speech protection have already set, in the scratch the
 * network has just run in. Four bins at a time (up to 160 of them at 16
 * kHz, where libm's expf bin by bin was half the head's cost); the last
 * n % 4 through a zero-padded group, so every bin takes the same
 * operations. */
static void
correct_bin_gains (DspProcessor *self, guint c)
{
  const gfloat *d = dsp_model_get_bin_corrections (self->model, self->scratch,
      self->channels, c);
  guint n = dsp_model_get_n_bin_gains (self->model), k;
  gfloat tail_gains[4] = { 0.0f }, tail_d[4] = { 0.0f };

  for (k = 0; k + 4 <= n; k += 4)
    dsp_vec4_store (self->bin_gains + k,
        correct_bin_gains4 (dsp_vec4_load (self->bin_gains + k),
            dsp_vec4_load (d + k)));
  if (k == n)
    return;
  memcpy (tail_gains, self->bin_gains + k, (n - k) * sizeof (gfloat));
  memcpy (tail_d, d + k, (n - k) * sizeof (gfloat));
  dsp_vec4_store (tail_gains,
      correct_bin_gains4 (dsp_vec4_load (tail_gains), dsp_vec4_load (tail_d)));
  memcpy (self->bin_gains + k, tail_gains, (n - k) * sizeof (gfloat));
}

/* The voice probability from which a frame's lowest bins keep what stands
 * above their band's steady noise: 0.7 and 0.9 did as well on the
 * selection mixtures, 0.5 cost 0.1 dB of ΔSI-SDR (docs/model.md, "Keeping
 * the voice above a steady low noise"). */
#define FLOOR_KEEP_MIN_VAD 0.8f

/* The voice probability from which a frame's bins hold their gains: 0.7
 * did as well on the selection mixtures, 0.5 and 0.3 cost ΔSI-SDR
 * (docs/model.md, "Holding the gains within a word"). */
#define SPEECH_HOLD_MIN_VAD 0.8f

/* The speech hold of channel @c's bin gains in a frame with speech that
 * the gate left open; then every frame's gains (gated, silent or not)
 * become the ones the next frame holds from. */
static void
hold_gains_in_speech (DspProcessor *self, guint c, gboolean gated, gfloat vad)
{
  gboolean in_speech = !gated && vad >= SPEECH_HOLD_MIN_VAD;

  dsp_features_hold_gains (self->features[c], held_gains_of (self, c),
      in_speech ? self->settings.speech_hold : 0.0f, self->bin_gains);
}

/* The harmonic lift of channel @c's bin gains, then, in a frame with speech
 * that the gate left open, the floor keep; both read the same bin powers,
 * computed here once. @above is NULL for models that track no floor. */
static void
lift_low_bins (DspProcessor *self, guint c, const gfloat *spectrum,
    const gfloat *above, gboolean gated, gfloat vad)
{
  dsp_features_low_bin_powers (self->features[c], spectrum, self->bin_power);
  dsp_features_lift_peaks (self->features[c], self->bin_power,
      self->settings.harmonic_lift, self->bin_gains);
  if (above != NULL && !gated && vad >= FLOOR_KEEP_MIN_VAD)
    dsp_features_keep_above_floor (self->features[c], self->bin_power, above,
        self->bin_gains);
}

/* Channel @c's oldest frame (slot 0, frame t - L) with the network's gains
 * for it: the floor limit, the speech protection, the gate, the bins' gains
 * (with a bin-gain head, corrected in the first bins, then lifted and
 * held) and their application, then the synthesis into out_frame. */
static void
apply_gains (DspProcessor *self, guint c, DspProcessorReport *report)
{
  gfloat *spectrum = spectrum_slot (self, c, 0);
  const gfloat *above
      = self->tracks_floor ? floor_above_slot (self, c, 0) : NULL;
  gfloat vad = isfinite (self->vad[c]) ? self->vad[c] : 0.0f;
  gfloat *band_gains = self->band_gains + c * self->n_bands;
  gboolean gated;

  /* The floor limit first, so that the protection lifts what it cut in
   * frames with speech. */
  if (above != NULL)
    dsp_features_limit_to_floor_distance (self->features[c], above,
        self->settings.stationary_suppression, band_gains);
  protect_speech (self, above, vad, band_gains);
  gated = gate_frame (self, c, vad, band_gains);
  if (gated)
    report->gated_frames++;
  dsp_features_interpolate_gains (self->features[c], band_gains,
      self->bin_gains);
  /* A gated frame stays closed: its zero gains are the gate's, not the
   * network's. */
  if (!gated && dsp_model_get_n_bin_gains (self->model) > 0)
    correct_bin_gains (self, c);
  if (self->settings.harmonic_lift > 0.0f)
    lift_low_bins (self, c, spectrum, above, gated, vad);
  hold_gains_in_speech (self, c, gated, vad);
  dsp_features_apply_gains (self->features[c], self->bin_gains,
      self->settings.attenuation_limit_db, spectrum);
  dsp_stft_synthesize (self->stft[c], spectrum,
      self->out_frame + c * self->hop);
  report->vad_max = MAX (report->vad_max, vad);
  report->vad_mean += vad;
}

/* One of the stream's first L frames: the network has not got the frames
 * it reads ahead yet, so it does not run (its state must see the rows
 * training gave it, the first of which is frame 0's with its lookahead),
 * and the output is the silence before the stream: slot 0 holds no frame
 * of the stream yet. */
static void
skip_frame (DspProcessor *self, DspProcessorReport *report)
{
  gsize bins2 = (gsize) self->n_bins * 2;
  guint c;

  self->frames_seen++;
  for (c = 0; c < self->channels; c++) {
    gfloat *spectrum = spectrum_slot (self, c, 0);

    memset (spectrum, 0, bins2 * sizeof (gfloat));
    dsp_stft_synthesize (self->stft[c], spectrum,
        self->out_frame + c * self->hop);
    self->vad[c] = 0.0f;
    report->vad_max = MAX (report->vad_max, 0.0f);
  }
}

/* Moves every channel's delay line on by one frame: slots 1 .. L become
 * 0 .. L - 1, and slot L is free for the next frame. */
static void
advance_delay_line (DspProcessor *self)
{
  gsize n = self->lookahead;
  guint c;

  if (n == 0)
    return;
  for (c = 0; c < self->channels; c++) {
    gfloat *row = self->feature_rows + (gsize) c * self->n_inputs;

    memmove (spectrum_slot (self, c, 0), spectrum_slot (self, c, 1),
        n * self->n_bins * 2 * sizeof (gfloat));
    memmove (row, row + self->n_features,
        n * self->n_features * sizeof (gfloat));
    if (self->tracks_floor)
      memmove (floor_above_slot (self, c, 0), floor_above_slot (self, c, 1),
          n * self->n_bands * sizeof (gfloat));
  }
}

/* One frame for every channel: analysis and features of frame t, the
 * network over the batch of rows [features (t - L) .. features (t)], the
 * gains of frame t - L, its synthesis. Reads in_frame, fills out_frame. */
static void
run_frame (DspProcessor *self, DspProcessorReport *report)
{
  guint c;

  analyze_frame (self);
  if (self->frames_seen < self->lookahead) {
    skip_frame (self, report);
  } else {
    dsp_model_forward (self->model, self->feature_rows, self->hidden,
        self->channels, self->band_gains, self->vad, self->scratch);
    if (!hidden_is_finite (self)) {
      memset (self->hidden, 0, self->state_size * sizeof (gfloat));
      report->state_resets++;
    }
    for (c = 0; c < self->channels; c++)
      apply_gains (self, c, report);
  }
  advance_delay_line (self);
  report->frames++;
}

static inline gfloat
sanitize_sample (gfloat x, DspProcessorReport *report)
{
  if (G_UNLIKELY (!isfinite (x))) {
    report->nonfinite_samples++;
    return 0.0f;
  }
  return CLAMP (x, -SAMPLE_LIMIT, SAMPLE_LIMIT);
}

/* Frame-output mode: moves @take input samples into the partial frame; the
 * pre-roll counts input samples as in exchange_samples(). */
static guint
take_samples (DspProcessor *self, const gfloat *in, guint take,
    DspProcessorReport *report)
{
  guint s, c;

  for (s = 0; s < take; s++)
    for (c = 0; c < self->channels; c++)
      self->in_frame[(gsize) c * self->hop + self->pos + s]
          = sanitize_sample (in[(gsize) s * self->channels + c], report);
  self->preroll -= MIN (self->preroll, take);
  self->pos += take;
  return take;
}

/* Frame-output mode: writes the frame just synthesised (frame t - L when
 * frame t completed) to @out at *@produced. Sample j of the synthesis is
 * output sample (input samples taken) - latency + j, dropped while that is
 * negative: the first `preroll` of them. */
static void
emit_frame (DspProcessor *self, gfloat *out, guint *produced)
{
  guint drop = MIN (self->preroll, self->hop);
  guint s, c;

  for (s = drop; s < self->hop; s++) {
    gfloat *dst = out + (gsize) (*produced) * self->channels;

    for (c = 0; c < self->channels; c++)
      dst[c] = self->out_frame[(gsize) c * self->hop + s];
    (*produced)++;
  }
}

/* Moves up to one frame's worth of samples between the interleaved buffers
 * and the partial frame; returns how many input sample times it took and
 * adds the output samples it wrote to *produced (none while pre-rolling).
 * Output index never passes input index, and each input sample is read
 * before its output slot is written, so in == out is safe. */
static guint
exchange_samples (DspProcessor *self, const gfloat *in, gfloat *out,
    guint n_samples, guint *produced, DspProcessorReport *report)
{
  guint take = MIN (self->hop - self->pos, n_samples);
  guint s, c;

  if (self->frame_output)
    return take_samples (self, in, take, report);
  for (s = 0; s < take; s++) {
    gboolean emit = self->preroll == 0;
    gfloat *dst = out + (gsize) (*produced) * self->channels;

    for (c = 0; c < self->channels; c++) {
      gsize frame_at = (gsize) c * self->hop + self->pos + s;
      gfloat x = sanitize_sample (in[(gsize) s * self->channels + c], report);
      gfloat y = self->out_frame[frame_at];

      self->in_frame[frame_at] = x;
      if (emit)
        dst[c] = y;
    }
    if (emit)
      (*produced)++;
    else
      self->preroll--;
  }
  self->pos += take;
  return take;
}

/* Runs @n_samples of @in through the working copies, frames included. */
static guint
run_samples (DspProcessor *self, const gfloat *in, gfloat *out, guint n_samples,
    gsize in_stride, DspProcessorReport *report)
{
  guint done = 0, produced = 0;

  while (done < n_samples) {
    done += exchange_samples (self, in + (gsize) done * in_stride, out,
        n_samples - done, &produced, report);
    if (self->pos == self->hop) {
      run_frame (self, report);
      if (self->frame_output)
        emit_frame (self, out, &produced);
      self->pos = 0;
    }
  }
  return produced;
}

/* Samples per channel taken in and not out yet. Normal mode: the pre-roll
 * taken so far (the latency, once it is over). Frame-output mode: the
 * partial frame plus the STFT delay and the lookahead's hops, or what was
 * taken while that is more. */
static guint
held_samples (const DspProcessor *self)
{
  guint taken = self->latency - self->preroll;

  if (!self->frame_output)
    return taken;
  return MIN (taken, self->pos + self->latency - self->hop);
}

#if defined(__SSE2__)
/* Flush-to-zero and denormals-are-zero, so that decaying states and muted
 * input never fall into slow subnormal arithmetic. */
#define FTZ_DAZ_BITS 0x8040u
#define ENTER_FLUSH_TO_ZERO(saved) \
  do { \
    saved = _mm_getcsr (); \
    _mm_setcsr (saved | FTZ_DAZ_BITS); \
  } while (0)
#define LEAVE_FLUSH_TO_ZERO(saved) _mm_setcsr (saved)
#else
#define ENTER_FLUSH_TO_ZERO(saved) (void) (saved)
#define LEAVE_FLUSH_TO_ZERO(saved) (void) (saved)
#endif

/**
 * dsp_processor_process:
 * @self: a processor
 * @in: @n_samples x channels interleaved samples (nominal range -1..1)
 * @out: room for @n_samples x channels interleaved samples; may equal @in;
 *   in frame-output mode room for dsp_processor_get_latency() samples
 *   more, and never equal to @in
 * @n_samples: samples per channel, any number (0 does nothing)
 * @side_desc: (nullable): format of the side output (same layout as the
 *   slot's descriptor, any element type)
 * @side_out: (nullable): receives the final hidden state in @side_desc's
 *   format if at least one frame completed; untouched otherwise
 * @side_out_size: size of @side_out in bytes
 * @report: (out caller-allocates) (optional): what happened in the call
 *
 * One invocation: reads the state from the slot (applying a pending import),
 * runs every frame that completes, writes the final state back (hidden
 * state and DSP history, including the partial frame) and, if a frame
 * completed, fills @side_out from the same final state. Writes the output
 * samples that are ready: @n_samples once the stream's first
 * dsp_processor_get_latency() samples have been taken, fewer before; in
 * frame-output mode one hop per completed frame (fewer in the stream's
 * first frames), which is @n_samples when calls bring whole frames.
 * Non-finite input samples are replaced by silence and counted; a
 * non-finite recurrent state is reset and counted. Never allocates. Call
 * from one thread at a time.
 *
 * Returns: the number of samples per channel written to @out.
 */
guint
dsp_processor_process (DspProcessor *self, const gfloat *in, gfloat *out,
    guint n_samples, const RnnStateDescriptor *side_desc, gpointer side_out,
    gsize side_out_size, DspProcessorReport *report)
{
  DspProcessorReport local = { 0, 0, 0, 0, -1.0f, 0.0f, 0 };
  guint produced = 0;
  G_GNUC_UNUSED guint csr = 0;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail ((in != NULL && out != NULL) || n_samples == 0, 0);
  g_return_val_if_fail (!self->frame_output || in != out || n_samples == 0, 0);

  if (n_samples > 0) {
    ENTER_FLUSH_TO_ZERO (csr);
    rnn_state_slot_read (self->slot, self->hidden, self->history);
    load_history (self, self->history);
    produced = run_samples (self, in, out, n_samples, self->channels, &local);
    save_history (self, self->history);
    /* Always written back (the partial frame is state too); the side
     * output only when a frame completed. */
    rnn_state_slot_writeback (self->slot, self->hidden, self->history,
        local.frames > 0 ? side_desc : NULL, local.frames > 0 ? side_out : NULL,
        side_out_size);
    LEAVE_FLUSH_TO_ZERO (csr);
  }
  local.held = held_samples (self);
  if (local.frames > 0)
    local.vad_mean /= (gfloat) (local.frames * self->channels);
  else
    local.vad_mean = -1.0f;
  if (report != NULL)
    *report = local;
  return produced;
}

/**
 * dsp_processor_get_frame_vad:
 * @self: a processor
 * @channel: 0..channels - 1
 *
 * The voice probability the network gave the frame of @channel most
 * recently synthesised by this processor (frame t - lookahead when frame t
 * completed; 0 before any frame and for the silence a model with lookahead
 * gives before the stream's first frame). Call from the streaming thread,
 * after dsp_processor_process().
 *
 * Returns: a probability, 0..1.
 */
gfloat
dsp_processor_get_frame_vad (const DspProcessor *self, guint channel)
{
  gfloat vad;

  g_return_val_if_fail (self != NULL, 0.0f);
  g_return_val_if_fail (channel < self->channels, 0.0f);
  vad = self->vad[channel];
  return isfinite (vad) ? CLAMP (vad, 0.0f, 1.0f) : 0.0f;
}

/**
 * dsp_processor_drain:
 * @self: a processor
 * @out: room for dsp_processor_get_latency() x channels samples
 *
 * Produces the stream's tail: the samples still inside the processor, as if
 * silence followed. Works on a copy of the state: the slot is not changed,
 * so a snapshot taken after draining still continues the stream exactly.
 * Call from the streaming thread, e.g. at the end of the stream.
 *
 * Returns: the number of samples per channel written to @out (the latency
 * minus the pre-roll still pending: fewer for a stream shorter than the
 * latency).
 */
guint
dsp_processor_drain (DspProcessor *self, gfloat *out)
{
  DspProcessorReport ignored = { 0, 0, 0, 0, -1.0f, 0.0f, 0 };
  guint produced = 0, fed = 0, held;
  G_GNUC_UNUSED guint csr = 0;

  g_return_val_if_fail (self != NULL && out != NULL, 0);

  ENTER_FLUSH_TO_ZERO (csr);
  rnn_state_slot_peek (self->slot, self->hidden, self->history, NULL);
  load_history (self, self->history);
  held = held_samples (self);
  /* Normal mode gives one sample per sample fed; frame-output mode a hop
   * per frame, up to the latency in all (the partial frame is completed
   * first, then the STFT delay comes out). */
  while (fed < self->latency && produced < held) {
    guint n = MIN (self->hop - self->pos, self->latency - fed);

    produced += run_samples (self, self->zeros,
        out + (gsize) produced * self->channels, n, 0, &ignored);
    fed += n;
  }
  LEAVE_FLUSH_TO_ZERO (csr);
  return MIN (produced, held);
}

/**
 * dsp_processor_reset:
 * @self: a processor
 * @drop_pending_import: see rnn_state_slot_reset()
 *
 * Restores the initial state (zero hidden state, history of a stream
 * preceded by silence). Safe from any thread; during a running call it
 * takes effect when that call's writeback completes.
 */
void
dsp_processor_reset (DspProcessor *self, gboolean drop_pending_import)
{
  g_return_if_fail (self != NULL);
  rnn_state_slot_reset (self->slot, drop_pending_import);
}

/**
 * dsp_processor_export:
 * @self: a processor
 *
 * The whole-stream snapshot: hidden state and DSP history after the last
 * completed call. Safe from any thread.
 *
 * Returns: (transfer full): snapshot bytes (see docs/state-contract.md).
 */
GBytes *
dsp_processor_export (DspProcessor *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return rnn_state_slot_snapshot (self->slot);
}

/**
 * dsp_processor_import:
 * @self: a processor
 * @data: snapshot bytes
 * @size: size of @data
 * @error: return location for a #RNN_STATE_ERROR
 *
 * Validates a snapshot against this stream (model id, channels, layout) and
 * stages it; it takes effect at the start of the next
 * dsp_processor_process() call. A refused import changes nothing. Safe from
 * any thread.
 *
 * Returns: TRUE if the snapshot was accepted.
 */
gboolean
dsp_processor_import (DspProcessor *self, gconstpointer data, gsize size,
    GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return rnn_state_slot_import (self->slot, data, size, error);
}
