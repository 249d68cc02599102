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

#include <pthread.h>
#include <string.h>

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

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320). */
static guint32 crc_table[256];
/* pthread_once rather than g_once: see rnn_state_lock.h. */
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void
init_crc_table (void)
{
  guint32 i, j, c;

  for (i = 0; i < 256; i++) {
    c = i;
    for (j = 0; j < 8; j++)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

/**
 * rnn_state_crc32:
 * @data: bytes
 * @size: number of bytes
 *
 * Returns: the CRC-32 (IEEE) of @data.
 */
guint32
rnn_state_crc32 (gconstpointer data, gsize size)
{
  const guint8 *p = data;
  guint32 crc = 0xFFFFFFFFu;
  gsize i;

  pthread_once (&crc_table_once, init_crc_table);
  for (i = 0; i < size; i++)
    crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

static gsize
header_size (guint n_layers)
{
  return FIXED_HEADER_SIZE + (gsize) n_layers * LAYER_RECORD_SIZE
      + SECTION_SIZES_SIZE;
}

/* Little-endian writers and readers, field by field (never a struct cast). */
static guint8 *
put_u32 (guint8 *p, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (p, &v, 4);
  return p + 4;
}

static guint8 *
put_u64 (guint8 *p, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (p, &v, 8);
  return p + 8;
}

static guint8 *
put_f32 (guint8 *p, gfloat f)
{
  guint32 v;

  memcpy (&v, &f, 4);
  return put_u32 (p, v);
}

static guint32
get_u32 (const guint8 *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

static guint64
get_u64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

static gfloat
get_f32 (const guint8 *p)
{
  guint32 v = get_u32 (p);
  gfloat f;

  memcpy (&f, &v, 4);
  return f;
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
  p = put_u32 (data, RNN_STATE_SNAPSHOT_MAGIC);
  p = put_u32 (p, RNN_STATE_SNAPSHOT_VERSION);
  p = put_u32 (p, (guint32) head);
  p = put_u32 (p, desc->format_version);
  p = put_u64 (p, desc->model_id);
  p = put_u32 (p, desc->cell);
  p = put_u32 (p, desc->direction);
  p = put_u32 (p, desc->batch);
  p = put_u32 (p, desc->n_layers);
  p = put_u32 (p, desc->element_type);
  p = put_u32 (p, desc->history_size);
  p = put_u64 (p, generation);
  for (i = 0; i < desc->n_layers; i++) {
    p = put_u32 (p, desc->hidden[i]);
    p = put_f32 (p, desc->scale[i]);
    p = put_u32 (p, (guint32) desc->zero_point[i]);
  }
  p = put_u32 (p, (guint32) hidden_bytes);
  p = put_u32 (p, (guint32) history_bytes);
  copy_values_le (p, hidden, rnn_state_descriptor_n_values (desc),
      rnn_state_element_size (desc->element_type));
  p += hidden_bytes;
  if (history_bytes > 0)
    copy_values_le (p, (const guint8 *) history, desc->history_size, 4);
  p += history_bytes;
  put_u32 (p, rnn_state_crc32 (data, total - CHECKSUM_SIZE));
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
  if (get_u32 (data) != RNN_STATE_SNAPSHOT_MAGIC) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "magic 0x%08x, a state snapshot starts with 0x%08x (\"RNNS\")",
        get_u32 (data), RNN_STATE_SNAPSHOT_MAGIC);
    return FALSE;
  }
  if (get_u32 (data + 4) != RNN_STATE_SNAPSHOT_VERSION) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "snapshot version %u, this library reads version %u",
        get_u32 (data + 4), RNN_STATE_SNAPSHOT_VERSION);
    return FALSE;
  }
  stored = get_u32 (data + size - CHECKSUM_SIZE);
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
  desc->format_version = get_u32 (data + 12);
  desc->model_id = get_u64 (data + 16);
  desc->cell = (RnnStateCellKind) get_u32 (data + 24);
  desc->direction = (RnnStateDirection) get_u32 (data + 28);
  desc->batch = get_u32 (data + 32);
  desc->n_layers = get_u32 (data + 36);
  desc->element_type = (RnnStateElementType) get_u32 (data + 40);
  desc->history_size = get_u32 (data + 44);
  *generation = get_u64 (data + 48);

  if (desc->n_layers < 1 || desc->n_layers > RNN_STATE_MAX_LAYERS) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "layer count %u, must be in 1..%u", desc->n_layers,
        RNN_STATE_MAX_LAYERS);
    return FALSE;
  }
  if (get_u32 (data + 8) != header_size (desc->n_layers)
      || size < header_size (desc->n_layers) + CHECKSUM_SIZE) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "header size %u, %u layers need %" G_GSIZE_FORMAT, get_u32 (data + 8),
        desc->n_layers, header_size (desc->n_layers));
    return FALSE;
  }
  p = data + FIXED_HEADER_SIZE;
  for (i = 0; i < desc->n_layers; i++, p += LAYER_RECORD_SIZE) {
    desc->hidden[i] = get_u32 (p);
    desc->scale[i] = get_f32 (p + 4);
    desc->zero_point[i] = (gint32) get_u32 (p + 8);
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
  if (get_u32 (bytes + head - 8) != hidden_bytes
      || get_u32 (bytes + head - 4) != history_bytes) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_CORRUPT,
        "sections of %u and %u bytes, the descriptor gives %" G_GSIZE_FORMAT
        " and %" G_GSIZE_FORMAT,
        get_u32 (bytes + head - 8), get_u32 (bytes + head - 4), hidden_bytes,
        history_bytes);
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
