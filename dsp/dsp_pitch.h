/* rnndenoise — dsp: pitch period search and pitch correlation features
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_PITCH_H
#define DSP_PITCH_H

#include <glib.h>

#include "dsp_config.h"
#include "dsp_features.h"

G_BEGIN_DECLS

/* Voice pitch searched for, Hz: periods from 1 / DSP_PITCH_MAX_HZ to
 * 1 / DSP_PITCH_MIN_HZ seconds. */
#define DSP_PITCH_MIN_HZ 62.5
#define DSP_PITCH_MAX_HZ 500.0

typedef struct _DspPitch DspPitch;

DspPitch *dsp_pitch_new (const DspFrameConfig *cfg);

void dsp_pitch_free (DspPitch *self);

void dsp_pitch_reset (DspPitch *self);

void dsp_pitch_analyze (DspPitch *self, const gfloat *in,
    gfloat *pitch_spectrum);

guint dsp_pitch_get_period (const DspPitch *self);

gfloat dsp_pitch_get_correlation (const DspPitch *self);

void dsp_pitch_features (const DspPitch *self, const DspFeatures *features,
    const gfloat *band_energies, const gfloat *spectrum,
    const gfloat *pitch_spectrum, gfloat *out);

gsize dsp_pitch_history_size (const DspPitch *self);

void dsp_pitch_save_history (const DspPitch *self, gfloat *out);

void dsp_pitch_load_history (DspPitch *self, const gfloat *in);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DspPitch, dsp_pitch_free)

G_END_DECLS

#endif /* DSP_PITCH_H */
