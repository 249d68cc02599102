/* rnndenoise — dsp: pitch period search and pitch correlation features
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

/* x86-64 builds carry an AVX2 copy of the dot product, chosen at run time,
 * with the same additions in the same order (dsp_dense.c does the same for
 * the network's kernels, and dsp_dense_set_kernel_limit() turns both
 * off). */
#if defined(__GNUC__) && defined(__x86_64__)
#define DSP_PITCH_AVX2 1
#include <immintrin.h>
#endif

#include "dsp_dense.h"
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
/* The pitch feature is log2 (f0 / PITCH_FEATURE_REF_HZ): about -0.7 .. 2.3
 * over the voice range, near 0 for a low voice. */
#define PITCH_FEATURE_REF_HZ 100.0

/* One channel. The history, the last history_len input samples (oldest
 * first), is the only per-stream data; its last `window` samples are the
 * STFT's current frame. The period and correlation are derived from it
 * anew at each frame; the rest is scratch. */
struct _DspPitch
{
  guint sample_rate;
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
  /* TRUE while coarse[] is the decimation of the whole history: each frame
   * then only decimates its new samples (the old sums move with the
   * history, unchanged). Cleared by reset and load, which replace the
   * history. */
  gboolean coarse_current;
  gfloat *history; /* owned, history_len floats */
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
  self->sample_rate = cfg->sample_rate;
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
  self->coarse_current = FALSE;
  self->period = self->min_period;
  self->correlation = 0.0f;
}

/* Four float lanes as a GCC/clang vector (one SSE register, or half an AVX
 * one); it never crosses a function boundary. */
typedef gfloat DspPitchLanes
    __attribute__ ((vector_size (4 * sizeof (gfloat))));

/* Sum of a[i] * b[i] over @len samples: two vectors of four partial sums,
 * so that the compiler keeps them in registers and vectorises without
 * -ffast-math; they are added in a fixed order. */
static gfloat
dot_portable (const gfloat *a, const gfloat *b, guint len)
{
  DspPitchLanes acc0 = { 0 }, acc1 = { 0 }, a0, a1, b0, b1;
  gfloat tail = 0.0f;
  guint i = 0;

  for (; i + 8 <= len; i += 8) {
    memcpy (&a0, a + i, sizeof (a0));
    memcpy (&a1, a + i + 4, sizeof (a1));
    memcpy (&b0, b + i, sizeof (b0));
    memcpy (&b1, b + i + 4, sizeof (b1));
    acc0 += a0 * b0;
    acc1 += a1 * b1;
  }
  for (; i < len; i++)
    tail += a[i] * b[i];
  acc0 += acc1;
  return ((acc0[0] + acc0[2]) + (acc0[1] + acc0[3])) + tail;
}

#ifdef DSP_PITCH_AVX2
/* dot_portable() with one AVX register for its two vectors of partial
 * sums: lanes 0-3 are acc0's, lanes 4-7 acc1's, each summing the same
 * products in the same order, and the two halves are added as acc0 +=
 * acc1 is; so the result has the same bits. No FMA: products are rounded
 * before they are added, as there. */
__attribute__ ((target ("avx2"))) static gfloat
dot_avx2 (const gfloat *a, const gfloat *b, guint len)
{
  __m256 acc = _mm256_setzero_ps ();
  __m128 sum;
  gfloat lanes[4], tail = 0.0f;
  guint i = 0;

  for (; i + 8 <= len; i += 8)
    acc = _mm256_add_ps (acc,
        _mm256_mul_ps (_mm256_loadu_ps (a + i), _mm256_loadu_ps (b + i)));
  for (; i < len; i++)
    tail += a[i] * b[i];
  sum = _mm_add_ps (_mm256_castps256_ps128 (acc),
      _mm256_extractf128_ps (acc, 1));
  _mm_storeu_ps (lanes, sum);
  return ((lanes[0] + lanes[2]) + (lanes[1] + lanes[3])) + tail;
}
#endif

static gfloat
dot (const gfloat *a, const gfloat *b, guint len)
{
#ifdef DSP_PITCH_AVX2
  if (dsp_dense_get_kernels () >= DSP_KERNELS_AVX2)
    return dot_avx2 (a, b, len);
#endif
  return dot_portable (a, b, len);
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

/* Coarse samples @from .. @n - 1: each the sum of `decimation` input
 * samples, 0 + x[i d] + x[i d + 1] + ..., in that order; adding one offset
 * k to all of them at a time keeps that order while the additions of one
 * pass do not wait on each other. */
static void
decimate (DspPitch *self, guint from, guint n)
{
  guint d = self->decimation, i, k;

  for (i = from; i < n; i++)
    self->coarse[i] = 0.0f;
  for (k = 0; k < d; k++) {
    for (i = from; i < n; i++)
      self->coarse[i] += self->history[i * d + k];
  }
}

/* Brings the coarse signal up to date after the history moved by one hop:
 * when it was current and a hop is whole coarse samples, the old sums move
 * along and only the hop's new ones are computed (the same sums of the
 * same samples, so the same bits); otherwise all of them. */
static void
update_coarse (DspPitch *self, guint n)
{
  guint d = self->decimation, shift = self->hop / d;

  if (self->coarse_current && self->hop % d == 0 && shift < n) {
    memmove (self->coarse, self->coarse + shift, sizeof (gfloat) * (n - shift));
    decimate (self, n - shift, n);
  } else {
    decimate (self, 0, n);
  }
  self->coarse_current = TRUE;
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
  guint best_lag = lo, lag, k;

  update_coarse (self, n);
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
  gdouble aa = dot (a, a, len), best = -2.0;
  guint lag;

  /* A handful of lags: their stretches' energies by dot products, which
   * vectorise, rather than a running sum over the whole history, which
   * cannot. */
  for (lag = lo; lag <= hi; lag++) {
    const gfloat *b = self->history + n - len - lag;
    gdouble c = normalise (dot (a, b, len), aa, dot (b, b, len));

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
  if (pitch_spectrum == NULL) {
    /* No search: the coarse signal falls behind the history. */
    self->coarse_current = FALSE;
    return;
  }

  refine_period (self, coarse_period (self));

  past = self->history + self->history_len - self->window - self->period;
  for (n = 0; n + 4 <= self->window; n += 4) {
    DspPitchLanes x, w;

    memcpy (&x, past + n, sizeof (x));
    memcpy (&w, self->analysis_window + n, sizeof (w));
    x *= w;
    memcpy (self->frame + n, &x, sizeof (x));
  }
  for (; n < self->window; n++)
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

/* Correlation of a band with the same band one period earlier, -1 .. 1; 0
 * for silence, and for the NaN or infinity a damaged snapshot's history can
 * give, so the network always sees a finite value. */
static gfloat
band_correlation (gfloat ex, gfloat ep, gfloat exp)
{
  gfloat c = exp / (sqrtf (ex) * sqrtf (ep) + ENERGY_EPS);

  if (c >= -1.0f && c <= 1.0f)
    return c;
  if (c > 1.0f)
    return 1.0f;
  return c < -1.0f ? -1.0f : 0.0f;
}

/**
 * dsp_pitch_features:
 * @self: a #DspPitch, after dsp_pitch_analyze() of the frame with a pitch
 *   spectrum.
 * @features: the channel's #DspFeatures (for its bands).
 * @band_energies: n_bands floats, the frame's band energies (as
 *   dsp_features_compute() gives them).
 * @spectrum: the frame's spectrum, as dsp_stft_analyze() made it.
 * @pitch_spectrum: the frame one period earlier, from dsp_pitch_analyze().
 * @out: n_bands + DSP_FEATURE_N_PITCH floats, the part of feature layout 3
 *   that follows layout 2's: per band, Re (X conj (P)) / (|X| |P|) over the
 *   band's bins (RNNoise's pitch correlation, -1 .. 1); then the search's
 *   normalised correlation (0 .. 1); then log2 (f0 / 100 Hz) of the period
 *   found.
 *
 * Reads only this frame's values, so it keeps no history of its own. Always
 * finite. Never allocates.
 */
void
dsp_pitch_features (const DspPitch *self, const DspFeatures *features,
    const gfloat *band_energies, const gfloat *spectrum,
    const gfloat *pitch_spectrum, gfloat *out)
{
  gfloat ep[DSP_MAX_BANDS], exp[DSP_MAX_BANDS];
  guint n_bands, b;

  g_return_if_fail (self != NULL && features != NULL && out != NULL);
  g_return_if_fail (band_energies != NULL);
  g_return_if_fail (spectrum != NULL && pitch_spectrum != NULL);

  n_bands = dsp_features_get_n_bands (features);
  dsp_features_band_cross (features, spectrum, pitch_spectrum, ep, exp);
  for (b = 0; b < n_bands; b++)
    out[b] = band_correlation (band_energies[b], ep[b], exp[b]);
  out[n_bands] = self->correlation;
  out[n_bands + 1] = (gfloat) log2 (
      (gdouble) self->sample_rate / self->period / PITCH_FEATURE_REF_HZ);
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
  self->coarse_current = FALSE;
}
