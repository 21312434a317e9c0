/* Edge state as the engine reasons about it: one slot per schema field (so a
 * property may be absent, a value, UNSET or DELETED), the version and the
 * timestamps; conversion from and to the stored State value; transit. */
#pragma once
#include <glib.h>
#include "codec/record.h"
#include "model/schema.h"
#include "engine/engine.h"

typedef enum { AB_SLOT_ABSENT = 0, AB_SLOT_VALUE, AB_SLOT_UNSET, AB_SLOT_DELETED } AbSlotKind;

typedef struct {
  AbSlotKind kind;
  AbValue value; /* AB_SLOT_VALUE only (may be null after a round trip) */
  gint64 version;
} AbSlot;

typedef struct {
  AbStateMeta meta; /* active, version, timestamps (codec/record.h) */
  guint n;
  AbSlot *slots; /* n = schema fields */
} AbState;

/* (AbOpType: engine.h) */

typedef struct {
  gboolean present; /* key present in the event's properties */
  AbValue value;    /* may be null (explicit null) */
} AbEventProp;

typedef struct {
  AbOpType type;
  gint64 version;
  guint seq; /* position in the request: stable sort tie-break */
  guint n;
  AbEventProp *props; /* n = schema fields */
} AbEvent;

void ab_state_init (AbState *st, guint n_fields); /* the initial state */
void ab_state_clear (AbState *st);
void ab_state_copy (AbState *dst, const AbState *src);
gboolean ab_state_is_initial (const AbState *st);
/* A slot whose value counts as present (not null, not a sentinel). */
gboolean ab_slot_present (const AbSlot *slot);

/* A stored cell with the schema's field for its code (pos: the field's place
 * in schema->fields). A cell whose code the schema lacks (a dropped field)
 * never reaches the sink: every decode of stored cells drops it alike. */
typedef void (*AbFieldCellSink) (guint pos, const AbField *field, AbCodedProp *cell, gpointer user);
typedef struct {
  const AbSchema *schema;
  AbFieldCellSink sink;
  gpointer user;
} AbSchemaCells;
/* An AbStateCellSink (codec/record.h) whose user data is an AbSchemaCells. */
void ab_schema_cells_sink (AbCodedProp *cell, gpointer schema_cells);

/* Stored bytes -> state (unknown codes dropped, sentinels already null). */
gboolean ab_state_decode (const AbSchema *schema, const guint8 *buf, gsize len, AbState *out,
                          GError **error);
/* State -> stored bytes (sentinels as null with their version). */
gboolean ab_state_encode (const AbSchema *schema, const AbState *st, GByteArray *out,
                          GError **error);
/* The same appended to an AbBuf; on failure out is as it was. */
gboolean ab_state_encode_buf (const AbSchema *schema, const AbState *st, AbBuf *out,
                              GError **error);

void ab_event_init (AbEvent *ev, guint n_fields);
void ab_event_clear (AbEvent *ev);

/* docs/data-model.md §2: applies one event in place (a PURGE returns st to
 * the initial state). */
void ab_state_transit (AbState *st, const AbEvent *ev, gboolean insert_merge);
/* §2.5, of one key's events (AbEvent*, in any order): the last PURGE in
 * request order, or NULL. Only the events after it fold, onto the initial
 * state. */
const AbEvent *ab_events_last_purge (GPtrArray *events);
/* The event folded last: the highest-version one after the last PURGE (on
 * equal versions the later in the request), else that PURGE. */
const AbEvent *ab_events_last_folded (GPtrArray *events);
/* §2.4: FALSE (with message) when an active state lacks a required field. */
gboolean ab_state_check_valid (const AbSchema *schema, const AbState *st, GError **error);

const gchar *ab_op_name (AbOpType op);
gboolean ab_op_parse (const gchar *name, AbOpType *out);
