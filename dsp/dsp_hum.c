/* rnndenoise — dsp: the mains hum canceller
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mains hum is a sum of harmonics of 50 or 60 Hz that stays put for
 * seconds. Each harmonic's amplitude and phase, measured frame by frame
 * and averaged over seconds in the stream's own phase, converge on the
 * hum's, while a voice's components at the same frequencies come and go
 * with other phases and average out. The canceller subtracts what the
 * averages predict for the frame from its complex spectrum, so the voice
 * under the hum keeps its level and phase: a gain mask cannot do that,
 * because every 50 Hz bin of a 20 ms frame holds a harmonic of a 50 Hz
 * hum, and a mask that removes the hum there removes the voice with it
 * (docs/model.md, "The hum canceller").
 *
 * Harmonics 50 Hz apart overlap in 50 Hz bins, so the amplitudes are a
 * least-squares fit of the analysis window's response to a cosine and a
 * sine at each harmonic (and to a constant, so that an offset is not
 * taken for the first harmonics) to the frame's first bins. Each
 * harmonic is trusted by its coherence, |mean| / mean |amplitude|: near 1
 * for a steady tone, small for speech or noise, so nothing is taken out
 * where there is no hum. The 50 and 60 Hz families are both followed, and
 * the one with more coherent energy is taken out. Each family follows its
 * fundamental within DSP_HUM_MAX_DEVIATION by the phase its harmonics
 * drift by from frame to frame. What is taken out of a harmonic is never
 * more than the frame holds of it, so a hum that stops (or digital
 * silence) is not answered by the hum the means still remember.
 *
 * Everything a later frame depends on is saved with the stream
 * (dsp_hum_save()); the fit matrices are rebuilt from the saved
 * fundamental they were built for, so a stream continued from a snapshot
 * runs the same arithmetic.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dsp_dense.h"
#include "dsp_fft.h"
#include "dsp_hum.h"
#include "dsp_stft.h"

#define N_FAMILIES 2
static const gfloat nominal_hz[N_FAMILIES] = { 50.0f, 60.0f };

/* Time constants of the harmonics' running means and of their drift's. */
#define MEAN_TIME_S 2.0f
#define DRIFT_TIME_S 0.5f
/* The share of the measured frequency error corrected each frame, and
 * the largest error one frame may correct (Hz). */
#define TRACK_RATE 0.01f
#define TRACK_MAX_HZ 0.5f
/* A harmonic whose coherence is below COHERENCE_MIN is left alone; from
 * COHERENCE_FULL on its whole mean is taken out. */
#define COHERENCE_MIN 0.7f
#define COHERENCE_FULL 0.9f
/* Bins fitted beyond the highest harmonic's: the window's response to a
 * tone spreads over about two bins either side. */
#define FIT_MARGIN_BINS 3
/* The fit is rebuilt for the tracked fundamental once its highest
 * harmonic has moved this far (Hz) from the one it was built for (a
 * fiftieth of a bin: the responses hardly change), and only while the
 * family holds a hum: without one the fundamental wanders, and a rebuild
 * costs about a millisecond. */
#define REFIT_HZ 1.0f
/* Ridge added to the fit's normal matrix, relative to its mean diagonal:
 * keeps the solve well defined where the responses of neighbouring
 * harmonics and of the offset overlap. */
#define RIDGE 1e-6
/* Saved floats per family besides its per-harmonic arrays: the tracked
 * fundamental, the one the fit is built for, the phase. */
#define FAMILY_SCALARS 3
/* Complex mean, magnitude mean, complex drift, complex last amplitude. */
#define FLOATS_PER_HARMONIC 7
/* Unknowns a fit may have: the cosines and sines of the 20 harmonics of
 * 50 Hz up to DSP_HUM_MAX_HZ, and the offset (build_fit() asserts it). */
#define MAX_UNKNOWNS (2 * 20 + 1)

typedef struct
{
  gfloat nominal;
  guint n_harmonics;
  guint n_fit_bins; /* bins 0 .. n_fit_bins - 1 are fitted and corrected */

  /* The family's stream state, saved by dsp_hum_save(). Amplitudes are
   * complex (re, im), in the stream's phase: a frame's fitted amplitude
   * turned back by the harmonic's phase at the frame's first sample. */
  gfloat f0;         /* Hz, tracked */
  gfloat fit_f0;     /* Hz, the fit and the responses are built for */
  gfloat phase;      /* radians, 0..2 pi: the fundamental at the frame */
  gfloat *mean;      /* n_harmonics complex: running mean amplitude */
  gfloat *magnitude; /* n_harmonics: running mean of |amplitude| */
  gfloat *drift;     /* n_harmonics complex: running mean of the rotation
                     * from the last frame's amplitude to this one's */
  gfloat *last;      /* n_harmonics complex: the last frame's amplitude */

  /* Built from fit_f0 (build_fit()), not saved. */
  gfloat built_f0;       /* the fit_f0 the matrices hold, 0 = none */
  gfloat *fit_rows;      /* n_unknowns () x (2 n_fit_bins) */
  gfloat *response_rows; /* (2 n_fit_bins) x n_unknowns () */
  DspMatrix fit;         /* spectrum bins -> (cos, sin) amplitude pairs */
  DspMatrix response;    /* (cos, sin) amplitude pairs -> spectrum bins */
  gfloat *coherence;     /* n_harmonics: this frame's, before its update */
  gfloat *max_slope;     /* n_harmonics: tan of the largest drift that counts */
  gfloat *pairs;         /* n_unknowns () scratch: (cos, sin) pairs, offset */
  gfloat coherent_energy; /* this frame's, to choose the family */
} HumFamily;

struct _DspHum
{
  guint sample_rate;
  guint window;
  guint hop;
  gfloat mean_rate;  /* per frame */
  gfloat drift_rate; /* per frame */
  DspFft *fft;
  gfloat *analysis_window; /* window floats */
  gfloat *frame;           /* window floats scratch */
  gfloat *spectrum;        /* (window / 2 + 1) x 2 scratch */
  gdouble *normal;         /* the largest family's normal matrix */
  gfloat *estimate;        /* the largest family's fitted bins x 2 */
  HumFamily family[N_FAMILIES];
};

static gsize
family_history_size (const HumFamily *fam)
{
  return FAMILY_SCALARS + (gsize) FLOATS_PER_HARMONIC * fam->n_harmonics;
}

/* Unknowns of a family's fit: a cosine and a sine per harmonic, then an
 * offset. */
static guint
n_unknowns (const HumFamily *fam)
{
  return 2 * fam->n_harmonics + 1;
}

/* The analysis' response (its windowed, normalised DFT, bins 0 ..
 * n_fit_bins - 1) to a unit cosine (@sine FALSE) or sine at @hz, starting
 * at phase 0 on the frame's first sample, written down column @column of
 * the response matrix (@hz 0 and @sine FALSE: a constant). */
static void
fill_response_column (DspHum *self, HumFamily *fam, gdouble hz, gboolean sine,
    guint column)
{
  guint n_pairs = n_unknowns (fam), n, i;

  for (n = 0; n < self->window; n++) {
    gdouble arg = 2.0 * G_PI * hz * n / self->sample_rate;

    self->frame[n]
        = self->analysis_window[n] * (gfloat) (sine ? sin (arg) : cos (arg));
  }
  dsp_fft_forward (self->fft, self->frame, self->spectrum);
  for (i = 0; i < 2 * fam->n_fit_bins; i++)
    fam->response_rows[(gsize) i * n_pairs + column] = self->spectrum[i];
}

/* In-place Cholesky factor (lower triangle) of the n x n matrix @a;
 * FALSE if it is not positive definite. */
static gboolean
cholesky (gdouble *a, guint n)
{
  guint i, j, k;

  for (j = 0; j < n; j++) {
    gdouble d = a[j * n + j];

    for (k = 0; k < j; k++)
      d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0.0))
      return FALSE;
    a[j * n + j] = sqrt (d);
    for (i = j + 1; i < n; i++) {
      gdouble s = a[i * n + j];

      for (k = 0; k < j; k++)
        s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / a[j * n + j];
    }
  }
  return TRUE;
}

/* Solves L L^T x = x in place for the Cholesky factor @l. */
static void
cholesky_solve (const gdouble *l, guint n, gdouble *x)
{
  guint i, k;

  for (i = 0; i < n; i++) {
    for (k = 0; k < i; k++)
      x[i] -= l[i * n + k] * x[k];
    x[i] /= l[i * n + i];
  }
  for (i = n; i-- > 0;) {
    for (k = i + 1; k < n; k++)
      x[i] -= l[k * n + i] * x[k];
    x[i] /= l[i * n + i];
  }
}

/* Builds @fam's response and fit matrices for its fit_f0: the responses
 * R to each harmonic's cosine and sine and to a constant, and the ridge
 * least-squares fit (R^T R + r I)^-1 R^T. A millisecond or so: it runs when a stream
 * starts and when the tracked fundamental has moved (REFIT_HZ). */
static void
build_fit (DspHum *self, HumFamily *fam)
{
  guint n_cols = n_unknowns (fam), n_obs = 2 * fam->n_fit_bins;
  gdouble *normal = self->normal, trace = 0.0, column[MAX_UNKNOWNS];
  guint h, i, j, k;

  for (h = 0; h < fam->n_harmonics; h++) {
    gdouble hz = (gdouble) (h + 1) * fam->fit_f0;

    fill_response_column (self, fam, hz, FALSE, 2 * h);
    fill_response_column (self, fam, hz, TRUE, 2 * h + 1);
  }
  fill_response_column (self, fam, 0.0, FALSE, n_cols - 1);
  for (i = 0; i < n_cols; i++) {
    for (j = 0; j <= i; j++) {
      gdouble s = 0.0;

      for (k = 0; k < n_obs; k++)
        s += (gdouble) fam->response_rows[(gsize) k * n_cols + i]
            * fam->response_rows[(gsize) k * n_cols + j];
      normal[i * n_cols + j] = normal[j * n_cols + i] = s;
    }
    trace += normal[i * n_cols + i];
  }
  for (i = 0; i < n_cols; i++)
    normal[i * n_cols + i] += RIDGE * trace / n_cols;
  if (!cholesky (normal, n_cols)) {
    /* Cannot happen with the ridge; a zero fit takes nothing out. */
    memset (fam->fit_rows, 0, sizeof (gfloat) * n_cols * n_obs);
    fam->built_f0 = fam->fit_f0;
    return;
  }
  g_assert (n_cols <= G_N_ELEMENTS (column));
  for (k = 0; k < n_obs; k++) {
    for (i = 0; i < n_cols; i++)
      column[i] = fam->response_rows[(gsize) k * n_cols + i];
    cholesky_solve (normal, n_cols, column);
    for (i = 0; i < n_cols; i++)
      fam->fit_rows[(gsize) i * n_obs + k] = (gfloat) column[i];
  }
  fam->built_f0 = fam->fit_f0;
}

/* The family's stream state at the start of a stream: nothing heard, the
 * fundamental at its nominal value. */
static void
reset_family (HumFamily *fam)
{
  guint n = fam->n_harmonics;

  fam->f0 = fam->fit_f0 = fam->nominal;
  fam->phase = 0.0f;
  memset (fam->mean, 0, sizeof (gfloat) * 2 * n);
  memset (fam->magnitude, 0, sizeof (gfloat) * n);
  memset (fam->drift, 0, sizeof (gfloat) * 2 * n);
  memset (fam->last, 0, sizeof (gfloat) * 2 * n);
}

static void
init_family (DspHum *self, HumFamily *fam, gfloat nominal)
{
  gdouble bin_hz = (gdouble) self->sample_rate / self->window;
  gdouble top = DSP_HUM_MAX_HZ * (1.0 + DSP_HUM_MAX_DEVIATION);
  guint n_bins = self->window / 2 + 1, n_pairs, n_obs, h;

  fam->nominal = nominal;
  fam->n_harmonics = (guint) floor (DSP_HUM_MAX_HZ / nominal);
  fam->n_fit_bins
      = MIN ((guint) ceil (top / bin_hz) + FIT_MARGIN_BINS + 1, n_bins);
  n_pairs = n_unknowns (fam);
  n_obs = 2 * fam->n_fit_bins;
  fam->mean = g_new0 (gfloat, 2 * fam->n_harmonics);
  fam->magnitude = g_new0 (gfloat, fam->n_harmonics);
  fam->drift = g_new0 (gfloat, 2 * fam->n_harmonics);
  fam->last = g_new0 (gfloat, 2 * fam->n_harmonics);
  fam->pairs = g_new0 (gfloat, n_pairs);
  fam->coherence = g_new0 (gfloat, fam->n_harmonics);
  fam->max_slope = g_new0 (gfloat, fam->n_harmonics);
  /* A fundamental within range turns harmonic h + 1 by at most (h + 1)
   * times this per frame against the nominal one; twice that counts, up
   * to a little less than a quarter turn. */
  for (h = 0; h < fam->n_harmonics; h++)
    fam->max_slope[h] = (gfloat) tan (MIN ((h + 1) * 2.0 * 2.0 * G_PI * nominal
            * DSP_HUM_MAX_DEVIATION * self->hop / self->sample_rate,
        1.5));
  fam->fit_rows = g_new0 (gfloat, (gsize) n_pairs * n_obs);
  fam->response_rows = g_new0 (gfloat, (gsize) n_obs * n_pairs);
  fam->fit = (DspMatrix){ .type = DSP_WEIGHT_F32,
    .rows = n_pairs,
    .cols = n_obs,
    .f32 = fam->fit_rows };
  fam->response = (DspMatrix){ .type = DSP_WEIGHT_F32,
    .rows = n_obs,
    .cols = n_pairs,
    .f32 = fam->response_rows };
  reset_family (fam);
}

/**
 * dsp_hum_new:
 * @cfg: the stream's frame configuration (rate, window, hop)
 *
 * One channel's hum canceller, at the start of a stream. Allocates and
 * builds its fits here; dsp_hum_process() allocates nothing.
 *
 * Returns: (transfer full): a new #DspHum.
 */
DspHum *
dsp_hum_new (const DspFrameConfig *cfg)
{
  DspHum *self;
  guint f, largest = 0;

  g_return_val_if_fail (cfg != NULL, NULL);

  self = g_new0 (DspHum, 1);
  self->sample_rate = cfg->sample_rate;
  self->window = cfg->window;
  self->hop = cfg->hop;
  self->mean_rate = (gfloat) cfg->hop / (MEAN_TIME_S * cfg->sample_rate);
  self->drift_rate = (gfloat) cfg->hop / (DRIFT_TIME_S * cfg->sample_rate);
  self->fft = dsp_fft_new (cfg->window);
  self->analysis_window = g_new (gfloat, cfg->window);
  dsp_stft_fill_analysis_window (cfg, self->analysis_window);
  self->frame = g_new0 (gfloat, cfg->window);
  self->spectrum = g_new0 (gfloat, (gsize) (cfg->window / 2 + 1) * 2);
  for (f = 0; f < N_FAMILIES; f++) {
    init_family (self, &self->family[f], nominal_hz[f]);
    largest = MAX (largest, self->family[f].n_fit_bins);
    largest = MAX (largest, self->family[f].n_harmonics);
  }
  self->normal
      = g_new0 (gdouble, (gsize) (2 * largest + 1) * (2 * largest + 1));
  self->estimate = g_new0 (gfloat, (gsize) 2 * largest);
  for (f = 0; f < N_FAMILIES; f++)
    build_fit (self, &self->family[f]);
  return self;
}

/**
 * dsp_hum_free:
 * @self: (nullable): a #DspHum
 */
void
dsp_hum_free (DspHum *self)
{
  guint f;

  if (self == NULL)
    return;
  for (f = 0; f < N_FAMILIES; f++) {
    HumFamily *fam = &self->family[f];

    g_free (fam->mean);
    g_free (fam->magnitude);
    g_free (fam->drift);
    g_free (fam->last);
    g_free (fam->pairs);
    g_free (fam->coherence);
    g_free (fam->max_slope);
    g_free (fam->fit_rows);
    g_free (fam->response_rows);
  }
  dsp_fft_free (self->fft);
  g_free (self->analysis_window);
  g_free (self->frame);
  g_free (self->spectrum);
  g_free (self->normal);
  g_free (self->estimate);
  g_free (self);
}

/**
 * dsp_hum_history_size:
 * @self: a #DspHum
 *
 * Returns: the floats dsp_hum_save() writes and dsp_hum_load() reads.
 */
gsize
dsp_hum_history_size (const DspHum *self)
{
  gsize n = 0;
  guint f;

  g_return_val_if_fail (self != NULL, 0);

  for (f = 0; f < N_FAMILIES; f++)
    n += family_history_size (&self->family[f]);
  return n;
}

/* How much of harmonic @h's mean is taken out: 0 below COHERENCE_MIN, 1
 * from COHERENCE_FULL, linear between. */
/* How much of a harmonic whose coherence (|mean amplitude| / mean
 * |amplitude|: 1 for a steady tone, small for what comes and goes with
 * other phases) is @coherence is taken out: 0 below COHERENCE_MIN, 1 from
 * COHERENCE_FULL, linear between. */
static gfloat
coherence_weight (gfloat coherence)
{
  return CLAMP ((coherence - COHERENCE_MIN) / (COHERENCE_FULL - COHERENCE_MIN),
      0.0f, 1.0f);
}

/* atan (x), within 2e-6 rad: a polynomial on |x| <= 1, and pi / 2 -
 * atan (1 / x) beyond. Plain arithmetic, so the same bits everywhere. */
static gfloat
fast_atan (gfloat x)
{
  gfloat ax = fabsf (x), t = ax > 1.0f ? 1.0f / ax : ax, t2 = t * t, r;

  r = t
      * (0.99997726f
          + t2
              * (-0.33262347f
                  + t2
                      * (0.19354346f
                          + t2
                              * (-0.11643287f
                                  + t2 * (0.05265332f + t2 * -0.01172120f)))));
  if (ax > 1.0f)
    r = (gfloat) G_PI_2 - r;
  return x < 0.0f ? -r : r;
}

/* Fits the family's harmonics to @spectrum and moves their running means
 * on. Leaves in fam->pairs the (cosine, sine) amplitudes the means, before
 * this frame, predict for the frame, weighed by their coherence, and their
 * energy in fam->coherent_energy. */
static void
fit_frame (DspHum *self, HumFamily *fam, const gfloat *spectrum)
{
  gfloat a = self->mean_rate, d = self->drift_rate;
  /* e^(i turn) for harmonic h, turn = (h + 1) phase: one step of the
   * fundamental's at a time (a complex product per harmonic instead of a
   * cosine and a sine; the rounding stays far below what matters here). */
  gfloat step_c = cosf (fam->phase), step_s = sinf (fam->phase);
  gfloat c = step_c, s = step_s;
  guint h;

  /* pairs = (a_h, b_h): the frame holds a_h cos + b_h sin of harmonic h,
   * in the frame's time; a cos x + b sin x = Re ((a - i b) e^(i x)). */
  dsp_matrix_gemv (&fam->fit, spectrum, NULL, fam->pairs);
  fam->coherent_energy = 0.0f;
  for (h = 0; h < fam->n_harmonics; h++) {
    gfloat fr = fam->pairs[2 * h], fi = -fam->pairs[2 * h + 1];
    /* The amplitude in the stream's phase: turned back by e^(-i turn). */
    gfloat re = fr * c + fi * s, im = fi * c - fr * s;
    gfloat size = sqrtf (re * re + im * im);
    gfloat mean_size = sqrtf (fam->mean[2 * h] * fam->mean[2 * h]
        + fam->mean[2 * h + 1] * fam->mean[2 * h + 1]);
    gfloat coherence = fam->magnitude[h] > 1e-20f
        ? MIN (mean_size / fam->magnitude[h], 1.0f)
        : 0.0f;
    /* Never more than the frame holds of the harmonic. */
    gfloat w = coherence_weight (coherence)
        * (2.0f * size < mean_size ? 2.0f * size / mean_size : 1.0f);
    gfloat mr = fam->mean[2 * h] * w, mi = fam->mean[2 * h + 1] * w;
    gfloat lr = fam->last[2 * h], li = fam->last[2 * h + 1];
    gfloat norm = size + sqrtf (lr * lr + li * li);
    gfloat dr = 0.0f, di = 0.0f;

    fam->coherence[h] = coherence;
    fam->coherent_energy += mr * mr + mi * mi;
    /* The prediction, turned forward into the frame's time. */
    fam->pairs[2 * h] = mr * c - mi * s;
    fam->pairs[2 * h + 1] = -(mr * s + mi * c);

    /* The rotation since the last frame, scaled to an amplitude (not
     * its square) so that it stays on the samples' scale. */
    if (norm > 1e-20f) {
      dr = (re * lr + im * li) / norm;
      di = (im * lr - re * li) / norm;
    }
    fam->mean[2 * h] += a * (re - fam->mean[2 * h]);
    fam->mean[2 * h + 1] += a * (im - fam->mean[2 * h + 1]);
    fam->magnitude[h] += a * (size - fam->magnitude[h]);
    fam->drift[2 * h] += d * (dr - fam->drift[2 * h]);
    fam->drift[2 * h + 1] += d * (di - fam->drift[2 * h + 1]);
    fam->last[2 * h] = re;
    fam->last[2 * h + 1] = im;
    {
      gfloat next_c = c * step_c - s * step_s;

      s = s * step_c + c * step_s;
      c = next_c;
    }
  }
  /* The offset is fitted only to keep it out of the harmonics. */
  fam->pairs[2 * fam->n_harmonics] = 0.0f;
}

/* Moves the family's fundamental by the phase its harmonics drift by per
 * frame (each harmonic's drift divided by its number, weighed by its
 * size), advances its phase by one hop and rebuilds the fit if the
 * fundamental has moved far enough. */
static void
track_fundamental (DspHum *self, HumFamily *fam)
{
  gfloat sum = 0.0f, weight = 0.0f, lo, hi;
  guint h;

  for (h = 0; h < fam->n_harmonics; h++) {
    gfloat dr = fam->drift[2 * h], di = fam->drift[2 * h + 1];

    /* Only a drift forward (dr > 0) counts, weighed by it: a hum within
     * DSP_HUM_MAX_DEVIATION turns a harmonic by well under a quarter turn
     * per frame, while what a harmonic's fit catches of its neighbours
     * while the fit is off can turn by half a turn each frame. It is
     * weighed by the harmonic's coherence too, so that the harmonics a
     * voice covers, whose drift the voice's phases move, count less. */
    if (dr > 0.0f && fabsf (di) <= dr * fam->max_slope[h]) {
      gfloat w = dr * fam->coherence[h];

      sum += w * fast_atan (di / dr) / (gfloat) (h + 1);
      weight += w;
    }
  }
  if (weight > 1e-20f) {
    gfloat error_hz
        = sum / weight * self->sample_rate / (2.0f * (gfloat) G_PI * self->hop);

    error_hz = CLAMP (error_hz, -TRACK_MAX_HZ, TRACK_MAX_HZ);
    lo = fam->nominal * (1.0f - DSP_HUM_MAX_DEVIATION);
    hi = fam->nominal * (1.0f + DSP_HUM_MAX_DEVIATION);
    fam->f0 = CLAMP (fam->f0 + TRACK_RATE * error_hz, lo, hi);
  }
  fam->phase = fmodf (fam->phase
          + 2.0f * (gfloat) G_PI * fam->f0 * self->hop / self->sample_rate,
      2.0f * (gfloat) G_PI);
  if (fam->coherent_energy > 0.0f
      && fabsf (fam->f0 - fam->fit_f0) * fam->n_harmonics > REFIT_HZ) {
    fam->fit_f0 = fam->f0;
    build_fit (self, fam);
  }
}

/* The family with the most coherent energy in the last fitted frame, the
 * one whose hum is taken out; NULL while neither holds any. */
static const HumFamily *
strongest_family (const DspHum *self)
{
  const HumFamily *best = NULL;
  guint f;

  for (f = 0; f < N_FAMILIES; f++) {
    if (self->family[f].coherent_energy > 0.0f
        && (best == NULL
            || self->family[f].coherent_energy > best->coherent_energy))
      best = &self->family[f];
  }
  return best;
}

/**
 * dsp_hum_process:
 * @self: a #DspHum
 * @spectrum: the frame's spectrum (dsp_stft_analyze()), finite
 * @remove: take the hum out of @spectrum; FALSE only follows it
 *
 * Takes in one frame and, with @remove, subtracts the hum its running
 * means predict from the spectrum's first bins. The state moves on the
 * same way whether or not @remove is set, so turning removal on or off
 * mid-stream changes nothing but the output. Never allocates: when
 * the tracked fundamental has moved, the fit is rebuilt (about 1 ms) in
 * the buffers dsp_hum_new() allocated.
 */
void
dsp_hum_process (DspHum *self, gfloat *spectrum, gboolean remove)
{
  const HumFamily *best;
  guint f, i;

  g_return_if_fail (self != NULL && spectrum != NULL);

  for (f = 0; f < N_FAMILIES; f++)
    fit_frame (self, &self->family[f], spectrum);
  best = strongest_family (self);
  if (remove && best != NULL) {
    dsp_matrix_gemv (&best->response, best->pairs, NULL, self->estimate);
    for (i = 0; i < 2 * best->n_fit_bins; i++)
      spectrum[i] -= self->estimate[i];
  }
  for (f = 0; f < N_FAMILIES; f++)
    track_fundamental (self, &self->family[f]);
}

/**
 * dsp_hum_get_fundamental:
 * @self: a #DspHum
 *
 * Returns: the fundamental (Hz) of the family with the most coherent
 * energy in the last frame, or 0 if neither had any (no hum taken out).
 */
gfloat
dsp_hum_get_fundamental (const DspHum *self)
{
  const HumFamily *best;

  g_return_val_if_fail (self != NULL, 0.0f);

  best = strongest_family (self);
  return best != NULL ? best->f0 : 0.0f;
}

/**
 * dsp_hum_save:
 * @self: a #DspHum
 * @out: dsp_hum_history_size() floats
 *
 * Writes the stream state: per family the tracked fundamental, the one its
 * fit is built for, its phase and its harmonics' running means.
 */
void
dsp_hum_save (const DspHum *self, gfloat *out)
{
  guint f;

  g_return_if_fail (self != NULL && out != NULL);

  for (f = 0; f < N_FAMILIES; f++) {
    const HumFamily *fam = &self->family[f];
    guint n = fam->n_harmonics;

    *out++ = fam->f0;
    *out++ = fam->fit_f0;
    *out++ = fam->phase;
    memcpy (out, fam->mean, sizeof (gfloat) * 2 * n);
    out += 2 * n;
    memcpy (out, fam->magnitude, sizeof (gfloat) * n);
    out += n;
    memcpy (out, fam->drift, sizeof (gfloat) * 2 * n);
    out += 2 * n;
    memcpy (out, fam->last, sizeof (gfloat) * 2 * n);
    out += 2 * n;
  }
}

/* A saved fundamental, held to the family's range; anything else (NaN
 * from a damaged snapshot) becomes the nominal one. */
static gfloat
load_fundamental (const HumFamily *fam, gfloat hz)
{
  gfloat lo = fam->nominal * (1.0f - DSP_HUM_MAX_DEVIATION);
  gfloat hi = fam->nominal * (1.0f + DSP_HUM_MAX_DEVIATION);

  return hz >= lo && hz <= hi ? hz : fam->nominal;
}

/**
 * dsp_hum_load:
 * @self: a #DspHum
 * @in: dsp_hum_history_size() floats from dsp_hum_save(), finite
 *
 * Restores the stream state. A saved state passes unchanged; a damaged
 * one is held to what dsp_hum_process() can produce (fundamentals within
 * range, phases within 0..2 pi, magnitudes not negative). The fits are
 * rebuilt only if the saved fundamental they are built for differs from
 * the one they hold.
 */
void
dsp_hum_load (DspHum *self, const gfloat *in)
{
  guint f, h;

  g_return_if_fail (self != NULL && in != NULL);

  for (f = 0; f < N_FAMILIES; f++) {
    HumFamily *fam = &self->family[f];
    guint n = fam->n_harmonics;

    fam->f0 = load_fundamental (fam, *in++);
    fam->fit_f0 = load_fundamental (fam, *in++);
    fam->phase = *in++;
    if (!(fam->phase >= 0.0f && fam->phase < 2.0f * (gfloat) G_PI))
      fam->phase = 0.0f;
    memcpy (fam->mean, in, sizeof (gfloat) * 2 * n);
    in += 2 * n;
    for (h = 0; h < n; h++)
      fam->magnitude[h] = MAX (in[h], 0.0f);
    in += n;
    memcpy (fam->drift, in, sizeof (gfloat) * 2 * n);
    in += 2 * n;
    memcpy (fam->last, in, sizeof (gfloat) * 2 * n);
    in += 2 * n;
    if (fam->built_f0 != fam->fit_f0)
      build_fit (self, fam);
  }
}
