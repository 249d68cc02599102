/* rnndenoise — dsp: pitch period search and the comb (pitch) filter
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dsp_fft.h"
#include "dsp_frame_config.h"
#include "dsp_pitch.h"
#include "dsp_stft.h"

/* The coarse search runs on the input averaged over groups of `decimation`
 * samples, about this rate (Hz): voice pitch lies far below it, and the
 * search costs a sixteenth of a full-rate one at 48 kHz. */
#define COARSE_RATE 12000
/* A period k times shorter than the best one wins if it keeps this share
 * of its correlation: the best period of a voiced frame is often a multiple
 * of the true one (octave errors), never a fraction. */
#define SUBMULTIPLE_SHARE 0.9
/* Added to products of band energies before dividing by them: far below
 * any audible band energy of the normalized spectra. */
#define ENERGY_EPS 1e-20f
/* RNNoise's filter-strength formula, the regularisation of its denominator. */
#define STRENGTH_EPS 0.001f

/* One channel. The history, the last history_len input samples (oldest
 * first), is the only per-stream data; its last `window` samples are the
 * STFT's current frame. The period and correlation are derived from it
 * anew at each frame; the rest is scratch. */
struct _DspPitch
{
  guint hop;
  guint window;
  guint decimation;
  guint min_period; /* samples */
  guint max_period; /* samples */
  guint history_len;
  guint coarse_fft_len;
  DspFft *fft;             /* owned */
  DspFft *coarse_fft;      /* owned, coarse_fft_len points */
  gfloat *analysis_window; /* owned, window floats: the STFT's */
  gfloat *frame;           /* owned, window floats, scratch */
  /* Scratch of the search: the coarse signal (history_len / decimation),
   * a padded frame and correlations (coarse_fft_len), two spectra, prefix
   * energies (history_len + 1). */
  gfloat *coarse;
  gfloat *coarse_frame;
  gfloat *coarse_corr;
  gfloat *coarse_spectra;
  gdouble *energy;
  gdouble *lag_corr; /* one per coarse lag */
  gfloat *history;   /* owned, history_len floats */
  guint period;
  gfloat correlation;
};

/**
 * dsp_pitch_new:
 * @cfg: a configuration that passes dsp_frame_config_validate().
 *
 * Makes the pitch analysis of one channel: periods between
 * 1 / DSP_PITCH_MAX_HZ and 1 / DSP_PITCH_MIN_HZ seconds at @cfg's rate. The
 * history starts as zeros, as if the stream were preceded by silence.
 *
 * Returns: (transfer full): a new #DspPitch; free with dsp_pitch_free().
 */
DspPitch *
dsp_pitch_new (const DspFrameConfig *cfg)
{
  DspPitch *self;
  guint len;

  g_return_val_if_fail (cfg != NULL, NULL);
  g_return_val_if_fail (dsp_frame_config_validate (cfg, NULL), NULL);

  self = g_new0 (DspPitch, 1);
  self->hop = cfg->hop;
  self->window = cfg->window;
  self->decimation = MAX (1u, cfg->sample_rate / COARSE_RATE);
  self->min_period = (guint) ceil (cfg->sample_rate / DSP_PITCH_MAX_HZ);
  self->max_period = (guint) floor (cfg->sample_rate / DSP_PITCH_MIN_HZ);
  /* Room for the longest period plus the refinement around it, rounded up
   * to whole coarse samples. */
  len = self->window + self->max_period + self->decimation;
  self->history_len
      = (len + self->decimation - 1) / self->decimation * self->decimation;
  self->fft = dsp_fft_new (self->window);
  self->analysis_window = g_new (gfloat, self->window);
  dsp_stft_fill_analysis_window (cfg, self->analysis_window);
  self->frame = g_new0 (gfloat, self->window);
  self->coarse = g_new0 (gfloat, self->history_len / self->decimation);
  /* Even, as the FFT wants, and at least the coarse history. */
  self->coarse_fft_len = (self->history_len / self->decimation + 15) / 16 * 16;
  self->coarse_fft = dsp_fft_new (self->coarse_fft_len);
  self->coarse_frame = g_new0 (gfloat, self->coarse_fft_len);
  self->coarse_corr = g_new0 (gfloat, self->coarse_fft_len);
  self->coarse_spectra = g_new0 (gfloat, 2 * (self->coarse_fft_len + 2));
  self->energy = g_new0 (gdouble, self->history_len + 1);
  self->lag_corr = g_new0 (gdouble, self->max_period / self->decimation + 1);
  self->history = g_new0 (gfloat, self->history_len);
  self->period = self->min_period;

  return self;
}

/**
 * dsp_pitch_free:
 * @self: (nullable): a #DspPitch.
 */
void
dsp_pitch_free (DspPitch *self)
{
  if (self == NULL)
    return;

  dsp_fft_free (self->fft);
  dsp_fft_free (self->coarse_fft);
  g_free (self->analysis_window);
  g_free (self->frame);
  g_free (self->coarse);
  g_free (self->coarse_frame);
  g_free (self->coarse_corr);
  g_free (self->coarse_spectra);
  g_free (self->energy);
  g_free (self->lag_corr);
  g_free (self->history);
  g_free (self);
}

/**
 * dsp_pitch_reset:
 * @self: a #DspPitch.
 *
 * Zeroes the history, as after dsp_pitch_new(); allocates nothing.
 */
void
dsp_pitch_reset (DspPitch *self)
{
  g_return_if_fail (self != NULL);

  memset (self->history, 0, sizeof (gfloat) * self->history_len);
  self->period = self->min_period;
  self->correlation = 0.0f;
}

/* Sum of a[i] * b[i] over @len samples, four partial sums so that the
 * additions need not wait on each other. */
static gfloat
dot (const gfloat *a, const gfloat *b, guint len)
{
  gfloat s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  guint i = 0;

  for (; i + 4 <= len; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < len; i++)
    s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

/* Fills energy[i] with the sum of x[j]^2 for j < i (@n + 1 values), so any
 * stretch's energy is a difference. */
static void
prefix_energies (const gfloat *x, guint n, gdouble *energy)
{
  guint i;

  energy[0] = 0.0;
  for (i = 0; i < n; i++)
    energy[i + 1] = energy[i] + (gdouble) x[i] * x[i];
}

/* ab / sqrt (aa bb), 0 where either stretch is silent. */
static gdouble
normalise (gdouble ab, gdouble aa, gdouble bb)
{
  if (aa <= 0.0 || bb <= 0.0)
    return 0.0;
  return ab / sqrt (aa * bb);
}

/* Correlations of the last `len` coarse samples with every stretch `lag`
 * samples earlier at once, by FFT: coarse_corr[m] = sum over i of a[i] *
 * x[i + m] with a the last stretch zero-padded, and the stretch `lag`
 * earlier starts at m = n - len - lag, which never wraps round since
 * n >= len + the longest lag. */
static void
coarse_correlations (DspPitch *self, guint n, guint len)
{
  guint bins = self->coarse_fft_len / 2 + 1, k;
  gfloat *u = self->coarse_spectra, *v = u + 2 * bins;

  memset (self->coarse_frame, 0, sizeof (gfloat) * self->coarse_fft_len);
  memcpy (self->coarse_frame, self->coarse + n - len, sizeof (gfloat) * len);
  dsp_fft_forward (self->coarse_fft, self->coarse_frame, u);
  memcpy (self->coarse_frame, self->coarse, sizeof (gfloat) * n);
  dsp_fft_forward (self->coarse_fft, self->coarse_frame, v);
  /* conj (U) V */
  for (k = 0; k < bins; k++) {
    gfloat re = u[2 * k] * v[2 * k] + u[2 * k + 1] * v[2 * k + 1];
    gfloat im = u[2 * k] * v[2 * k + 1] - u[2 * k + 1] * v[2 * k];

    u[2 * k] = re;
    u[2 * k + 1] = im;
  }
  dsp_fft_inverse (self->coarse_fft, u, self->coarse_corr);
}

/* The coarse period (in coarse samples) with the highest correlation over
 * the last window, shortened to a submultiple that keeps
 * SUBMULTIPLE_SHARE of it. */
static guint
coarse_period (DspPitch *self)
{
  guint d = self->decimation;
  guint n = self->history_len / d, len = self->window / d;
  guint lo = MAX (1u, self->min_period / d), hi = self->max_period / d;
  gdouble *energy = self->energy, aa, best = -1.0;
  gdouble *corr = self->lag_corr;
  guint best_lag = lo, lag, i, k;

  for (i = 0; i < n; i++) {
    gfloat sum = 0.0f;

    for (k = 0; k < d; k++)
      sum += self->history[i * d + k];
    self->coarse[i] = sum;
  }
  coarse_correlations (self, n, len);
  prefix_energies (self->coarse, n, energy);
  aa = energy[n] - energy[n - len];
  for (lag = lo; lag <= hi; lag++) {
    guint start = n - len - lag;
    gdouble c = normalise (self->coarse_corr[start] / self->coarse_fft_len, aa,
        energy[start + len] - energy[start]);

    corr[lag - lo] = c;
    if (c > best) {
      best = c;
      best_lag = lag;
    }
  }
  for (k = best_lag / lo; k >= 2; k--) {
    guint shorter = (best_lag + k / 2) / k;

    if (shorter >= lo && corr[shorter - lo] >= SUBMULTIPLE_SHARE * best)
      return shorter;
  }
  return best_lag;
}

/* Refines the coarse period at the full rate; sets period and correlation. */
static void
refine_period (DspPitch *self, guint coarse)
{
  guint d = self->decimation, n = self->history_len, len = self->window;
  guint centre = coarse * d;
  guint lo = MAX (self->min_period, centre > d ? centre - d + 1 : 1);
  guint hi = MIN (self->max_period, centre + d - 1);
  const gfloat *a = self->history + n - len;
  gdouble *energy = self->energy, aa, best = -2.0;
  guint lag;

  prefix_energies (self->history, n, energy);
  aa = energy[n] - energy[n - len];
  for (lag = lo; lag <= hi; lag++) {
    guint start = n - len - lag;
    gdouble c = normalise (dot (a, self->history + start, len), aa,
        energy[start + len] - energy[start]);

    if (c > best) {
      best = c;
      self->period = lag;
    }
  }
  self->correlation = (gfloat) CLAMP (best, 0.0, 1.0);
}

/**
 * dsp_pitch_analyze:
 * @self: a #DspPitch.
 * @in: hop new input samples, the same as dsp_stft_analyze() takes.
 * @pitch_spectrum: (nullable): (window / 2 + 1) * 2 floats: the spectrum of
 *   the STFT's current frame one pitch period earlier (same window and
 *   scaling as dsp_stft_analyze()).
 *
 * Advances the history by one frame; with @pitch_spectrum, also finds the
 * pitch period of its last window and transforms the window one period
 * back (without, the period and correlation are left as they were). Never
 * allocates.
 */
void
dsp_pitch_analyze (DspPitch *self, const gfloat *in, gfloat *pitch_spectrum)
{
  const gfloat *past;
  guint n;

  g_return_if_fail (self != NULL && in != NULL);

  memmove (self->history, self->history + self->hop,
      sizeof (gfloat) * (self->history_len - self->hop));
  memcpy (self->history + self->history_len - self->hop, in,
      sizeof (gfloat) * self->hop);
  if (pitch_spectrum == NULL)
    return;

  refine_period (self, coarse_period (self));

  past = self->history + self->history_len - self->window - self->period;
  for (n = 0; n < self->window; n++)
    self->frame[n] = past[n] * self->analysis_window[n];
  dsp_fft_forward (self->fft, self->frame, pitch_spectrum);
}

/**
 * dsp_pitch_get_period:
 * @self: a #DspPitch.
 *
 * Returns: the pitch period (samples) the last dsp_pitch_analyze() found.
 */
guint
dsp_pitch_get_period (const DspPitch *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->period;
}

/**
 * dsp_pitch_get_correlation:
 * @self: a #DspPitch.
 *
 * Returns: the normalised correlation (0 .. 1) of the last window with the
 *   window one period earlier: near 1 for voiced speech, low for noise.
 */
gfloat
dsp_pitch_get_correlation (const DspPitch *self)
{
  g_return_val_if_fail (self != NULL, 0.0f);

  return self->correlation;
}

/* How much of the pitch spectrum a band gets (RNNoise's formula): none
 * where the band does not repeat with the period, all of it where it
 * repeats at least as much as the gain lets through, and in between the
 * share that leaves noise at the gain's level; scaled to the band's level. */
static gfloat
band_strength (gfloat gain, gfloat ex, gfloat ep, gfloat exp)
{
  gfloat corr = exp / (sqrtf (ex) * sqrtf (ep) + ENERGY_EPS);
  gfloat r;

  /* Written so that a non-finite correlation gives nothing and a
   * non-finite gain (a damaged imported state) the full share: the result
   * stays finite. */
  if (!(corr > 0.0f))
    return 0.0f;
  if (!(corr < gain)) {
    r = 1.0f;
  } else {
    gfloat g2 = gain * gain, c2 = corr * corr;

    r = sqrtf (CLAMP (c2 * (1.0f - g2) / (STRENGTH_EPS + g2 * (1.0f - c2)),
        0.0f, 1.0f));
  }
  return r * sqrtf (ex / (ep + ENERGY_EPS));
}

/**
 * dsp_pitch_filter:
 * @features: the channel's #DspFeatures (for its bands).
 * @band_gains: n_bands gains the frame will get.
 * @pitch_spectrum: the frame one period earlier, from dsp_pitch_analyze().
 * @strength: 0..1, the share of RNNoise's filter strength to use.
 * @spectrum: (inout): the frame's spectrum, as dsp_stft_analyze() made it.
 * @scratch: dsp_pitch_filter_scratch_size() floats.
 *
 * The comb filter: adds to each band of @spectrum @strength times its share
 * of the band one pitch period earlier (band_strength()), which reinforces
 * the harmonics of a voice and not the noise between them, then scales
 * each band back to its own energy. A band whose gain is 1 (speech only) is
 * left alone; a band that does not repeat with the period gets nothing.
 * Applied before the gains. Never allocates.
 */
void
dsp_pitch_filter (const DspFeatures *features, const gfloat *band_gains,
    const gfloat *pitch_spectrum, gfloat strength, gfloat *spectrum,
    gfloat *scratch)
{
  gfloat ex[DSP_MAX_BANDS], ep[DSP_MAX_BANDS], exp[DSP_MAX_BANDS];
  gfloat scale[DSP_MAX_BANDS];
  guint n_bands, n_bins, b, k;

  g_return_if_fail (features != NULL && band_gains != NULL);
  g_return_if_fail (pitch_spectrum != NULL && spectrum != NULL);
  g_return_if_fail (scratch != NULL);

  n_bands = dsp_features_get_n_bands (features);
  n_bins = dsp_features_get_n_bins (features);
  dsp_features_band_energies (features, spectrum, ex);
  dsp_features_band_energies (features, pitch_spectrum, ep);
  dsp_features_band_cross (features, spectrum, pitch_spectrum, exp);

  for (b = 0; b < n_bands; b++)
    scale[b] = strength * band_strength (band_gains[b], ex[b], ep[b], exp[b]);
  dsp_features_interpolate_gains (features, scale, scratch);
  for (k = 0; k < 2 * n_bins; k++)
    spectrum[k] += scratch[k / 2] * pitch_spectrum[k];

  dsp_features_band_energies (features, spectrum, ep);
  for (b = 0; b < n_bands; b++)
    scale[b] = sqrtf (ex[b] / (ep[b] + ENERGY_EPS));
  dsp_features_interpolate_gains (features, scale, scratch);
  for (k = 0; k < 2 * n_bins; k++)
    spectrum[k] *= scratch[k / 2];
}

/**
 * dsp_pitch_filter_scratch_size:
 * @cfg: the frame configuration.
 *
 * Returns: the floats of scratch dsp_pitch_filter() needs (one per bin).
 */
gsize
dsp_pitch_filter_scratch_size (const DspFrameConfig *cfg)
{
  g_return_val_if_fail (cfg != NULL, 0);

  return dsp_frame_config_get_n_bins (cfg);
}

/**
 * dsp_pitch_history_size:
 * @self: a #DspPitch.
 *
 * Returns: the floats dsp_pitch_save_history() writes: the last input
 *   samples, a window plus the longest period and a coarse sample.
 */
gsize
dsp_pitch_history_size (const DspPitch *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->history_len;
}

/**
 * dsp_pitch_save_history:
 * @self: a #DspPitch.
 * @out: dsp_pitch_history_size() floats.
 *
 * Copies all per-stream state out; loading it into a #DspPitch of the same
 * configuration continues the stream bit-exactly. Never allocates.
 */
void
dsp_pitch_save_history (const DspPitch *self, gfloat *out)
{
  g_return_if_fail (self != NULL && out != NULL);

  memcpy (out, self->history, sizeof (gfloat) * self->history_len);
}

/**
 * dsp_pitch_load_history:
 * @self: a #DspPitch.
 * @in: dsp_pitch_history_size() floats from dsp_pitch_save_history().
 *
 * Replaces all per-stream state, values as they are. Never allocates.
 */
void
dsp_pitch_load_history (DspPitch *self, const gfloat *in)
{
  g_return_if_fail (self != NULL && in != NULL);

  memcpy (self->history, in, sizeof (gfloat) * self->history_len);
}
