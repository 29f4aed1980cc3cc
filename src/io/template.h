/* io/template.h — loading YAML templates through the parameter tables.
 * A TemplateDB caches every template read (by kind and name) with where
 * each of its values came from, for the Inputs sheet and for messages.
 * The db owns every Template it returns; tdb_free frees them all. */
#ifndef DF_TEMPLATE_H
#define DF_TEMPLATE_H

#include "core/diag.h"
#include "core/param.h"

typedef struct {
    char key[128];    /* dotted key relative to the object: "device.hbm.bandwidth" */
    const char *file; /* owned by the db (a Template's path) or by the caller */
    int line, col;
} Prov;

typedef struct {
    Prov *p;
    int n, cap;
} ProvList;

/* Warnings ("file:line:col: warning: ...") a load or a row leaves: the
 * values were taken but look like slips (a size in bits). */
typedef struct {
    char **s;
    int n, cap;
} Notes;

int notes_add(Notes *l, const char *file, int line, int col, const char *msg);
void notes_free(Notes *l);

typedef struct {
    const ParamTable *table;
    char name[64];              /* as referenced: "h100-sxm5-80gb" */
    char *path;                 /* file it was read from */
    void *obj;                  /* table->struct_size bytes; derived defaults not applied */
    ProvList prov;              /* every key the file (or its base) set */
    void *extra;                /* what a hook parsed besides the table's keys (a cnn net), or NULL */
    void (*free_extra)(void *); /* frees extra */
    Notes warnings;             /* the file's own, once */
} Template;

struct TdbFailure {
    const ParamTable *table;
    char *path;
    Diag diag;
};

#define TDB_MAX_CHAIN 32 /* templates being loaded at once (base:/template: chains) */
#define TDB_MEMO      8  /* names remembered (TemplateDB.memo) */

typedef struct {
    char root[512]; /* templates/ folder */
    Template **t;
    int n, cap;
    /* the chain being loaded, outermost first, to report a cycle */
    int loading;
    const char *chain_path[TDB_MAX_CHAIN], *chain_name[TDB_MAX_CHAIN];
    /* Optional: checks a loaded object beyond its table's ranges (the
     * caller's engines: a derive: device through the generator); 0, or -1
     * with d->msg, which the loader places at the file's derive: block
     * (or its top).  NULL after tdb_init. */
    int (*check)(const ParamTable *t, const void *obj, Diag *d);
    /* templates that failed to load, with their diagnostic: a broken
     * template is read once, however many rows name it */
    struct TdbFailure *failed;
    int nfailed, capfailed;
    /* the last templates found by name (not by file), a table's systems
     * and models row after row: looked up before their path is made */
    struct {
        const ParamTable *table;
        const Template *t;
        char name[128];
    } memo[TDB_MEMO];
    int memo_next;
} TemplateDB;

/* root: the templates folder; NULL picks $DEEPFLOW_TEMPLATES, ./templates,
 * or the installed share/deepflow/templates, the first that exists. */
int tdb_init(TemplateDB *db, const char *root, Diag *d);
void tdb_free(TemplateDB *db);

/* The template `name` of the table's kind.  A name ending in .yaml or .yml
 * is a file relative to `reldir` (the scenario table's folder) and may not
 * be absolute or contain '..'; any other name is looked up as
 * <root>/<kind>/<name>.yaml.  Returns NULL with d filled. */
const Template *tdb_get(TemplateDB *db, const ParamTable *table, const char *name, const char *reldir,
                        Diag *d);

/* List the names of the templates of one kind (sorted); the caller frees
 * the array and the strings. */
int tdb_list(const TemplateDB *db, const char *kind, char ***names, int *n);

int prov_add(ProvList *l, const char *key, const char *file, int line, int col);
/* Room for n entries in all (a row's overrides: each held row keeps its
 * list, so it is sized to them, not doubled past them); -1 when out of
 * memory. */
int prov_reserve(ProvList *l, int n);
const Prov *prov_find(const ProvList *l, const char *key);
void prov_free(ProvList *l);

#endif
