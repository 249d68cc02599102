/* rnndenoise — state library: checksums and little-endian fields
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one CRC-32, FNV-1a and set of little-endian readers and writers that
 * the snapshot format and the model file format both use. Fields are read
 * and written one by one with memcpy, never by casting bytes to a struct.
 * The readers do not check bounds: callers check each field against the
 * bytes left before reading it.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "rnn_state_bytes.h"

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320, as zlib's). */
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
 * Returns: the CRC-32 (IEEE 802.3, as zlib's crc32 ()) of @data.
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

/**
 * rnn_state_fnv1a64:
 * @data: bytes
 * @size: number of bytes
 *
 * Returns: the 64-bit FNV-1a hash of @data (a model's identity).
 */
guint64
rnn_state_fnv1a64 (gconstpointer data, gsize size)
{
  const guint8 *p = data;
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  gsize i;

  for (i = 0; i < size; i++) {
    h ^= p[i];
    h *= G_GUINT64_CONSTANT (0x100000001b3);
  }
  return h;
}

/**
 * rnn_state_get_u16:
 * @p: 2 bytes
 *
 * Returns: the little-endian 16-bit value at @p.
 */
guint16
rnn_state_get_u16 (const guint8 *p)
{
  guint16 v;

  memcpy (&v, p, 2);
  return GUINT16_FROM_LE (v);
}

/**
 * rnn_state_get_u32:
 * @p: 4 bytes
 *
 * Returns: the little-endian 32-bit value at @p.
 */
guint32
rnn_state_get_u32 (const guint8 *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

/**
 * rnn_state_get_u64:
 * @p: 8 bytes
 *
 * Returns: the little-endian 64-bit value at @p.
 */
guint64
rnn_state_get_u64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

/**
 * rnn_state_get_f32:
 * @p: 4 bytes
 *
 * Returns: the little-endian IEEE single-precision value at @p.
 */
gfloat
rnn_state_get_f32 (const guint8 *p)
{
  guint32 v = rnn_state_get_u32 (p);
  gfloat f;

  memcpy (&f, &v, 4);
  return f;
}

/**
 * rnn_state_put_u32:
 * @p: room for 4 bytes
 * @v: a value
 *
 * Writes @v little-endian at @p.
 *
 * Returns: @p + 4.
 */
guint8 *
rnn_state_put_u32 (guint8 *p, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (p, &v, 4);
  return p + 4;
}

/**
 * rnn_state_put_u64:
 * @p: room for 8 bytes
 * @v: a value
 *
 * Writes @v little-endian at @p.
 *
 * Returns: @p + 8.
 */
guint8 *
rnn_state_put_u64 (guint8 *p, guint64 v)
{
  v = GUINT64_TO_LE (v);
  memcpy (p, &v, 8);
  return p + 8;
}

/**
 * rnn_state_put_f32:
 * @p: room for 4 bytes
 * @f: a value
 *
 * Writes @f little-endian at @p.
 *
 * Returns: @p + 4.
 */
guint8 *
rnn_state_put_f32 (guint8 *p, gfloat f)
{
  guint32 v;

  memcpy (&v, &f, 4);
  return rnn_state_put_u32 (p, v);
}
