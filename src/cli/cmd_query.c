/*
 * cmd_query.c: `attnbench query "SQL" [--db PATH]`: one read-only SQL
 * statement against the database, printed as a table with aligned columns.
 * Read-only twice over: the connection is opened with SQLITE_OPEN_READONLY
 * (ab_db_open), and a statement that sqlite3_stmt_readonly() says could
 * write (INSERT, DELETE, DROP, ATTACH, writing PRAGMAs, ...) is refused
 * before it runs.
 */
#include "commands.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* display width of UTF-8 text: code points, not bytes */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

/* A copy of s safe to print on a terminal: newlines, tabs and carriage
 * returns become spaces (one row per line), other control bytes (C0, DEL,
 * and the C1 controls U+0080..U+009F) are written as \xNN, so that stored
 * text cannot move the cursor, change colours or set the window title
 * (terminal escape injection). NULL when out of memory. */
static char *escaped(const char *s)
{
    char *flat = strdup(s);
    if (!flat)
        return NULL;
    for (char *c = flat; *c; c++)
        if (*c == '\n' || *c == '\t' || *c == '\r')
            *c = ' ';
    char *out = ab_printable_dup(flat);
    free(flat);
    return out;
}

static char *cell(sqlite3_stmt *st, int i)
{
    char buf[64];
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        return strdup("NULL");
    case SQLITE_INTEGER:
        snprintf(buf, sizeof buf, "%lld", (long long)sqlite3_column_int64(st, i));
        return strdup(buf);
    case SQLITE_FLOAT:
        snprintf(buf, sizeof buf, "%.10g", sqlite3_column_double(st, i));
        return strdup(buf);
    case SQLITE_BLOB:
        snprintf(buf, sizeof buf, "<blob %d bytes>", sqlite3_column_bytes(st, i));
        return strdup(buf);
    default: {
        const char *t = (const char *)sqlite3_column_text(st, i);
        return escaped(t ? t : "");
    }
    }
}

/* Authorizer: reading only. ATTACH and DETACH pass sqlite3_stmt_readonly()
 * (they change the connection, not a file) and are refused here, as is any
 * action that is not a read; writing PRAGMAs are left to
 * sqlite3_stmt_readonly(). */
static int read_only_authorizer(void *denied, int action, const char *a, const char *b,
                                const char *c, const char *d)
{
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
    case SQLITE_PRAGMA:
        return SQLITE_OK;
    default:
        *(int *)denied = action;
        return SQLITE_DENY;
    }
}

int cmd_query(int argc, char **argv)
{
    const char *db_flag = NULL, *sql = NULL, *v;
    int missing = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = ab_opt(argc, argv, &i, "--db", &missing)))
            db_flag = v;
        else if (missing || sql)
            return error("query: %s '%s' (attnbench help query)",
                         missing ? "missing value for" : "one SQL statement at a time; extra",
                         argv[i]) ? 2 : 2;
        else
            sql = argv[i];
    }
    if (!sql)
        return ab_usage("query: which SQL? e.g. attnbench query \"SELECT * FROM latest_runs\"");
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (!(db = ab_cmd_open_db(ab_db_path(db_flag), 1)))
        return 1;
    const char *tail = NULL;
    int denied = 0;
    sqlite3_set_authorizer(db, read_only_authorizer, &denied);
    if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
        if (denied)
            error("query: refused: the statement is not a read (%s); query is read-only "
                  "(use the sqlite3 shell on a copy to change data)",
                  denied == SQLITE_ATTACH ? "ATTACH" : denied == SQLITE_DETACH ? "DETACH"
                                                                              : "it would write");
        else
            error("query: %s", sqlite3_errmsg(db));
        ab_db_close(db);
        return 1;
    }
    while (tail && (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == ';'))
        tail++;
    int rc = 1;
    if (!st) {
        error("query: no SQL statement in '%s'", sql);
        goto done;
    }
    if (tail && *tail) {
        error("query: one statement at a time (left over: '%.40s')", tail);
        goto done;
    }
    if (!sqlite3_stmt_readonly(st)) {
        error("query: refused: the statement could modify the database; query is read-only "
              "(use the sqlite3 shell on a copy to change data)");
        goto done;
    }
    int ncol = sqlite3_column_count(st), oom = 0;
    size_t nrow = 0, cap = 64;
    char **cells = malloc(cap * (ncol ? ncol : 1) * sizeof *cells);
    size_t *w = calloc(ncol ? ncol : 1, sizeof *w);
    if (!cells || !w) {
        free(cells);
        free(w);
        error("out of memory");
        goto done;
    }
    /* column names are text the query chose ("SELECT 1 AS [ESC...]"):
     * escaped like cells */
    char **heads = calloc(ncol ? ncol : 1, sizeof *heads);
    for (int c = 0; heads && c < ncol; c++) {
        heads[c] = escaped(sqlite3_column_name(st, c) ? sqlite3_column_name(st, c) : "");
        if (!heads[c])
            oom = 1;
    }
    if (!heads || oom) {
        error("out of memory");
        goto done_heads;
    }
    for (int c = 0; c < ncol; c++)
        w[c] = width(heads[c]);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (nrow == cap) {
            char **nc = realloc(cells, 2 * cap * ncol * sizeof *cells);
            if (!nc) {
                step = SQLITE_NOMEM;
                break;
            }
            cells = nc;
            cap *= 2;
        }
        for (int c = 0; c < ncol; c++) {
            char *x = cell(st, c);
            oom |= !x;
            cells[nrow * ncol + c] = x;
            if (x && width(x) > w[c])
                w[c] = width(x);
        }
        nrow++;
        if (oom) {
            step = SQLITE_NOMEM;
            break;
        }
    }
    if (step == SQLITE_NOMEM) {
        error("query: out of memory after %zu rows", nrow);
    } else if (step != SQLITE_DONE && step != SQLITE_ROW) {
        error("query: %s", sqlite3_errmsg(db));
    } else {
        for (int c = 0; c < ncol; c++) {
            const char *h = heads[c];
            printf("%s%s%*s", c ? "  " : "", h, c + 1 < ncol ? (int)(w[c] - width(h)) : 0, "");
        }
        printf("\n");
        for (int c = 0; c < ncol; c++) {
            printf("%s", c ? "  " : "");
            for (size_t k = 0; k < w[c]; k++)
                putchar('-');
        }
        printf("\n");
        for (size_t r = 0; r < nrow; r++) {
            for (int c = 0; c < ncol; c++) {
                const char *x = cells[r * ncol + c] ? cells[r * ncol + c] : "";
                printf("%s%s%*s", c ? "  " : "", x, c + 1 < ncol ? (int)(w[c] - width(x)) : 0, "");
            }
            printf("\n");
        }
        printf("(%zu row%s)\n", nrow, nrow == 1 ? "" : "s");
        rc = 0;
    }
    for (size_t k = 0; k < nrow * (size_t)ncol; k++)
        free(cells[k]);
done_heads:
    for (int c = 0; heads && c < ncol; c++)
        free(heads[c]);
    free(heads);
    free(cells);
    free(w);
done:
    sqlite3_finalize(st);
    ab_db_close(db);
    return rc;
}
