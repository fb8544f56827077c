/*
 * core.h -- what the parts of the compiled core share: constants, the arena, the raw
 * position, the land, the boundary and the colouring, and the functions one part calls in
 * another (the map of the parts is in _core.c). Small helpers called in inner loops are
 * static inline here, so that the split adds no call to a hot path. Everything declared
 * here is hidden from other shared objects: the module exports only PyInit__core.
 */

#ifndef SPROUTS_CORE_H
#define SPROUTS_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define CANON_VERSION 2

/* Codes of corners in an encoding: the same numbers as canon.py. */
#define LOWER_PAIR 99          /* a lowercase letter in a collapsed region (twice) */
#define LOWER 100              /* + distance to the partner corner along the boundary */
#define UPPER 1000             /* + index of the uppercase letter within its land */
#define UPPER_COLOUR 1000000   /* + colour of the region across (while refining only) */
#define END_BOUNDARY (-1)
#define END_REGION (-2)

/* Kinds of vertices after normalisation. */
#define K_SPOT 0               /* 0, 1 or 2: code = 3 - lives, or 2 for a 1-life spot seen once */
#define K_LOWER 1
#define K_UPPER 2

/* Guards: larger inputs go to the Python path (or raise when Python could not finish either). */
#define MAX_RUN 100000         /* largest k read in 0*k (beyond, ValueError) */
#define MAX_SPLIT_OTHERS 40    /* 2**40 distinct ways to share a region's other boundaries
                                  (interchangeable ones counted once): beyond, refuse */
#define MAX_SPLIT_MASK 63      /* other boundaries a split's mask holds: beyond, refuse */

extern PyObject *Unsupported;  /* _core.Unsupported, a ValueError (created by the module init) */

/* ------------------------------------------------------------------ arena (core_arena.c) */

typedef union { long double ld; void *p; long long ll; double d; } Align;

typedef struct Block {
    struct Block *prev;
    size_t cap, used;
    Align data[];
} Block;

typedef struct {
    Block *top;
    Block *spare;              /* one released standard block kept for reuse */
} Arena;

typedef struct {
    Block *top;
    size_t used;
} Mark;

#define BLOCK_BYTES ((size_t)1 << 16)

void *arena_alloc_block(Arena *a, size_t n);
void arena_free(Arena *a);

/* Memory for n bytes (aligned for any type), or NULL with MemoryError set. Inline: the
 * canonical form of one land asks for dozens of small arrays. */
static inline void *arena_alloc(Arena *a, size_t n)
{
    size_t unit = sizeof(Align);
    if (n > SIZE_MAX / 2) {
        PyErr_NoMemory();
        return NULL;
    }
    n = n ? (n + unit - 1) / unit * unit : unit;
    Block *b = a->top;
    if (b == NULL || b->cap - b->used < n)
        return arena_alloc_block(a, n);
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

/* An array of count ints (count >= 0), or NULL with MemoryError set. */
static inline int *new_ints(Arena *a, long count)
{
    if (count < 0 || (unsigned long)count > SIZE_MAX / sizeof(int) / 4) {
        PyErr_NoMemory();
        return NULL;
    }
    return arena_alloc(a, (size_t)count * sizeof(int));
}

static inline int *new_ints_filled(Arena *a, long count, int value)
{
    int *p = new_ints(a, count);
    if (p == NULL)
        return NULL;
    if (value == 0 || value == -1)     /* all bytes 0x00 or 0xff */
        memset(p, value & 0xff, sizeof(int) * (size_t)count);
    else
        for (long i = 0; i < count; i++)
            p[i] = value;
    return p;
}

static inline Mark arena_mark(const Arena *a)
{
    Mark m = {a->top, a->top ? a->top->used : 0};
    return m;
}

/* Give back everything allocated since the mark. Inline: the search marks and releases at
 * every node. */
static inline void arena_release(Arena *a, Mark m)
{
    while (a->top != m.top) {
        Block *b = a->top;
        a->top = b->prev;
        if (b->cap == BLOCK_BYTES && a->spare == NULL)
            a->spare = b;
        else
            free(b);
    }
    if (a->top != NULL)
        a->top->used = m.used;
}

/* ------------------------------------------------------------------ sequences */

/* Python's comparison of two lists/tuples of ints: lexicographic, a proper prefix first. */
static inline int seq_cmp(const int *a, int na, const int *b, int nb)
{
    int n = na < nb ? na : nb;
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return (na > nb) - (na < nb);
}

/* ------------------------------------------------------------------ positions (core_position.c) */

/*
 * A position as vertex ids (notation.RawPosition), stored flat: region r owns the
 * boundaries rb[r] .. rb[r+1]-1, boundary b owns the corners bc[b] .. bc[b+1]-1, and
 * cv[c] is the vertex at corner c. Invariants while building: rb[nr] == nb, bc[nb] == nc.
 * All regions are plane (genus 0): text with a genus goes to the Python path.
 */
typedef struct {
    int nv, nr, nb, nc;
    int *lives;
    int *rb, *bc, *cv;
} Raw;

static inline void raw_push(Raw *p, int v) { p->cv[p->nc++] = v; }
static inline void raw_end_boundary(Raw *p) { p->bc[++p->nb] = p->nc; }
static inline void raw_end_region(Raw *p) { p->rb[++p->nr] = p->nb; }

int raw_init(Arena *a, Raw *p, int nr, int nb, int nc);
void raw_copy_boundary(Raw *dst, const Raw *src, int b);
void raw_copy_region(Raw *dst, const Raw *src, int r);

/* Read one land in GLOP 2.x; Unsupported for anything else. */
int parse(Arena *a, const char *text, Py_ssize_t n, Raw *p);

/* Called once per move: 0 to go on, 1 to stop the enumeration there, -1 on error. */
typedef int (*ChildFn)(void *ctx, Arena *a, const Raw *child);

/* moves.raw_children: fn once per move of p, in the order of the Python enumeration. */
int raw_children(Arena *a, const Raw *p, ChildFn fn, void *ctx);

/* ------------------------------------------------------------------ lands (core_land.c) */

/*
 * One independent land ready to be encoded (canon.Land), laid out like Raw with vertices
 * renumbered 0..nv-1 within the land. A collapsed region (at most 3 lives) holds one
 * boundary: the concatenation of its boundaries.
 */
typedef struct {
    int nr, nb, nc, nv;
    int *rb, *bc, *cv;
    unsigned char *collapsed;  /* per region */
    unsigned char *kind;       /* per vertex */
    int *code;                 /* per vertex: 0/1/2 for spots */
    int *ureg;                 /* uppercase v lies in regions ureg[2v] and ureg[2v+1] */
} Land;

/* Union-find root of x, halving the path on the way. */
static inline int find_root(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

int normalize(Arena *a, const Raw *p, Land **lands_out, int *nlands_out);
int tidy_land(Arena *a, const Land *L, int32_t *shape, size_t *len);
int land_of_shape(Arena *a, const int32_t *shape, size_t len, Land *out);
char *format_encoding(Arena *a, const int *enc, int len);

/* ------------------------------------------------------------- boundaries (core_boundary.c) */

/*
 * One boundary in one orientation. base holds the codes that do not depend on colours:
 * 0/1/2 for spots, LOWER + distance to the partner for lowercase letters, a placeholder
 * at uppercase corners (listed in up_pos/up_v). A collapsed boundary is a bag: sorted
 * spot codes, LOWER_PAIR twice per lowercase letter, then its uppercase letters.
 *
 * refine() sets form (the least code sequence given region colours) and cands: the
 * rotations reaching it (width 1), or for a bag the orders of its uppercase letters
 * whose colours read sorted (width nups).
 */
typedef struct {
    int n, region, collapsed;
    int *base;
    int nups;
    int *up_pos, *up_v;
    int *form;
    int form_valid;
    int ncand, cand_width, cand_cap;
    int *cands;
} Bnd;

int bnd_init(Arena *a, Bnd *bd, const Land *L, int r, const int *seq, int n, int *firstpos);
int bnd_encode(const Bnd *bd, const int *cand, int *out, int *name_of, int nnames, int *newv);

/*
 * Every boundary has two views: bnd[b] as written and bnd[nb + b] read backwards (the
 * region mirrored). A region's form is its sorted boundary forms in its least view; a
 * collapsed region (a bag) has no orientation and only its first view is ever searched.
 */
typedef struct {
    const Land *L;
    Bnd *bnd;                  /* 2 * nb views: bnd[o * nb + b] */
    int *colour;               /* per region */
    int *sorted_b;             /* per view of a region: its boundaries sorted by form */
    int *least_view;           /* per region: 0 or 1, the view with the least sorted forms */
} Colouring;

static inline int form_cmp(const Bnd *x, const Bnd *y)
{
    return seq_cmp(x->form, x->n, y->form, y->n);
}

int view_cmp(const Colouring *C, int r1, int o1, int r2, int o2);
int compute_colours(Arena *a, Colouring *C);

/* ------------------------------------------------------------------ search (core_search.c) */

/* canon.encode_land: the least encoding of a land, into *enc (arena) of *len codes. */
int encode_land(Arena *a, const Land *L, int **enc, int *len);

/* ------------------------------------------------------------------ memo (core_memo.c) */

/* The memo of canonical strings by shape: key bytes (memo_key: at most 5 bytes a code),
 * their hash, a lookup (a new reference, or NULL without an error) and an insert. */
size_t memo_key(const int32_t *shape, size_t n, uint8_t *out);
uint64_t memo_hash(const uint8_t *key, size_t n);
PyObject *memo_get(const uint8_t *key, size_t n, uint64_t h);
int memo_put(const uint8_t *key, size_t n, uint64_t h, PyObject *text);
void memo_clear(void);
size_t memo_count(void);
size_t memo_limit(void);
void memo_set_limit(size_t limit);
size_t memo_bytes(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* SPROUTS_CORE_H */
