/* rnndenoise — dsp: band energies, cepstral features and band gains
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dsp_features.h"
#include "dsp_frame_config.h"

/* Bands are triangles on the band centres c[b] = (edge[b] + edge[b + 1]) / 2:
 * a bin k between c[b] and c[b + 1] belongs to band b with weight
 * 1 - f and to band b + 1 with weight f = (k - c[b]) / (c[b + 1] - c[b]);
 * bins below c[0] or above c[n_bands - 1] belong wholly to the first or last
 * band. The weights of each bin sum to 1, so band energies add up to the
 * spectrum's energy, and band gains interpolate to bin gains with the same
 * weights. */
struct _DspFeatures
{
  guint n_bands;
  guint n_bins;
  guint n_features;
  guint n_lift_bins; /* bins 0 .. n_lift_bins - 1 lie below LIFT_MAX_HZ */
  guint n_keep_bins; /* bins 0 .. n_keep_bins - 1 lie below FLOOR_KEEP_MAX_HZ */
  guint8 bin_lo[DSP_MAX_BINS];   /* first band of each bin */
  guint8 bin_hi[DSP_MAX_BINS];   /* second band (bin_lo at the ends) */
  gfloat bin_frac[DSP_MAX_BINS]; /* weight of bin_hi, 0 .. 1 */
  gfloat dct[DSP_MAX_BANDS * DSP_MAX_BANDS]; /* [j * n_bands + b] */
  gfloat silence[DSP_FEATURE_N_DELTA];       /* cepstrum of an all-zero frame */
  gboolean track_floor;                      /* layouts 2 and 3 */
  gsize history_size;                        /* floats of history in use */
  /* History, the only per-stream data: the first DSP_FEATURE_N_DELTA
   * cepstral coefficients of frames t - 1, then t - 2; for layout 2 then
   * the smoothed log energy S[b] and the floor N[b] of each band (plain
   * floats, so a snapshot is a copy). */
  gfloat history[2 * DSP_FEATURE_N_DELTA + 2 * DSP_MAX_BANDS];
};

/* Orthonormal DCT-II of log10 (E + floor) over the bands, @ceps: n_bands. */
static void
cepstrum_from_energies (const DspFeatures *self, const gfloat *energies,
    gfloat *ceps)
{
  gfloat ly[DSP_MAX_BANDS];
  guint b, j;

  for (b = 0; b < self->n_bands; b++)
    ly[b] = log10f (energies[b] + DSP_FEATURES_ENERGY_FLOOR);
  for (j = 0; j < self->n_bands; j++) {
    const gfloat *row = self->dct + j * self->n_bands;
    gfloat sum = 0.0f;

    for (b = 0; b < self->n_bands; b++)
      sum += row[b] * ly[b];
    ceps[j] = sum;
  }
}

/**
 * dsp_features_new:
 * @cfg: a configuration that passes dsp_frame_config_validate().
 *
 * Makes the feature extractor of one channel for @cfg's bands and feature
 * layout (DSP_FEATURE_LAYOUT_CEPSTRUM_V1 or
 * DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2). Its cepstral history starts as if the
 * stream were preceded by silence, like #DspStft's; layout 2's noise floor
 * starts unknown.
 *
 * Returns: (transfer full): a new #DspFeatures; free with
 *   dsp_features_free().
 */
DspFeatures *
dsp_features_new (const DspFrameConfig *cfg)
{
  DspFeatures *self;
  gfloat zeros[DSP_MAX_BANDS] = { 0.0f };
  gfloat ceps[DSP_MAX_BANDS];
  double centre[DSP_MAX_BANDS];
  guint b, j, k;

  g_return_val_if_fail (cfg != NULL, NULL);
  g_return_val_if_fail (dsp_frame_config_validate (cfg, NULL), NULL);

  self = g_new0 (DspFeatures, 1);
  self->n_bands = cfg->n_bands;
  self->n_bins = cfg->window / 2 + 1;
  self->n_lift_bins = MIN (self->n_bins,
      (guint) (DSP_FEATURES_LIFT_MAX_HZ * cfg->window / cfg->sample_rate) + 1);
  self->n_keep_bins = MIN (self->n_bins,
      (guint) (DSP_FEATURES_FLOOR_KEEP_MAX_HZ * cfg->window / cfg->sample_rate)
          + 1);
  /* dsp_features_low_bin_powers() fills the lift's bins for both. */
  g_assert (self->n_keep_bins <= self->n_lift_bins);
  self->n_features
      = dsp_feature_layout_n_features (cfg->feature_layout_id, cfg->n_bands);
  self->track_floor
      = cfg->feature_layout_id == DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2
      || cfg->feature_layout_id == DSP_FEATURE_LAYOUT_PITCH_V3;
  self->history_size
      = 2 * DSP_FEATURE_N_DELTA + (self->track_floor ? 2 * self->n_bands : 0);

  for (b = 0; b < self->n_bands; b++)
    centre[b] = 0.5 * (cfg->band_edges[b] + cfg->band_edges[b + 1]);
  b = 0;
  for (k = 0; k < self->n_bins; k++) {
    while (b + 1 < self->n_bands && k >= centre[b + 1])
      b++;
    self->bin_lo[k] = (guint8) b;
    if (k <= centre[b] || b + 1 == self->n_bands) {
      self->bin_hi[k] = (guint8) b;
      self->bin_frac[k] = 0.0f;
    } else {
      self->bin_hi[k] = (guint8) (b + 1);
      self->bin_frac[k]
          = (gfloat) ((k - centre[b]) / (centre[b + 1] - centre[b]));
    }
  }

  for (j = 0; j < self->n_bands; j++) {
    double scale = sqrt ((j == 0 ? 1.0 : 2.0) / self->n_bands);

    for (b = 0; b < self->n_bands; b++)
      self->dct[j * self->n_bands + b]
          = (gfloat) (scale * cos (G_PI * j * (b + 0.5) / self->n_bands));
  }

  cepstrum_from_energies (self, zeros, ceps);
  memcpy (self->silence, ceps, sizeof (self->silence));
  dsp_features_reset (self);

  return self;
}

/**
 * dsp_features_free:
 * @self: (nullable): a #DspFeatures.
 */
void
dsp_features_free (DspFeatures *self)
{
  g_free (self);
}

/**
 * dsp_features_reset:
 * @self: a #DspFeatures.
 *
 * Sets the history to the cepstrum of silence (all band energies 0) and
 * layout 2's noise floor to unknown, as after dsp_features_new(); allocates
 * nothing.
 */
void
dsp_features_reset (DspFeatures *self)
{
  guint i;

  g_return_if_fail (self != NULL);

  memcpy (self->history, self->silence, sizeof (self->silence));
  memcpy (self->history + DSP_FEATURE_N_DELTA, self->silence,
      sizeof (self->silence));
  for (i = 2 * DSP_FEATURE_N_DELTA; i < G_N_ELEMENTS (self->history); i++)
    self->history[i] = DSP_FEATURES_FLOOR_UNKNOWN;
}

/* Layout 2: advances each band's noise floor by one frame and writes how
 * far the frame stands above it, @out: n_bands. */
static void
noise_floor_features (DspFeatures *self, const gfloat *energies, gfloat *out)
{
  gfloat *smoothed = self->history + 2 * DSP_FEATURE_N_DELTA;
  gfloat *floor = smoothed + self->n_bands;
  const gfloat a = DSP_FEATURES_FLOOR_SMOOTHING;
  guint b;

  for (b = 0; b < self->n_bands; b++) {
    gfloat level = log10f (energies[b] + DSP_FEATURES_ENERGY_FLOOR);

    /* "Unknown" (after a reset) is far above any band energy. */
    if (smoothed[b] >= DSP_FEATURES_FLOOR_UNKNOWN)
      smoothed[b] = level;
    else
      smoothed[b] = a * smoothed[b] + (1.0f - a) * level;
    floor[b] = MIN (smoothed[b], floor[b] + DSP_FEATURES_FLOOR_RISE);
    out[b] = level - floor[b];
  }
}

/**
 * dsp_features_get_n_features:
 * @self: a #DspFeatures.
 *
 * Returns: the number of features per frame,
 *   dsp_feature_layout_n_features (layout, n_bands).
 */
guint
dsp_features_get_n_features (const DspFeatures *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_features;
}

/* Sums per-bin values into the bands with the triangular weights: band b
 * gets, in bin order, (1 - f) v[k] from the bins whose first band it is
 * and f v[k] from those whose second band it is. Bands only move up with
 * the bins, so the two open sums stay in registers (adding straight into
 * @bands would wait on memory at every bin); the additions are the same,
 * in the same order, starting from 0. */
static void
sum_into_bands (const DspFeatures *self, const gfloat *values, gfloat *bands)
{
  gfloat open_lo = 0.0f, open_hi = 0.0f; /* bands cur and cur + 1 */
  guint cur = 0, b, k;

  for (k = 0; k < self->n_bins; k++) {
    gfloat hi = self->bin_frac[k] * values[k];

    while (cur < self->bin_lo[k]) {
      bands[cur++] = open_lo;
      open_lo = open_hi;
      open_hi = 0.0f;
    }
    open_lo += values[k] - hi;
    if (self->bin_hi[k] == cur)
      open_lo += hi;
    else
      open_hi += hi;
  }
  bands[cur] = open_lo;
  for (b = cur + 1; b < self->n_bands; b++) {
    bands[b] = open_hi;
    open_hi = 0.0f;
  }
}

/**
 * dsp_features_band_energies:
 * @self: a #DspFeatures.
 * @spectrum: (window / 2 + 1) * 2 floats, interleaved complex bins.
 * @band_energies: n_bands floats: E[b] = sum over bins k of weight_b (k) *
 *   |X[k]|^2 with the triangular band weights (which sum to 1 per bin).
 *
 * Uses no history, so it serves for the clean and the noisy spectrum alike
 * when training computes ideal gains sqrt (E_clean[b] / E_noisy[b]). Never
 * allocates.
 */
void
dsp_features_band_energies (const DspFeatures *self, const gfloat *spectrum,
    gfloat *band_energies)
{
  gfloat power[DSP_MAX_BINS];
  guint k;

  g_return_if_fail (self != NULL);
  g_return_if_fail (spectrum != NULL && band_energies != NULL);

  for (k = 0; k < self->n_bins; k++) {
    gfloat re = spectrum[2 * k], im = spectrum[2 * k + 1];

    power[k] = re * re + im * im;
  }
  sum_into_bands (self, power, band_energies);
}

/**
 * dsp_features_band_cross:
 * @self: a #DspFeatures.
 * @a: (window / 2 + 1) * 2 floats, interleaved complex bins.
 * @b: another spectrum of the same size.
 * @b_energies: n_bands floats: @b's band energies, as
 *   dsp_features_band_energies() gives them.
 * @band_cross: n_bands floats: the sum over bins k of weight_b (k) *
 *   Re (A[k] conj (B[k])), the band's cross energy (its energy for a = b).
 *
 * Never allocates.
 */
void
dsp_features_band_cross (const DspFeatures *self, const gfloat *a,
    const gfloat *b, gfloat *b_energies, gfloat *band_cross)
{
  gfloat cross[DSP_MAX_BINS];
  guint k;

  g_return_if_fail (self != NULL && a != NULL && b != NULL);
  g_return_if_fail (b_energies != NULL && band_cross != NULL);

  dsp_features_band_energies (self, b, b_energies);
  for (k = 0; k < self->n_bins; k++)
    cross[k] = a[2 * k] * b[2 * k] + a[2 * k + 1] * b[2 * k + 1];
  sum_into_bands (self, cross, band_cross);
}

/**
 * dsp_features_get_n_bands:
 * @self: a #DspFeatures.
 *
 * Returns: the number of bands.
 */
guint
dsp_features_get_n_bands (const DspFeatures *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_bands;
}

/**
 * dsp_features_compute:
 * @self: a #DspFeatures.
 * @spectrum: (window / 2 + 1) * 2 floats, interleaved complex bins, as
 *   dsp_stft_analyze() makes them.
 * @features: dsp_features_get_n_features() floats, feature layout 1:
 *   c[0 .. n_bands - 1], the orthonormal DCT-II over the bands of
 *   log10 (E[b] + DSP_FEATURES_ENERGY_FLOOR); then c[i] - c_prev[i] for
 *   i < DSP_FEATURE_N_DELTA; then c[i] - 2 * c_prev[i] + c_prev2[i] for the
 *   same i, where c_prev and c_prev2 are the cepstra of the two frames before;
 *   for layouts 2 and 3 then n_bands values, each band's log10 energy minus
 *   its noise floor (DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2). Layout 3's pitch
 *   part, from DSP_PITCH_FEATURES_OFFSET (n_bands) on, is left to
 *   dsp_pitch_features().
 * @band_energies: (nullable): n_bands floats for the band energies, as
 *   dsp_features_band_energies() gives them.
 *
 * Advances the feature history by one frame. Never allocates.
 */
void
dsp_features_compute (DspFeatures *self, const gfloat *spectrum,
    gfloat *features, gfloat *band_energies)
{
  gfloat energies[DSP_MAX_BANDS];
  gfloat *prev, *prev2, *d1, *d2;
  guint i;

  g_return_if_fail (self != NULL);
  g_return_if_fail (spectrum != NULL && features != NULL);

  prev = self->history;
  prev2 = self->history + DSP_FEATURE_N_DELTA;

  dsp_features_band_energies (self, spectrum, energies);
  cepstrum_from_energies (self, energies, features);

  d1 = features + self->n_bands;
  d2 = d1 + DSP_FEATURE_N_DELTA;
  for (i = 0; i < DSP_FEATURE_N_DELTA; i++) {
    d1[i] = features[i] - prev[i];
    d2[i] = features[i] - 2.0f * prev[i] + prev2[i];
  }
  memcpy (prev2, prev, sizeof (gfloat) * DSP_FEATURE_N_DELTA);
  memcpy (prev, features, sizeof (gfloat) * DSP_FEATURE_N_DELTA);
  if (self->track_floor)
    noise_floor_features (self, energies, d2 + DSP_FEATURE_N_DELTA);

  if (band_energies != NULL)
    memcpy (band_energies, energies, sizeof (gfloat) * self->n_bands);
}

/**
 * dsp_features_interpolate_gains:
 * @self: a #DspFeatures.
 * @band_gains: n_bands linear gains.
 * @bin_gains: window / 2 + 1 linear gains, one per bin, interpolated with the
 *   band weights: g[k] = g_lo + f[k] * (g_hi - g_lo). Equal band gains give
 *   exactly that gain in every bin.
 *
 * Never allocates.
 */
void
dsp_features_interpolate_gains (const DspFeatures *self,
    const gfloat *band_gains, gfloat *bin_gains)
{
  guint k;

  g_return_if_fail (self != NULL);
  g_return_if_fail (band_gains != NULL && bin_gains != NULL);

  for (k = 0; k < self->n_bins; k++) {
    gfloat lo = band_gains[self->bin_lo[k]];
    gfloat hi = band_gains[self->bin_hi[k]];

    bin_gains[k] = lo + self->bin_frac[k] * (hi - lo);
  }
}

/**
 * dsp_features_low_bin_powers:
 * @self: a #DspFeatures.
 * @spectrum: the frame's window / 2 + 1 complex bins (interleaved), before
 *   any gain.
 * @power: (out): at least the returned number of floats.
 *
 * The power of each bin that dsp_features_lift_peaks() and
 * dsp_features_keep_above_floor() read: those below
 * DSP_FEATURES_LIFT_MAX_HZ and DSP_FEATURES_LIFT_HALF_WIDTH more (the
 * keep's 300 Hz lie below the lift's 4 kHz). Computed once a frame for
 * both. Never allocates.
 *
 * Returns: how many bins, from bin 0, @power now holds.
 */
guint
dsp_features_low_bin_powers (const DspFeatures *self, const gfloat *spectrum,
    gfloat *power)
{
  guint n, k;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (spectrum != NULL && power != NULL, 0);

  n = MIN (self->n_lift_bins + DSP_FEATURES_LIFT_HALF_WIDTH, self->n_bins);
  for (k = 0; k < n; k++)
    power[k] = spectrum[2 * k] * spectrum[2 * k]
        + spectrum[2 * k + 1] * spectrum[2 * k + 1];
  return n;
}

/* The mean power of bin @k and the DSP_FEATURES_LIFT_HALF_WIDTH bins each
 * side of it: the local level a bin's noise is estimated from. */
static gfloat
local_mean (const gfloat *power, guint k)
{
  gfloat sum = 0.0f;
  guint i;

  for (i = k - DSP_FEATURES_LIFT_HALF_WIDTH;
       i <= k + DSP_FEATURES_LIFT_HALF_WIDTH; i++)
    sum += power[i];
  return sum / (2 * DSP_FEATURES_LIFT_HALF_WIDTH + 1);
}

/**
 * dsp_features_lift_peaks:
 * @self: a #DspFeatures.
 * @power: the frame's bin powers before any gain, as
 *   dsp_features_low_bin_powers() gave them.
 * @lift: >= 0; a bin's gain rises to at most (1 + @lift) times its own, and
 *   1; 0 leaves the gains as they are.
 * @bin_gains: (inout): window / 2 + 1 linear gains, as
 *   dsp_features_interpolate_gains() made them; only raised, never lowered.
 *
 * A band gain g says the band holds a share g² of speech energy and
 * 1 - g² of noise. Below DSP_FEATURES_LIFT_MAX_HZ a band spans a few
 * harmonics of a voiced frame, which puts its energy into them, a bin or
 * two each, with noise between them: the band gain takes from the harmonics
 * what it rightly takes from the gaps. So each bin with a gain of at least
 * DSP_FEATURES_LIFT_MIN_GAIN estimates its own noise as 1 - g² of the mean
 * power of the bins around it, and gets the spectral-subtraction gain
 * sqrt (1 - noise / power) where that is higher than g, up to the cap. A
 * harmonic standing above its neighbours keeps more of itself, the gaps
 * keep the band's gain. Keeps no state (the frame's powers only), so
 * snapshots are unchanged. Never allocates.
 */
void
dsp_features_lift_peaks (const DspFeatures *self, const gfloat *power,
    gfloat lift, gfloat *bin_gains)
{
  guint last, k;

  g_return_if_fail (self != NULL);
  g_return_if_fail (power != NULL && bin_gains != NULL);

  if (!(lift > 0.0f) || self->n_bins < 2 * DSP_FEATURES_LIFT_HALF_WIDTH + 1)
    return;
  last = MIN (self->n_lift_bins, self->n_bins - DSP_FEATURES_LIFT_HALF_WIDTH);
  for (k = DSP_FEATURES_LIFT_HALF_WIDTH; k < last; k++) {
    gfloat g = bin_gains[k];
    gfloat noise, cap;

    /* Also false for NaN. */
    if (!(g >= DSP_FEATURES_LIFT_MIN_GAIN && g < 1.0f))
      continue;
    noise = (1.0f - g * g) * local_mean (power, k);
    if (!(power[k] > noise))
      continue;
    cap = MIN (g * (1.0f + lift), 1.0f);
    bin_gains[k] = MAX (g, MIN (sqrtf (1.0f - noise / power[k]), cap));
  }
}

/**
 * dsp_features_keep_above_floor:
 * @self: a #DspFeatures with a noise floor tracker.
 * @power: the frame's bin powers before any gain, as
 *   dsp_features_low_bin_powers() gave them.
 * @above: n_bands values, log10 (S / F) of the frame as
 *   dsp_features_smoothed_above_floor() gave them.
 * @bin_gains: (inout): window / 2 + 1 linear gains; only raised, never
 *   lowered.
 *
 * For a frame with speech. A band's steady noise is the share F / S =
 * 10^-above of its smoothed energy. Each bin from
 * DSP_FEATURES_LIFT_HALF_WIDTH up to DSP_FEATURES_FLOOR_KEEP_MAX_HZ takes
 * DSP_FEATURES_FLOOR_KEEP_OVERSUBTRACTION times that share (interpolated
 * between its bands as the gains are) of the mean power of the bins around
 * it as its noise, and gets the spectral-subtraction gain
 * sqrt (1 - noise / power) where that is higher than its gain. Unlike
 * dsp_features_lift_peaks() there is neither a cap nor a lowest gain: the
 * tracker, not the network's gain, says how much noise is there, so a
 * voice's fundamental standing above a low rumble keeps itself even where
 * the network cut the whole band. A bin that does not stand above the
 * rumble keeps its gain. Keeps no state, never allocates.
 */
void
dsp_features_keep_above_floor (const DspFeatures *self, const gfloat *power,
    const gfloat *above, gfloat *bin_gains)
{
  const guint half = DSP_FEATURES_LIFT_HALF_WIDTH;
  guint last, k;

  g_return_if_fail (self != NULL);
  g_return_if_fail (power != NULL && above != NULL && bin_gains != NULL);

  if (self->n_bins < 2 * half + 1)
    return;
  last = MIN (self->n_keep_bins, self->n_bins - half);
  for (k = half; k < last; k++) {
    gfloat share_lo = powf (10.0f, -above[self->bin_lo[k]]);
    gfloat share_hi = powf (10.0f, -above[self->bin_hi[k]]);
    gfloat share = share_lo + self->bin_frac[k] * (share_hi - share_lo);
    gfloat noise = DSP_FEATURES_FLOOR_KEEP_OVERSUBTRACTION * share
        * local_mean (power, k);
    /* Also false for NaN. */
    if (!(power[k] > noise))
      continue;
    bin_gains[k] = MAX (bin_gains[k], sqrtf (1.0f - noise / power[k]));
  }
}

/**
 * dsp_features_hold_gains:
 * @self: a #DspFeatures.
 * @before: (inout): window / 2 + 1 linear gains: each bin's gain in the
 *   frame before; then this frame's, as held, for the next frame.
 * @share: 0..1; a bin's gain is raised to at least @share times its gain
 *   in @before; 0 leaves the gains as they are (and only stores them).
 * @bin_gains: (inout): window / 2 + 1 linear gains; only raised, never
 *   lowered.
 *
 * For a frame with speech: within a word, the gains of a voice's bins fall
 * by at most 20 log10 (1 / @share) dB from one frame to the next, however
 * deep the network cuts, so a bin the network takes for noise for a frame
 * or two in the middle of a voice is only turned down, and a bin whose
 * voice has ended fades out over a few frames instead of at once. Gains
 * in @before of at most 1 (as every gain the processor applies) give held
 * gains of at most 1; a NaN in @before holds nothing. Every frame, held
 * or not (a share of 0 in frames without speech), must pass here so that
 * the next one holds from it. Keeps no state (the caller keeps @before),
 * never allocates.
 */
void
dsp_features_hold_gains (const DspFeatures *self, gfloat *before, gfloat share,
    gfloat *bin_gains)
{
  guint k;

  g_return_if_fail (self != NULL);
  g_return_if_fail (before != NULL && bin_gains != NULL);

  /* Also false for NaN. */
  if (share > 0.0f) {
    share = MIN (share, 1.0f);
    for (k = 0; k < self->n_bins; k++) {
      gfloat held = share * before[k];

      /* Not MAX (): a NaN in @before must leave the gain as it is. */
      if (held > bin_gains[k])
        bin_gains[k] = held;
    }
  }
  memcpy (before, bin_gains, self->n_bins * sizeof (gfloat));
}

/**
 * dsp_features_smoothed_above_floor:
 * @self: a #DspFeatures, after dsp_features_compute() of the frame.
 * @above: (out): n_bands values: log10 (S[b] / F[b]), how far each band's
 *   smoothed energy stands above its noise floor (1 = 10 dB), at least 0.
 *
 * Feature layout 2's tracker state as the frame left it; a band that sits
 * on its floor holds a noise that has been there all along. Never
 * allocates.
 *
 * Returns: FALSE (and @above untouched) for layout 1, which tracks no
 *   floor.
 */
gboolean
dsp_features_smoothed_above_floor (const DspFeatures *self, gfloat *above)
{
  const gfloat *smoothed, *floor;
  guint b;

  g_return_val_if_fail (self != NULL && above != NULL, FALSE);

  if (!self->track_floor)
    return FALSE;
  smoothed = self->history + 2 * DSP_FEATURE_N_DELTA;
  floor = smoothed + self->n_bands;
  /* MAX also turns a NaN from a damaged snapshot into 0. */
  for (b = 0; b < self->n_bands; b++)
    above[b] = MAX (smoothed[b] - floor[b], 0.0f);
  return TRUE;
}

/**
 * dsp_features_limit_to_noise_floor:
 * @self: a #DspFeatures, after dsp_features_compute() of the frame.
 * @over_subtraction: how many times its noise floor is taken out of each
 *   band, >= 0; 0 leaves the gains as they are.
 * @band_gains: (inout): n_bands linear gains; each is lowered to at most
 *   the spectral-subtraction gain sqrt (1 - @over_subtraction * F[b] /
 *   S[b]), but not below DSP_FEATURES_FLOOR_MIN_GAIN, S[b] being the
 *   band's smoothed energy and F[b] its noise floor (the floor tracker of
 *   feature layout 2).
 *
 * A noise that has been there all along sits on its floor, so its bands
 * are cut whatever the network gave them. The smoothed energy, not the
 * frame's, because the frame's flickers by several dB in a steady noise
 * and a limit that flickers with it breaks up the voice's envelope; the
 * minimum gain because the tracker cannot tell a weak voice in a band from
 * the noise there, and silencing such bands costs intelligibility. The
 * floor is a minimum, which lies below the noise's mean, hence a factor
 * above 1. Uses the tracker's state as the frame left it and keeps none of
 * its own. Layout 1 tracks no floor: the gains are left as they are. Never
 * allocates.
 */
void
dsp_features_limit_to_noise_floor (const DspFeatures *self,
    gfloat over_subtraction, gfloat *band_gains)
{
  gfloat above[DSP_MAX_BANDS];

  g_return_if_fail (self != NULL && band_gains != NULL);

  if (!(over_subtraction > 0.0f)
      || !dsp_features_smoothed_above_floor (self, above))
    return;
  dsp_features_limit_to_floor_distance (self, above, over_subtraction,
      band_gains);
}

/**
 * dsp_features_limit_to_floor_distance:
 * @self: a #DspFeatures of a layout that tracks a noise floor.
 * @above: n_bands values from dsp_features_smoothed_above_floor(): the
 *   tracker's state as the frame the gains are for left it.
 * @over_subtraction: as for dsp_features_limit_to_noise_floor().
 * @band_gains: (inout): n_bands linear gains, limited as
 *   dsp_features_limit_to_noise_floor() does.
 *
 * dsp_features_limit_to_noise_floor() from floor distances kept from an
 * earlier frame: a processor whose network reads frames ahead applies a
 * frame's gains after the tracker has moved on, and limits them by the
 * frame's own state. Never allocates.
 */
void
dsp_features_limit_to_floor_distance (const DspFeatures *self,
    const gfloat *above, gfloat over_subtraction, gfloat *band_gains)
{
  guint b;

  g_return_if_fail (self != NULL && above != NULL && band_gains != NULL);

  if (!(over_subtraction > 0.0f))
    return;
  for (b = 0; b < self->n_bands; b++) {
    /* F / S from log10 values: a restored snapshot's may be far off, and
     * 10^x of them would overflow. */
    gfloat ratio = over_subtraction * powf (10.0f, -above[b]);
    gfloat limit = ratio < 1.0f ? sqrtf (1.0f - ratio) : 0.0f;

    band_gains[b]
        = MIN (band_gains[b], MAX (limit, DSP_FEATURES_FLOOR_MIN_GAIN));
  }
}

/**
 * dsp_features_gain_floor:
 * @attenuation_limit_db: the largest attenuation in dB, >= 0; 0 means no
 *   limit.
 *
 * Returns: the smallest gain the limit allows, 10^(-limit / 20), or 0 for a
 *   0 dB limit.
 */
gfloat
dsp_features_gain_floor (gfloat attenuation_limit_db)
{
  g_return_val_if_fail (attenuation_limit_db >= 0.0f, 0.0f);

  if (attenuation_limit_db == 0.0f)
    return 0.0f;
  return powf (10.0f, -attenuation_limit_db / 20.0f);
}

/**
 * dsp_features_apply_gains:
 * @self: a #DspFeatures.
 * @bin_gains: window / 2 + 1 linear gains.
 * @attenuation_limit_db: the largest attenuation in dB, >= 0; 0 means no
 *   limit. Gains below dsp_features_gain_floor() of it are raised to it.
 * @spectrum: (inout): (window / 2 + 1) * 2 floats, interleaved complex bins;
 *   each bin is multiplied by its (floored) gain.
 *
 * Never allocates.
 */
void
dsp_features_apply_gains (const DspFeatures *self, const gfloat *bin_gains,
    gfloat attenuation_limit_db, gfloat *spectrum)
{
  gfloat floor_gain;
  guint k;

  g_return_if_fail (self != NULL);
  g_return_if_fail (bin_gains != NULL && spectrum != NULL);
  g_return_if_fail (attenuation_limit_db >= 0.0f);

  floor_gain = dsp_features_gain_floor (attenuation_limit_db);
  for (k = 0; k < self->n_bins; k++) {
    gfloat g = MAX (bin_gains[k], floor_gain);

    spectrum[2 * k] *= g;
    spectrum[2 * k + 1] *= g;
  }
}

/**
 * dsp_features_history_size:
 * @self: a #DspFeatures.
 *
 * Returns: the number of floats dsp_features_save_history() writes:
 *   2 * DSP_FEATURE_N_DELTA (the first cepstral coefficients of the previous
 *   frame, then of the one before), plus 2 * n_bands for layout 2 (smoothed
 *   log energies, then noise floors).
 */
gsize
dsp_features_history_size (const DspFeatures *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->history_size;
}

/**
 * dsp_features_save_history:
 * @self: a #DspFeatures.
 * @out: dsp_features_history_size() floats.
 *
 * Copies all per-stream state out; loading it into a #DspFeatures of the same
 * configuration continues the stream bit-exactly. Never allocates.
 */
void
dsp_features_save_history (const DspFeatures *self, gfloat *out)
{
  g_return_if_fail (self != NULL && out != NULL);

  memcpy (out, self->history, sizeof (gfloat) * self->history_size);
}

/**
 * dsp_features_load_history:
 * @self: a #DspFeatures.
 * @in: dsp_features_history_size() floats from dsp_features_save_history().
 *
 * Replaces all per-stream state, values as they are. Never allocates.
 */
void
dsp_features_load_history (DspFeatures *self, const gfloat *in)
{
  g_return_if_fail (self != NULL && in != NULL);

  memcpy (self->history, in, sizeof (gfloat) * self->history_size);
}
