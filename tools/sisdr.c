/* rnndenoise — tools: scale-invariant signal-to-distortion ratio
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SI-SDR (Le Roux et al., "SDR — half-baked or well done?", 2019): with the
 * reference s and the estimate ŝ both made zero-mean over the compared
 * samples, a = <ŝ, s> / ||s||² and
 *
 *     SI-SDR = 10 log10 (||a s||² / ||a s - ŝ||²)  dB.
 *
 * A constant delay d compares ŝ[n + d] with s[n] over the samples where
 * both exist. sisdr_find_delay() picks the d within ±max_delay that gives
 * the highest SI-SDR, using an FFT cross-correlation and running sums, so
 * the search costs a few FFTs rather than one pass per delay.
 */
#include "config.h"

#include <math.h>

#include <fftw3.h>
#include <glib.h>

#include "sisdr.h"

/* The compared range of the reference for @delay: [*begin, *end). */
static gboolean
overlap (gsize n_reference, gsize n_estimate, gint64 delay, gsize *begin,
    gsize *end)
{
  gint64 b = MAX (0, -delay);
  gint64 e = MIN ((gint64) n_reference, (gint64) n_estimate - delay);

  if (e <= b)
    return FALSE;
  *begin = (gsize) b;
  *end = (gsize) e;
  return TRUE;
}

/**
 * sisdr_compute:
 * @reference: @n_reference samples of the clean signal
 * @n_reference: samples
 * @estimate: @n_estimate samples of the signal to score
 * @n_estimate: samples
 * @delay: estimate sample n + @delay is compared with reference sample n
 * @n_compared: (out) (optional): samples compared
 *
 * Computes the SI-SDR of one channel straight from its definition, with
 * both signals made zero-mean over the compared samples.
 *
 * Returns: the SI-SDR in dB; +inf for an exact (scaled) copy; NaN if the
 * signals do not overlap or the reference is silent (or constant) there.
 */
gdouble
sisdr_compute (const gdouble *reference, gsize n_reference,
    const gdouble *estimate, gsize n_estimate, gint64 delay, gsize *n_compared)
{
  gdouble mean_s = 0.0, mean_e = 0.0, dot = 0.0, energy_s = 0.0, raw_s = 0.0;
  gdouble a, target, distortion = 0.0;
  gsize begin, end, n, i;

  if (n_compared != NULL)
    *n_compared = 0;
  if (!overlap (n_reference, n_estimate, delay, &begin, &end))
    return NAN;
  n = end - begin;
  for (i = begin; i < end; i++) {
    mean_s += reference[i];
    mean_e += estimate[i + delay];
  }
  mean_s /= n;
  mean_e /= n;
  for (i = begin; i < end; i++) {
    gdouble s = reference[i] - mean_s;
    gdouble e = estimate[i + delay] - mean_e;

    dot += e * s;
    energy_s += s * s;
    raw_s += reference[i] * reference[i];
  }
  if (n_compared != NULL)
    *n_compared = n;
  /* Silent, or a constant whose mean left only rounding noise. */
  if (energy_s <= 1e-20 * raw_s)
    return NAN;
  a = dot / energy_s;
  target = a * a * energy_s;
  for (i = begin; i < end; i++) {
    gdouble s = reference[i] - mean_s;
    gdouble e = estimate[i + delay] - mean_e;
    gdouble d = a * s - e;

    distortion += d * d;
  }
  if (distortion <= 0.0)
    return target > 0.0 ? INFINITY : NAN;
  if (target <= 0.0)
    return -INFINITY;
  return 10.0 * log10 (target / distortion);
}

/* Running sums: sum[i] and sum_sq[i] cover x[0 .. i - 1]. */
static void
running_sums (const gdouble *x, gsize n, gdouble *sum, gdouble *sum_sq)
{
  gsize i;

  sum[0] = sum_sq[0] = 0.0;
  for (i = 0; i < n; i++) {
    sum[i + 1] = sum[i] + x[i];
    sum_sq[i + 1] = sum_sq[i] + x[i] * x[i];
  }
}

/* Adds the cross-correlation c[d] = sum_n s[n] e[n + d] of one channel to
 * @xcorr (index d for d >= 0, @n_fft + d for d < 0). */
static void
add_cross_correlation (const gdouble *s, gsize n_s, const gdouble *e, gsize n_e,
    gsize n_fft, gdouble *work, fftw_complex *spec_s, fftw_complex *spec_e,
    fftw_plan forward_s, fftw_plan forward_e, fftw_plan backward,
    gdouble *xcorr)
{
  gsize i, n_bins = n_fft / 2 + 1;

  for (i = 0; i < n_fft; i++)
    work[i] = i < n_s ? s[i] : 0.0;
  fftw_execute_dft_r2c (forward_s, work, spec_s);
  for (i = 0; i < n_fft; i++)
    work[i] = i < n_e ? e[i] : 0.0;
  fftw_execute_dft_r2c (forward_e, work, spec_e);
  for (i = 0; i < n_bins; i++) {
    /* conj (S) * E */
    gdouble re = spec_s[i][0] * spec_e[i][0] + spec_s[i][1] * spec_e[i][1];
    gdouble im = spec_s[i][0] * spec_e[i][1] - spec_s[i][1] * spec_e[i][0];

    spec_s[i][0] = re;
    spec_s[i][1] = im;
  }
  fftw_execute_dft_c2r (backward, spec_s, work);
  for (i = 0; i < n_fft; i++)
    xcorr[i] += work[i] / n_fft;
}

/**
 * sisdr_find_delay:
 * @references: @n_channels arrays of @n_reference samples
 * @n_reference: samples per channel of the reference
 * @estimates: @n_channels arrays of @n_estimate samples
 * @n_estimate: samples per channel of the estimate
 * @n_channels: channels (at least 1)
 * @max_delay: largest delay tried, in samples, either way
 *
 * Finds the constant delay d in [-@max_delay, @max_delay] at which the
 * estimate matches the reference best: the highest SI-SDR over all
 * channels together (the largest squared correlation coefficient of the
 * zero-mean signals). Delays that compare fewer than half of the shorter
 * signal's samples are not tried.
 *
 * Returns: the delay in samples (estimate sample n + d matches reference
 * sample n), 0 if no delay can be tried.
 */
gint64
sisdr_find_delay (const gdouble *const *references, gsize n_reference,
    const gdouble *const *estimates, gsize n_estimate, guint n_channels,
    gint64 max_delay)
{
  gsize n_fft = 1, n_bins, min_overlap, begin, end, n;
  gdouble *xcorr, *work, *sum_s, *sq_s, *sum_e, *sq_e;
  gdouble best_score = -1.0;
  fftw_complex *spec_s, *spec_e;
  fftw_plan forward_s, forward_e, backward;
  gint64 best = 0, d;
  guint c;

  g_return_val_if_fail (n_channels > 0, 0);

  if (n_reference == 0 || n_estimate == 0 || max_delay <= 0)
    return 0;
  while (n_fft < n_reference + n_estimate)
    n_fft *= 2;
  n_bins = n_fft / 2 + 1;
  min_overlap = MAX (1, MIN (n_reference, n_estimate) / 2);

  xcorr = g_new0 (gdouble, n_fft);
  work = fftw_alloc_real (n_fft);
  spec_s = fftw_alloc_complex (n_bins);
  spec_e = fftw_alloc_complex (n_bins);
  forward_s = fftw_plan_dft_r2c_1d ((int) n_fft, work, spec_s, FFTW_ESTIMATE);
  forward_e = fftw_plan_dft_r2c_1d ((int) n_fft, work, spec_e, FFTW_ESTIMATE);
  backward = fftw_plan_dft_c2r_1d ((int) n_fft, spec_s, work, FFTW_ESTIMATE);
  for (c = 0; c < n_channels; c++)
    add_cross_correlation (references[c], n_reference, estimates[c], n_estimate,
        n_fft, work, spec_s, spec_e, forward_s, forward_e, backward, xcorr);

  sum_s = g_new (gdouble, (n_reference + 1) * n_channels);
  sq_s = g_new (gdouble, (n_reference + 1) * n_channels);
  sum_e = g_new (gdouble, (n_estimate + 1) * n_channels);
  sq_e = g_new (gdouble, (n_estimate + 1) * n_channels);
  for (c = 0; c < n_channels; c++) {
    running_sums (references[c], n_reference, sum_s + c * (n_reference + 1),
        sq_s + c * (n_reference + 1));
    running_sums (estimates[c], n_estimate, sum_e + c * (n_estimate + 1),
        sq_e + c * (n_estimate + 1));
  }

  for (d = -max_delay; d <= max_delay; d++) {
    gdouble cov = 0.0, var_s = 0.0, var_e = 0.0, raw, score;

    if (!overlap (n_reference, n_estimate, d, &begin, &end)
        || end - begin < min_overlap)
      continue;
    n = end - begin;
    raw = xcorr[d >= 0 ? (gsize) d : n_fft - (gsize) (-d)];
    for (c = 0; c < n_channels; c++) {
      const gdouble *ss = sum_s + c * (n_reference + 1);
      const gdouble *qs = sq_s + c * (n_reference + 1);
      const gdouble *se = sum_e + c * (n_estimate + 1);
      const gdouble *qe = sq_e + c * (n_estimate + 1);
      gdouble ms = (ss[end] - ss[begin]) / n;
      gdouble me = (se[end + d] - se[begin + d]) / n;

      /* sum (s - ms)(e - me) = sum s e - n ms me, and likewise. */
      cov -= n * ms * me;
      var_s += qs[end] - qs[begin] - n * ms * ms;
      var_e += qe[end + d] - qe[begin + d] - n * me * me;
    }
    cov += raw;
    if (var_s <= 0.0 || var_e <= 0.0)
      continue;
    score = cov * cov / (var_s * var_e);
    if (score > best_score) {
      best_score = score;
      best = d;
    }
  }

  g_free (sum_s);
  g_free (sq_s);
  g_free (sum_e);
  g_free (sq_e);
  fftw_destroy_plan (forward_s);
  fftw_destroy_plan (forward_e);
  fftw_destroy_plan (backward);
  fftw_free (spec_s);
  fftw_free (spec_e);
  fftw_free (work);
  g_free (xcorr);
  return best;
}
