/* rnndenoise — dsp: per-stream STFT analysis and overlap-add synthesis
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dsp_fft.h"
#include "dsp_frame_config.h"
#include "dsp_stft.h"

/* One channel. Frame t is the window of the last 2 * hop input samples,
 * [in(t - 1), in(t)]; its output is the first half of frame t's synthesis
 * plus the second half of frame t - 1's, so out(t) = in(t - 1): a delay of
 * window - hop = hop samples. */
struct _DspStft
{
  guint hop;
  guint window;
  DspFft *fft;              /* owned */
  gfloat *analysis_window;  /* owned, window floats, w / window */
  gfloat *synthesis_window; /* owned, window floats, w */
  gfloat *frame;            /* owned, window floats, scratch */
  /* History: the only per-stream data, saved and loaded in this order. */
  gfloat *history;       /* owned, 2 * hop floats */
  gfloat *analysis_mem;  /* in history: the previous hop of input */
  gfloat *synthesis_mem; /* in history: overlap-add tail, hop floats */
};

/* w[n] = sin (pi / 2 * sin^2 (pi * (n + 0.5) / window)) */
static gdouble
vorbis_window (guint n, guint window)
{
  gdouble s = sin (G_PI * (n + 0.5) / window);

  return sin (G_PI / 2 * s * s);
}

/**
 * dsp_stft_new:
 * @cfg: a configuration that passes dsp_frame_config_validate(); only hop
 *   and window are used.
 *
 * Makes the analysis and synthesis state of one channel. Both windows are the
 * Vorbis window w[n] = sin (pi / 2 * sin^2 (pi * (n + 0.5) / window)), which
 * is power-complementary: w[n]^2 + w[n + hop]^2 = 1, so analysis followed by
 * synthesis with unchanged spectra reconstructs the input delayed by
 * dsp_stft_get_delay() samples. The history starts as zeros, as if the stream
 * were preceded by silence.
 *
 * Returns: (transfer full): a new #DspStft; free with dsp_stft_free().
 */
DspStft *
dsp_stft_new (const DspFrameConfig *cfg)
{
  DspStft *self;
  guint n;

  g_return_val_if_fail (cfg != NULL, NULL);
  g_return_val_if_fail (dsp_frame_config_validate (cfg, NULL), NULL);

  self = g_new0 (DspStft, 1);
  self->hop = cfg->hop;
  self->window = cfg->window;
  self->fft = dsp_fft_new (self->window);
  self->analysis_window = g_new (gfloat, self->window);
  self->synthesis_window = g_new (gfloat, self->window);
  self->frame = g_new0 (gfloat, self->window);
  self->history = g_new0 (gfloat, 2 * self->hop);
  self->analysis_mem = self->history;
  self->synthesis_mem = self->history + self->hop;

  dsp_stft_fill_analysis_window (cfg, self->analysis_window);
  for (n = 0; n < self->window; n++)
    self->synthesis_window[n] = vorbis_window (n, self->window);

  return self;
}

/**
 * dsp_stft_fill_analysis_window:
 * @cfg: a frame configuration (only its window is used).
 * @out: window floats: the analysis window, the Vorbis window divided by
 *   the window length.
 *
 * The 1 / window undoes the unscaled inverse FFT, so spectra are normalized
 * DFTs and do not grow with the window length; anything transformed with
 * this window (the pitch analysis) is on the STFT's scale.
 */
void
dsp_stft_fill_analysis_window (const DspFrameConfig *cfg, gfloat *out)
{
  guint n;

  g_return_if_fail (cfg != NULL && out != NULL);

  for (n = 0; n < cfg->window; n++)
    out[n] = (gfloat) (vorbis_window (n, cfg->window) / cfg->window);
}

/**
 * dsp_stft_free:
 * @self: (nullable): a #DspStft.
 */
void
dsp_stft_free (DspStft *self)
{
  if (self == NULL)
    return;

  dsp_fft_free (self->fft);
  g_free (self->analysis_window);
  g_free (self->synthesis_window);
  g_free (self->frame);
  g_free (self->history);
  g_free (self);
}

/**
 * dsp_stft_reset:
 * @self: a #DspStft.
 *
 * Zeroes the history, as after dsp_stft_new(); allocates nothing.
 */
void
dsp_stft_reset (DspStft *self)
{
  g_return_if_fail (self != NULL);

  memset (self->history, 0, sizeof (gfloat) * 2 * self->hop);
}

/**
 * dsp_stft_get_delay:
 * @self: a #DspStft.
 *
 * Returns: the algorithmic delay in samples, window - hop (= hop): sample i
 *   of the input to dsp_stft_analyze() comes out as sample i + hop of the
 *   output of dsp_stft_synthesize().
 */
guint
dsp_stft_get_delay (const DspStft *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->window - self->hop;
}

/**
 * dsp_stft_analyze:
 * @self: a #DspStft.
 * @in: hop new input samples.
 * @spectrum: (window / 2 + 1) * 2 floats: bins 0 .. window / 2 of the
 *   windowed last window samples, interleaved (real, imaginary), normalized
 *   by 1 / window (a full-scale sine at a bin centre gives a magnitude near
 *   0.3 there).
 *
 * Advances the analysis by one frame. Never allocates.
 */
void
dsp_stft_analyze (DspStft *self, const gfloat *in, gfloat *spectrum)
{
  guint n;

  g_return_if_fail (self != NULL);
  g_return_if_fail (in != NULL && spectrum != NULL);

  for (n = 0; n < self->hop; n++)
    self->frame[n] = self->analysis_mem[n] * self->analysis_window[n];
  for (n = 0; n < self->hop; n++)
    self->frame[self->hop + n] = in[n] * self->analysis_window[self->hop + n];
  memcpy (self->analysis_mem, in, sizeof (gfloat) * self->hop);

  dsp_fft_forward (self->fft, self->frame, spectrum);
}

/**
 * dsp_stft_synthesize:
 * @self: a #DspStft.
 * @spectrum: (window / 2 + 1) * 2 floats, as dsp_stft_analyze() makes them
 *   (possibly scaled per bin); not modified.
 * @out: hop output samples.
 *
 * Inverse transforms @spectrum, applies the synthesis window and overlap-adds
 * it to the previous frame's tail. Never allocates.
 */
void
dsp_stft_synthesize (DspStft *self, const gfloat *spectrum, gfloat *out)
{
  guint n;

  g_return_if_fail (self != NULL);
  g_return_if_fail (spectrum != NULL && out != NULL);

  dsp_fft_inverse (self->fft, spectrum, self->frame);
  for (n = 0; n < self->hop; n++)
    out[n]
        = self->synthesis_mem[n] + self->frame[n] * self->synthesis_window[n];
  for (n = 0; n < self->hop; n++)
    self->synthesis_mem[n]
        = self->frame[self->hop + n] * self->synthesis_window[self->hop + n];
}

/**
 * dsp_stft_history_size:
 * @self: a #DspStft.
 *
 * Returns: the number of floats dsp_stft_save_history() writes: 2 * hop (the
 *   previous hop of input, then the hop-sample overlap-add tail).
 */
gsize
dsp_stft_history_size (const DspStft *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return 2 * (gsize) self->hop;
}

/**
 * dsp_stft_save_history:
 * @self: a #DspStft.
 * @out: dsp_stft_history_size() floats.
 *
 * Copies all per-stream state out. Loading it into a #DspStft of the same
 * configuration continues the stream bit-exactly. Never allocates.
 */
void
dsp_stft_save_history (const DspStft *self, gfloat *out)
{
  g_return_if_fail (self != NULL && out != NULL);

  memcpy (out, self->history, sizeof (gfloat) * 2 * self->hop);
}

/**
 * dsp_stft_load_history:
 * @self: a #DspStft.
 * @in: dsp_stft_history_size() floats from dsp_stft_save_history() on a
 *   #DspStft of the same configuration.
 *
 * Replaces all per-stream state. Values are taken as they are (the snapshot
 * layer checks them). Never allocates.
 */
void
dsp_stft_load_history (DspStft *self, const gfloat *in)
{
  g_return_if_fail (self != NULL && in != NULL);

  memcpy (self->history, in, sizeof (gfloat) * 2 * self->hop);
}
