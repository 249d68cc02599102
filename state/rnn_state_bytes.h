/* rnndenoise — state library: checksums and little-endian fields
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef RNN_STATE_BYTES_H
#define RNN_STATE_BYTES_H

#include <glib.h>

G_BEGIN_DECLS

guint32 rnn_state_crc32 (gconstpointer data, gsize size);

guint64 rnn_state_fnv1a64 (gconstpointer data, gsize size);

guint16 rnn_state_get_u16 (const guint8 *p);

guint32 rnn_state_get_u32 (const guint8 *p);

guint64 rnn_state_get_u64 (const guint8 *p);

gfloat rnn_state_get_f32 (const guint8 *p);

guint8 *rnn_state_put_u32 (guint8 *p, guint32 v);

guint8 *rnn_state_put_u64 (guint8 *p, guint64 v);

guint8 *rnn_state_put_f32 (guint8 *p, gfloat f);

G_END_DECLS

#endif /* RNN_STATE_BYTES_H */
