/* rnndenoise — state library: the descriptor of a recurrent state
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef RNN_STATE_DESCRIPTOR_H
#define RNN_STATE_DESCRIPTOR_H

#include <glib.h>

G_BEGIN_DECLS

/* Version of the state layout and snapshot format described here. */
#define RNN_STATE_FORMAT_VERSION 1

/* Hard bounds. They keep a hostile header from asking for a huge allocation:
 * the largest state is 64 rows x 8 layers x 1024 floats = 2 MiB. */
#define RNN_STATE_MAX_LAYERS 8
#define RNN_STATE_MAX_HIDDEN 1024
#define RNN_STATE_MAX_BATCH 64
#define RNN_STATE_MAX_HISTORY (1u << 20)

/**
 * RnnStateCellKind:
 * @RNN_STATE_CELL_TEACH: the teaching recurrence h' = 2h + x.
 * @RNN_STATE_CELL_GRU: gated recurrent units.
 */
typedef enum
{
  RNN_STATE_CELL_TEACH = 1,
  RNN_STATE_CELL_GRU = 2,
} RnnStateCellKind;

/**
 * RnnStateDirection:
 * @RNN_STATE_DIRECTION_FORWARD: a streaming (causal) recurrence.
 * @RNN_STATE_DIRECTION_BIDIRECTIONAL: a state of a bidirectional network; it
 *   can never seed a streaming recurrence.
 */
typedef enum
{
  RNN_STATE_DIRECTION_FORWARD = 0,
  RNN_STATE_DIRECTION_BIDIRECTIONAL = 1,
} RnnStateDirection;

/**
 * RnnStateElementType:
 * @RNN_STATE_ELEMENT_F32: 32-bit float, scale and zero point unused.
 * @RNN_STATE_ELEMENT_S16: signed 16-bit, value = (q - zero_point) * scale.
 * @RNN_STATE_ELEMENT_S8: signed 8-bit, value = (q - zero_point) * scale.
 */
typedef enum
{
  RNN_STATE_ELEMENT_F32 = 1,
  RNN_STATE_ELEMENT_S16 = 2,
  RNN_STATE_ELEMENT_S8 = 3,
} RnnStateElementType;

/**
 * RnnStateDescriptor:
 *
 * Everything that defines the layout and meaning of a recurrent state: a
 * plain value type, copied freely.
 *
 * The hidden section is layer-major: layer 0 holds @batch rows of
 * @hidden[0] values, then layer 1, and so on. Row b of layer l starts at
 * rnn_state_descriptor_layer_offset (d, l) + b * hidden[l] (in values).
 * Scale and zero point are per layer and apply to S16 and S8 only.
 * The DSP-history section is @history_size F32 values, opaque to this
 * library (overlap buffers, smoothing memory of the whole stream).
 */
typedef struct
{
  guint32 format_version;
  guint64 model_id;
  RnnStateCellKind cell;
  RnnStateDirection direction;
  guint32 batch;
  guint32 n_layers;
  guint32 hidden[RNN_STATE_MAX_LAYERS];
  RnnStateElementType element_type;
  gfloat scale[RNN_STATE_MAX_LAYERS];
  gint32 zero_point[RNN_STATE_MAX_LAYERS];
  guint32 history_size;
} RnnStateDescriptor;

void rnn_state_descriptor_init (RnnStateDescriptor *desc, guint64 model_id,
    RnnStateCellKind cell, guint32 batch, guint32 n_layers,
    const guint32 *hidden, guint32 history_size);

void rnn_state_descriptor_set_element_type (RnnStateDescriptor *desc,
    RnnStateElementType element_type, gfloat abs_max);

gboolean rnn_state_descriptor_validate (const RnnStateDescriptor *desc,
    GError **error);

gsize rnn_state_descriptor_n_values (const RnnStateDescriptor *desc);

gsize rnn_state_descriptor_layer_offset (const RnnStateDescriptor *desc,
    guint layer);

gsize rnn_state_descriptor_hidden_bytes (const RnnStateDescriptor *desc);

gsize rnn_state_element_size (RnnStateElementType element_type);

const gchar *rnn_state_element_type_name (RnnStateElementType element_type);

const gchar *rnn_state_cell_kind_name (RnnStateCellKind cell);

gboolean rnn_state_descriptor_check_layout (const RnnStateDescriptor *target,
    const RnnStateDescriptor *source, GError **error);

gboolean rnn_state_descriptor_equal (const RnnStateDescriptor *a,
    const RnnStateDescriptor *b, GError **error);

G_END_DECLS

#endif /* RNN_STATE_DESCRIPTOR_H */
