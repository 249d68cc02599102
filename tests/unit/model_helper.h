/* rnndenoise — unit tests: model files and reference data for the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef MODEL_HELPER_H
#define MODEL_HELPER_H

#include <glib.h>

#include "dsp/dsp_config.h"
#include "dsp/dsp_model.h"

G_BEGIN_DECLS

/* Largest |int8 - float| on model outputs and hidden state over the
 * reference sequence (INT8_TOLERANCE in tests/ref/nnet_ref.py). */
#define MODEL_HELPER_INT8_TOLERANCE 0.01f

/* Largest |int8x8 - float| on model outputs and hidden state over random
 * models' sequences (test_model.c, test_nnet.c). */
#define MODEL_HELPER_INT8X8_TOLERANCE 0.01f

/* Largest |C - numpy| for the same weights (float or int8). */
#define MODEL_HELPER_REF_TOLERANCE 1e-5f

typedef struct
{
  DspLayerKind kind;
  guint input;
  guint input_size;
  guint output_size;
  DspActivation activation;
} ModelHelperLayer;

/* weight_type applies to every layer, but with DSP_WEIGHT_S8X8 the layers
 * reading the features stay float32 (as export.py writes them), unless
 * s8x8_everywhere is set (a model the loader must refuse). */
typedef struct
{
  DspFrameConfig config;
  DspWeightType weight_type;
  gboolean s8x8_everywhere;
  guint n_layers;
  ModelHelperLayer layers[DSP_MODEL_MAX_LAYERS];
  guint gain_layer;
  guint vad_layer;
  guint lookahead; /* the header field; layer 0's input_size is the caller's */
  /* The layers reading the features give the frames ahead zero weights
   * and draw the others as the same spec without lookahead does: the
   * network computes what that one does. */
  gboolean ignore_lookahead;
  /* The header's version (1: no speech_protection field; 2, the default;
   * 3: a bin_layer field too), from version 2 its speech_protection, and
   * in version 3 the index of the bin-gain head (0: none). */
  guint32 version;
  gfloat speech_protection;
  guint bin_layer;
  guint32 seed;
} ModelHelperSpec;

void model_helper_default_config (DspFrameConfig *cfg, guint rate);

void model_helper_spec_init_default (ModelHelperSpec *spec,
    DspWeightType weight_type, guint32 seed);

void model_helper_spec_init_lookahead (ModelHelperSpec *spec,
    DspWeightType weight_type, guint32 seed, guint lookahead);

GBytes *model_helper_build (const ModelHelperSpec *spec);

void model_helper_fill_weights (guint8 *data, guint layer, guint first_column,
    guint n_columns, gfloat value);

void model_helper_fill_bias (guint8 *data, guint layer, gfloat value);

GBytes *model_helper_random_model (DspWeightType weight_type, guint32 seed);

guint8 *model_helper_bin_head_model (guint n_bins, gfloat bias, gsize *size);

guint8 *model_helper_vad_fixed_model (guint rate, gfloat vad_bias, gsize *size);

guint8 *model_helper_cutting_model (guint rate, gfloat vad_bias, gsize *size);

guint32 model_helper_get_u32 (const guint8 *data, gsize offset);

void model_helper_put_u32 (guint8 *data, gsize offset, guint32 value);

gsize model_helper_header_size (const guint8 *data);

gsize model_helper_layer_record (const guint8 *data, guint index);

gdouble model_helper_difference_db (const gfloat *a, const gfloat *b,
    const gfloat *ref, gsize from, gsize to);

void model_helper_fix_size_and_checksum (guint8 *data, gsize size);

guint32 model_helper_crc32 (const guint8 *data, gsize size);

gchar *model_helper_data_path (const gchar *name);

gpointer model_helper_ref_array (const gchar *file, const gchar *name,
    gboolean is_s8, gsize *n_values);

G_END_DECLS

#endif /* MODEL_HELPER_H */
