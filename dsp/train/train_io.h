/* rnndenoise — training tools: audio input and the features file
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef TRAIN_IO_H
#define TRAIN_IO_H

#include <stdio.h>

#include <glib.h>

#include "dsp/dsp_config.h"

G_BEGIN_DECLS

/* The features file (see rnndenoise-features.c for the layout). */
#define TRAIN_FEATURES_MAGIC "RNDF"
#define TRAIN_FEATURES_VERSION 1
#define TRAIN_FEATURES_HEADER_SIZE 44

/**
 * TrainFeaturesHeader:
 * @cfg: the frame configuration the rows were made with.
 * @n_features: features per row.
 * @row_size: floats per row: n_features + n_bands + 1.
 * @n_sequences: sequences in the file.
 * @n_frames: rows in the file, all sequences.
 */
typedef struct
{
  DspFrameConfig cfg;
  guint32 n_features;
  guint32 row_size;
  guint32 n_sequences;
  guint32 n_frames;
} TrainFeaturesHeader;

/**
 * TrainFeatures:
 * @head: the header.
 * @rows: @head.n_frames x @head.row_size floats.
 * @lengths: @head.n_sequences frame counts.
 *
 * A features file in memory; free with train_features_free().
 */
typedef struct
{
  TrainFeaturesHeader head;
  gfloat *rows;
  guint32 *lengths;
} TrainFeatures;

guint32 train_get_u32 (const guint8 *p);

void train_put_u32 (guint8 *p, guint32 v);

gfloat *train_load_audio (const gchar *path, guint sample_rate, gsize *n_out,
    GError **error);

void train_low_pass (gfloat *x, gsize n, guint sample_rate, double limit_hz);

gboolean train_write_floats (FILE *out, const gfloat *v, gsize n,
    GError **error);

gboolean train_features_write_header (FILE *out,
    const TrainFeaturesHeader *head, GError **error);

TrainFeatures *train_features_load (const gchar *path, GError **error);

void train_features_free (TrainFeatures *features);

G_END_DECLS

#endif /* TRAIN_IO_H */
