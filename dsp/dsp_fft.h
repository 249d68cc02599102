/* rnndenoise — dsp: real FFT (single-precision FFTW)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_FFT_H
#define DSP_FFT_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct _DspFft DspFft;

DspFft *dsp_fft_new (guint len);

void dsp_fft_free (DspFft *self);

guint dsp_fft_get_len (const DspFft *self);

void dsp_fft_forward (DspFft *self, const gfloat *in, gfloat *out);

void dsp_fft_inverse (DspFft *self, const gfloat *in, gfloat *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DspFft, dsp_fft_free)

G_END_DECLS

#endif /* DSP_FFT_H */
