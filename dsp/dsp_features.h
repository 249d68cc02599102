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

/* Feature layout 2's noise floor tracker, in log10 energy units per frame:
 * the smoothed log energy S = a * S + (1 - a) * L with a =
 * DSP_FEATURES_FLOOR_SMOOTHING, and the floor N = min (S, N +
 * DSP_FEATURES_FLOOR_RISE): 0.01 per 10 ms frame is 10 dB per second, fast
 * enough to follow a noise that rises, slow enough to stay under a
 * sustained vowel. A stream starts with both "unknown"
 * (DSP_FEATURES_FLOOR_UNKNOWN), and its first frame sets them. */
#define DSP_FEATURES_FLOOR_SMOOTHING 0.8f
#define DSP_FEATURES_FLOOR_RISE 0.01f
#define DSP_FEATURES_FLOOR_UNKNOWN 100.0f

/* The lowest gain dsp_features_limit_to_noise_floor() gives a band (about
 * -14 dB): below it the limit would silence weak voices with the noise. */
#define DSP_FEATURES_FLOOR_MIN_GAIN 0.2f

/* dsp_features_lift_peaks() works on the bins up to this frequency (Hz),
 * where a voiced frame's harmonics still stand apart (a 50 Hz bin or two
 * each, a pitch or more apart) and a band spans several of them: up to
 * 4 kHz it kept 0.05 dB more speech than up to 1 kHz for 0.05 dB of
 * ΔSI-SDR on the selection mixtures, at both rates, a better trade than
 * more speech protection (docs/model.md, "Harmonic lift up to 4 kHz").
 * It leaves bins whose gain is below DSP_FEATURES_LIFT_MIN_GAIN alone:
 * there the network hears no voice, and noise peaks lifted alone would
 * whistle (musical noise). */
#define DSP_FEATURES_LIFT_MAX_HZ 4000.0
#define DSP_FEATURES_LIFT_MIN_GAIN 0.2f
/* Bins each side of a bin whose power is averaged with it into the local
 * level the bin's noise is estimated from. */
#define DSP_FEATURES_LIFT_HALF_WIDTH 2

/* dsp_features_keep_above_floor() works on the bins from
 * DSP_FEATURES_LIFT_HALF_WIDTH (100 Hz with 50 Hz bins) up to this
 * frequency (Hz): a voice's fundamental and its first harmonics, where a
 * band is a bin or two wide and a low rumble makes the network cut the
 * voice with it. A bin's noise is taken as
 * DSP_FEATURES_FLOOR_KEEP_OVERSUBTRACTION times its band's steady share of
 * the local level: 3 kept 0.06 dB more speech for 0.02 dB of ΔSI-SDR on
 * the 48 kHz selection mixtures, and at 16 kHz 0.04 dB for none; up to
 * 500 Hz was no better, 2 cost 0.1 dB more (docs/model.md, "Keeping the
 * voice above a steady low noise"). */
#define DSP_FEATURES_FLOOR_KEEP_MAX_HZ 300.0
#define DSP_FEATURES_FLOOR_KEEP_OVERSUBTRACTION 3.0f

typedef struct _DspFeatures DspFeatures;

DspFeatures *dsp_features_new (const DspFrameConfig *cfg);

void dsp_features_free (DspFeatures *self);

void dsp_features_reset (DspFeatures *self);

guint dsp_features_get_n_features (const DspFeatures *self);

guint dsp_features_get_n_bands (const DspFeatures *self);

void dsp_features_band_energies (const DspFeatures *self,
    const gfloat *spectrum, gfloat *band_energies);

void dsp_features_band_cross (const DspFeatures *self, const gfloat *a,
    const gfloat *b, gfloat *b_energies, gfloat *band_cross);

void dsp_features_compute (DspFeatures *self, const gfloat *spectrum,
    gfloat *features, gfloat *band_energies);

void dsp_features_interpolate_gains (const DspFeatures *self,
    const gfloat *band_gains, gfloat *bin_gains);

guint dsp_features_low_bin_powers (const DspFeatures *self,
    const gfloat *spectrum, gfloat *power);

void dsp_features_lift_peaks (const DspFeatures *self, const gfloat *power,
    gfloat lift, gfloat *bin_gains);

gboolean dsp_features_smoothed_above_floor (const DspFeatures *self,
    gfloat *above);

void dsp_features_limit_to_noise_floor (const DspFeatures *self,
    gfloat over_subtraction, gfloat *band_gains);

void dsp_features_limit_to_floor_distance (const DspFeatures *self,
    const gfloat *above, gfloat over_subtraction, gfloat *band_gains);

void dsp_features_keep_above_floor (const DspFeatures *self,
    const gfloat *power, const gfloat *above, gfloat *bin_gains);

void dsp_features_hold_gains (const DspFeatures *self, gfloat *before,
    gfloat share, gfloat *bin_gains);

gfloat dsp_features_gain_floor (gfloat attenuation_limit_db);

void dsp_features_apply_gains (const DspFeatures *self, const gfloat *bin_gains,
    gfloat attenuation_limit_db, gfloat *spectrum);

gsize dsp_features_history_size (const DspFeatures *self);

void dsp_features_save_history (const DspFeatures *self, gfloat *out);

void dsp_features_load_history (DspFeatures *self, const gfloat *in);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DspFeatures, dsp_features_free)

G_END_DECLS

#endif /* DSP_FEATURES_H */
