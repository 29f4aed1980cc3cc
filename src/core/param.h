/* core/param.h — parameter tables.  One table per template kind maps a
 * dotted YAML key to a struct field, its type and unit kind, its allowed
 * range and default, and a one-line meaning (Redis config-table style).  The
 * template loader, the scenario overrides, the Inputs sheet and the error
 * messages all read these same tables. */
#ifndef DF_PARAM_H
#define DF_PARAM_H

#include <stddef.h>

#include "diag.h"
#include "units.h"

typedef enum {
    P_DOUBLE, /* double, parsed with its UnitKind */
    P_INT,    /* int */
    P_INT64,  /* int64_t */
    P_BOOL,   /* int 0/1: yes/no/true/false */
    P_ENUM,   /* int, one of the names in `choices` (index) */
    P_STRING, /* char[NAME_MAX_LEN] */
    P_SUB,    /* nested object described by `sub`; a scalar value names a template of `sub->kind` */
    P_POINTS, /* (x, y) pairs into a Points at offset:
                 YAML [[x, y], ...] or text "x:y;x:y" */
} ParamType;

struct ParamTable;

typedef struct {
    const char *key; /* dotted key: "hbm.bandwidth" */
    size_t offset;   /* offsetof the field in the target struct */
    ParamType type;
    UnitKind unit;                /* for P_DOUBLE */
    double min, max;              /* inclusive range for numbers */
    double def;                   /* default when not set (numbers, bools, enums) */
    int required;                 /* 1: a template must set it */
    int auto_ok;                  /* P_INT/P_ENUM: 'auto' accepted, stored as AUTO_VALUE */
    size_t size;                  /* P_STRING: buffer size */
    const char *const *choices;   /* P_ENUM: NULL-terminated names */
    const struct ParamTable *sub; /* P_SUB */
    const char *help;             /* meaning, for the Inputs sheet and --help */
} ParamDef;

typedef struct ParamTable {
    const char *kind; /* template folder: "devices", "networks", ... */
    const ParamDef *defs;
    size_t count;
    size_t struct_size;
    /* derive defaults that depend on other fields (ffn = 4*hidden); may be
     * NULL.  Returns 0 or fills d and returns -1 when the object is
     * inconsistent. */
    int (*finish)(void *obj, Diag *d);
} ParamTable;

extern const ParamTable param_device_table;
extern const ParamTable param_network_table;
extern const ParamTable param_framework_table;
extern const ParamTable param_system_table;
extern const ParamTable param_model_table;
extern const ParamTable param_scenario_table;
/* The micro-architecture generator's inputs (tech/tech.h): a technology
 * template (templates/technology), and a device template's `derive:`
 * block (DeriveSpec: a technology reference plus budgets and splits). */
extern const ParamTable param_technology_table;
extern const ParamTable param_derive_table;
extern const ParamTable param_convergence_table;
extern const ParamTable param_site_table;

/* The template kinds a user lists and shows (deepflow templates), in the
 * order they are listed; each table's kind is its folder's name. */
extern const ParamTable *const param_template_tables[];
extern const int param_template_count;

/* The key an old name now stands for in table t ("dp_overlap" of a
 * system is "framework.dp_overlap"), or NULL. */
const char *param_alias(const ParamTable *t, const char *key);

/* Find a key in a table (exact, case-insensitive).  For a dotted key that
 * descends into a P_SUB entry ("device.hbm.bandwidth"), *table_out and
 * *base_off_out say which table and at which offset inside the outer
 * struct the returned def lives. */
const ParamDef *param_find(const ParamTable *t, const char *key, const ParamTable **table_out,
                           size_t *base_off_out);

/* The known key (full dotted path, descending into nested tables) nearest
 * to `key` by edit distance, for "did you mean"; returns 1 and writes it to
 * buf, or 0 when nothing is close. */
int param_suggest(const ParamTable *t, const char *key, char *buf, size_t n);

/* Set all defaults of an object (numbers, enums; strings to ""). */
void param_defaults(const ParamTable *t, void *obj);

/* Parse `text` for def and store it into obj (the struct that holds the
 * field).  On bad input fills d->msg as "LABEL: expected E, got 'T'", where
 * label is the caller's ("key 'hbm.bandwidth'", "column 'devices'"), and
 * returns -1; file/line/col are the caller's to fill. */
int param_set(const ParamDef *def, void *obj, const char *label, const char *text, Diag *d);

/* Print the field's current value in its unit ("3.35 TB/s"). */
int param_format(const ParamDef *def, const void *obj, char *buf, size_t n);

/* Describe what a def expects, for messages: "an integer in [1, 1000000]". */
void param_expect(const ParamDef *def, char *buf, size_t n);

/* Bytes the field of def occupies in its struct (to copy one field). */
size_t param_size(const ParamDef *def);

/* Visit every leaf parameter of a table, descending into P_SUB entries,
 * with its full dotted key ("device.hbm.bandwidth") and the object the
 * field lives in.  An optional P_SUB the object leaves empty (name "": a
 * device without derive:, a model without a convergence curve) is
 * skipped with its contents. */
typedef void (*ParamVisit)(const char *fullkey, const ParamDef *def, const void *obj, void *ctx);
void param_walk(const ParamTable *t, const void *obj, const char *prefix, ParamVisit fn, void *ctx);

#endif
