/* rnndenoise — dsp: band energies, cepstral features and band gains
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_FEATURES_H
#define DSP_FEATURES_H

#include <glib.h>

#include "dsp_config.h"

G_BEGIN_DECLS

/* Added to every band energy before the log10 of feature layout 1. Spectra
 * are normalized by 1 / window (see dsp_stft_analyze()), so this matches
 * RNNoise's log10 (E + 1e-2) on 16-bit sample values. */
#define DSP_FEATURES_ENERGY_FLOOR 1e-11f

typedef struct _DspFeatures DspFeatures;

DspFeatures *dsp_features_new (const DspFrameConfig *cfg);

void dsp_features_free (DspFeatures *self);

void dsp_features_reset (DspFeatures *self);

guint dsp_features_get_n_features (const DspFeatures *self);

void dsp_features_band_energies (const DspFeatures *self,
    const gfloat *spectrum, gfloat *band_energies);

void dsp_features_compute (DspFeatures *self, const gfloat *spectrum,
    gfloat *features, gfloat *band_energies);

void dsp_features_interpolate_gains (const DspFeatures *self,
    const gfloat *band_gains, gfloat *bin_gains);

gfloat dsp_features_gain_floor (gfloat attenuation_limit_db);

void dsp_features_apply_gains (const DspFeatures *self, const gfloat *bin_gains,
    gfloat attenuation_limit_db, gfloat *spectrum);

gsize dsp_features_history_size (const DspFeatures *self);

void dsp_features_save_history (const DspFeatures *self, gfloat *out);

void dsp_features_load_history (DspFeatures *self, const gfloat *in);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DspFeatures, dsp_features_free)

G_END_DECLS

#endif /* DSP_FEATURES_H */
