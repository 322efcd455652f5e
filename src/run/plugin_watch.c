/*
 * plugin_watch.c: the watchdog thread of plugin_watch.h. The main thread
 * arms a deadline (monotonic seconds) before in-process plugin calls and
 * disarms it after; the thread looks every 50 ms and, past the deadline,
 * marks the run failed (SQLite in its serialized threading mode: the main
 * thread is inside the plugin, not in SQLite) and ends the process.
 */
#include "plugin_watch.h"

#include "store.h"
#include "util.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
    pthread_mutex_t lock;
    pthread_t thread;
    int running, stop;
    double until;      /* 0: disarmed */
    double per_call, calls;
    char who[600], call[32];
    sqlite3 *db;
    ab_id run_id;
} w = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void *watch_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec nap = {0, 50000000L};
        nanosleep(&nap, NULL);
        pthread_mutex_lock(&w.lock);
        const int stop = w.stop, late = w.until > 0 && ab_now_s() > w.until;
        pthread_mutex_unlock(&w.lock);
        if (stop)
            return NULL;
        if (!late)
            continue;
        char err[AB_ERR];
        ab_db_end_run(w.db, w.run_id, "failed", err);
        fprintf(stderr, "attnbench: %s: plugin exceeded its %g s deadline in %s (%g s for %g "
                        "calls), in attnbench's own process, where it cannot be abandoned: run "
                        "%lld is marked failed; 'attnbench resume %lld' measures the rest\n",
                w.who, w.per_call, w.call, w.per_call * w.calls, w.calls, (long long)w.run_id,
                (long long)w.run_id);
        _exit(1);
    }
}

int ab_watch_start(sqlite3 *db, ab_id run_id)
{
    if (w.running)
        return 0;
    w.db = db;
    w.run_id = run_id;
    w.stop = 0;
    w.until = 0;
    if (pthread_create(&w.thread, NULL, watch_main, NULL) != 0)
        return error("cannot start the plugin watchdog thread: in-process plugin calls have no "
                     "deadline in this run");
    w.running = 1;
    return 0;
}

void ab_watch_arm(double per_call, double calls, const char *who, const char *call)
{
    if (!w.running)
        return;
    pthread_mutex_lock(&w.lock);
    snprintf(w.who, sizeof w.who, "%s", who);
    snprintf(w.call, sizeof w.call, "%s", call);
    w.per_call = per_call;
    w.calls = calls;
    w.until = ab_now_s() + per_call * calls;
    pthread_mutex_unlock(&w.lock);
}

void ab_watch_disarm(void)
{
    if (!w.running)
        return;
    pthread_mutex_lock(&w.lock);
    w.until = 0;
    pthread_mutex_unlock(&w.lock);
}

void ab_watch_stop(void)
{
    if (!w.running)
        return;
    pthread_mutex_lock(&w.lock);
    w.stop = 1;
    pthread_mutex_unlock(&w.lock);
    pthread_join(w.thread, NULL);
    w.running = 0;
}
