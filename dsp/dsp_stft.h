/* rnndenoise — dsp: per-stream STFT analysis and overlap-add synthesis
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_STFT_H
#define DSP_STFT_H

#include <glib.h>

#include "dsp_config.h"

G_BEGIN_DECLS

typedef struct _DspStft DspStft;

DspStft *dsp_stft_new (const DspFrameConfig *cfg);

void dsp_stft_free (DspStft *self);

void dsp_stft_fill_analysis_window (const DspFrameConfig *cfg, gfloat *out);

void dsp_stft_reset (DspStft *self);

guint dsp_stft_get_delay (const DspStft *self);

void dsp_stft_analyze (DspStft *self, const gfloat *in, gfloat *spectrum);

void dsp_stft_synthesize (DspStft *self, const gfloat *spectrum, gfloat *out);

gsize dsp_stft_history_size (const DspStft *self);

void dsp_stft_save_history (const DspStft *self, gfloat *out);

void dsp_stft_load_history (DspStft *self, const gfloat *in);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DspStft, dsp_stft_free)

G_END_DECLS

#endif /* DSP_STFT_H */
