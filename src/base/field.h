/* SPDX-License-Identifier: MIT */
/*
 * Field tables: a C record described as a list of JSON keys, each with the
 * kind of value it holds and where it is in the record (offsetof), so
 * that one table serves both writing the record and reading it back.  The
 * result document (src/doc/schema.c) and the control protocol
 * (src/remote/proto.c) describe their records this way and share the one
 * engine below.
 */
#ifndef IPCPERF_BASE_FIELD_H
#define IPCPERF_BASE_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* How a value is held in C and written in JSON. */
enum ipc_fkind {
	IPC_FK_U64,	   /* uint64_t: integer 0..max */
	IPC_FK_SIZE,	   /* size_t: integer */
	IPC_FK_UINT,	   /* unsigned (uint32_t): integer */
	IPC_FK_INT,	   /* int: integer */
	IPC_FK_I64,	   /* int64_t: integer -1..max (0..max: NO_NEG) */
	IPC_FK_BOOL,	   /* bool */
	IPC_FK_REAL,	   /* double: real; left out when not finite */
	IPC_FK_ROUND,	   /* double holding ns or bytes (a mean): integer,
			      rounded; left out when not finite or negative */
	IPC_FK_CHARS,	   /* char[len]: printable string */
	IPC_FK_CHARS_NULL, /* char[len]: string, null when empty */
	IPC_FK_INT_NULL,   /* int, -1 when unknown: integer or null */
	IPC_FK_TRI,	   /* int, -1 unknown, 0, 1: null, false, true */
	IPC_FK_I64_OPT,	   /* int64_t, -1 when not counted: integer or
			      left out */
	IPC_FK_REAL_OPT,   /* double, -1 when not counted: real or left out */
	IPC_FK_ENUM,	   /* an enum (int-sized): names[value] */
	IPC_FK_HEX,	   /* len bytes: 2 * len hex digits */
	IPC_FK_B64,	   /* up to len bytes, their count in the size_t at
			      offset aux: base64 of 1 to len bytes */
	IPC_FK_FLAT,	   /* char[len]: an object of at most max scalars,
			      kept as its compact JSON text */
};

/* Bits of struct ipc_field.flags; bits from IPC_FF_USER up are the caller's. */
#define IPC_FF_NONZERO                                                         \
	(1u << 0)		/* left out when 0, false or "" (an
				    INT_NULL also when unknown); an empty
				    string read leaves the record as it was */
#define IPC_FF_OPT (1u << 1)	/* may be absent: the record keeps its value */
#define IPC_FF_NO_NEG (1u << 2) /* IPC_FK_I64 that is never -1 */
#define IPC_FF_USER (1u << 8)

struct ipc_field {
	const char *key;
	enum ipc_fkind kind;
	size_t off;
	unsigned flags;
	const char *const *names; /* IPC_FK_ENUM: NULL-terminated */
	size_t len;		  /* CHARS*, FLAT: buffer bytes; HEX, B64:
				     bytes */
	uint64_t max;		  /* integers: the largest accepted, 0 for
				     any; FLAT: most members */
	size_t aux;		  /* B64: offset of its byte count */
};

struct ipc_ftable {
	const struct ipc_field *f;
	size_t n;
};

/*
 * Put field @f of the record at @rec into object @o, or leave it out as
 * its kind and flags say.  0, -ENOMEM, or -EINVAL when the record holds
 * what its kind cannot write (an enum out of range, B64 over len).
 */
int ipc_field_put(json_t *o, const void *rec, const struct ipc_field *f);

/* Every field of @t; the first failure. */
int ipc_ftable_put(json_t *o, const void *rec, const struct ipc_ftable *t);

/* Why a value was refused. */
enum ipc_fbad_why {
	IPC_FB_MISSING, /* absent and required */
	IPC_FB_TYPE,	/* the wrong JSON type: see ipc_field_wants */
	IPC_FB_NEG,	/* a negative count, time or rate */
	IPC_FB_RANGE,	/* an integer outside lo..f->max */
	IPC_FB_LONG,	/* longer than the record holds */
	IPC_FB_CTRL,	/* a control character in a string */
	IPC_FB_NAME,	/* not one of the enum's names */
	IPC_FB_HEX,	/* not exactly 2 * len hex digits */
	IPC_FB_B64,	/* not base64 of 1 to len bytes */
	IPC_FB_MEMBERS, /* FLAT: more than max members */
	IPC_FB_NESTED,	/* FLAT: member @inner is an object or array */
};

struct ipc_fbad {
	enum ipc_fbad_why why;
	long long got;	   /* IPC_FB_RANGE: the value */
	long long lo;	   /* IPC_FB_RANGE: the lowest accepted */
	double real;	   /* IPC_FB_NEG: the value */
	const char *inner; /* IPC_FB_NESTED: the member's key (borrowed from
			      the JSON value) */
};

/*
 * Read @v, the value of field @f (NULL when absent), into the record at
 * @rec.  An absent field the writer may leave out, and a null where the
 * kind allows one, store what they stand for (NAN, -1, "").  Every value
 * is checked for its JSON type and range before it is stored.  0,
 * -EPROTO with *@bad saying why, or -ENOMEM.
 */
int ipc_field_get(json_t *v, void *rec, const struct ipc_field *f,
		  struct ipc_fbad *bad);

/* An integer of @v, LLONG_MAX when it is larger. */
json_t *ipc_json_uint(uint64_t v);

/*
 * A JSON string of @s, null when @s is NULL.  jansson refuses bytes that
 * are not UTF-8, and an error message may carry any byte (a file name),
 * so those become '?'.
 */
json_t *ipc_json_str(const char *s);

/* What IPC_FB_TYPE wanted: "an integer", "true or false", ... */
const char *ipc_field_wants(const struct ipc_field *f);

#endif
