/* rnndenoise — dsp: the input level tracker behind level normalisation
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The network learnt its gains from mixtures whose speech lay between -42
 * and -12 dBFS, and it learnt them level by level: the same mixture 10 dB
 * quieter lost twice the speech, 20 dB quieter five times (docs/model.md,
 * "Level normalisation"). The processor therefore analyses each frame as
 * if the input's loud frames were at DSP_LEVEL_TARGET_DBFS: the features
 * see the spectrum times dsp_level_gain(), the gains are applied to the
 * spectrum as it is, so the output keeps the input's level.
 */
#include "config.h"

#include <math.h>

#include "dsp_level.h"
#include "dsp_samples.h"

/* The peak a stream starts with: below any frame, so the first counted
 * frame sets it. */
#define PEAK_UNKNOWN (-1000.0f)

/**
 * dsp_level_init:
 * @self: a #DspLevel to set up
 * @sample_rate: Hz
 * @hop: samples per frame
 *
 * A tracker that has heard nothing: its gain is 1 until a frame above
 * DSP_LEVEL_SILENCE_DBFS arrives.
 */
void
dsp_level_init (DspLevel *self, guint sample_rate, guint hop)
{
  gfloat frame_s = (gfloat) hop / (gfloat) sample_rate;

  g_return_if_fail (self != NULL && sample_rate > 0 && hop > 0);

  self->peak_db = PEAK_UNKNOWN;
  self->mean_power = 0.0f;
  self->n_active = 0.0f;
  self->peak_decay = DSP_LEVEL_PEAK_DECAY_DB_PER_S * frame_s;
  self->max_count = MAX (1.0f, roundf (DSP_LEVEL_AVERAGE_S / frame_s));
}

/* Mean power of @n samples in dBFS (full scale = 1.0), at least -200. */
static gfloat
frame_level_db (const gfloat *samples, guint n)
{
  gdouble mean = dsp_samples_energy (samples, n) / MAX (n, 1);

  return (gfloat) (10.0 * log10 (mean + 1e-20));
}

/**
 * dsp_level_update:
 * @self: a #DspLevel
 * @samples: the frame's @n new input samples, finite, full scale 1.0
 * @n: samples
 *
 * Takes in one frame. Never allocates.
 */
void
dsp_level_update (DspLevel *self, const gfloat *samples, guint n)
{
  gfloat level;

  g_return_if_fail (self != NULL && (samples != NULL || n == 0));

  level = frame_level_db (samples, n);
  if (!(level > DSP_LEVEL_SILENCE_DBFS))
    return;
  self->peak_db = MAX (level, self->peak_db - self->peak_decay);
  if (level <= self->peak_db - DSP_LEVEL_ACTIVE_DB)
    return;
  self->n_active = MIN (self->n_active + 1.0f, self->max_count);
  self->mean_power
      += (powf (10.0f, level / 10.0f) - self->mean_power) / self->n_active;
}

/**
 * dsp_level_gain:
 * @self: a #DspLevel
 *
 * Returns: the linear gain that brings the tracked level to
 *   DSP_LEVEL_TARGET_DBFS, within DSP_LEVEL_MIN_GAIN_DB ..
 *   DSP_LEVEL_MAX_GAIN_DB; 1 before any active frame.
 */
gfloat
dsp_level_gain (const DspLevel *self)
{
  gfloat db;

  g_return_val_if_fail (self != NULL, 1.0f);

  if (!(self->n_active >= 1.0f && self->mean_power > 0.0f))
    return 1.0f;
  db = DSP_LEVEL_TARGET_DBFS - 10.0f * log10f (self->mean_power);
  db = CLAMP (db, DSP_LEVEL_MIN_GAIN_DB, DSP_LEVEL_MAX_GAIN_DB);
  return powf (10.0f, db / 20.0f);
}

/**
 * dsp_level_scale_spectrum:
 * @self: a #DspLevel
 * @spectrum: @n_bins interleaved complex bins
 * @n_bins: bins in @spectrum
 * @out: @n_bins * 2 floats: @spectrum times dsp_level_gain()
 *
 * The spectrum the features are computed on with level normalisation. The
 * processor and the training features (rnndenoise-features
 * --level-normalization) both scale through here, so a network learns from
 * the inputs it reads.
 */
void
dsp_level_scale_spectrum (const DspLevel *self, const gfloat *spectrum,
    guint n_bins, gfloat *out)
{
  gfloat gain;
  gsize n = (gsize) n_bins * 2, i;

  g_return_if_fail (self != NULL && spectrum != NULL && out != NULL);

  gain = dsp_level_gain (self);
  for (i = 0; i < n; i++)
    out[i] = spectrum[i] * gain;
}

/**
 * dsp_level_save:
 * @self: a #DspLevel
 * @out: DSP_LEVEL_HISTORY_SIZE floats
 *
 * Copies the tracker's per-stream state out (the constants set by
 * dsp_level_init() are not state).
 */
void
dsp_level_save (const DspLevel *self, gfloat *out)
{
  g_return_if_fail (self != NULL && out != NULL);

  out[0] = self->peak_db;
  out[1] = self->mean_power;
  out[2] = self->n_active;
}

/**
 * dsp_level_load:
 * @self: a #DspLevel, set up by dsp_level_init()
 * @in: DSP_LEVEL_HISTORY_SIZE floats from dsp_level_save()
 *
 * Replaces the per-stream state. Values no save can give (a negative or
 * non-finite power, a count out of range) are imported damage: the
 * tracker then starts again as dsp_level_init() left it, with gain 1.
 * Saved states load unchanged, so a stream continues bit-exactly.
 */
void
dsp_level_load (DspLevel *self, const gfloat *in)
{
  g_return_if_fail (self != NULL && in != NULL);

  if (!(isfinite (in[0]) && in[1] >= 0.0f && isfinite (in[1]) && in[2] >= 0.0f
          && in[2] <= self->max_count && in[2] == floorf (in[2]))) {
    self->peak_db = PEAK_UNKNOWN;
    self->mean_power = 0.0f;
    self->n_active = 0.0f;
    return;
  }
  self->peak_db = in[0];
  self->mean_power = in[1];
  self->n_active = in[2];
}
