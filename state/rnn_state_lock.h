/* rnndenoise — state library: the mutex of the state library and dsp/
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef RNN_STATE_LOCK_H
#define RNN_STATE_LOCK_H

#include <pthread.h>

#include <glib.h>

G_BEGIN_DECLS

/**
 * RnnStateLock:
 *
 * A plain POSIX mutex. GLib's GMutex would do the same job, but on Linux it
 * is built on futexes, which ThreadSanitizer and helgrind cannot see: with
 * it, every access the lock protects would be reported as a race. With a
 * pthread mutex the race detectors check the state library's locking for
 * real (`meson setup -Db_sanitize=thread`, see docs/reliability.md).
 */
typedef struct
{
  pthread_mutex_t mutex;
} RnnStateLock;

#define RNN_STATE_LOCK_INIT \
  { \
    PTHREAD_MUTEX_INITIALIZER \
  }

static inline void
rnn_state_lock_init (RnnStateLock *lock)
{
  pthread_mutex_init (&lock->mutex, NULL);
}

static inline void
rnn_state_lock_clear (RnnStateLock *lock)
{
  pthread_mutex_destroy (&lock->mutex);
}

static inline void
rnn_state_lock (RnnStateLock *lock)
{
  pthread_mutex_lock (&lock->mutex);
}

static inline void
rnn_state_unlock (RnnStateLock *lock)
{
  pthread_mutex_unlock (&lock->mutex);
}

G_END_DECLS

#endif /* RNN_STATE_LOCK_H */
