/* rnndenoise — state library: serialized snapshots
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Byte layout (little-endian throughout, see docs/state-contract.md):
 *
 *   u32 magic "RNNS", u32 snapshot version, u32 header size,
 *   u32 state format version, u64 model id, u32 cell, u32 direction,
 *   u32 batch, u32 layer count, u32 element type, u32 history size,
 *   u64 generation,
 *   per layer: u32 hidden size, f32 scale, i32 zero point,
 *   u32 hidden bytes, u32 history bytes,
 *   hidden section (element type), history section (f32),
 *   u32 CRC-32 (IEEE) of every byte before it.
 */
#include "config.h"

#include <string.h>

#include "rnn_state_bytes.h"
#include "rnn_state_error.h"
#include "rnn_state_quant.h"
#include "rnn_state_snapshot.h"

#define FIXED_HEADER_SIZE 56
#define LAYER_RECORD_SIZE 12
#define SECTION_SIZES_SIZE 8
#define CHECKSUM_SIZE 4

struct _RnnStateSnapshot
{
  RnnStateDescriptor desc;
  guint64 generation;
  gpointer hidden; /* owned; desc.element_type, native order */
  gfloat *history; /* owned */
};

static gsize
header_size (guint n_layers)
{
  return FIXED_HEADER_SIZE + (gsize) n_layers * LAYER_RECORD_SIZE
      + SECTION_SIZES_SIZE;
}

/* Copies @n values of @elem_size bytes, swapping to or from little-endian
 * (the same operation both ways). */
static void
copy_values_le (guint8 *dst, const guint8 *src, gsize n, gsize elem_size)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  memcpy (dst, src, n * elem_size);
#else
  gsize i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < elem_size; j++)
      dst[i * elem_size + j] = src[i * elem_size + elem_size - 1 - j];
#endif
}

/**
 * rnn_state_snapshot_serialize:
 * @desc: a validated descriptor
 * @generation: the slot generation the state belongs to
 * @hidden: rnn_state_descriptor_hidden_bytes (@desc) bytes, native order
 * @history: (nullable): @desc->history_size values (NULL only if 0)
 *
 * Returns: (transfer full): the snapshot bytes, little-endian, with a
 * trailing CRC-32.
 */
GBytes *
rnn_state_snapshot_serialize (const RnnStateDescriptor *desc,
    guint64 generation, gconstpointer hidden, const gfloat *history)
{
  gsize hidden_bytes, history_bytes, head, total;
  guint8 *data, *p;
  guint i;

  g_return_val_if_fail (desc != NULL && hidden != NULL, NULL);
  g_return_val_if_fail (history != NULL || desc->history_size == 0, NULL);

  hidden_bytes = rnn_state_descriptor_hidden_bytes (desc);
  history_bytes = (gsize) desc->history_size * sizeof (gfloat);
  head = header_size (desc->n_layers);
  total = head + hidden_bytes + history_bytes + CHECKSUM_SIZE;

  data = g_malloc (total);
  p = rnn_state_put_u32 (data, RNN_STATE_SNAPSHOT_MAGIC);
  p = rnn_state_put_u32 (p, RNN_STATE_SNAPSHOT_VERSION);
  p = rnn_state_put_u32 (p, (guint32) head);
  p = rnn_state_put_u32 (p, desc->format_version);
  p = rnn_state_put_u64 (p, desc->model_id);
  p = rnn_state_put_u32 (p, desc->cell);
  p = rnn_state_put_u32 (p, desc->direction);
  p = rnn_state_put_u32 (p, desc->batch);
  p = rnn_state_put_u32 (p, desc->n_layers);
  p = rnn_state_put_u32 (p, desc->element_type);
  p = rnn_state_put_u32 (p, desc->history_size);
  p = rnn_state_put_u64 (p, generation);
  for (i = 0; i < desc->n_layers; i++) {
    p = rnn_state_put_u32 (p, desc->hidden[i]);
    p = rnn_state_put_f32 (p, desc->scale[i]);
    p = rnn_state_put_u32 (p, (guint32) desc->zero_point[i]);
  }
  p = rnn_state_put_u32 (p, (guint32) hidden_bytes);
  p = rnn_state_put_u32 (p, (guint32) history_bytes);
  copy_values_le (p, hidden, rnn_state_descriptor_n_values (desc),
      rnn_state_element_size (desc->element_type));
  p += hidden_bytes;
  if (history_bytes > 0)
    copy_values_le (p, (const guint8 *) history, desc->history_size, 4);
  p += history_bytes;
  rnn_state_put_u32 (p, rnn_state_crc32 (data, total - CHECKSUM_SIZE));
  return g_bytes_new_take (data, total);
}

static gboolean
parse_envelope (const guint8 *data, gsize size, GError **error)
{
  guint32 stored, computed;

  if (size < FIXED_HEADER_SIZE + SECTION_SIZES_SIZE + CHECKSUM_SIZE) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "snapshot of %" G_GSIZE_FORMAT " bytes is truncated: the header "
        "alone needs %d",
        size, FIXED_HEADER_SIZE + SECTION_SIZES_SIZE + CHECKSUM_SIZE);
    return FALSE;
  }
  if (rnn_state_get_u32 (data) != RNN_STATE_SNAPSHOT_MAGIC) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "magic 0x%08x, a state snapshot starts with 0x%08x (\"RNNS\")",
        rnn_state_get_u32 (data), RNN_STATE_SNAPSHOT_MAGIC);
    return FALSE;
  }
  if (rnn_state_get_u32 (data + 4) != RNN_STATE_SNAPSHOT_VERSION) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "snapshot version %u, this library reads version %u",
        rnn_state_get_u32 (data + 4), RNN_STATE_SNAPSHOT_VERSION);
    return FALSE;
  }
  stored = rnn_state_get_u32 (data + size - CHECKSUM_SIZE);
  computed = rnn_state_crc32 (data, size - CHECKSUM_SIZE);
  if (stored != computed) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "checksum 0x%08x, the bytes give 0x%08x: the snapshot is corrupt or "
        "truncated",
        stored, computed);
    return FALSE;
  }
  return TRUE;
}

/* Reads the descriptor; checks its bounds before any size derives from it. */
static gboolean
parse_descriptor (const guint8 *data, gsize size, RnnStateDescriptor *desc,
    guint64 *generation, GError **error)
{
  const guint8 *p;
  guint i;

  memset (desc, 0, sizeof (*desc));
  desc->format_version = rnn_state_get_u32 (data + 12);
  desc->model_id = rnn_state_get_u64 (data + 16);
  desc->cell = (RnnStateCellKind) rnn_state_get_u32 (data + 24);
  desc->direction = (RnnStateDirection) rnn_state_get_u32 (data + 28);
  desc->batch = rnn_state_get_u32 (data + 32);
  desc->n_layers = rnn_state_get_u32 (data + 36);
  desc->element_type = (RnnStateElementType) rnn_state_get_u32 (data + 40);
  desc->history_size = rnn_state_get_u32 (data + 44);
  *generation = rnn_state_get_u64 (data + 48);

  if (desc->n_layers < 1 || desc->n_layers > RNN_STATE_MAX_LAYERS) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "layer count %u, must be in 1..%u", desc->n_layers,
        RNN_STATE_MAX_LAYERS);
    return FALSE;
  }
  if (rnn_state_get_u32 (data + 8) != header_size (desc->n_layers)
      || size < header_size (desc->n_layers) + CHECKSUM_SIZE) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "header size %u, %u layers need %" G_GSIZE_FORMAT,
        rnn_state_get_u32 (data + 8), desc->n_layers,
        header_size (desc->n_layers));
    return FALSE;
  }
  p = data + FIXED_HEADER_SIZE;
  for (i = 0; i < desc->n_layers; i++, p += LAYER_RECORD_SIZE) {
    desc->hidden[i] = rnn_state_get_u32 (p);
    desc->scale[i] = rnn_state_get_f32 (p + 4);
    desc->zero_point[i] = (gint32) rnn_state_get_u32 (p + 8);
  }
  if (!rnn_state_descriptor_validate (desc, error)) {
    (*error)->code = RNN_STATE_ERROR_CORRUPT;
    return FALSE;
  }
  return TRUE;
}

/**
 * rnn_state_snapshot_parse:
 * @data: snapshot bytes
 * @size: size of @data in bytes
 * @error: return location for a #RNN_STATE_ERROR_CORRUPT error
 *
 * Checks the magic, version and checksum, then every header field against
 * its bounds and the section sizes against the descriptor and the bytes
 * present, before allocating: the allocation never exceeds @size. Does not
 * compare with any stream; see rnn_state_snapshot_validate().
 *
 * Returns: (transfer full) (nullable): the parsed snapshot, or NULL.
 */
RnnStateSnapshot *
rnn_state_snapshot_parse (gconstpointer data, gsize size, GError **error)
{
  const guint8 *bytes = data;
  RnnStateSnapshot *snapshot;
  RnnStateDescriptor desc;
  GError *local_error = NULL;
  guint64 generation;
  gsize head, hidden_bytes, history_bytes;

  g_return_val_if_fail (data != NULL || size == 0, NULL);

  if (!parse_envelope (bytes, size, error))
    return NULL;
  if (!parse_descriptor (bytes, size, &desc, &generation, &local_error)) {
    g_propagate_error (error, local_error);
    return NULL;
  }

  head = header_size (desc.n_layers);
  hidden_bytes = rnn_state_descriptor_hidden_bytes (&desc);
  history_bytes = (gsize) desc.history_size * sizeof (gfloat);
  if (rnn_state_get_u32 (bytes + head - 8) != hidden_bytes
      || rnn_state_get_u32 (bytes + head - 4) != history_bytes) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "sections of %u and %u bytes, the descriptor gives %" G_GSIZE_FORMAT
        " and %" G_GSIZE_FORMAT,
        rnn_state_get_u32 (bytes + head - 8),
        rnn_state_get_u32 (bytes + head - 4), hidden_bytes, history_bytes);
    return NULL;
  }
  if (size != head + hidden_bytes + history_bytes + CHECKSUM_SIZE) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "snapshot of %" G_GSIZE_FORMAT
        " bytes, its header describes %" G_GSIZE_FORMAT,
        size, head + hidden_bytes + history_bytes + CHECKSUM_SIZE);
    return NULL;
  }

  snapshot = g_new0 (RnnStateSnapshot, 1);
  snapshot->desc = desc;
  snapshot->generation = generation;
  snapshot->hidden = g_malloc (hidden_bytes);
  snapshot->history = g_malloc (history_bytes + 1);
  copy_values_le (snapshot->hidden, bytes + head,
      rnn_state_descriptor_n_values (&desc),
      rnn_state_element_size (desc.element_type));
  copy_values_le ((guint8 *) snapshot->history, bytes + head + hidden_bytes,
      desc.history_size, 4);
  return snapshot;
}

/**
 * rnn_state_snapshot_free:
 * @snapshot: (nullable): a snapshot
 */
void
rnn_state_snapshot_free (RnnStateSnapshot *snapshot)
{
  if (snapshot == NULL)
    return;
  g_free (snapshot->hidden);
  g_free (snapshot->history);
  g_free (snapshot);
}

/**
 * rnn_state_snapshot_get_descriptor:
 * @snapshot: a snapshot
 *
 * Returns: (transfer none): the descriptor the snapshot was taken with.
 */
const RnnStateDescriptor *
rnn_state_snapshot_get_descriptor (const RnnStateSnapshot *snapshot)
{
  g_return_val_if_fail (snapshot != NULL, NULL);
  return &snapshot->desc;
}

/**
 * rnn_state_snapshot_get_generation:
 * @snapshot: a snapshot
 *
 * Returns: the slot generation at the time of the snapshot.
 */
guint64
rnn_state_snapshot_get_generation (const RnnStateSnapshot *snapshot)
{
  g_return_val_if_fail (snapshot != NULL, 0);
  return snapshot->generation;
}

/**
 * rnn_state_snapshot_get_hidden:
 * @snapshot: a snapshot
 *
 * Returns: (transfer none): the hidden section, in the descriptor's element
 * type, native byte order.
 */
gconstpointer
rnn_state_snapshot_get_hidden (const RnnStateSnapshot *snapshot)
{
  g_return_val_if_fail (snapshot != NULL, NULL);
  return snapshot->hidden;
}

/**
 * rnn_state_snapshot_get_history:
 * @snapshot: a snapshot
 *
 * Returns: (transfer none): the DSP-history section (history_size values).
 */
const gfloat *
rnn_state_snapshot_get_history (const RnnStateSnapshot *snapshot)
{
  g_return_val_if_fail (snapshot != NULL, NULL);
  return snapshot->history;
}

/**
 * rnn_state_snapshot_validate:
 * @snapshot: a parsed snapshot
 * @target: the descriptor of the stream it would seed
 * @error: return location for a #RNN_STATE_ERROR_MISMATCH or
 *   #RNN_STATE_ERROR_UNSUPPORTED error naming the field and both values
 *
 * Contract point 8: direction, format version, model id, cell kind, batch,
 * layer count, hidden size per layer and DSP-history size must match; the
 * element type and quantisation may differ (rnn_state_snapshot_convert()
 * rescales).
 *
 * Returns: TRUE if the snapshot can seed @target.
 */
gboolean
rnn_state_snapshot_validate (const RnnStateSnapshot *snapshot,
    const RnnStateDescriptor *target, GError **error)
{
  g_return_val_if_fail (snapshot != NULL && target != NULL, FALSE);
  return rnn_state_descriptor_check_layout (target, &snapshot->desc, error);
}

/**
 * rnn_state_snapshot_convert:
 * @snapshot: a parsed snapshot
 * @target: the descriptor of the receiving stream
 * @hidden_out: (out caller-allocates): rnn_state_descriptor_hidden_bytes
 *   (@target) bytes, native order
 * @history_out: (out caller-allocates) (nullable): history_size values
 * @error: return location for a validation error
 *
 * Validates, then rescales the hidden section into @target's element type
 * and quantisation: bit-exact when both are equal, otherwise within half a
 * step of the source plus half a step of the target (saturating at the
 * target's range). The history is copied bit-exactly.
 *
 * Returns: TRUE on success; on failure nothing is written.
 */
gboolean
rnn_state_snapshot_convert (const RnnStateSnapshot *snapshot,
    const RnnStateDescriptor *target, gpointer hidden_out, gfloat *history_out,
    GError **error)
{
  gfloat *values;

  g_return_val_if_fail (hidden_out != NULL, FALSE);

  if (!rnn_state_snapshot_validate (snapshot, target, error))
    return FALSE;

  if (rnn_state_descriptor_equal (&snapshot->desc, target, NULL)) {
    memcpy (hidden_out, snapshot->hidden,
        rnn_state_descriptor_hidden_bytes (target));
  } else {
    values = g_new (gfloat, rnn_state_descriptor_n_values (target));
    rnn_state_dequantize (&snapshot->desc, snapshot->hidden, values);
    rnn_state_quantize (target, values, hidden_out);
    g_free (values);
  }
  if (history_out != NULL && target->history_size > 0)
    memcpy (history_out, snapshot->history,
        (gsize) target->history_size * sizeof (gfloat));
  return TRUE;
}
