/* io/scenario.h — one Scenario from named settings: the cells of a table
 * row, or KEY=VALUE arguments.  `system` and `model` name templates; every
 * other setting is a scenario column (devices, tp, ...) or a dotted path
 * that overrides one template value (model.layers, system.device.hbm.bandwidth).
 * The ScenarioSource says where every value came from; it owns its override
 * list (scenario_source_free). */
#ifndef DF_SCENARIO_H
#define DF_SCENARIO_H

#include "core/types.h"
#include "io/table.h"
#include "io/template.h"

typedef struct {
    const char *name; /* column name or key, lower case */
    const char *text; /* value as written; "" = not given */
    int line, col;    /* where it was written; 0 = unknown */
    int hline, hcol;  /* where its column's name is (a table's header); 0 = none */
    /* what the name means, found once per table column (scenario_resolve;
     * scenario_build resolves its own copy, scenario_build_from needs it) */
    int role;
    const ParamDef *def;
    const ParamTable *owner;
    size_t base;
} Setting;

typedef struct {
    const Template *system; /* base templates the row named */
    const Template *model;
    ProvList over;  /* keys the row set, and where */
    Notes warnings; /* values taken that look like slips, with their cells */
} ScenarioSource;

/* A table's header against the scenario columns: every column a scenario
 * column or a dotted template path.  0, or -1 with d at the first unknown
 * name ("did you mean" when one is close), like the table's other header
 * faults: said once, before any row is run. */
int scenario_check_header(const Table *t, Diag *d);

/* 1 for the columns that hold what a run measured (measured_step_time_s,
 * measured_tokens_per_s_per_device, measured_memory_gib): deepflow
 * calibrate fits to them; a scenario is built without them, so the same
 * table runs under deepflow run. */
int scenario_measured_column(const char *name);

/* Find once what a setting's name means (the base templates, a measured
 * figure, a parameter and where it lies in a Scenario), so that building
 * each of a table's rows need not look its columns up again.  The name
 * must not change afterwards. */
void scenario_resolve(Setting *s);

/* The scenario every row starts from (param_defaults of the scenario
 * table), once: scenario_build_from copies it. */
void scenario_defaults(Scenario *sc);

/* Build sc from settings.  file: the table (or "<command line>") for
 * messages; reldir: folder for file-relative template names.  Returns 0, or
 * -1 with d filled (file:line:col of the offending setting). */
int scenario_build(TemplateDB *db, const char *file, const char *reldir, const Setting *s, int n,
                   int row_line, Scenario *sc, ScenarioSource *src, Diag *d);

/* The same from a defaults image (scenario_defaults) and settings
 * resolved (scenario_resolve), both made once by the caller for many
 * rows.  src is zeroed, or an earlier build's emptied by
 * scenario_source_clear, whose override list's buffer it reuses. */
int scenario_build_from(TemplateDB *db, const char *file, const char *reldir, const Setting *s, int n,
                        int row_line, const Scenario *defaults, Scenario *sc, ScenarioSource *src, Diag *d);

/* The same from "key=value" strings (the eval command's form; keys are
 * case-insensitive).  Setting i is placed at line[i] (its argument number;
 * i + 1 when line is NULL), column 0, of `file`; templates named as files
 * are looked up beside the working folder. */
int scenario_build_kv(TemplateDB *db, const char *file, const char *const *kv, const int *line, int n,
                      Scenario *sc, ScenarioSource *src, Diag *d);

void scenario_source_free(ScenarioSource *src);

/* Empty src for another build (scenario_build_from), its override list's
 * buffer kept: scenario_source_free still releases it. */
void scenario_source_clear(ScenarioSource *src);

#endif
