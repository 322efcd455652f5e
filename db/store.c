/*
 * store.c: the SQLite store of store.h: opening and migrating, and writing
 * environments, experiments, runs, measurements and samples.
 */
#include "store.h"


#include "db_internal.h"
#include "exp_canon.h"
#include "liveness.h"
#include "schema.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(sqlite3_int64) == sizeof(ab_id) && (ab_id)-1 < 0,
               "ab_id (ab_id.h) must be SQLite's 64-bit rowid type");

/* The file behind each connection attnbench keeps: an open read-write
 * connection with the file's device and inode (so that a run notices its
 * database removed or replaced under it), or an in-memory migrated copy
 * (migrated_copy) with the file it was read from (the name its messages
 * give). */
static struct {
    sqlite3 *db;
    int copy; /* 1: an in-memory copy of path; dev, ino unused */
    dev_t dev;
    ino_t ino;
    char path[1024];
} handles[32]; /* 16 files and 16 copies before they shared one table */

/* Remembers db's file; a file that cannot be stat'ed is not remembered */
static void remember(sqlite3 *db, const char *path, int copy)
{
    struct stat sb = {0};
    if (!copy && stat(path, &sb) != 0)
        return;
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++)
        if (!handles[i].db) {
            handles[i].db = db;
            handles[i].copy = copy;
            handles[i].dev = sb.st_dev;
            handles[i].ino = sb.st_ino;
            snprintf(handles[i].path, sizeof handles[i].path, "%s", path);
            return;
        }
}

static void forget(sqlite3 *db)
{
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++)
        if (handles[i].db == db)
            handles[i].db = NULL;
}

int ab_db_check_file(sqlite3 *db, char *err)
{
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++) {
        if (handles[i].db != db || handles[i].copy)
            continue;
        struct stat sb;
        if (stat(handles[i].path, &sb) != 0) {
            snprintf(err, AB_ERR, "%.900s: the database file was removed (%s) while attnbench was "
                     "using it; nothing more can be stored",
                     handles[i].path, strerror(errno));
            return -1;
        }
        if (sb.st_dev != handles[i].dev || sb.st_ino != handles[i].ino) {
            snprintf(err, AB_ERR, "%.900s: the database file was replaced by another file while "
                     "attnbench was using it; nothing more can be stored",
                     handles[i].path);
            return -1;
        }
    }
    return 0;
}

/* Damage seen anywhere: SQLite reports every error through its error log
 * (SQLITE_CONFIG_LOG), including those of statements whose callers stop at
 * the first non-row step; corruption, I/O errors and "not a database" are
 * kept here so that no command reports success over a damaged file. */
static int damage_code = 0;
static char damage_msg[256];
static char last_path[1024];

static void sqlite_log(void *unused, int code, const char *msg)
{
    (void)unused;
    int prim = code & 0xff;
    if (!damage_code && (prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB || prim == SQLITE_IOERR)) {
        damage_code = code;
        snprintf(damage_msg, sizeof damage_msg, "%s", msg ? msg : "");
    }
}

void ab_db_init(void) { sqlite3_config(SQLITE_CONFIG_LOG, sqlite_log, NULL); }

static int damage_said = 0; /* the damage was reported already */

int ab_db_damage(char *err)
{
    if (!damage_code)
        return 0;
    if (damage_said++)
        return -2; /* already reported by this process */
    snprintf(err, AB_ERR,
             "%.500s: the database is damaged (%s; %.200s): results read from it are incomplete. "
             "'sqlite3 FILE \"PRAGMA integrity_check\"' lists the damage",
             last_path[0] ? last_path : "database", sqlite3_errstr(damage_code), damage_msg);
    return -1;
}

/* SQL function ab_run_status(status, host, pid, proc_start, boot_id): the
 * status to show, "abandoned" for a 'running' run whose process is gone */
static void sql_run_status(sqlite3_context *ctx, int argc, sqlite3_value **v)
{
    (void)argc;
    const char *shown = ab_run_status_shown(
        (const char *)sqlite3_value_text(v[0]), (const char *)sqlite3_value_text(v[1]),
        (long)sqlite3_value_int64(v[2]), (const char *)sqlite3_value_text(v[3]),
        (const char *)sqlite3_value_text(v[4]));
    if (shown)
        sqlite3_result_text(ctx, shown, -1, SQLITE_TRANSIENT);
    else
        sqlite3_result_null(ctx);
}

/* SQL function ab_experiment_hash(definition): the experiment hash of a
 * stored definition (exp_canon.h), whatever hash it was stored under */
static void sql_experiment_hash(sqlite3_context *ctx, int argc, sqlite3_value **v)
{
    (void)argc;
    const char *text = (const char *)sqlite3_value_text(v[0]);
    char hash[17];
    if (!text) {
        sqlite3_result_null(ctx);
        return;
    }
    ab_exp_hash(text, hash);
    sqlite3_result_text(ctx, hash, -1, SQLITE_TRANSIENT);
}

/* The SQL functions every connection has: ab_run_status, ab_experiment_hash. */
static void add_functions(sqlite3 *db)
{
    sqlite3_create_function(db, "ab_run_status", 5, SQLITE_UTF8, NULL, sql_run_status, NULL,
                            NULL);
    sqlite3_create_function(db, "ab_experiment_hash", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                            NULL, sql_experiment_hash, NULL, NULL);
}

const char *ab_db_name(sqlite3 *db)
{
    for (size_t i = 0; db && i < sizeof handles / sizeof handles[0]; i++)
        if (handles[i].db == db && handles[i].copy)
            return handles[i].path;
    const char *f = db ? sqlite3_db_filename(db, "main") : NULL;
    return f && *f ? f : "database";
}

static int fail(sqlite3 *db, char *err, const char *what)
{
    snprintf(err, AB_ERR, "%.500s: %s: %s", ab_db_name(db), what,
             db ? sqlite3_errmsg(db) : "out of memory");
    return -1;
}

int ab_db_schema_version(void) { return ab_schema_count(); }

int ab_db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, char *err)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
        snprintf(err, AB_ERR, "%.500s: %s", ab_db_name(db), sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

static int exec(sqlite3 *db, const char *sql, char *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        if (err)
            snprintf(err, AB_ERR, "%.500s: %s", ab_db_name(db), msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* Whether the last call on db failed because another connection held a
 * lock that the busy handler was not asked to wait for: SQLite returns
 * SQLITE_BUSY at once, without the busy handler, where waiting could
 * deadlock, e.g. while another process creates the file or switches it to
 * WAL (sqlite.org/c3ref/busy_handler.html). Several first runs started
 * together on a new database meet exactly that at open. */
static int busy_now(sqlite3 *db)
{
    int e = sqlite3_errcode(db) & 0xff;
    return e == SQLITE_BUSY || e == SQLITE_LOCKED;
}

static int user_version(sqlite3 *db, int *v, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db, "PRAGMA user_version", &st, err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return fail(db, err, "reading the schema version");
    }
    *v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return 0;
}

/* user_version and exec retried every 50 ms while busy_now, for at most
 * AB_DB_BUSY_MS; each returns its last result. */
static int user_version_retry(sqlite3 *db, int *v, char *err)
{
    for (int t = 0;; t++) {
        int r = user_version(db, v, err);
        if (r == 0 || !busy_now(db) || t >= AB_DB_BUSY_MS / 50)
            return r;
        sqlite3_sleep(50);
    }
}

static int exec_retry(sqlite3 *db, const char *sql, char *err)
{
    for (int t = 0;; t++) {
        int r = exec(db, sql, err);
        if (r == 0 || !busy_now(db) || t >= AB_DB_BUSY_MS / 50)
            return r;
        sqlite3_sleep(50);
    }
}

int ab_db_begin(sqlite3 *db, char *err)
{
    /* BEGIN IMMEDIATE takes the write lock now (waiting up to the busy
     * timeout for another writer); a writer that holds it longer than that
     * (a long merge) gets a few more tries before we give up */
    for (int attempt = 0;; attempt++) {
        int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        if ((rc & 0xff) != SQLITE_BUSY || attempt >= AB_DB_RETRIES) {
            const char *file = ab_db_name(db);
            if ((rc & 0xff) == SQLITE_BUSY)
                snprintf(err, AB_ERR,
                         "%s: database is locked by another process (waited %d s, %d tries); "
                         "nothing was written",
                         file, AB_DB_BUSY_MS / 1000 * (attempt + 1),
                         attempt + 1);
            else
                snprintf(err, AB_ERR, "%s: cannot start a transaction: %s", file,
                         sqlite3_errmsg(db));
            return -1;
        }
        fprintf(stderr, "attnbench: database locked by another process; retrying (%d/%d)\n",
                attempt + 1, AB_DB_RETRIES);
    }
}

static int migrate_fk_off(sqlite3 *db, const char *path, char *err);

/* Migrations run with foreign keys off (a migration may rebuild a table:
 * dropping the old one must not cascade into its children; the pragma is a
 * no-op inside a transaction, so it is set around them) and back on after,
 * with PRAGMA foreign_key_check required to find nothing. */
static int migrate(sqlite3 *db, const char *path, char *err)
{
    int v;
    if (user_version(db, &v, err))
        return -1;
    if (v >= ab_schema_count())
        return migrate_fk_off(db, path, err);
    if (exec(db, "PRAGMA foreign_keys = OFF", err))
        return -1;
    int rc = migrate_fk_off(db, path, err);
    if (exec(db, "PRAGMA foreign_keys = ON", rc ? NULL : err))
        return -1;
    if (rc == 0) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW) {
            snprintf(err, AB_ERR, "%s: after migrating, a row refers to a missing parent (%s)",
                     path, (const char *)sqlite3_column_text(st, 0));
            rc = -1;
        }
        sqlite3_finalize(st);
    }
    return rc;
}

/* Columns the H_kv/S_kv table rebuild copies. A database written by a
 * branch whose migrations were numbered differently can be at that version
 * without one of them (the A/A calibration study's database: check_seed and
 * rows_total missing at version 7), so the rebuild adds what is missing
 * first, as the migration that normally adds it would have. 0 or -1. */
static int ensure_rebuild_columns(sqlite3 *db, char *err)
{
    static const struct {
        const char *name, *decl;
    } cols[] = {{"input_sets", "INTEGER NOT NULL DEFAULT 1"},
                {"check_seed", "INTEGER"},
                {"rows_total", "INTEGER"}};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        sqlite3_stmt *st = NULL;
        int have = 0;
        if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('measurements') WHERE name = ?",
                               -1, &st, NULL) != SQLITE_OK) {
            snprintf(err, AB_ERR, "%s: %s", ab_db_name(db), sqlite3_errmsg(db));
            return -1;
        }
        sqlite3_bind_text(st, 1, cols[i].name, -1, SQLITE_STATIC);
        have = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
        if (!have) {
            char sql[160];
            snprintf(sql, sizeof sql, "ALTER TABLE measurements ADD COLUMN %s %s;", cols[i].name,
                     cols[i].decl);
            if (exec(db, sql, err))
                return -1;
        }
    }
    return 0;
}

static int migrate_fk_off(sqlite3 *db, const char *path, char *err)
{
    int v;
    if (user_version(db, &v, err))
        return -1;
    if (v > ab_schema_count()) {
        snprintf(err, AB_ERR,
                 "%s: schema version %d is newer than this attnbench understands (%d)", path, v,
                 ab_schema_count());
        return -1;
    }
    while (v < ab_schema_count()) {
        char pragma[64];
        /* Another process may be migrating the same file: take the write
         * lock first, then read the version again inside the transaction,
         * so each migration is applied exactly once. */
        if (ab_db_begin(db, err))
            return -1;
        if (user_version(db, &v, err)) {
            exec(db, "ROLLBACK", NULL);
            return -1;
        }
        if (v >= ab_schema_count()) {
            if (exec(db, "COMMIT", err))
                return -1;
            break;
        }
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d;", v + 1);
        const int rebuild = strstr(ab_schema_migration(v), "measurements_new") != NULL;
        if ((rebuild && ensure_rebuild_columns(db, err)) || exec(db, ab_schema_migration(v), err) ||
            exec(db, pragma, err)) {
            char keep[AB_ERR];
            snprintf(keep, sizeof keep, "%s: migrating schema %d -> %d: %s", path, v, v + 1, err);
            exec(db, "ROLLBACK", err);
            snprintf(err, AB_ERR, "%s", keep);
            return -1;
        }
        if (exec(db, "COMMIT", err))
            return -1;
        v++;
    }
    return 0;
}

/* the directory part of path ("." for a bare name) in buf */
static const char *dir_of(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, n, ".");
    else if (slash == path)
        snprintf(buf, n, "/");
    else
        snprintf(buf, n, "%.*s", (int)(slash - path), path);
    return buf;
}

/* Why a database could not be opened or read, with the real cause: a
 * directory that cannot be written (SQLite's WAL needs PATH-wal and
 * PATH-shm), a file that is not a database, a file that cannot be read. */
static void open_error(sqlite3 *db, const char *path, int readonly, char *err)
{
    char dir[1024];
    int code = db ? sqlite3_extended_errcode(db) & 0xff : SQLITE_NOMEM;
    const char *msg = db ? sqlite3_errmsg(db) : "out of memory";
    dir_of(path, dir, sizeof dir);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        snprintf(err, AB_ERR, "%.900s: is a directory, not a database", path);
    else if (code == SQLITE_NOTADB)
        snprintf(err, AB_ERR, "%.900s: not an attnbench database: %s", path, msg);
    else if (code == SQLITE_CORRUPT)
        snprintf(err, AB_ERR, "%.900s: the database is damaged: %s", path, msg);
    else if (access(path, F_OK) != 0 && access(dir, W_OK) != 0)
        snprintf(err, AB_ERR, "%.300s: cannot create the database: the directory '%.300s' is not "
                 "writable (%s)", path, dir, strerror(errno));
    else if ((code == SQLITE_READONLY || code == SQLITE_CANTOPEN) && access(dir, W_OK) != 0)
        snprintf(err, AB_ERR,
                 "%.250s: cannot %s the database: the directory '%.250s' is not writable (%s), and "
                 "SQLite's WAL mode needs to create or write %.250s-wal and -shm beside it; make "
                 "the directory writable or copy the database elsewhere",
                 path, readonly ? "read" : "open", dir, strerror(errno ? errno : EACCES), path);
    else if ((code == SQLITE_READONLY || code == SQLITE_CANTOPEN) && access(path, F_OK) == 0 &&
             access(path, readonly ? R_OK : R_OK | W_OK) != 0)
        snprintf(err, AB_ERR, "%.900s: cannot %s the database: %s", path,
                 readonly ? "read" : "write", strerror(errno));
    else
        snprintf(err, AB_ERR, "%.900s: cannot open the database: %s", path, msg);
}

/* A WAL database in a directory this process cannot write, with no -wal
 * file beside it, can still be read: every committed page is in the main
 * file (no -wal), and no writer can appear (it would have to create the
 * -wal). SQLite opens it read-only only if it can create -shm, so it is
 * opened as immutable instead. Replaces *db and returns 1 when that worked
 * (user_version readable), 0 otherwise (*db untouched). */
static int open_immutable(const char *path, sqlite3 **db)
{
    char dir[1024], wal[1100], uri[3200];
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (access(dir_of(path, dir, sizeof dir), W_OK) == 0 || access(wal, F_OK) == 0 ||
        strlen(path) > 1000)
        return 0;
    /* file: URI, with the characters a URI gives meaning to escaped */
    char *p = uri + sprintf(uri, "file:");
    for (const unsigned char *c = (const unsigned char *)path; *c; c++)
        p += strchr("?#%", *c) || *c < 0x21 ? sprintf(p, "%%%02X", *c) : sprintf(p, "%c", *c);
    sprintf(p, "?immutable=1");
    sqlite3 *im = NULL;
    char err[AB_ERR];
    int v;
    if (sqlite3_open_v2(uri, &im, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK ||
        user_version(im, &v, err)) {
        sqlite3_close(im);
        return 0;
    }
    sqlite3_close(*db);
    sqlite3_busy_timeout(im, AB_DB_BUSY_MS);
    add_functions(im);
    *db = im;
    return 1;
}

int ab_db_quick_check(sqlite3 *db, const char *schema, const char *path, char *err)
{
    char sql[160];
    sqlite3_stmt *st = NULL;
    snprintf(sql, sizeof sql, "PRAGMA \"%s\".quick_check(1)", schema);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, AB_ERR, "%.500s: the database is damaged or unreadable: %s", path,
                 sqlite3_errmsg(db));
        damage_said = 1; /* this is the one message about it */
        return -1;
    }
    int step = sqlite3_step(st);
    const char *first = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    int rc = 0;
    if (step != SQLITE_ROW || !first || strcmp(first, "ok") != 0) {
        char what[200];
        snprintf(what, sizeof what, "%s", first ? first : sqlite3_errmsg(db));
        for (char *c = what; *c; c++) /* "*** in database main ***\nPage 36: ..." on one line */
            if (*c == '\n')
                *c = ' ';
        snprintf(err, AB_ERR,
                 "%.500s: the database is damaged (PRAGMA quick_check: %s): nothing was read "
                 "from it. 'sqlite3 FILE \"PRAGMA integrity_check\"' lists the damage",
                 path, what);
        damage_said = 1;
        rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Replaces *db (a read-only connection to an older database) by a
 * connection to a private in-memory copy of it (SQLite's online backup API,
 * sqlite.org/backup.html), migrated to the current schema and then made
 * query-only, so that readers see every column of this build while the file
 * stays byte for byte as it was. 0, or -1 with the reason in err (*db is
 * then left for the caller to close). */
static int migrated_copy(sqlite3 **db, const char *path, char *err)
{
    sqlite3 *mem = NULL;
    if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        snprintf(err, AB_ERR, "%.900s: cannot read the database: out of memory", path);
        sqlite3_close(mem);
        return -1;
    }
    sqlite3_backup *b = sqlite3_backup_init(mem, "main", *db, "main");
    int brc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(mem);
    if (b)
        sqlite3_backup_finish(b);
    if (brc != SQLITE_DONE) {
        snprintf(err, AB_ERR, "%.500s: cannot read the database: %s", path,
                 sqlite3_errstr(brc));
        sqlite3_close(mem);
        return -1;
    }
    remember(mem, path, 1);
    add_functions(mem);
    if (exec(mem, "PRAGMA foreign_keys = ON", err) || migrate(mem, path, err) ||
        exec(mem, "PRAGMA query_only = ON", err)) {
        forget(mem);
        sqlite3_close(mem);
        return -1;
    }
    sqlite3_close(*db);
    *db = mem;
    return 0;
}

int ab_db_open(const char *path, int readonly, sqlite3 **out, char *err)
{
    sqlite3 *db = NULL;
    *out = NULL;
    if (!path || !*path) {
        snprintf(err, AB_ERR, "an empty database path (--db ''): give the database's file name");
        return -1;
    }
    int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (readonly && access(path, F_OK) != 0) {
        snprintf(err, AB_ERR, "%s: no such database (run an experiment first, or pass --db)",
                 path);
        return -1;
    }
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        open_error(db, path, readonly, err);
        sqlite3_close(db);
        return -1;
    }
    snprintf(last_path, sizeof last_path, "%s", path);
    sqlite3_busy_timeout(db, AB_DB_BUSY_MS);
    add_functions(db);
    /* A file that is not a database fails on its first read. */
    int v = 0;
    if (user_version_retry(db, &v, err)) {
        /* read-only, in a directory we cannot write: see open_immutable */
        if (!readonly || !open_immutable(path, &db) || user_version(db, &v, err)) {
            open_error(db, path, readonly, err);
            sqlite3_close(db);
            return -1;
        }
    }
    if (v < 0) {
        /* no migration starts below 0: a file attnbench never wrote, or damaged */
        snprintf(err, AB_ERR,
                 "%.800s: schema version %d (PRAGMA user_version) is not one attnbench writes "
                 "(0 to %d): not an attnbench database, or a damaged one",
                 path, v, ab_schema_count());
        goto fail;
    }
    if (v > 0 && v <= ab_schema_count()) {
        /* a file that claims a schema version but lacks its tables (another
         * program's database, one whose tables were dropped): said once,
         * not "no such table: runs" from whichever query comes first */
        sqlite3_stmt *tq = NULL;
        int have = -1;
        if (sqlite3_prepare_v2(db,
                               "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                               "('runs', 'measurements', 'samples', 'experiments', 'environments')",
                               -1, &tq, NULL) == SQLITE_OK &&
            sqlite3_step(tq) == SQLITE_ROW)
            have = sqlite3_column_int(tq, 0);
        sqlite3_finalize(tq);
        if (have >= 0 && have < 5) {
            snprintf(err, AB_ERR,
                     "%.800s: not an attnbench database: schema version %d, but its tables "
                     "(runs, measurements, samples, experiments, environments) are not all there",
                     path, v);
            goto fail;
        }
    }
    if (exec(db, "PRAGMA foreign_keys = ON", err))
        goto fail;
    if (readonly) {
        if (v > ab_schema_count()) {
            snprintf(err, AB_ERR,
                     "%s: schema version %d is newer than this attnbench understands (%d): "
                     "use a newer attnbench to read it",
                     path, v, ab_schema_count());
            goto fail;
        }
        /* damage anywhere in the file, not only in the pages a command
         * happens to read, fails the command before it reads anything */
        if (ab_db_quick_check(db, "main", path, err))
            goto fail;
        /* an older database is read through a migrated copy in memory: a
         * read never changes the file */
        if (v < ab_schema_count() && migrated_copy(&db, path, err))
            goto fail;
    } else {
        if (exec_retry(db, "PRAGMA journal_mode = WAL", err)) {
            open_error(db, path, readonly, err);
            goto fail;
        }
        if (migrate(db, path, err))
            goto fail;
        remember(db, path, 0);
    }
    *out = db;
    return 0;
fail:
    sqlite3_close(db);
    return -1;
}

static void (*close_hooks[8])(sqlite3 *db);
static int nclose_hooks;

int ab_db_on_close(void (*fn)(sqlite3 *db))
{
    for (int i = 0; i < nclose_hooks; i++)
        if (close_hooks[i] == fn)
            return 0;
    if (nclose_hooks == 8)
        return -1;
    close_hooks[nclose_hooks++] = fn;
    return 0;
}

void ab_db_close(sqlite3 *db)
{
    if (db) {
        forget(db);
        for (int i = 0; i < nclose_hooks; i++)
            close_hooks[i](db);
        sqlite3_close(db);
    }
}

/* Inserts-or-finds a row keyed by a unique hash: `ins` must be an INSERT OR
 * IGNORE whose parameters are bound by the caller; `sel` selects the id. */
static int upsert(sqlite3 *db, sqlite3_stmt *ins, const char *sel, const char *hash,
                  sqlite3_int64 *id, char *err, const char *what)
{
    int rc = -1;
    sqlite3_stmt *st = NULL;
    if (sqlite3_step(ins) != SQLITE_DONE) {
        fail(db, err, what);
        goto cleanup;
    }
    if (ab_db_prepare(db, sel, &st, err))
        goto cleanup;
    sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW) {
        fail(db, err, what);
        goto cleanup;
    }
    *id = sqlite3_column_int64(st, 0);
    rc = 0;
cleanup:
    sqlite3_finalize(st);
    sqlite3_finalize(ins);
    return rc;
}

int ab_db_put_environment(sqlite3 *db, const char *hash, const char *fingerprint,
                          sqlite3_int64 *id, char *err)
{
    sqlite3_stmt *ins = NULL;
    if (ab_db_prepare(db, "INSERT OR IGNORE INTO environments(hash, fingerprint) VALUES (?, ?)",
                      &ins, err))
        return -1;
    sqlite3_bind_text(ins, 1, hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 2, fingerprint, -1, SQLITE_STATIC);
    return upsert(db, ins, "SELECT id FROM environments WHERE hash = ?", hash, id, err,
                  "storing the environment");
}

int ab_db_put_experiment(sqlite3 *db, const char *name, const char *path, const char *text,
                         const char *hash, sqlite3_int64 *id, char *err)
{
    sqlite3_stmt *ins = NULL;
    if (ab_db_prepare(db,
                      "INSERT OR IGNORE INTO experiments(name, path, definition, hash) "
                      "VALUES (?, ?, ?, ?)",
                      &ins, err))
        return -1;
    sqlite3_bind_text(ins, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 2, path, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 3, text, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 4, hash, -1, SQLITE_STATIC);
    return upsert(db, ins, "SELECT id FROM experiments WHERE hash = ?", hash, id, err,
                  "storing the experiment");
}

static void now_iso(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void new_uuid(char *buf, size_t n)
{
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        /* no entropy source: time and pid still make collisions unlikely */
        unsigned long long x = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
        for (int i = 0; i < 16; i++)
            b[i] = (unsigned char)(x >> ((i % 8) * 8)) ^ (unsigned char)(i * 37);
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* RFC 4122 version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(buf, n,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
}

int ab_db_begin_run(sqlite3 *db, sqlite3_int64 experiment_id, sqlite3_int64 environment_id,
                    const char *command, const char *timing_mode, sqlite3_int64 *run_id,
                    char *err)
{
    sqlite3_stmt *st = NULL;
    char ts[32], uuid[40];
    now_iso(ts, sizeof ts);
    new_uuid(uuid, sizeof uuid);
    ab_proc_identity me;
    ab_self_identity(&me);
    if (ab_db_prepare(db,
                      "INSERT INTO runs(uuid, experiment_id, environment_id, started_at, status, "
                      "command, timing_mode, host, pid, proc_start, boot_id) "
                      "VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)",
                      &st, err))
        return -1;
    sqlite3_bind_text(st, 7, me.host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 8, me.pid);
    sqlite3_bind_text(st, 9, me.start, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 10, me.boot_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, experiment_id);
    sqlite3_bind_int64(st, 3, environment_id);
    sqlite3_bind_text(st, 4, ts, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, command, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, timing_mode, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : fail(db, err, "starting the run");
    sqlite3_finalize(st);
    if (rc == 0)
        *run_id = sqlite3_last_insert_rowid(db);
    return rc;
}

int ab_db_end_run(sqlite3 *db, sqlite3_int64 run_id, const char *status, char *err)
{
    sqlite3_stmt *st = NULL;
    char ts[32];
    now_iso(ts, sizeof ts);
    if (ab_db_prepare(db, "UPDATE runs SET status = ?, finished_at = ? WHERE id = ?", &st, err))
        return -1;
    sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, ts, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, run_id);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : fail(db, err, "finishing the run");
    sqlite3_finalize(st);
    return rc;
}

int ab_db_resume_run(sqlite3 *db, sqlite3_int64 run_id, char *err)
{
    sqlite3_stmt *st = NULL;
    ab_proc_identity me;
    ab_self_identity(&me);
    /* the claim is exclusive: the run's owner is read again inside the write
     * transaction that takes it, so of two resumes started together the
     * second finds the first (alive, on this host) and is refused, and so
     * is a --force of a run whose process is alive here */
    if (ab_db_begin(db, err))
        return -1;
    int rc = -1;
    if (ab_db_prepare(db, "SELECT status, host, pid, proc_start, boot_id FROM runs WHERE id = ?",
                      &st, err))
        goto done;
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        fail(db, err, "reading the run to resume");
        goto done;
    }
    const long pid = (long)sqlite3_column_int64(st, 2);
    if (strcmp(ab_db_text(st, 0), "running") == 0 &&
        ab_process_liveness(ab_db_text(st, 1), pid, ab_db_text(st, 3), ab_db_text(st, 4)) ==
            AB_LIVE_ALIVE &&
        !(pid == (long)me.pid && strcmp(ab_db_text(st, 3), me.start) == 0)) {
        snprintf(err, AB_ERR, "resume: run %lld is still running (process %ld on this host)",
                 (long long)run_id, pid);
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (ab_db_prepare(db,
                      "UPDATE runs SET status = 'running', finished_at = NULL, host = ?, pid = ?, "
                      "proc_start = ?, boot_id = ? WHERE id = ?",
                      &st, err))
        goto done;
    sqlite3_bind_text(st, 1, me.host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, me.pid);
    sqlite3_bind_text(st, 3, me.start, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, me.boot_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 5, run_id);
    if (sqlite3_step(st) != SQLITE_DONE) {
        fail(db, err, "resuming the run");
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        fail(db, err, "resuming the run");
        goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(st);
    if (rc)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int ab_db_has_measurement(sqlite3 *db, sqlite3_int64 run_id, const char *variant,
                          const ab_shape *s, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db,
                      "SELECT 1 FROM measurements WHERE run_id = ? AND variant = ? AND B = ? AND "
                      "H = ? AND S = ? AND D = ? AND causal = ? AND dtype = ? AND H_kv = ? AND "
                      "S_kv = ? AND pass = ?",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, variant, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, s->B);
    sqlite3_bind_int(st, 4, s->H);
    sqlite3_bind_int(st, 5, s->S);
    sqlite3_bind_int(st, 6, s->D);
    sqlite3_bind_int(st, 7, s->causal);
    sqlite3_bind_text(st, 8, ab_dtype_name(s->dtype), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 9, ab_shape_hkv(s));
    sqlite3_bind_int(st, 10, ab_shape_skv(s));
    sqlite3_bind_text(st, 11, ab_pass_name(s->pass), -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int out = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : fail(db, err, "reading measurements");
    sqlite3_finalize(st);
    return out;
}

int ab_db_count_measurements(sqlite3 *db, sqlite3_int64 run_id, long *all, long *ok, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db,
                      "SELECT count(*), coalesce(sum(status = 'ok'), 0) FROM measurements "
                      "WHERE run_id = ?",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : fail(db, err, "counting measurements");
    if (rc == 0) {
        *all = (long)sqlite3_column_int64(st, 0);
        *ok = (long)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc;
}

static void bind_opt_double(sqlite3_stmt *st, int i, int present, double x)
{
    if (present)
        sqlite3_bind_double(st, i, x);
    else
        sqlite3_bind_null(st, i);
}

int ab_db_put_measurement(sqlite3 *db, const ab_measurement *m, const ab_sample *s, size_t n,
                          const ab_clock_block *cb, size_t ncb, sqlite3_int64 *id, char *err)
{
    sqlite3_stmt *st = NULL, *ss = NULL, *sc = NULL;
    int rc = -1;
    if (ab_db_check_file(db, err) || ab_db_begin(db, err))
        return -1;
    if (ab_db_prepare(db,
                      "INSERT INTO measurements(run_id, variant, backend, B, H, S, D, causal, "
                      "dtype, warmup, timing_mode, graph_k, status, message, checked, "
                      "max_abs_err, mean_abs_err, rel_l2_err, tolerance, nonfinite, rows_checked, "
                      "flops, bytes, peak_bytes, stop_reason, external, adapter_env, stderr_text, "
                      "input_sets, H_kv, S_kv, pass) "
                      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                      &st, err))
        goto cleanup;
    int i = 1;
    sqlite3_bind_int64(st, i++, m->run_id);
    sqlite3_bind_text(st, i++, m->variant, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, i++, m->backend, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, i++, m->shape.B);
    sqlite3_bind_int(st, i++, m->shape.H);
    sqlite3_bind_int(st, i++, m->shape.S);
    sqlite3_bind_int(st, i++, m->shape.D);
    sqlite3_bind_int(st, i++, m->shape.causal);
    sqlite3_bind_text(st, i++, ab_dtype_name(m->shape.dtype), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, i++, m->warmup);
    sqlite3_bind_text(st, i++, m->timing_mode, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, i++, m->graph_k);
    sqlite3_bind_text(st, i++, m->status, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, i++, m->message, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, i++, m->checked);
    bind_opt_double(st, i++, m->checked, m->max_abs_err);
    bind_opt_double(st, i++, m->checked, m->mean_abs_err);
    bind_opt_double(st, i++, m->checked, m->rel_l2_err);
    bind_opt_double(st, i++, m->checked, m->tolerance);
    if (m->checked) {
        sqlite3_bind_int64(st, i++, m->nonfinite);
        /* an adapter may check without saying how many rows (protocol:
         * rows_checked is optional): NULL, not reported, as import reads it */
        if (m->rows_checked >= 0)
            sqlite3_bind_int64(st, i++, m->rows_checked);
        else
            sqlite3_bind_null(st, i++);
    } else {
        sqlite3_bind_null(st, i++);
        sqlite3_bind_null(st, i++);
    }
    sqlite3_bind_double(st, i++, m->flops);
    sqlite3_bind_double(st, i++, m->bytes);
    bind_opt_double(st, i++, m->peak_bytes > 0, m->peak_bytes);
    sqlite3_bind_text(st, i++, m->stop_reason, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, i++, m->external);
    sqlite3_bind_text(st, i++, m->adapter_env, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, i++, m->stderr_text, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, i++, m->input_sets > 0 ? m->input_sets : 1);
    sqlite3_bind_int(st, i++, ab_shape_hkv(&m->shape));
    sqlite3_bind_int(st, i++, ab_shape_skv(&m->shape));
    sqlite3_bind_text(st, i++, ab_pass_name(m->shape.pass), -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) {
        fail(db, err, "storing the measurement");
        goto rollback;
    }
    *id = sqlite3_last_insert_rowid(db);
    for (int g = 0; g < m->ngrads; g++) {
        sqlite3_stmt *sg = NULL;
        const ab_grad_row *r = &m->grads[g];
        if (ab_db_prepare(db,
                          "INSERT INTO grad_checks(measurement_id, grad, max_abs_err, rel_l2_err, "
                          "plain_max_abs_err, atol, tolerance, ref_absmax, nonfinite, elems, pass) "
                          "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                          &sg, err))
            goto rollback;
        sqlite3_bind_int64(sg, 1, *id);
        sqlite3_bind_text(sg, 2, r->grad, -1, SQLITE_STATIC);
        /* an infinite error (a NaN compared) is stored as 1e308: REAL NOT NULL */
        sqlite3_bind_double(sg, 3, r->max_abs_err < 1e308 ? r->max_abs_err : 1e308);
        sqlite3_bind_double(sg, 4, r->rel_l2_err < 1e308 ? r->rel_l2_err : 1e308);
        sqlite3_bind_double(sg, 5, r->plain_max_abs_err);
        sqlite3_bind_double(sg, 6, r->atol);
        sqlite3_bind_double(sg, 7, r->tolerance);
        sqlite3_bind_double(sg, 8, r->ref_absmax);
        sqlite3_bind_int64(sg, 9, r->nonfinite);
        sqlite3_bind_int64(sg, 10, r->elems);
        sqlite3_bind_int(sg, 11, r->pass);
        int ok = sqlite3_step(sg) == SQLITE_DONE;
        sqlite3_finalize(sg);
        if (!ok) {
            fail(db, err, "storing the gradient checks");
            goto rollback;
        }
    }
    if (ab_db_prepare(db,
                      "INSERT INTO samples(measurement_id, idx, ms, round, t_s, throttled) "
                      "VALUES (?, ?, ?, ?, ?, ?)",
                      &ss, err))
        goto rollback;
    for (size_t k = 0; k < n; k++) {
        sqlite3_bind_int64(ss, 1, *id);
        sqlite3_bind_int64(ss, 2, (sqlite3_int64)k);
        sqlite3_bind_double(ss, 3, s[k].ms);
        sqlite3_bind_int(ss, 4, s[k].round);
        sqlite3_bind_double(ss, 5, s[k].t_s);
        sqlite3_bind_int(ss, 6, s[k].throttled);
        if (sqlite3_step(ss) != SQLITE_DONE) {
            fail(db, err, "storing the samples");
            goto rollback;
        }
        sqlite3_reset(ss);
    }
    if (ncb && ab_db_prepare(db,
                             "INSERT INTO clock_blocks(measurement_id, round, first_idx, n, "
                             "sm_mhz_before, sm_mhz_after, mem_mhz, temp_c, power_w, reasons, "
                             "throttled, power_capped) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                             &sc, err))
        goto rollback;
    for (size_t k = 0; k < ncb; k++) {
        sqlite3_bind_int64(sc, 1, *id);
        sqlite3_bind_int(sc, 2, cb[k].round);
        sqlite3_bind_int64(sc, 3, (sqlite3_int64)cb[k].first_idx);
        sqlite3_bind_int64(sc, 4, (sqlite3_int64)cb[k].n);
        sqlite3_bind_int(sc, 5, cb[k].sm_mhz_before);
        sqlite3_bind_int(sc, 6, cb[k].sm_mhz_after);
        sqlite3_bind_int(sc, 7, cb[k].mem_mhz);
        sqlite3_bind_int(sc, 8, cb[k].temp_c);
        sqlite3_bind_double(sc, 9, cb[k].power_w);
        sqlite3_bind_int64(sc, 10, cb[k].reasons);
        sqlite3_bind_int(sc, 11, cb[k].throttled);
        sqlite3_bind_int(sc, 12, cb[k].power_capped);
        if (sqlite3_step(sc) != SQLITE_DONE) {
            fail(db, err, "storing the clock readings");
            goto rollback;
        }
        sqlite3_reset(sc);
    }
    if (exec(db, "COMMIT", err))
        goto rollback;
    rc = 0;
    goto cleanup;
rollback : {
    char keep[AB_ERR];
    snprintf(keep, sizeof keep, "%s", err);
    exec(db, "ROLLBACK", err);
    snprintf(err, AB_ERR, "%s", keep);
}
cleanup:
    sqlite3_finalize(st);
    sqlite3_finalize(ss);
    sqlite3_finalize(sc);
    return rc;
}

int ab_db_put_timer_floor(sqlite3 *db, sqlite3_int64 run_id, const char *mode, size_t n,
                          double median_ms, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db,
                      "INSERT OR REPLACE INTO timer_floor(run_id, timing_mode, n, median_ms) "
                      "VALUES (?, ?, ?, ?)",
                      &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)n);
    sqlite3_bind_double(st, 4, median_ms);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : fail(db, err, "storing the timer floor");
    sqlite3_finalize(st);
    return rc;
}

int ab_db_set_peaks(sqlite3 *db, sqlite3_int64 run_id, double gemm_tflops, double copy_gbs,
                    char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db, "UPDATE runs SET peak_gemm_tflops = ?, peak_copy_gbs = ? WHERE id = ?",
                      &st, err))
        return -1;
    sqlite3_bind_double(st, 1, gemm_tflops);
    sqlite3_bind_double(st, 2, copy_gbs);
    sqlite3_bind_int64(st, 3, run_id);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : fail(db, err, "storing the peaks");
    sqlite3_finalize(st);
    return rc;
}

int ab_db_set_clocks_monitored(sqlite3 *db, sqlite3_int64 run_id, int yes, char *err)
{
    sqlite3_stmt *st = NULL;
    if (ab_db_prepare(db, "UPDATE runs SET clocks_monitored = ? WHERE id = ?", &st, err))
        return -1;
    sqlite3_bind_int(st, 1, yes);
    sqlite3_bind_int64(st, 2, run_id);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : fail(db, err, "updating the run");
    sqlite3_finalize(st);
    return rc;
}

int ab_db_samples(sqlite3 *db, sqlite3_int64 measurement_id, int include_throttled, double **ms,
                  size_t *n, char *err)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 128, len = 0;
    double *buf = malloc(cap * sizeof *buf);
    *ms = NULL;
    *n = 0;
    if (!buf)
        return fail(NULL, err, "loading samples");
    if (ab_db_prepare(db,
                      "SELECT ms FROM samples WHERE measurement_id = ? AND (? OR throttled = 0) "
                      "ORDER BY idx",
                      &st, err)) {
        free(buf);
        return -1;
    }
    sqlite3_bind_int64(st, 1, measurement_id);
    sqlite3_bind_int(st, 2, include_throttled);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (len == cap) {
            double *nb = realloc(buf, 2 * cap * sizeof *buf);
            if (!nb) {
                free(buf);
                sqlite3_finalize(st);
                return fail(NULL, err, "loading samples");
            }
            buf = nb;
            cap *= 2;
        }
        /* what run stores and import accepts: a positive, finite number of
         * ms; anything else is a damaged or edited database, never a
         * latency to compute with */
        const int type = sqlite3_column_type(st, 0);
        const double v = sqlite3_column_double(st, 0);
        if ((type != SQLITE_FLOAT && type != SQLITE_INTEGER) || !(v > 0) ||
            !(v <= AB_SAMPLE_MAX_MS)) {
            snprintf(err, AB_ERR,
                     "%s: measurement %lld: sample %zu is '%s', not a latency in ms (> 0, at most "
                     "a day): a damaged or edited database",
                     ab_db_name(db), (long long)measurement_id, len,
                     type == SQLITE_NULL ? "NULL" : (const char *)sqlite3_column_text(st, 0));
            free(buf);
            sqlite3_finalize(st);
            return -1;
        }
        buf[len++] = v;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(buf);
        return fail(db, err, "loading samples");
    }
    *ms = buf;
    *n = len;
    return 0;
}
