/* rnndenoise — dsp: real FFT (single-precision FFTW)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <fftw3.h>

#include "dsp_fft.h"
#include "state/rnn_state_lock.h"

/* FFTW's planner (plan creation and destruction) is not thread-safe; every
 * DspFft takes this lock around both. Executing a plan is thread-safe. */
static RnnStateLock planner_lock = RNN_STATE_LOCK_INIT;

struct _DspFft
{
  guint len;
  fftwf_plan forward;  /* owned */
  fftwf_plan inverse;  /* owned */
  gfloat *time;        /* owned, fftwf_malloc, len floats */
  fftwf_complex *freq; /* owned, fftwf_malloc, len / 2 + 1 bins */
};

/**
 * dsp_fft_new:
 * @len: transform length in samples; even and at least 2.
 *
 * Plans a forward (real to complex) and an inverse (complex to real) FFT of
 * @len points with FFTW_ESTIMATE, so the plan is the same on every run, and
 * allocates the instance's own aligned work arrays. Planning is serialized by
 * a lock private to this file, so DspFfts may be made and freed from any
 * thread. One DspFft is used by one thread at a time.
 *
 * Returns: (transfer full): a new #DspFft; free with dsp_fft_free().
 */
DspFft *
dsp_fft_new (guint len)
{
  DspFft *self;

  g_return_val_if_fail (len >= 2 && len % 2 == 0, NULL);
  g_return_val_if_fail (len <= G_MAXINT, NULL);

  self = g_new0 (DspFft, 1);
  self->len = len;
  self->time = fftwf_malloc (sizeof (gfloat) * len);
  self->freq = fftwf_malloc (sizeof (fftwf_complex) * (len / 2 + 1));
  if (self->time == NULL || self->freq == NULL)
    g_error ("dsp_fft_new: out of memory for a %u-point FFT", len);

  rnn_state_lock (&planner_lock);
  self->forward = fftwf_plan_dft_r2c_1d ((int) len, self->time, self->freq,
      FFTW_ESTIMATE);
  self->inverse = fftwf_plan_dft_c2r_1d ((int) len, self->freq, self->time,
      FFTW_ESTIMATE);
  rnn_state_unlock (&planner_lock);
  if (self->forward == NULL || self->inverse == NULL)
    g_error ("dsp_fft_new: FFTW could not plan a %u-point FFT", len);

  return self;
}

/**
 * dsp_fft_free:
 * @self: (nullable): a #DspFft.
 *
 * Destroys the plans (under the planner lock) and frees the work arrays.
 */
void
dsp_fft_free (DspFft *self)
{
  if (self == NULL)
    return;

  rnn_state_lock (&planner_lock);
  fftwf_destroy_plan (self->forward);
  fftwf_destroy_plan (self->inverse);
  rnn_state_unlock (&planner_lock);
  fftwf_free (self->time);
  fftwf_free (self->freq);
  g_free (self);
}

/**
 * dsp_fft_get_len:
 * @self: a #DspFft.
 *
 * Returns: the transform length in samples.
 */
guint
dsp_fft_get_len (const DspFft *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->len;
}

/**
 * dsp_fft_forward:
 * @self: a #DspFft.
 * @in: len real samples.
 * @out: (len / 2 + 1) * 2 floats: bins 0 .. len / 2 as interleaved
 *   (real, imaginary) pairs.
 *
 * Unscaled forward DFT (FFTW's convention):
 * out[k] = sum_n in[n] * exp (-2 pi i k n / len). @in and @out may not
 * overlap. Never allocates.
 */
void
dsp_fft_forward (DspFft *self, const gfloat *in, gfloat *out)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (in != NULL && out != NULL);

  memcpy (self->time, in, sizeof (gfloat) * self->len);
  fftwf_execute_dft_r2c (self->forward, self->time, self->freq);
  memcpy (out, self->freq, sizeof (fftwf_complex) * (self->len / 2 + 1));
}

/**
 * dsp_fft_inverse:
 * @self: a #DspFft.
 * @in: (len / 2 + 1) * 2 floats, interleaved complex bins 0 .. len / 2; the
 *   imaginary parts of bins 0 and len / 2 are ignored. Not modified.
 * @out: len real samples.
 *
 * Unscaled inverse DFT (FFTW's convention):
 * out[n] = sum_k in[k] * exp (2 pi i k n / len) over the full Hermitian
 * spectrum, so dsp_fft_inverse (dsp_fft_forward (x)) is len * x. Never
 * allocates.
 */
void
dsp_fft_inverse (DspFft *self, const gfloat *in, gfloat *out)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (in != NULL && out != NULL);

  /* c2r overwrites its input, so it runs on the instance's copy. */
  memcpy (self->freq, in, sizeof (fftwf_complex) * (self->len / 2 + 1));
  fftwf_execute_dft_c2r (self->inverse, self->freq, self->time);
  memcpy (out, self->time, sizeof (gfloat) * self->len);
}
