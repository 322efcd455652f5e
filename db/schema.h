/*
 * schema.h: the ordered migrations of the SQLite schema (schema.c).
 */
#ifndef ATTNBENCH_SCHEMA_H
#define ATTNBENCH_SCHEMA_H

/* Number of migrations = the current schema version. */
int ab_schema_count(void);
/* SQL taking a database from user_version `from_version` to the next, or
 * NULL past the end. */
const char *ab_schema_migration(int from_version);

#endif
