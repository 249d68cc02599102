/* rnndenoise — dsp: the input level tracker behind level normalisation
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_LEVEL_H
#define DSP_LEVEL_H

#include <glib.h>

G_BEGIN_DECLS

/* The level the analysis sees the input's loud frames at (dBFS, mean
 * power of the frames within DSP_LEVEL_ACTIVE_DB of the peak). The middle
 * of the training mixtures' speech levels (-42..-12 dBFS): on the
 * selection mixtures it kept more speech at the same ΔSI-SDR than the
 * mixtures' own levels did, and any level 20 dB lower or 6 dB higher
 * scored within 0.1 dB of it (docs/model.md, "Level normalisation"). */
#define DSP_LEVEL_TARGET_DBFS (-27.0f)
/* How far the analysis gain may go, in dB: an input more than 30 dB too
 * quiet is mostly its own noise floor, and no speech is 10 dB too loud
 * (-17 dBFS of mean power is near full scale for a voice). */
#define DSP_LEVEL_MAX_GAIN_DB 30.0f
#define DSP_LEVEL_MIN_GAIN_DB (-10.0f)

/* The tracker: frames within DSP_LEVEL_ACTIVE_DB of a peak that decays
 * DSP_LEVEL_PEAK_DECAY_DB_PER_S count as active, and their mean power is
 * averaged over DSP_LEVEL_AVERAGE_S, exactly (1 / n) over the stream's
 * first n active frames, so the first words set the level at once. Frames
 * below DSP_LEVEL_SILENCE_DBFS (digital silence) are not counted. */
#define DSP_LEVEL_ACTIVE_DB 15.0f
#define DSP_LEVEL_PEAK_DECAY_DB_PER_S 5.0f
#define DSP_LEVEL_AVERAGE_S 3.0f
#define DSP_LEVEL_SILENCE_DBFS (-90.0f)

/* Floats dsp_level_save() writes and dsp_level_load() reads. */
#define DSP_LEVEL_HISTORY_SIZE 3

/**
 * DspLevel:
 *
 * Tracks the level of one channel's loud frames, frame by frame, and gives
 * the gain that brings it to DSP_LEVEL_TARGET_DBFS. Plain data: a stream's
 * processor owns one per channel and saves it with the stream's history.
 */
typedef struct
{
  gfloat peak_db;    /* decaying peak of the frame levels, dBFS */
  gfloat mean_power; /* mean power of the active frames */
  gfloat n_active;   /* active frames so far, up to the average's length */
  gfloat peak_decay; /* dB per frame */
  gfloat max_count;  /* frames in DSP_LEVEL_AVERAGE_S */
} DspLevel;

void dsp_level_init (DspLevel *self, guint sample_rate, guint hop);

void dsp_level_update (DspLevel *self, const gfloat *samples, guint n);

gfloat dsp_level_gain (const DspLevel *self);

void dsp_level_scale_spectrum (const DspLevel *self, const gfloat *spectrum,
    guint n_bins, gfloat *out);

void dsp_level_save (const DspLevel *self, gfloat *out);

void dsp_level_load (DspLevel *self, const gfloat *in);

G_END_DECLS

#endif /* DSP_LEVEL_H */
