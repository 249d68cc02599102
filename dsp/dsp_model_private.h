/* rnndenoise — dsp: the model's layout, shared by the file loader and the
 * forward pass
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Nothing outside dsp_model.c and dsp_model_file.c includes this header:
 * everyone else sees DspModel as opaque (dsp_model.h).
 */
#ifndef DSP_MODEL_PRIVATE_H
#define DSP_MODEL_PRIVATE_H

#include <glib.h>

#include "dsp/dsp_cell.h"
#include "dsp/dsp_dense.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_gru.h"
#include "dsp/dsp_model.h"

G_BEGIN_DECLS

typedef struct
{
  DspLayerInfo info;
  DspDense dense;    /* DSP_LAYER_DENSE; views into data */
  DspGruWeights gru; /* DSP_LAYER_GRU; views into data */
  DspCell *cell;     /* DSP_LAYER_GRU; owned */
  gsize out_offset;  /* per batch row: hidden (GRU) or scratch */
} DspModelLayer;

struct _DspModel
{
  gint ref_count; /* atomic */

  /* Immutable once loaded. */
  guint64 id;
  guint32 checksum;
  guint format_version;     /* 1, 2 or 3 */
  gfloat speech_protection; /* the file's (version 2) or the default */
  DspFrameConfig config;
  guint n_features; /* per frame */
  guint lookahead;  /* frames read ahead, 0..DSP_MAX_LOOKAHEAD */
  guint n_inputs;   /* n_features x (1 + lookahead): a feature row */
  guint n_layers;
  DspModelLayer layers[DSP_MODEL_MAX_LAYERS];
  guint gain_layer;
  guint vad_layer;
  guint bin_layer;   /* version 3: the bin-gain head; 0 = none */
  guint n_bin_gains; /* its outputs: bins 0 .. n_bin_gains - 1; 0 = none */
  gsize n_params;
  guint n_gru;
  guint32 gru_hidden[RNN_STATE_MAX_LAYERS];
  gsize hidden_per_row; /* sum of the GRU hidden sizes */
  gsize dense_per_row;  /* sum of the dense output sizes */
  gsize cell_scratch;   /* largest GRU scratch_size */
  gpointer data;        /* owned: all weights, floats then int8, then the
                         * int8x8 ones packed for the vector kernels */
};

/* Frees @model whatever its reference count: for the loader's failure
 * path and the last dsp_model_unref() only. */
void dsp_model_free (DspModel *model);

G_END_DECLS

#endif /* DSP_MODEL_PRIVATE_H */
