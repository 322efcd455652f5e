/*
 * opt.c: what the command handlers share (commands.h): the usage error and
 * the opening of the database (the option parser is args.c).
 */
#include "commands.h"
#include "outfile.h"
#include "store.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ab_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ab_verror(fmt, ap);
    va_end(ap);
    return 2;
}

sqlite3 *ab_cmd_open_db(const char *path, int readonly)
{
    char err[AB_ERR];
    sqlite3 *db = NULL;
    if (ab_db_open(path, readonly, &db, err)) {
        error("%s", err);
        return NULL;
    }
    ab_out_set_database(path); /* never an output file of this command */
    return db;
}
