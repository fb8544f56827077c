/*
 * _core.c -- the compiled hot path of the Sprouts engine: the children of one land.
 *
 * land_children(land) returns exactly what the pure-Python reference
 *     SproutsGame.component_children(land)
 * returns: the distinct children of the position, each as the sorted tuple of its
 * canonical land strings, in order of first occurrence in the move enumeration of
 * moves.raw_children. Every step below is a port of one Python function and keeps its
 * name in a comment, so the two can be read side by side:
 *
 *   parse        notation._Reader   (the GLOP 2.x subset a land key is written in)
 *   raw_children moves.raw_children, _split, _merge
 *   normalize    canon.normalize
 *   Bnd          canon._Boundary    (base codes, refine, encode)
 *   refine       canon._refine
 *   Search       canon._Search      (greedy least encoding, branching on exact ties)
 *   encode_land  canon.encode_land
 *   format       canon.format_encoding, _format_boundary, _join_boundaries
 *
 * The canonical string is the identity of every stored fact, so this file must never
 * produce a different string than canon.py: it uses the same integer codes, compares
 * sequences exactly as Python compares lists and tuples (lexicographic, a proper prefix
 * is smaller) and explores the same candidates. CANON_VERSION below says which version of
 * canon.py it ports; game.py uses this core only when the two versions agree.
 *
 * Text this core does not handle (GLOP 1.x syntax, '+', '!', genus '@', whitespace,
 * or anything the Python reader would reject) raises Unsupported, a ValueError: the
 * caller then runs the Python path, which gives the answer or the precise NotationError.
 *
 * Memory: everything computed for one call lives in an Arena (blocks released in stack
 * order with mark/release, so each child reuses the memory of the previous one) and is
 * freed before returning. Python objects are created only for results.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#define MAX_SPLIT_OTHERS 40    /* 2**k ways to share k other boundaries: beyond this, refuse */

static PyObject *Unsupported;  /* _core.Unsupported, a ValueError */

/* ------------------------------------------------------------------ arena */

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

/* arena_alloc's slow path: a new block for n bytes (n rounded to units), or NULL. */
static void *arena_alloc_block(Arena *a, size_t n)
{
    Block *b;
    if (n <= BLOCK_BYTES && a->spare != NULL) {
        b = a->spare;
        a->spare = NULL;
    } else {
        size_t cap = n > BLOCK_BYTES ? n : BLOCK_BYTES;
        b = malloc(sizeof(Block) + cap);
        if (b == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        b->cap = cap;
    }
    b->used = n;
    b->prev = a->top;
    a->top = b;
    return b->data;
}

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

static Mark arena_mark(const Arena *a)
{
    Mark m = {a->top, a->top ? a->top->used : 0};
    return m;
}

/* Give back everything allocated since the mark. */
static void arena_release(Arena *a, Mark m)
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

static void arena_free(Arena *a)
{
    Mark empty = {NULL, 0};
    arena_release(a, empty);
    free(a->spare);
    a->spare = NULL;
}

/* ------------------------------------------------------------------ sequences */

/* Python's comparison of two lists/tuples of ints: lexicographic, a proper prefix first. */
static int seq_cmp(const int *a, int na, const int *b, int nb)
{
    int n = na < nb ? na : nb;
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return (na > nb) - (na < nb);
}

/* ------------------------------------------------------------------ raw positions */

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

/* Room for nr regions, nb boundaries and nc corners (lives are set by the caller). */
static int raw_init(Arena *a, Raw *p, int nr, int nb, int nc)
{
    p->nv = p->nr = p->nb = p->nc = 0;
    p->lives = NULL;
    p->rb = new_ints(a, (long)nr + 1 + nb + 1 + (nc > 0 ? nc : 1));   /* one block */
    if (p->rb == NULL)
        return -1;
    p->bc = p->rb + nr + 1;
    p->cv = p->bc + nb + 1;
    p->rb[0] = 0;
    p->bc[0] = 0;
    return 0;
}

static inline void raw_push(Raw *p, int v) { p->cv[p->nc++] = v; }
static inline void raw_end_boundary(Raw *p) { p->bc[++p->nb] = p->nc; }
static inline void raw_end_region(Raw *p) { p->rb[++p->nr] = p->nb; }

static void raw_copy_boundary(Raw *dst, const Raw *src, int b)
{
    for (int c = src->bc[b]; c < src->bc[b + 1]; c++)
        raw_push(dst, src->cv[c]);
    raw_end_boundary(dst);
}

static void raw_copy_region(Raw *dst, const Raw *src, int r)
{
    for (int b = src->rb[r]; b < src->rb[r + 1]; b++)
        raw_copy_boundary(dst, src, b);
    raw_end_region(dst);
}

/* ------------------------------------------------------------------ parse (notation._Reader) */

typedef struct {
    char ch;                   /* the letter */
    long num;                  /* k of "X(k)", or -1 for the bare letter */
    int vertex;
    int region;                /* region of the first occurrence (uppercase) */
    int seen;                  /* occurrences so far */
} Letter;

typedef struct {
    const char *text;
    Py_ssize_t n, pos;
    Raw *raw;
    int bstart;                /* first corner of the open boundary */
    int rstart;                /* first boundary of the open region */
    int land_regions;          /* regions closed in the current land */
    Letter *upper, *lower;
    int nupper, nlower;
} Reader;

/* Refuse the text: the Python reader either rejects it or reads syntax not handled here. */
static int unsupported(const Reader *rd, const char *why)
{
    PyErr_Format(Unsupported, "%s at column %zd (not handled by the C core)", why, rd->pos + 1);
    return -1;
}

static int new_vertex(Raw *p, int lives)
{
    p->lives[p->nv] = lives;
    return p->nv++;
}

static int boundary_len(const Reader *rd) { return rd->raw->nc - rd->bstart; }

/* _Reader.end_boundary */
static int end_boundary(Reader *rd)
{
    Raw *p = rd->raw;
    int len = boundary_len(rd);
    if (len == 0)
        return 0;
    if (len > 1)
        for (int c = rd->bstart; c < p->nc; c++)
            if (p->lives[p->cv[c]] == 3)
                return unsupported(rd, "an isolated spot 0 must be alone on its boundary");
    for (int k = 0; k < rd->nlower; k++)
        if (rd->lower[k].seen == 1)
            return unsupported(rd, "lowercase letter seen once on its boundary");
    rd->nlower = 0;
    raw_end_boundary(p);
    rd->bstart = p->nc;
    return 0;
}

/* _Reader.end_region */
static int end_region(Reader *rd)
{
    Raw *p = rd->raw;
    if (end_boundary(rd) < 0)
        return -1;
    if (p->nb == rd->rstart)
        return unsupported(rd, "empty region");
    raw_end_region(p);
    rd->rstart = p->nb;
    rd->land_regions++;
    return 0;
}

/* _Reader.end_land(final=True): the only land end this reader meets. */
static int end_land(Reader *rd)
{
    if (boundary_len(rd) > 0 || rd->raw->nb > rd->rstart)
        if (end_region(rd) < 0)
            return -1;
    if (rd->land_regions == 0)
        return unsupported(rd, "empty position");
    for (int k = 0; k < rd->nupper; k++)
        if (rd->upper[k].seen == 1)
            return unsupported(rd, "uppercase letter seen once in its land");
    return 0;
}

/* Digits at rd->pos as a number (at most 9 digits); -1 if there are none or too many. */
static long read_number(Reader *rd)
{
    long value = 0;
    int digits = 0;
    while (rd->pos < rd->n && rd->text[rd->pos] >= '0' && rd->text[rd->pos] <= '9') {
        if (++digits > 9)
            return -1;
        value = value * 10 + (rd->text[rd->pos] - '0');
        rd->pos++;
    }
    return digits ? value : -1;
}

/* _Reader.read_spot: 0, 1, 2 or a run 0*k of isolated spots. */
static int read_spot(Reader *rd, char ch)
{
    Raw *p = rd->raw;
    if (ch == '0' && rd->pos + 1 < rd->n && rd->text[rd->pos + 1] == '*') {
        if (boundary_len(rd) > 0)
            return unsupported(rd, "'0*k' must stand where a boundary starts");
        rd->pos += 2;
        long count = read_number(rd);
        if (count < 1)
            return unsupported(rd, "'0*k' with k missing or 0");
        if (count > MAX_RUN) {
            /* Python would read it, then try 2**(k-1) ways to share the spots: refuse. */
            PyErr_Format(PyExc_ValueError, "0*k with k > %d spots in one region", MAX_RUN);
            return -1;
        }
        for (long k = 0; k < count; k++) {
            raw_push(p, new_vertex(p, 3));
            if (k < count - 1 && end_boundary(rd) < 0)
                return -1;
        }
        if (rd->pos < rd->n && rd->text[rd->pos] != '.' && rd->text[rd->pos] != '|')
            return unsupported(rd, "'0*k' not followed by '.', '|' or the end");
        return 0;
    }
    raw_push(p, new_vertex(p, 3 - (ch - '0')));
    rd->pos++;
    return 0;
}

/* _Reader.read_letter: uppercase names are scoped by the land, lowercase by the boundary. */
static int read_letter(Reader *rd, char ch)
{
    Raw *p = rd->raw;
    long num = -1;
    rd->pos++;
    if (rd->pos < rd->n && rd->text[rd->pos] == '(') {
        rd->pos++;
        num = read_number(rd);
        if (num < 0 || rd->pos >= rd->n || rd->text[rd->pos] != ')')
            return unsupported(rd, "letter with '(' not followed by a number and ')'");
        rd->pos++;
    }
    int upper = ch >= 'A' && ch <= 'Z';
    Letter *table = upper ? rd->upper : rd->lower;
    int *count = upper ? &rd->nupper : &rd->nlower;
    Letter *seen = NULL;
    for (int k = 0; k < *count; k++)
        if (table[k].ch == ch && table[k].num == num) {
            seen = &table[k];
            break;
        }
    int vertex;
    if (seen == NULL) {
        seen = &table[(*count)++];
        seen->ch = ch;
        seen->num = num;
        seen->vertex = vertex = new_vertex(p, 1);
        seen->region = p->nr;
        seen->seen = 1;
    } else {
        if (seen->seen >= 2)
            return unsupported(rd, "letter seen three times");
        if (upper && seen->region == p->nr)
            return unsupported(rd, "uppercase letter seen twice in one region");
        seen->seen++;
        vertex = seen->vertex;
    }
    if (boundary_len(rd) > 0 && p->lives[p->cv[rd->bstart]] == 3)
        return unsupported(rd, "an isolated spot 0 must be alone on its boundary");
    raw_push(p, vertex);
    return 0;
}

/* Read one land in GLOP 2.x ("0*2|AB.1a1a|..."); Unsupported for anything else. */
static int parse(Arena *a, const char *text, Py_ssize_t n, Raw *p)
{
    Reader rd;
    memset(&rd, 0, sizeof rd);
    rd.text = text;
    rd.n = n;
    rd.raw = p;
    if (n == 0 || n > INT_MAX / 4)
        return unsupported(&rd, "empty or huge text");
    /* Sizes: every character makes at most one vertex, corner, boundary and region,
     * except the runs 0*k, which make k of each. */
    long room = (long)n + 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if ((unsigned char)text[i] >= 128)
            return unsupported(&rd, "non-ASCII text");
        if (text[i] == '0' && i + 1 < n && text[i + 1] == '*') {
            long k = 0;
            Py_ssize_t j = i + 2;
            while (j < n && text[j] >= '0' && text[j] <= '9' && k <= MAX_RUN)
                k = k * 10 + (text[j++] - '0');
            room += k;
            if (room > INT_MAX / 4)
                return unsupported(&rd, "too many spots");
        }
    }
    if (raw_init(a, p, (int)room, (int)room, (int)room) < 0)
        return -1;
    p->lives = new_ints(a, room);
    rd.upper = arena_alloc(a, sizeof(Letter) * (size_t)room);
    rd.lower = arena_alloc(a, sizeof(Letter) * (size_t)room);
    if (p->lives == NULL || rd.upper == NULL || rd.lower == NULL)
        return -1;
    while (rd.pos < n) {
        char ch = text[rd.pos];
        if (ch == '0' || ch == '1' || ch == '2') {
            if (read_spot(&rd, ch) < 0)
                return -1;
        } else if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')) {
            if (read_letter(&rd, ch) < 0)
                return -1;
        } else if (ch == '.') {
            if (boundary_len(&rd) == 0)
                return unsupported(&rd, "empty boundary");
            if (end_boundary(&rd) < 0)
                return -1;
            rd.pos++;
        } else if (ch == '|') {
            if (end_region(&rd) < 0)
                return -1;
            rd.pos++;
        } else {
            return unsupported(&rd, "character outside the GLOP 2.x land syntax");
        }
    }
    return end_land(&rd);
}

/* ------------------------------------------------------------------ moves (moves.raw_children) */

/* Called once per move: 0 to go on, 1 to stop the enumeration there, -1 on error. */
typedef int (*ChildFn)(void *ctx, Arena *a, const Raw *child);

/* _split: a curve from corner i to corner j (i <= j) of boundary b of region r. Calls fn
 * once per way to share the region's other boundaries between the two sides, in the
 * order of itertools.product((0, 1), repeat=k) (the first boundary is the slowest). */
/*
 * Interchangeable boundaries. A boundary of one corner whose vertex occurs nowhere else (an
 * isolated spot, or a spot whose other lines are dead) can be swapped with any other such
 * boundary of the same region and the same lives: the swap is a symmetry of the position, so
 * moves that differ only by it give the same child. free_rank[b] numbers such a boundary
 * within its class (region, lives), from 0 in boundary order; it is -1 for any other
 * boundary, and free_prev[b] is the class's previous boundary (or -1).
 */
typedef struct {
    int *rank;
    int *prev;
} FreeBoundaries;

static int free_boundaries(Arena *a, const Raw *p, FreeBoundaries *fb)
{
    int *occ = new_ints_filled(a, p->nv, 0);
    int *last = new_ints(a, 4);
    fb->rank = new_ints_filled(a, p->nb > 0 ? p->nb : 1, -1);
    fb->prev = new_ints_filled(a, p->nb > 0 ? p->nb : 1, -1);
    if (occ == NULL || last == NULL || fb->rank == NULL || fb->prev == NULL)
        return -1;
    for (int c = 0; c < p->nc; c++)
        occ[p->cv[c]]++;
    for (int r = 0; r < p->nr; r++) {
        int count[4] = {0, 0, 0, 0};
        last[0] = last[1] = last[2] = last[3] = -1;
        for (int b = p->rb[r]; b < p->rb[r + 1]; b++) {
            if (p->bc[b + 1] - p->bc[b] != 1)
                continue;
            int v = p->cv[p->bc[b]], l = p->lives[v];
            if (occ[v] != 1 || l < 0 || l > 3)
                continue;
            fb->rank[b] = count[l]++;
            fb->prev[b] = last[l];
            last[l] = b;
        }
    }
    return 0;
}

/* One split move in the making: a curve from corner i to corner j of boundary b of region r. */
typedef struct {
    Arena *a;
    const Raw *p;
    int r, b, i, j, k;
    const int *lives;          /* lives after the move (the new spot included) */
    const int *pred;           /* per other boundary t: the index of the previous boundary of
                                  its class among the others, or -1 */
    ChildFn fn;
    void *ctx;
} Split;

/* The child in which the others boundaries whose bit is 0 in mask (the first one is the
 * most significant bit) lie inside the curve, the others outside. */
static int split_child(const Split *s, uint64_t mask)
{
    Arena *a = s->a;
    const Raw *p = s->p;
    int r = s->r, b = s->b, i = s->i, j = s->j, k = s->k, n = p->nv;
    const int *bd = p->cv + p->bc[b];
    int len = p->bc[b + 1] - p->bc[b];
    Mark mc = arena_mark(a);
    Raw c;
    if (raw_init(a, &c, p->nr + 1, p->nb + 1, p->nc + 4) < 0)
        return -1;
    c.nv = n + 1;
    c.lives = (int *)s->lives;
    for (int rr = 0; rr < r; rr++)
        raw_copy_region(&c, p, rr);
    for (int side = 0; side < 2; side++) {
        if (side == 0) {               /* inside: the corners from i to j, then the new spot */
            if (i == j)
                raw_push(&c, bd[i]);
            else
                for (int t = i; t <= j; t++)
                    raw_push(&c, bd[t]);
        } else {                       /* outside: from j around to i, then the new spot */
            if (i == j) {
                for (int t = 0; t < len; t++)
                    raw_push(&c, bd[(i + t) % len]);
            } else {
                for (int t = j; t < len; t++)
                    raw_push(&c, bd[t]);
                for (int t = 0; t <= i; t++)
                    raw_push(&c, bd[t]);
            }
        }
        raw_push(&c, n);
        raw_end_boundary(&c);
        int t = 0;                     /* index of the other boundary among the k */
        for (int ob = p->rb[r]; ob < p->rb[r + 1]; ob++) {
            if (ob == b)
                continue;
            if ((int)((mask >> (k - 1 - t)) & 1) == side)
                raw_copy_boundary(&c, p, ob);
            t++;
        }
        raw_end_region(&c);
    }
    for (int rr = r + 1; rr < p->nr; rr++)
        raw_copy_region(&c, p, rr);
    int rc = s->fn(s->ctx, a, &c);
    arena_release(a, mc);
    return rc;
}

/* The ways to share the others in increasing order of mask (itertools.product order), each
 * the first of those that differ only by swapping interchangeable boundaries: within a
 * class, the inside ones come first, so a boundary whose predecessor is outside is outside. */
static int split_masks(const Split *s, int t, uint64_t mask)
{
    if (t == s->k)
        return split_child(s, mask);
    int pt = s->pred[t];
    if (pt < 0 || !((mask >> (s->k - 1 - pt)) & 1))
        {
            int rc = split_masks(s, t + 1, mask);
            if (rc != 0)
                return rc;     /* an error (-1), or the callback asked to stop (1) */
        }
    return split_masks(s, t + 1, mask | ((uint64_t)1 << (s->k - 1 - t)));
}

static int split(Arena *a, const Raw *p, const FreeBoundaries *fb, int r, int b, int i, int j,
                 ChildFn fn, void *ctx)
{
    int status = -1;
    Mark m = arena_mark(a);
    const int *bd = p->cv + p->bc[b];
    int n = p->nv;                       /* the new spot */
    int *lives = new_ints(a, (long)n + 1);
    int k = p->rb[r + 1] - p->rb[r] - 1; /* other boundaries of the region */
    int *pred = new_ints(a, k), *index_of = new_ints(a, p->nb);
    if (lives == NULL || pred == NULL || index_of == NULL)
        goto done;
    if (k > MAX_SPLIT_OTHERS) {
        PyErr_Format(PyExc_ValueError,
                     "a region with %d boundaries has 2**%d ways to split; too many", k + 1, k);
        goto done;
    }
    memcpy(lives, p->lives, sizeof(int) * (size_t)n);
    lives[n] = 1;
    lives[bd[i]] -= 1;
    lives[bd[j]] -= 1;
    int t = 0;
    for (int ob = p->rb[r]; ob < p->rb[r + 1]; ob++) {
        if (ob == b)
            continue;
        index_of[ob] = t;
        int prev = fb->prev[ob];
        if (prev == b)                   /* b itself is not shared: skip it in the class */
            prev = fb->prev[b];
        pred[t++] = prev < 0 ? -1 : index_of[prev];
    }
    Split s = {a, p, r, b, i, j, k, lives, pred, fn, ctx};
    status = split_masks(&s, 0, 0);
done:
    arena_release(a, m);
    return status;
}

/* _merge: a curve between corner i of boundary b1 and corner j of boundary b2 (one region). */
static int merge(Arena *a, const Raw *p, int r, int b1, int i, int b2, int j, ChildFn fn,
                 void *ctx)
{
    int status = -1;
    Mark m = arena_mark(a);
    const int *first = p->cv + p->bc[b1], *second = p->cv + p->bc[b2];
    int len1 = p->bc[b1 + 1] - p->bc[b1], len2 = p->bc[b2 + 1] - p->bc[b2];
    int u = first[i], w = second[j], n = p->nv;
    int *lives = new_ints(a, (long)n + 1);
    Raw c;
    if (lives == NULL || raw_init(a, &c, p->nr, p->nb, p->nc + 4) < 0)
        goto done;
    memcpy(lives, p->lives, sizeof(int) * (size_t)n);
    lives[n] = 1;
    lives[u] -= 1;
    lives[w] -= 1;
    c.nv = n + 1;
    c.lives = lives;
    for (int rr = 0; rr < r; rr++)
        raw_copy_region(&c, p, rr);
    /* A vertex that had lines gains a corner; an isolated spot had one and keeps one. */
    for (int t = 0; t < len1; t++)
        raw_push(&c, first[(i + t) % len1]);
    if (p->lives[u] < 3)
        raw_push(&c, u);
    raw_push(&c, n);
    for (int t = 0; t < len2; t++)
        raw_push(&c, second[(j + t) % len2]);
    if (p->lives[w] < 3)
        raw_push(&c, w);
    raw_push(&c, n);
    raw_end_boundary(&c);
    for (int ob = p->rb[r]; ob < p->rb[r + 1]; ob++)
        if (ob != b1 && ob != b2)
            raw_copy_boundary(&c, p, ob);
    raw_end_region(&c);
    for (int rr = r + 1; rr < p->nr; rr++)
        raw_copy_region(&c, p, rr);
    status = fn(ctx, a, &c);
done:
    arena_release(a, m);
    return status;
}

/* moves.raw_children: every move, in the reference's order (duplicates included). */
static int raw_children(Arena *a, const Raw *p, ChildFn fn, void *ctx)
{
    int status = -1;
    Mark m = arena_mark(a);
    int *ob = new_ints(a, p->nc), *oi = new_ints(a, p->nc);  /* live corners (b, i) */
    FreeBoundaries fb;
    if (ob == NULL || oi == NULL || free_boundaries(a, p, &fb) < 0)
        goto done;
    for (int r = 0; r < p->nr; r++) {
        int k = 0;
        for (int b = p->rb[r]; b < p->rb[r + 1]; b++)
            for (int c = p->bc[b]; c < p->bc[b + 1]; c++)
                if (p->lives[p->cv[c]] > 0) {
                    ob[k] = b;
                    oi[k] = c - p->bc[b];
                    k++;
                }
        for (int x = 0; x < k; x++) {
            int b1 = ob[x], i1 = oi[x], u = p->cv[p->bc[b1] + i1];
            if (fb.rank[b1] > 0)
                continue;      /* the same moves from the class's first boundary came first */
            for (int y = x; y < k; y++) {
                int b2 = ob[y], i2 = oi[y], w = p->cv[p->bc[b2] + i2];
                int rc;
                if (b2 != b1 && fb.rank[b2] > 0
                    && !(fb.rank[b2] == 1 && fb.prev[b2] == b1))
                    continue;  /* likewise, unless b2 is the second of b1's own class */
                if (u == w) {
                    if (i1 != i2 || p->lives[u] < 2)
                        continue;  /* a letter's two corners: one life, cannot join itself */
                    rc = split(a, p, &fb, r, b1, i1, i1, fn, ctx);
                } else if (b1 == b2) {
                    rc = split(a, p, &fb, r, b1, i1, i2, fn, ctx);
                } else {
                    rc = merge(a, p, r, b1, i1, b2, i2, fn, ctx);
                }
                if (rc != 0) {  /* an error (-1), or the callback asked to stop (1) */
                    status = rc;
                    goto done;
                }
            }
        }
    }
    status = 0;
done:
    arena_release(a, m);
    return status;
}

/* ------------------------------------------------------------------ lands (canon.normalize) */

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

static int find_root(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* canon._drop_adjacent_repeats on the open boundary cv[start..nc): one corner of each
 * vertex seen twice side by side (cyclically). firstpos: per vertex, all -1 (kept so). */
static void drop_adjacent_repeats(Raw *q, int start, int *firstpos)
{
    int n = q->nc - start, kept = 0;
    int *cv = q->cv + start;
    if (n < 2)
        return;
    for (int i = 0; i < n; i++) {
        int v = cv[i], j = firstpos[v];
        if (j < 0)
            firstpos[v] = i;
        else if (i - j == 1 || (j == 0 && i == n - 1))
            cv[i] = -1 - v;                /* dropped (marked, restored below) */
    }
    for (int i = 0; i < n; i++) {
        int v = cv[i];
        if (v < 0)
            v = -1 - v;
        firstpos[v] = -1;
        if (cv[i] >= 0)
            cv[kept++] = cv[i];
    }
    q->nc = start + kept;
}

/* A region of at most 3 lives (boundaries first_b.. of q): one boundary holding each of its
 * vertices once, in order of first corner (canon.normalize). */
static void collapse_region(Raw *q, int first_b, int *firstpos)
{
    int start = q->bc[first_b], kept = 0;
    for (int c = start; c < q->nc; c++) {
        int v = q->cv[c];
        if (firstpos[v] < 0) {
            firstpos[v] = 0;
            q->cv[start + kept++] = v;
        }
    }
    for (int c = start; c < start + kept; c++)
        firstpos[q->cv[c]] = -1;
    q->nc = start + kept;
    q->nb = first_b;
    raw_end_boundary(q);
}

/* canon.normalize: reductions, then the independent lands, in order of their first region. */
static int normalize(Arena *a, const Raw *p, Land **lands_out, int *nlands_out)
{
    const int *lives = p->lives;
    int nv = p->nv;
    /* Keep the live corners, and the regions with at least 2 lives. */
    Raw q;
    int *region_lives = new_ints(a, p->nr);
    int *stamp = new_ints_filled(a, nv, -1);
    if (region_lives == NULL || stamp == NULL || raw_init(a, &q, p->nr, p->nb, p->nc) < 0)
        return -1;
    int *firstpos = new_ints_filled(a, nv, -1);
    if (firstpos == NULL)
        return -1;
    for (int r = 0; r < p->nr; r++) {
        int first_b = q.nb, total = 0;
        for (int b = p->rb[r]; b < p->rb[r + 1]; b++) {
            int alive = 0;
            for (int c = p->bc[b]; c < p->bc[b + 1]; c++) {
                int v = p->cv[c];
                if (lives[v] > 0) {
                    raw_push(&q, v);
                    alive++;
                    if (stamp[v] != r) {
                        stamp[v] = r;
                        total += lives[v];
                    }
                }
            }
            if (alive) {
                drop_adjacent_repeats(&q, q.bc[q.nb], firstpos);
                raw_end_boundary(&q);
            }
        }
        if (total >= 2) {
            if (total <= 3)
                collapse_region(&q, first_b, firstpos);
            region_lives[q.nr] = total;
            raw_end_region(&q);
        } else {                       /* dead region: forget its boundaries */
            q.nb = first_b;
            q.nc = q.bc[first_b];
        }
    }
    /* Where each vertex occurs (regions of its first two occurrences). */
    int *occ_n = new_ints_filled(a, nv, 0), *occ_r = new_ints(a, 2L * nv);
    int *parent = new_ints(a, q.nr), *land_of = new_ints(a, q.nr);
    int *local = new_ints(a, q.nr), *root_land = new_ints_filled(a, q.nr, -1);
    if (occ_n == NULL || occ_r == NULL || parent == NULL || land_of == NULL || local == NULL
        || root_land == NULL)
        return -1;
    for (int r = 0; r < q.nr; r++)
        for (int c = q.bc[q.rb[r]]; c < q.bc[q.rb[r + 1]]; c++) {
            int v = q.cv[c];
            if (occ_n[v] >= 2) {
                PyErr_SetString(PyExc_ValueError, "a vertex with more than two corners");
                return -1;
            }
            occ_r[2 * v + occ_n[v]++] = r;
        }
    /* Union-find over regions joined by a shared vertex. */
    for (int r = 0; r < q.nr; r++)
        parent[r] = r;
    for (int v = 0; v < nv; v++)
        if (occ_n[v] == 2 && occ_r[2 * v] != occ_r[2 * v + 1]) {
            int x = find_root(parent, occ_r[2 * v]), y = find_root(parent, occ_r[2 * v + 1]);
            if (x != y)
                parent[x] = y;
        }
    int nl = 0;
    int *land_size = new_ints_filled(a, q.nr, 0);
    if (land_size == NULL)
        return -1;
    for (int r = 0; r < q.nr; r++) {
        int root = find_root(parent, r);
        if (root_land[root] < 0)
            root_land[root] = nl++;
        land_of[r] = root_land[root];
        local[r] = land_size[land_of[r]]++;
    }
    Land *lands = arena_alloc(a, sizeof(Land) * (size_t)(nl ? nl : 1));
    int *vmap = new_ints_filled(a, nv, -1);   /* vertex -> number within its land */
    int *gv = new_ints(a, nv);                 /* number within its land -> vertex */
    if (lands == NULL || vmap == NULL || gv == NULL)
        return -1;
    for (int l = 0; l < nl; l++) {
        Land *L = &lands[l];
        int nr = 0, nb = 0, nc = 0;
        for (int r = 0; r < q.nr; r++)
            if (land_of[r] == l) {
                int collapsed = region_lives[r] <= 3;
                nr++;
                nb += collapsed ? 1 : q.rb[r + 1] - q.rb[r];
                nc += q.bc[q.rb[r + 1]] - q.bc[q.rb[r]];
            }
        Raw w;
        if (raw_init(a, &w, nr, nb, nc) < 0)
            return -1;
        L->collapsed = arena_alloc(a, (size_t)nr);
        if (L->collapsed == NULL)
            return -1;
        int count = 0;
        for (int r = 0; r < q.nr; r++) {
            if (land_of[r] != l)
                continue;
            int collapsed = region_lives[r] <= 3;
            L->collapsed[w.nr] = (unsigned char)collapsed;
            for (int b = q.rb[r]; b < q.rb[r + 1]; b++) {
                for (int c = q.bc[b]; c < q.bc[b + 1]; c++) {
                    int v = q.cv[c];
                    if (vmap[v] < 0) {
                        vmap[v] = count;
                        gv[count++] = v;
                    }
                    raw_push(&w, vmap[v]);
                }
                if (!collapsed)
                    raw_end_boundary(&w);
            }
            if (collapsed)
                raw_end_boundary(&w);
            raw_end_region(&w);
        }
        L->nr = w.nr;
        L->nb = w.nb;
        L->nc = w.nc;
        L->rb = w.rb;
        L->bc = w.bc;
        L->cv = w.cv;
        L->nv = count;
        L->kind = arena_alloc(a, (size_t)(count ? count : 1));
        L->code = new_ints(a, count);
        L->ureg = new_ints(a, 2L * count);
        if (L->kind == NULL || L->code == NULL || L->ureg == NULL)
            return -1;
        for (int x = 0; x < count; x++) {
            int v = gv[x];
            L->code[x] = 0;
            L->ureg[2 * x] = L->ureg[2 * x + 1] = -1;
            if (lives[v] >= 2) {
                L->kind[x] = K_SPOT;
                L->code[x] = 3 - lives[v];     /* 0 for three lives, 1 for two */
            } else if (occ_n[v] == 1) {
                L->kind[x] = K_SPOT;
                L->code[x] = 2;
            } else if (occ_r[2 * v] == occ_r[2 * v + 1]) {
                L->kind[x] = K_LOWER;
            } else {
                L->kind[x] = K_UPPER;
                L->ureg[2 * x] = local[occ_r[2 * v]];
                L->ureg[2 * x + 1] = local[occ_r[2 * v + 1]];
            }
        }
    }
    *lands_out = lands;
    *nlands_out = nl;
    return 0;
}

/* ------------------------------------------------------------------ boundaries (canon._Boundary) */

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

static long factorial(int k)
{
    long f = 1;
    for (int i = 2; i <= k; i++)
        f *= i;
    return f;
}

/* _Boundary.__init__ for corners seq[0..n) of region r. firstpos: per vertex, all -1. */
static int bnd_init(Arena *a, Bnd *bd, const Land *L, int r, const int *seq, int n,
                    int *firstpos)
{
    bd->n = n;
    bd->region = r;
    bd->collapsed = L->collapsed[r];
    bd->nups = 0;
    bd->form_valid = 0;
    bd->ncand = 0;
    bd->base = new_ints(a, n);
    bd->up_pos = new_ints(a, n);
    bd->up_v = new_ints(a, n);
    bd->form = new_ints(a, n);
    if (bd->base == NULL || bd->up_pos == NULL || bd->up_v == NULL || bd->form == NULL)
        return -1;
    for (int i = 0; i < n; i++)
        if (L->kind[seq[i]] == K_UPPER) {
            bd->up_v[bd->nups] = seq[i];
            bd->up_pos[bd->nups++] = i;
        }
    if (bd->collapsed) {
        /* spots sorted by code, each lowercase pair twice, then the uppercase letters */
        int head = 0;
        for (int code = 0; code <= 2; code++)
            for (int i = 0; i < n; i++)
                if (L->kind[seq[i]] == K_SPOT && L->code[seq[i]] == code)
                    bd->base[head++] = code;
        for (int i = 0; i < n; i++)
            if (L->kind[seq[i]] == K_LOWER)
                bd->base[head++] = LOWER_PAIR;  /* each pair's two corners: twice */
        for (int k = 0; k < bd->nups; k++) {
            bd->up_pos[k] = head + k;
            bd->base[head + k] = 0;
        }
        if (bd->nups > 6) {
            PyErr_SetString(PyExc_ValueError, "collapsed region with more than 6 letters");
            return -1;
        }
        bd->cand_width = bd->nups;
        bd->cand_cap = (int)factorial(bd->nups);
    } else {
        for (int i = 0; i < n; i++) {
            int v = seq[i];
            if (L->kind[v] == K_SPOT) {
                bd->base[i] = L->code[v];
            } else if (L->kind[v] == K_LOWER) {
                int j = firstpos[v];
                if (j < 0) {
                    firstpos[v] = i;
                } else {
                    bd->base[j] = LOWER + (i - j);
                    bd->base[i] = LOWER + (n - (i - j));
                }
            } else {
                bd->base[i] = 0;
            }
        }
        for (int i = 0; i < n; i++)
            firstpos[seq[i]] = -1;
        bd->cand_width = 1;
        bd->cand_cap = n;
    }
    bd->cands = new_ints(a, (long)bd->cand_cap * (bd->cand_width ? bd->cand_width : 1));
    return bd->cands == NULL ? -1 : 0;
}

/* Colour of the region across the uppercase letter v seen from region r. */
static inline int other_colour(const Land *L, const int *colour, int v, int r)
{
    int r0 = L->ureg[2 * v], r1 = L->ureg[2 * v + 1];
    return colour[r0 == r ? r1 : r0];
}

/* Compare the rotations of codes[0..n) starting at i and at j. */
static int rot_cmp(const int *codes, int n, int i, int j)
{
    for (int t = 0; t < n; t++) {
        int x = codes[(i + t) % n], y = codes[(j + t) % n];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

/* Orders of the bag's uppercase letters (itertools.permutations order) whose colours
 * read as want[0..k): appended to bd->cands. */
static void bag_orders(Bnd *bd, const Land *L, const int *colour, const int *want, int depth,
                       int *perm, unsigned char *used)
{
    int k = bd->nups;
    if (depth == k) {
        int *row = bd->cands + (long)bd->ncand * k;
        for (int t = 0; t < k; t++)
            row[t] = bd->up_v[perm[t]];
        bd->ncand++;
        return;
    }
    for (int t = 0; t < k; t++) {
        if (used[t])
            continue;
        /* A prefix whose colours already differ from want cannot pass the filter. */
        if (UPPER_COLOUR + other_colour(L, colour, bd->up_v[t], bd->region) != want[depth])
            continue;
        used[t] = 1;
        perm[depth] = t;
        bag_orders(bd, L, colour, want, depth + 1, perm, used);
        used[t] = 0;
    }
}

/* _Boundary.refine: least form under the colours and the candidates reaching it.
 * codes: scratch of at least n ints. */
static void bnd_refine(Bnd *bd, const Land *L, const int *colour, int *codes)
{
    int n = bd->n, k = bd->nups;
    if (bd->form_valid && k == 0)
        return;                        /* no uppercase letter: independent of colours */
    memcpy(codes, bd->base, sizeof(int) * (size_t)n);
    for (int t = 0; t < k; t++)
        codes[bd->up_pos[t]] = UPPER_COLOUR + other_colour(L, colour, bd->up_v[t], bd->region);
    bd->form_valid = 1;
    bd->ncand = 0;
    if (bd->collapsed) {
        int head = n - k;
        for (int x = head + 1; x < n; x++)  /* sort the tail (insertion sort, k <= 3) */
            for (int y = x; y > head && codes[y - 1] > codes[y]; y--) {
                int tmp = codes[y];
                codes[y] = codes[y - 1];
                codes[y - 1] = tmp;
            }
        memcpy(bd->form, codes, sizeof(int) * (size_t)n);
        if (k <= 1) {
            for (int t = 0; t < k; t++)
                bd->cands[t] = bd->up_v[t];
            bd->ncand = 1;
        } else {
            int perm[6];
            unsigned char used[6] = {0};
            bag_orders(bd, L, colour, codes + head, 0, perm, used);
        }
        return;
    }
    int least = 0;
    for (int i = 1; i < n; i++)
        if (rot_cmp(codes, n, i, least) < 0)
            least = i;
    for (int t = 0; t < n; t++)
        bd->form[t] = codes[(least + t) % n];
    for (int i = 0; i < n; i++)
        if (rot_cmp(codes, n, i, least) == 0)
            bd->cands[bd->ncand++] = i;
}

/*
 * _Boundary.encode: codes of the boundary for one candidate, naming uppercase letters not
 * yet named (name_of[v] < 0) with the next numbers from nnames, in order of appearance.
 * The new names are returned in newv (at most nups) and undone in name_of on return.
 */
static int bnd_encode(const Bnd *bd, const int *cand, int *out, int *name_of, int nnames,
                      int *newv)
{
    int n = bd->n, k = bd->nups, nnew = 0;
    if (bd->collapsed) {
        int head = n - k;
        memcpy(out, bd->base, sizeof(int) * (size_t)head);
        for (int t = 0; t < k; t++) {
            int v = cand[t];
            if (name_of[v] < 0) {
                name_of[v] = nnames + nnew;
                newv[nnew++] = v;
            }
            out[head + t] = UPPER + name_of[v];
        }
    } else {
        int start = cand[0];
        for (int t = 0; t < n; t++)
            out[t] = bd->base[(start + t) % n];
        /* uppercase corners in order of position after the rotation */
        int first = 0;
        while (first < k && bd->up_pos[first] < start)
            first++;
        for (int s = 0; s < k; s++) {
            int t = (first + s) % k;
            int v = bd->up_v[t], pos = (bd->up_pos[t] - start + n) % n;
            if (name_of[v] < 0) {
                name_of[v] = nnames + nnew;
                newv[nnew++] = v;
            }
            out[pos] = UPPER + name_of[v];
        }
    }
    for (int t = 0; t < nnew; t++)
        name_of[newv[t]] = -1;
    return nnew;
}

/* ------------------------------------------------------------------ colours (canon._refine) */

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

static int form_cmp(const Bnd *x, const Bnd *y) { return seq_cmp(x->form, x->n, y->form, y->n); }

/* tuple(sorted forms) of region r1 in view o1 against region r2 in view o2. */
static int view_cmp(const Colouring *C, int r1, int o1, int r2, int o2)
{
    const int *rb = C->L->rb;
    int nb = C->L->nb;
    int n1 = rb[r1 + 1] - rb[r1], n2 = rb[r2 + 1] - rb[r2];
    const int *s1 = C->sorted_b + o1 * nb + rb[r1], *s2 = C->sorted_b + o2 * nb + rb[r2];
    for (int t = 0; t < n1 && t < n2; t++) {
        int c = form_cmp(&C->bnd[s1[t]], &C->bnd[s2[t]]);
        if (c)
            return c;
    }
    return (n1 > n2) - (n1 < n2);
}

/* (colour[r], genus, _region_form) compared as Python compares the tuples. */
static int region_sig_cmp(const Colouring *C, const int *colour, int r1, int r2)
{
    if (colour[r1] != colour[r2])
        return colour[r1] < colour[r2] ? -1 : 1;
    return view_cmp(C, r1, C->least_view[r1], r2, C->least_view[r2]);
}

static void refine_all(Colouring *C, int *scratch)
{
    for (int b = 0; b < 2 * C->L->nb; b++)
        bnd_refine(&C->bnd[b], C->L, C->colour, scratch);
}

/* The boundaries of each view of each region sorted by form, and each region's least view. */
static void sort_views(Colouring *C)
{
    const Land *L = C->L;
    for (int o = 0; o < 2; o++)
        for (int r = 0; r < L->nr; r++) {
            int *s = C->sorted_b + o * L->nb + L->rb[r];
            int nbr = L->rb[r + 1] - L->rb[r];
            for (int t = 0; t < nbr; t++)
                s[t] = o * L->nb + L->rb[r] + t;
            for (int x = 1; x < nbr; x++)
                for (int y = x; y > 0 && form_cmp(&C->bnd[s[y - 1]], &C->bnd[s[y]]) > 0; y--) {
                    int tmp = s[y];
                    s[y] = s[y - 1];
                    s[y - 1] = tmp;
                }
        }
    for (int r = 0; r < L->nr; r++)
        C->least_view[r] = !L->collapsed[r] && view_cmp(C, r, 1, r, 0) < 0;
}

/* canon._refine (and the one-region case of _Search.__init__): colours of the regions by
 * iterated refinement; on return every view is refined and sorted under the returned colours. */
static int compute_colours(Arena *a, Colouring *C)
{
    const Land *L = C->L;
    int count = L->nr;
    Mark m = arena_mark(a);
    int *scratch = new_ints(a, L->nc), *order = new_ints(a, count);
    int *fresh = new_ints(a, count);
    if (scratch == NULL || order == NULL || fresh == NULL)
        return -1;
    for (int r = 0; r < count; r++)
        C->colour[r] = 0;
    if (count == 1) {
        refine_all(C, scratch);
        sort_views(C);
        arena_release(a, m);
        return 0;
    }
    int distinct = 1;
    for (;;) {
        refine_all(C, scratch);
        sort_views(C);
        for (int r = 0; r < count; r++)
            order[r] = r;
        for (int x = 1; x < count; x++)           /* regions by signature */
            for (int y = x; y > 0 && region_sig_cmp(C, C->colour, order[y - 1], order[y]) > 0;
                 y--) {
                int tmp = order[y];
                order[y] = order[y - 1];
                order[y - 1] = tmp;
            }
        int ranks = 0;                            /* rank among the distinct signatures */
        for (int x = 0; x < count; x++) {
            if (x > 0 && region_sig_cmp(C, C->colour, order[x - 1], order[x]) != 0)
                ranks++;
            fresh[order[x]] = ranks;
        }
        ranks++;
        if (ranks == distinct)
            break;                                /* stable: keep the colours refined with */
        memcpy(C->colour, fresh, sizeof(int) * (size_t)count);
        distinct = ranks;
        if (distinct == count) {
            refine_all(C, scratch);
            sort_views(C);
            break;
        }
    }
    arena_release(a, m);
    return 0;
}

/* ------------------------------------------------------------------ search (canon._Search) */

/*
 * Automorphism pruning (canon.py, "automorphism pruning", has the argument). A path is the
 * list of choices from the root: a region with its view (0 as written, 1 mirrored), or a
 * boundary view o * nb + b with its candidate (index into its cands; -1 for a boundary
 * without uppercase letters, placed as its form). Two leaves with equal encodings give an
 * automorphism g of the land under the per-region mirrors: j-th region <-> j-th region
 * (mirrored when the views differ), j-th boundary <-> j-th boundary, a rotated boundary's
 * corners by x -> a + s*x as written (s = -1 when mirrored), uppercase letters by name. g
 * maps the search tree onto itself keeping leaf encodings, so at a node whose path g fixes
 * choice by choice, an option that g maps an explored sibling onto cannot hold a lesser
 * leaf: it is skipped (union-find over the node's options). A leaf equal to the reference
 * leaf (the first with the best encoding) also jumps back to the node where the two paths
 * part: the option being explored there is the image of an explored one.
 */

#define MAX_AUTS 64            /* automorphisms kept (fewer: less pruning) */
#define NO_JUMP 0x7fffffff

typedef struct {
    int *region, *flip;        /* per region: image, and 1 when g mirrors it */
    int *bnd, *ca, *cs;        /* per boundary as written: image, corner map x -> ca + cs*x */
    int *vertex;
} Aut;

typedef struct {
    Arena *a;
    const Land *L;
    Bnd *bnd;                  /* 2 * nb views */
    const int *colour;
    const int *least_view;
    const Colouring *C;
    int *order;                /* regions by (size of their colour class, colour), stable */
    unsigned char *region_used, *bnd_used;   /* bnd_used: per boundary as written */
    int regions_left;
    int *name_of;              /* uppercase vertex -> index, or -1 */
    int nnames;
    int *out;                  /* the encoding being built */
    int *best;
    int best_len, have_best;
    unsigned steps;            /* calls so far, to look at signals now and then */
    /* automorphism pruning */
    int prune;
    long leaves;               /* complete encodings reached */
    int depth;                 /* choices on the path */
    int *path_b, *path_id, *path_c;   /* per choice: boundary?, region or view, view or cand */
    int have_ref, ref_depth;
    int *ref_b, *ref_id, *ref_c, *ref_names;  /* the reference leaf: path, vertex per name */
    int *names;                /* scratch: vertex per name */
    int jump;                  /* depth to return to, or NO_JUMP */
    int nauts;
    Aut auts[MAX_AUTS];        /* each owns one malloc'ed block (freed by search_free) */
} Search;

static void search_free(Search *S)
{
    for (int i = 0; i < S->nauts; i++)
        free(S->auts[i].region);
    S->nauts = 0;
}

/* _Search._worse: the partial encoding is already greater than the best one. */
static int worse(const Search *S, int len)
{
    if (!S->have_best)
        return 0;
    int m = len < S->best_len ? len : S->best_len;
    return seq_cmp(S->out, m, S->best, m) > 0;
}

static void push_choice(Search *S, int is_bnd, int id, int c)
{
    S->path_b[S->depth] = is_bnd;
    S->path_id[S->depth] = id;
    S->path_c[S->depth] = c;
    S->depth++;
}

/* After a child returns at a node of depth d: 1 to return at once (a jump above d). */
static int jumped_over(Search *S, int d)
{
    if (S->jump < d)
        return 1;
    S->jump = NO_JUMP;
    return 0;
}

static void names_of_leaf(const Search *S, int *names)
{
    for (int v = 0; v < S->L->nv; v++)
        if (S->name_of[v] >= 0)
            names[S->name_of[v]] = v;
}

static void save_ref(Search *S)
{
    int d = S->depth;
    memcpy(S->ref_b, S->path_b, sizeof(int) * (size_t)d);
    memcpy(S->ref_id, S->path_id, sizeof(int) * (size_t)d);
    memcpy(S->ref_c, S->path_c, sizeof(int) * (size_t)d);
    names_of_leaf(S, S->ref_names);
    S->ref_depth = d;
    S->have_ref = 1;
}

/* canon._absolute: the corner as written where the rotation `start` of view o begins. */
static inline int corner_of(int o, int start, int n) { return o == 0 ? start : n - 1 - start; }

/* The automorphism from the reference leaf to the current one (equal encodings). */
static int add_aut(Search *S)
{
    const Land *L = S->L;
    int nb = L->nb;
    int *block = malloc(sizeof(int) * (2 * (size_t)L->nr + 3 * (size_t)nb + (size_t)L->nv + 1));
    if (block == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Aut *g = &S->auts[S->nauts++];
    g->region = block;
    g->flip = g->region + L->nr;
    g->bnd = g->flip + L->nr;
    g->ca = g->bnd + nb;
    g->cs = g->ca + nb;
    g->vertex = g->cs + nb;
    for (int j = 0; j < S->depth; j++) {
        int x = S->ref_id[j], y = S->path_id[j];
        if (!S->ref_b[j]) {
            g->region[x] = y;
            g->flip[x] = S->ref_c[j] ^ S->path_c[j];
            continue;
        }
        int bx = x % nb, by = y % nb, ox = x / nb, oy = y / nb;
        g->bnd[bx] = by;
        const Bnd *vx = &S->bnd[x];
        if (S->ref_c[j] >= 0 && !vx->collapsed) {
            int n = vx->n;
            int cx = corner_of(ox, vx->cands[S->ref_c[j]], n);
            int cy = corner_of(oy, S->bnd[y].cands[S->path_c[j]], n);
            int s = ox == oy ? 1 : -1;
            g->cs[bx] = s;
            g->ca[bx] = ((cy - s * cx) % n + n) % n;
        }
    }
    names_of_leaf(S, S->names);
    for (int t = 0; t < S->nnames; t++)
        g->vertex[S->ref_names[t]] = S->names[t];
    return 0;
}

/* A complete encoding: keep the least; a repeat of the best gives an automorphism and a
 * jump back to where its path parts from the reference's. */
static int at_leaf(Search *S, int len)
{
    S->leaves++;
    int c = S->have_best ? seq_cmp(S->out, len, S->best, S->best_len) : -1;
    if (c < 0) {
        memcpy(S->best, S->out, sizeof(int) * (size_t)len);
        S->best_len = len;
        S->have_best = 1;
        if (S->prune)
            save_ref(S);
        return 0;
    }
    if (c > 0 || !S->prune || !S->have_ref)
        return 0;
    int j = 0;
    while (j < S->depth && S->ref_b[j] == S->path_b[j] && S->ref_id[j] == S->path_id[j]
           && S->ref_c[j] == S->path_c[j])
        j++;
    if (j == S->depth || S->ref_depth != S->depth)
        return 0;                                  /* (cannot happen: distinct leaves) */
    if (S->nauts < MAX_AUTS && add_aut(S) < 0)
        return -1;
    S->jump = j;
    return 0;
}

/* The view g maps view `id` (o * nb + b) onto, and for a rotation the start it maps
 * candidate c's start onto (-1 for a bag or a boundary placed as its form). */
static int aut_view(const Search *S, const Aut *g, int id, int c, int *start)
{
    int nb = S->L->nb, b = id % nb, o = id / nb;
    const Bnd *bd = &S->bnd[id];
    int o2 = o ^ g->flip[bd->region];
    *start = -1;
    if (c >= 0 && !bd->collapsed) {
        int n = bd->n;
        int x = ((g->ca[b] + g->cs[b] * corner_of(o, bd->cands[c], n)) % n + n) % n;
        *start = corner_of(o2, x, n);      /* corner_of is its own inverse */
    }
    return o2 * nb + g->bnd[b];
}

/* g fixes the choice: the region with its view, or the boundary view with its rotation
 * start / letter order. */
static int aut_fixes(const Search *S, const Aut *g, int is_bnd, int id, int c)
{
    if (!is_bnd)
        return g->region[id] == id && g->flip[id] == 0;
    int start;
    if (aut_view(S, g, id, c, &start) != id)
        return 0;
    if (c < 0)
        return 1;
    const Bnd *bd = &S->bnd[id];
    if (!bd->collapsed)
        return start == bd->cands[c];
    const int *row = bd->cands + (long)c * bd->cand_width;
    for (int t = 0; t < bd->nups; t++)
        if (g->vertex[row[t]] != row[t])
            return 0;
    return 1;
}

/* Orbits of the options of one node under the stored automorphisms fixing its path.
 * Options are regions with their views (ids, cs = views) or boundary views with their
 * candidates (ids, cs = cands). */
typedef struct {
    int m, seen, is_bnd;
    const int *ids, *cs;
    int *parent;
    unsigned char *explored;
} Orbits;

/* Index among the options of g(option o), or -1. */
static int aut_image(const Search *S, const Aut *g, const Orbits *O, int o)
{
    const int *ids = O->ids, *cs = O->cs;
    int m = O->m;
    if (!O->is_bnd) {
        int r = g->region[ids[o]], v = cs[o] ^ g->flip[ids[o]];
        for (int k = 0; k < m; k++)
            if (ids[k] == r && cs[k] == v)
                return k;
        return -1;
    }
    int start, id2 = aut_view(S, g, ids[o], cs[o], &start);
    const Bnd *bd = &S->bnd[ids[o]], *bd2 = &S->bnd[id2];
    if (!bd->collapsed) {
        for (int k = 0; k < m; k++)
            if (ids[k] == id2 && bd2->cands[cs[k]] == start)
                return k;
        return -1;
    }
    const int *row = bd->cands + (long)cs[o] * bd->cand_width;
    for (int k = 0; k < m; k++) {
        if (ids[k] != id2)
            continue;
        const int *row2 = bd2->cands + (long)cs[k] * bd2->cand_width;
        int t = 0;
        while (t < bd->nups && g->vertex[row[t]] == row2[t])
            t++;
        if (t == bd->nups)
            return k;
    }
    return -1;
}

static int orbits_init(Search *S, Orbits *O, int is_bnd, const int *ids, const int *cs, int m)
{
    O->m = m;
    O->seen = 0;
    O->is_bnd = is_bnd;
    O->ids = ids;
    O->cs = cs;
    O->parent = new_ints(S->a, m);
    O->explored = arena_alloc(S->a, (size_t)m);
    if (O->parent == NULL || O->explored == NULL)
        return -1;
    for (int i = 0; i < m; i++) {
        O->parent[i] = i;
        O->explored[i] = 0;
    }
    return 0;
}

/* 1 if option i lies in the orbit of an explored option (skip it), else mark it explored. */
static int orbit_skip(Search *S, Orbits *O, int i)
{
    while (O->seen < S->nauts) {
        const Aut *g = &S->auts[O->seen++];
        int fixes = 1;
        for (int j = 0; j < S->depth && fixes; j++)
            fixes = aut_fixes(S, g, S->path_b[j], S->path_id[j], S->path_c[j]);
        if (!fixes)
            continue;
        for (int o = 0; o < O->m; o++) {
            int k = aut_image(S, g, O, o);
            if (k < 0)
                continue;
            int x = find_root(O->parent, o), y = find_root(O->parent, k);
            if (x != y) {
                O->parent[x] = y;
                O->explored[y] |= O->explored[x];
            }
        }
    }
    int root = find_root(O->parent, i);
    if (O->explored[root])
        return 1;
    O->explored[root] = 1;
    return 0;
}

/* The least unused boundary view of region r in view o (first in order among ties). */
static int least_left(const Search *S, int r, int o)
{
    const Land *L = S->L;
    int least = -1;
    for (int b = L->rb[r]; b < L->rb[r + 1]; b++)
        if (!S->bnd_used[b]
            && (least < 0 || form_cmp(&S->bnd[o * L->nb + b], &S->bnd[least]) < 0))
            least = o * L->nb + b;
    return least;
}

/* _Search._first_chunk: the codes region r starts with in view o when placed now (into
 * buf, room for the longest boundary); returns their count. scratch: as much room. */
static int first_chunk(Search *S, int r, int o, int *buf, int *scratch, int *newv)
{
    const Land *L = S->L;
    int least = least_left(S, r, o);
    Bnd *bd = &S->bnd[least];
    int n = bd->n, have = 0;
    if (bd->nups == 0) {
        memcpy(buf, bd->form, sizeof(int) * (size_t)n);
        return n;
    }
    for (int b = L->rb[r]; b < L->rb[r + 1]; b++) {
        Bnd *tb = &S->bnd[o * L->nb + b];
        if (S->bnd_used[b] || form_cmp(tb, bd) != 0)
            continue;
        for (int c = 0; c < tb->ncand; c++) {
            bnd_encode(tb, tb->cands + (long)c * tb->cand_width, scratch, S->name_of,
                       S->nnames, newv);
            if (!have || seq_cmp(scratch, n, buf, n) < 0)
                memcpy(buf, scratch, sizeof(int) * (size_t)n);
            have = 1;
        }
    }
    return n;
}

static int search_boundaries(Search *S, int r, int o, int len);

/* Region r holds an uppercase letter that already has a name. */
static int touches_named(const Search *S, int r)
{
    const Land *L = S->L;
    for (int b = L->rb[r]; b < L->rb[r + 1]; b++) {
        const Bnd *bd = &S->bnd[b];
        for (int t = 0; t < bd->nups; t++)
            if (S->name_of[bd->up_v[t]] >= 0)
                return 1;
    }
    return 0;
}

/* _Search._regions */
static int search_regions(Search *S, int len)
{
    /* Lands with many interchangeable regions may take long: let Ctrl-C through. */
    if ((++S->steps & 0xffff) == 0 && PyErr_CheckSignals() < 0)
        return -1;
    if (S->regions_left == 0)
        return at_leaf(S, len);
    if (worse(S, len))
        return 0;
    const Land *L = S->L;
    /* The next class: regions with an already named letter first (regions sharing no
     * letter are never combined independently: that is exponential), then by (size of
     * colour class, colour); both are invariants of the path so far. */
    int touching = 0;
    for (int k = 0; k < L->nr && !touching; k++)
        touching = !S->region_used[S->order[k]] && touches_named(S, S->order[k]);
    int first = -1, k0 = 0, k1 = 0;
    for (int k = 0; k < L->nr; k++) {
        int r = S->order[k];
        if (S->region_used[r] || (touching && !touches_named(S, r)))
            continue;
        if (first < 0) {
            first = S->colour[r];
            k0 = k;
        } else if (S->colour[r] != first) {
            break;
        }
        k1 = k + 1;
    }
    int status = -1, depth = S->depth;
    Mark mark = arena_mark(S->a);
    int *ids = new_ints(S->a, 2L * (k1 - k0)), *views = new_ints(S->a, 2L * (k1 - k0));
    if (ids == NULL || views == NULL)
        goto done;
    int m = 0;
    for (int k = k0; k < k1; k++) {
        int r = S->order[k];
        if (S->region_used[r] || (touching && !touches_named(S, r)))
            continue;
        for (int o = 0; o < 2; o++) {
            /* the views a region keeps: its least, or both when they tie (not for bags) */
            if (L->collapsed[r] ? o == 1
                : (o != S->least_view[r] && view_cmp(S->C, r, o, r, S->least_view[r]) != 0))
                continue;
            ids[m] = r;
            views[m++] = o;
        }
    }
    if (m > 1) {
        /* Regions of one class start at the same place: only the least start can win. */
        int width = 1;
        for (int b = 0; b < L->nb; b++)
            if (S->bnd[b].n > width)
                width = S->bnd[b].n;
        int *chunks = new_ints(S->a, (long)m * width), *lens = new_ints(S->a, m);
        int *scratch = new_ints(S->a, width), *newv = new_ints(S->a, width);
        if (chunks == NULL || lens == NULL || scratch == NULL || newv == NULL)
            goto done;
        int least = 0;
        for (int i = 0; i < m; i++) {
            lens[i] = first_chunk(S, ids[i], views[i], chunks + (long)i * width, scratch, newv);
            if (seq_cmp(chunks + (long)i * width, lens[i], chunks + (long)least * width,
                        lens[least]) < 0)
                least = i;
        }
        int kept = 0;
        for (int i = 0; i < m; i++)
            if (seq_cmp(chunks + (long)i * width, lens[i], chunks + (long)least * width,
                        lens[least]) == 0) {
                ids[kept] = ids[i];
                views[kept++] = views[i];
            }
        m = kept;
    }
    Orbits O;
    int orbits = S->prune && m > 1;
    if (orbits && orbits_init(S, &O, 0, ids, views, m) < 0)
        goto done;
    for (int i = 0; i < m; i++) {
        if (orbits && orbit_skip(S, &O, i))
            continue;
        int r = ids[i];
        S->region_used[r] = 1;
        S->regions_left--;
        push_choice(S, 0, r, views[i]);
        int rc = search_boundaries(S, r, views[i], len);
        S->depth--;
        S->region_used[r] = 0;
        S->regions_left++;
        if (rc < 0)
            goto done;
        if (jumped_over(S, depth))
            break;
    }
    status = 0;
done:
    arena_release(S->a, mark);
    return status;
}

/* _Search._boundaries: place the least boundary left in region r (view o), branching on
 * ties. */
static int search_boundaries(Search *S, int r, int o, int len)
{
    const Land *L = S->L;
    int nb = L->nb, lo = L->rb[r], hi = L->rb[r + 1];
    int least = least_left(S, r, o);
    if (least < 0) {                               /* region done (plane: no genus code) */
        S->out[len] = END_REGION;
        return search_regions(S, len + 1);
    }
    if (worse(S, len))
        return 0;
    Bnd *bd = &S->bnd[least];                      /* the first of the tied boundaries */
    int n = bd->n, depth = S->depth;
    if (bd->nups == 0) {
        /* Without uppercase letters a boundary encodes as its form, whatever the order. */
        memcpy(S->out + len, bd->form, sizeof(int) * (size_t)n);
        S->out[len + n] = END_BOUNDARY;
        S->bnd_used[least % nb] = 1;
        push_choice(S, 1, least, -1);
        int rc = search_boundaries(S, r, o, len + n + 1);
        S->depth--;
        S->bnd_used[least % nb] = 0;
        if (rc == 0)
            jumped_over(S, depth);
        return rc;
    }
    /* Every candidate of every tied boundary; keep the least codes. */
    int status = -1;
    Mark m = arena_mark(S->a);
    int options = 0, width = 1;                    /* width: most new names per option */
    for (int b = least % nb; b < hi; b++) {
        const Bnd *tb = &S->bnd[o * nb + b];
        if (!S->bnd_used[b] && form_cmp(tb, bd) == 0) {
            options += tb->ncand;
            if (tb->nups > width)
                width = tb->nups;
        }
    }
    (void)lo;
    int *enc = new_ints(S->a, (long)options * n), *newv = new_ints(S->a, (long)options * width);
    int *nnew = new_ints(S->a, options), *owner = new_ints(S->a, options);
    int *cidx = new_ints(S->a, options), *kept = new_ints(S->a, options);
    if (enc == NULL || newv == NULL || nnew == NULL || owner == NULL || cidx == NULL
        || kept == NULL)
        goto done;
    int x = 0, chunk = 0;
    for (int b = least % nb; b < hi; b++) {
        Bnd *tb = &S->bnd[o * nb + b];
        if (S->bnd_used[b] || form_cmp(tb, bd) != 0)
            continue;
        for (int c = 0; c < tb->ncand; c++, x++) {
            owner[x] = o * nb + b;
            cidx[x] = c;
            nnew[x] = bnd_encode(tb, tb->cands + (long)c * tb->cand_width, enc + (long)x * n,
                                 S->name_of, S->nnames, newv + (long)x * width);
            if (seq_cmp(enc + (long)x * n, n, enc + (long)chunk * n, n) < 0)
                chunk = x;
        }
    }
    int nkept = 0;
    for (x = 0; x < options; x++)
        if (seq_cmp(enc + (long)x * n, n, enc + (long)chunk * n, n) == 0)
            kept[nkept++] = x;
    Orbits O;
    int *ids = NULL, *cs = NULL;
    if (S->prune && nkept > 1) {
        ids = new_ints(S->a, nkept);
        cs = new_ints(S->a, nkept);
        if (ids == NULL || cs == NULL)
            goto done;
        for (int i = 0; i < nkept; i++) {
            ids[i] = owner[kept[i]];
            cs[i] = cidx[kept[i]];
        }
        if (orbits_init(S, &O, 1, ids, cs, nkept) < 0)
            goto done;
    }
    for (int i = 0; i < nkept; i++) {
        x = kept[i];
        if (ids != NULL && orbit_skip(S, &O, i))
            continue;
        for (int t = 0; t < nnew[x]; t++)
            S->name_of[newv[(long)x * width + t]] = S->nnames + t;
        S->nnames += nnew[x];
        memcpy(S->out + len, enc + (long)x * n, sizeof(int) * (size_t)n);
        S->out[len + n] = END_BOUNDARY;
        S->bnd_used[owner[x] % nb] = 1;
        push_choice(S, 1, owner[x], cidx[x]);
        int rc = search_boundaries(S, r, o, len + n + 1);
        S->depth--;
        S->bnd_used[owner[x] % nb] = 0;
        S->nnames -= nnew[x];
        for (int t = 0; t < nnew[x]; t++)
            S->name_of[newv[(long)x * width + t]] = -1;
        if (rc < 0)
            goto done;
        if (jumped_over(S, depth))
            break;
    }
    status = 0;
done:
    arena_release(S->a, m);
    return status;
}

/* canon.encode_land: _Search(land).run(), into *enc (arena) of *len codes. */
static int encode_land(Arena *a, const Land *L, int **enc, int *len)
{
    int status = -1, nb = L->nb;
    int *best = new_ints(a, (long)L->nc + L->nb + L->nr);
    if (best == NULL)
        return -1;
    Mark m = arena_mark(a);
    Bnd *bnd = arena_alloc(a, sizeof(Bnd) * (size_t)(nb ? 2 * nb : 1));
    int *firstpos = new_ints_filled(a, L->nv, -1), *seq = new_ints(a, L->nc);
    Colouring C;
    Search S;
    S.nauts = 0;
    C.L = L;
    C.bnd = bnd;
    C.colour = new_ints(a, L->nr);
    C.sorted_b = new_ints(a, 2L * nb);
    C.least_view = new_ints(a, L->nr);
    int *size = new_ints_filled(a, L->nr, 0);
    if (bnd == NULL || firstpos == NULL || seq == NULL || C.colour == NULL || C.sorted_b == NULL
        || C.least_view == NULL || size == NULL)
        goto done;
    for (int o = 0; o < 2; o++)
        for (int r = 0; r < L->nr; r++)
            for (int b = L->rb[r]; b < L->rb[r + 1]; b++) {
                int lo = L->bc[b], n = L->bc[b + 1] - lo;
                for (int t = 0; t < n; t++)
                    seq[t] = L->cv[o ? lo + n - 1 - t : lo + t];
                if (bnd_init(a, &bnd[o * nb + b], L, r, seq, n, firstpos) < 0)
                    goto done;
            }
    if (compute_colours(a, &C) < 0)
        goto done;
    S.a = a;
    S.L = L;
    S.bnd = bnd;
    S.C = &C;
    S.colour = C.colour;
    S.least_view = C.least_view;
    S.order = new_ints(a, L->nr);
    S.region_used = arena_alloc(a, (size_t)L->nr + 1);
    S.bnd_used = arena_alloc(a, (size_t)L->nb + 1);
    S.name_of = new_ints_filled(a, L->nv, -1);
    S.out = new_ints(a, (long)L->nc + L->nb + L->nr);
    int maxdepth = L->nr + L->nb + 1;
    S.path_b = new_ints(a, maxdepth);
    S.path_id = new_ints(a, maxdepth);
    S.path_c = new_ints(a, maxdepth);
    S.ref_b = new_ints(a, maxdepth);
    S.ref_id = new_ints(a, maxdepth);
    S.ref_c = new_ints(a, maxdepth);
    S.ref_names = new_ints(a, L->nv + 1);
    S.names = new_ints(a, L->nv + 1);
    if (S.order == NULL || S.region_used == NULL || S.bnd_used == NULL || S.name_of == NULL
        || S.out == NULL || S.path_b == NULL || S.path_id == NULL || S.path_c == NULL
        || S.ref_b == NULL || S.ref_id == NULL || S.ref_c == NULL || S.ref_names == NULL
        || S.names == NULL)
        goto done;
    memset(S.region_used, 0, (size_t)L->nr + 1);
    memset(S.bnd_used, 0, (size_t)L->nb + 1);
    /* sorted(range(R), key=(size of the colour class, colour)): stable */
    for (int r = 0; r < L->nr; r++)
        size[S.colour[r]]++;
    for (int r = 0; r < L->nr; r++) {
        int y = r;
        S.order[y] = r;
        while (y > 0) {
            int p = S.order[y - 1], q = S.order[y];
            int kp = size[S.colour[p]], kq = size[S.colour[q]];
            if (kp < kq || (kp == kq && S.colour[p] <= S.colour[q]))
                break;
            S.order[y - 1] = q;
            S.order[y] = p;
            y--;
        }
    }
    S.regions_left = L->nr;
    S.nnames = 0;
    S.steps = 0;
    S.best = best;
    S.best_len = 0;
    S.have_best = 0;
    S.prune = 1;
    S.leaves = 0;
    S.depth = 0;
    S.have_ref = 0;
    S.ref_depth = 0;
    S.jump = NO_JUMP;
    if (search_regions(&S, 0) < 0)
        goto done;
    *enc = best;
    *len = S.best_len;
    status = 0;
done:
    search_free(&S);
    arena_release(a, m);
    return status;
}

/* ------------------------------------------------------------------ printing (format_encoding) */

/* notation.upper_name / lower_name: A..Y then Z(25), Z(26), ... */
static char *put_name(char *s, char first, char z, int index)
{
    if (index < 25) {
        *s++ = (char)(first + index);
        return s;
    }
    return s + sprintf(s, "%c(%d)", z, index);
}

/* _format_boundary: lowercase named by first appearance, partners found by distance. */
static char *put_boundary(char *s, const int *codes, int n, int *pending)
{
    int count = 0;
    for (int i = 0; i <= n; i++)
        pending[i] = -1;
    for (int i = 0; i < n; i++) {
        int c = codes[i];
        if (c >= UPPER) {
            s = put_name(s, 'A', 'Z', c - UPPER);
        } else if (c >= LOWER_PAIR) {
            int name = pending[i];
            if (name >= 0) {
                pending[i] = -1;
            } else {
                name = count++;
                pending[c == LOWER_PAIR ? i + 1 : (i + c - LOWER) % n] = name;
            }
            s = put_name(s, 'a', 'z', name);
        } else {
            s += sprintf(s, "%d", c);
        }
    }
    return s;
}

/* canon.format_encoding with _join_boundaries: a leading run of lone 0s prints as 0*k. */
static char *format_encoding(Arena *a, const int *enc, int len)
{
    /* Longest output per code: "Z(" + 10 digits + ")"; one separator per terminator. */
    char *text = arena_alloc(a, (size_t)len * 14 + 1);
    int *pending = new_ints(a, (long)len + 1);
    if (text == NULL || pending == NULL)
        return NULL;
    char *s = text;
    int i = 0, first_region = 1;
    while (i < len) {
        if (!first_region)
            *s++ = '|';
        first_region = 0;
        int zeros = 0;                             /* leading boundaries that are "0" */
        while (i + 1 < len && enc[i] == 0 && enc[i + 1] == END_BOUNDARY) {
            zeros++;
            i += 2;
        }
        if (zeros >= 2)
            s += sprintf(s, "0*%d", zeros);
        else if (zeros == 1)
            *s++ = '0';
        int first_part = zeros == 0;
        while (i < len && enc[i] != END_REGION) {
            int start = i;
            while (enc[i] >= 0)
                i++;
            if (!first_part)
                *s++ = '.';
            first_part = 0;
            s = put_boundary(s, enc + start, i - start, pending);
            i++;                                   /* END_BOUNDARY */
        }
        i++;                                       /* END_REGION */
    }
    *s = '\0';
    return text;
}

/* ------------------------------------------------------------------ Python interface */

/*
 * Memo of canonical strings by land shape (canon._shape / canon._MEMO): the land as
 * written, vertices numbered by first appearance (as normalize numbers them), packed as
 * int32 codes -- a region starts with -2 (-4 if collapsed), a boundary with -1, a corner
 * is 8 * vertex + tag (tag: spot code 0/1/2, 3 lowercase, 4 uppercase). The shape fixes
 * the land up to renaming, so it fixes the canonical string. Cleared when full.
 *
 * A C hash table (open addressing, linear probing) from the shape to the str, so that a
 * lookup builds no Python object: the shapes live in one growing pool of int32, each
 * slot holds the shape's hash, its place in the pool and a new reference to the str.
 */
#define MEMO_LIMIT 1000000

typedef struct {
    uint64_t hash;             /* 0: an empty slot (shape_hash is never 0) */
    size_t at;                 /* first code of the shape in the pool */
    uint32_t len;              /* codes in the shape */
    PyObject *text;            /* the canonical string (a new reference) */
} MemoSlot;

typedef struct {
    MemoSlot *slots;
    size_t cap;                /* a power of 2, or 0 before the first insert */
    size_t count;
    int32_t *pool;
    size_t pool_used, pool_cap;
} Memo;

static Memo memo;

static uint64_t shape_hash(const int32_t *shape, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ (uint64_t)n;
    size_t i = 0;
    for (; i + 1 < n; i += 2) {        /* two codes a step */
        uint64_t w = (uint32_t)shape[i] | (uint64_t)(uint32_t)shape[i + 1] << 32;
        h = (h ^ w) * 0x9e3779b97f4a7c15u;
        h ^= h >> 32;
    }
    if (i < n)
        h = (h ^ (uint32_t)shape[i]) * 0x9e3779b97f4a7c15u;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 32;
    return h ? h : 1;
}

/* The slot holding the shape, or the empty slot where it would go. */
static MemoSlot *memo_slot(const int32_t *shape, size_t n, uint64_t h)
{
    size_t mask = memo.cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        MemoSlot *s = &memo.slots[i];
        if (s->hash == 0)
            return s;
        if (s->hash == h && s->len == n
            && memcmp(memo.pool + s->at, shape, n * sizeof(int32_t)) == 0)
            return s;
    }
}

/* The memoised string of the shape (borrowed), or NULL. */
static PyObject *memo_get(const int32_t *shape, size_t n, uint64_t h)
{
    if (memo.cap == 0)
        return NULL;
    return memo_slot(shape, n, h)->text;
}

static void memo_clear(void)
{
    for (size_t i = 0; i < memo.cap; i++)
        if (memo.slots[i].hash != 0) {
            Py_CLEAR(memo.slots[i].text);
            memo.slots[i].hash = 0;
        }
    memo.count = 0;
    memo.pool_used = 0;
}

/* Double the table (or make the first one); -1 with MemoryError set. */
static int memo_grow(void)
{
    size_t cap = memo.cap ? 2 * memo.cap : 1024;
    MemoSlot *slots = calloc(cap, sizeof(MemoSlot));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    MemoSlot *old = memo.slots;
    size_t old_cap = memo.cap;
    memo.slots = slots;
    memo.cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].hash != 0) {
            size_t j = (size_t)old[i].hash & (cap - 1);
            while (slots[j].hash != 0)
                j = (j + 1) & (cap - 1);
            slots[j] = old[i];
        }
    free(old);
    return 0;
}

/* Remember text (a new reference is taken) for the shape not yet in the memo. */
static int memo_put(const int32_t *shape, size_t n, uint64_t h, PyObject *text)
{
    if (memo.count >= MEMO_LIMIT)
        memo_clear();
    if (2 * (memo.count + 1) > memo.cap && memo_grow() < 0)
        return -1;
    if (memo.pool_cap - memo.pool_used < n) {
        size_t cap = memo.pool_cap ? memo.pool_cap : 1 << 16;
        while (cap - memo.pool_used < n)
            cap *= 2;
        int32_t *pool = realloc(memo.pool, cap * sizeof(int32_t));
        if (pool == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memo.pool = pool;
        memo.pool_cap = cap;
    }
    MemoSlot *s = memo_slot(shape, n, h);
    memcpy(memo.pool + memo.pool_used, shape, n * sizeof(int32_t));
    s->hash = h;
    s->at = memo.pool_used;
    s->len = (uint32_t)n;
    s->text = Py_NewRef(text);
    memo.pool_used += n;
    memo.count++;
    return 0;
}

/*
 * The same land written in a tidier order, so that more of the ways one land is written
 * share a memo key: each boundary rotated to its least rotation of corner codes, a bag's
 * corners sorted by code (equal codes: letters already named by name), the boundaries of a
 * region and then the regions sorted by those codes (ties keep their order), and vertices
 * renumbered by first appearance. Every step
 * only rewrites the land as an isomorphic one, so its canonical string is unchanged: a key
 * that names the tidy land is as sound as one that names the land as it came.
 */
typedef struct {
    const Land *L;
    const int *cc;             /* per corner: spot code, LOWER + distance, or UPPER */
    const int *start;          /* per boundary: first corner of its least rotation */
    unsigned char *tied;       /* per boundary: another rotation reads the same codes */
} TidyOrder;

/* Boundaries compared by length, then codes read from their least rotations. */
static int tidy_bnd_cmp(const TidyOrder *T, int b1, int b2)
{
    const Land *L = T->L;
    const int *cc = T->cc;
    int lo1 = L->bc[b1], hi1 = L->bc[b1 + 1], lo2 = L->bc[b2], hi2 = L->bc[b2 + 1];
    int n = hi1 - lo1;
    if (n != hi2 - lo2)
        return n < hi2 - lo2 ? -1 : 1;
    int i = T->start[b1], j = T->start[b2];
    for (int t = 0; t < n; t++) {
        int x = cc[i], y = cc[j];
        if (x != y)
            return x < y ? -1 : 1;
        if (++i == hi1)
            i = lo1;
        if (++j == hi2)
            j = lo2;
    }
    return 0;
}

/* Regions compared by bag or not, number of boundaries, then their sorted boundaries. */
static int tidy_region_cmp(const TidyOrder *T, const int *bord, int r1, int r2)
{
    const Land *L = T->L;
    if (L->collapsed[r1] != L->collapsed[r2])
        return L->collapsed[r1] < L->collapsed[r2] ? -1 : 1;
    int n1 = L->rb[r1 + 1] - L->rb[r1], n2 = L->rb[r2 + 1] - L->rb[r2];
    if (n1 != n2)
        return n1 < n2 ? -1 : 1;
    for (int t = 0; t < n1; t++) {
        int c = tidy_bnd_cmp(T, bord[L->rb[r1] + t], bord[L->rb[r2] + t]);
        if (c)
            return c;
    }
    return 0;
}

/* Least rotations, then the boundaries of each region and the regions, sorted by codes. */
static void tidy_sort(TidyOrder *T, int *bord, int *rord)
{
    const Land *L = T->L;
    const int *cc = T->cc;
    int *start = (int *)T->start;
    for (int r = 0; r < L->nr; r++) {
        for (int b = L->rb[r]; b < L->rb[r + 1]; b++) {
            int lo = L->bc[b], n = L->bc[b + 1] - lo;
            start[b] = lo;
            T->tied[b] = 0;
            if (L->collapsed[r])
                continue;              /* a bag: sorted when written out */
            int hi = lo + n;
            for (int c = lo + 1; c < hi; c++) {  /* least rotation, first of equals */
                int i = c, j = start[b], t = 0;
                for (; t < n; t++) {
                    if (cc[i] != cc[j]) {
                        if (cc[i] < cc[j]) {
                            start[b] = c;
                            T->tied[b] = 0;
                        }
                        break;
                    }
                    if (++i == hi)
                        i = lo;
                    if (++j == hi)
                        j = lo;
                }
                if (t == n)
                    T->tied[b] = 1;
            }
        }
        int *s = bord + L->rb[r], n = L->rb[r + 1] - L->rb[r];
        for (int t = 0; t < n; t++)
            s[t] = L->rb[r] + t;
        for (int x = 1; x < n; x++)
            for (int y = x; y > 0 && tidy_bnd_cmp(T, s[y - 1], s[y]) > 0; y--) {
                int tmp = s[y];
                s[y] = s[y - 1];
                s[y - 1] = tmp;
            }
        rord[r] = r;
    }
    for (int x = 1; x < L->nr; x++)
        for (int y = x; y > 0 && tidy_region_cmp(T, bord, rord[y - 1], rord[y]) > 0; y--) {
            int tmp = rord[y];
            rord[y] = rord[y - 1];
            rord[y - 1] = tmp;
        }
}

/* Of the rotations of boundary b that read its least codes, the one whose letters named
 * already read the least names (unnamed last; ties: the first). Any rotation writes the
 * same land, so this only makes more ways of writing one land share a key. */
static int named_rotation(const TidyOrder *T, const int *vmap, int b)
{
    const Land *L = T->L;
    const int *cc = T->cc;
    int lo = L->bc[b], hi = L->bc[b + 1], n = hi - lo, best = T->start[b];
    for (int c = lo; c < hi; c++) {
        if (c == best)
            continue;
        int i = c, j = best, t = 0, names = 0;
        for (; t < n && cc[i] == cc[j]; t++) {
            if (names == 0) {
                unsigned x = (unsigned)vmap[L->cv[i]], y = (unsigned)vmap[L->cv[j]];
                names = (x > y) - (x < y);
            }
            if (++i == hi)
                i = lo;
            if (++j == hi)
                j = lo;
        }
        if (t == n && names < 0)
            best = c;
    }
    return best;
}

/* In a bag, corner x goes after corner y: a greater code, or the same code and a letter
 * named already with a greater name, or named while y's letter is not. A bag is a set,
 * so any order of it writes the same land. */
static inline int bag_after(const int *cc, const int *vmap, const int *cv, int x, int y)
{
    if (cc[x] != cc[y])
        return cc[x] > cc[y];
    return (unsigned)vmap[cv[x]] > (unsigned)vmap[cv[y]];
}

/* The shape of the tidy land into shape (room for nc + nb + nr codes), its length in *len. */
static int tidy_land(Arena *a, const Land *L, int32_t *shape, size_t *len)
{
    int nc = L->nc, nb = L->nb, nr = L->nr, nv = L->nv;
    int *cc = new_ints(a, nc), *start = new_ints(a, nb), *bord = new_ints(a, nb);
    int *rord = new_ints(a, nr), *rnew = new_ints(a, nr), *firstpos = new_ints_filled(a, nv, -1);
    int *vmap = new_ints_filled(a, nv, -1);
    if (cc == NULL || start == NULL || bord == NULL || rord == NULL || rnew == NULL
        || firstpos == NULL || vmap == NULL)
        return -1;
    unsigned char *tied = arena_alloc(a, (size_t)nb + 1);
    if (tied == NULL)
        return -1;
    TidyOrder T = {L, cc, start, tied};
    for (int r = 0; r < nr; r++)
        for (int b = L->rb[r]; b < L->rb[r + 1]; b++) {
            int lo = L->bc[b], n = L->bc[b + 1] - lo;
            for (int c = lo; c < lo + n; c++) {
                int v = L->cv[c];
                if (L->kind[v] == K_SPOT)
                    cc[c] = L->code[v];
                else if (L->kind[v] == K_UPPER)
                    cc[c] = UPPER;
                else if (L->collapsed[r])
                    cc[c] = LOWER_PAIR;
                else if (firstpos[v] < 0)
                    firstpos[v] = c;
                else {
                    cc[firstpos[v]] = LOWER + (c - firstpos[v]);
                    cc[c] = LOWER + (n - (c - firstpos[v]));
                }
            }
            for (int c = lo; c < lo + n; c++)
                firstpos[L->cv[c]] = -1;
        }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            /* An uppercase corner also names the rank of the region across it. */
            int rank = 0;
            for (int x = 0; x < nr; x++) {
                if (x > 0 && tidy_region_cmp(&T, bord, rord[x - 1], rord[x]) != 0)
                    rank++;
                rnew[rord[x]] = rank;
            }
            for (int r = 0; r < nr; r++)
                for (int c = L->bc[L->rb[r]]; c < L->bc[L->rb[r + 1]]; c++) {
                    int v = L->cv[c];
                    if (L->kind[v] == K_UPPER) {
                        int across = L->ureg[2 * v] == r ? L->ureg[2 * v + 1] : L->ureg[2 * v];
                        cc[c] = UPPER + 1 + rnew[across];
                    }
                }
        }
        tidy_sort(&T, bord, rord);
    }
    int32_t *k = shape;
    int count = 0;
    for (int x = 0; x < nr; x++) {
        int r = rord[x];
        *k++ = L->collapsed[r] ? -4 : -2;
        for (int t = 0; t < L->rb[r + 1] - L->rb[r]; t++) {
            int b = bord[L->rb[r] + t], lo = L->bc[b], n = L->bc[b + 1] - lo;
            int32_t *first = ++k;
            k[-1] = -1;
            if (tied[b])
                start[b] = named_rotation(&T, vmap, b);
            for (int c = start[b]; c < lo + n; c++)
                *k++ = c;              /* old corner, for now */
            for (int c = lo; c < start[b]; c++)
                *k++ = c;
            if (L->collapsed[r])       /* a bag: by code, then name (insertion sort) */
                for (int32_t *i = first + 1; i < k; i++)
                    for (int32_t *j = i; j > first && bag_after(cc, vmap, L->cv, j[-1], *j);
                         j--) {
                        int32_t tmp = *j;
                        *j = j[-1];
                        j[-1] = tmp;
                    }
            for (int32_t *i = first; i < k; i++) {
                int v = L->cv[*i];
                if (vmap[v] < 0)
                    vmap[v] = count++;
                int tag = L->kind[v] == K_SPOT ? L->code[v] : L->kind[v] == K_LOWER ? 3 : 4;
                *i = (int32_t)(8 * vmap[v] + tag);
            }
        }
    }
    *len = (size_t)(k - shape);
    return 0;
}

/*
 * The land a shape writes (the tidy land, for the canonical search on a memo miss):
 * vertices, their kinds and codes, and the two regions of each uppercase letter.
 */
static int land_of_shape(Arena *a, const int32_t *shape, size_t len, Land *out)
{
    int nr = 0, nb = 0, nc = 0, nv = 0;
    for (size_t i = 0; i < len; i++) {
        if (shape[i] == -2 || shape[i] == -4)
            nr++;
        else if (shape[i] == -1)
            nb++;
        else {
            nc++;
            if (shape[i] / 8 + 1 > nv)
                nv = shape[i] / 8 + 1;
        }
    }
    Raw w;
    if (raw_init(a, &w, nr, nb, nc) < 0)
        return -1;
    out->collapsed = arena_alloc(a, (size_t)(nr ? nr : 1));
    out->kind = arena_alloc(a, (size_t)(nv ? nv : 1));
    out->code = new_ints(a, nv);
    out->ureg = new_ints_filled(a, 2L * nv, -1);
    if (out->collapsed == NULL || out->kind == NULL || out->code == NULL || out->ureg == NULL)
        return -1;
    int open_b = 0, open_r = 0;    /* a boundary, a region under way */
    for (size_t i = 0; i < len; i++) {
        int32_t s = shape[i];
        if (s < 0) {
            if (open_b)
                raw_end_boundary(&w);
            open_b = s == -1;
            if (s != -1) {
                if (open_r)
                    raw_end_region(&w);
                open_r = 1;
                out->collapsed[w.nr] = (unsigned char)(s == -4);
            }
            continue;
        }
        int v = s / 8, tag = s % 8;
        raw_push(&w, v);
        out->kind[v] = tag < 3 ? K_SPOT : tag == 3 ? K_LOWER : K_UPPER;
        out->code[v] = tag < 3 ? tag : 0;
        if (tag == 4)
            out->ureg[out->ureg[2 * v] < 0 ? 2 * v : 2 * v + 1] = w.nr;
    }
    if (open_b)
        raw_end_boundary(&w);
    if (open_r)
        raw_end_region(&w);
    out->nr = w.nr;
    out->nb = w.nb;
    out->nc = w.nc;
    out->nv = nv;
    out->rb = w.rb;
    out->bc = w.bc;
    out->cv = w.cv;
    return 0;
}

/* canon.canonical_land: the canonical string of one land, through the memo. With
 * memo_only, a land not memoised is not searched: NULL with *missed set, no error. */
static PyObject *canonical_land(Arena *a, const Land *given, int memo_only, int *missed)
{
    Land tidy;
    Mark m0 = arena_mark(a);
    PyObject *text = NULL;
    int32_t *shape = arena_alloc(a, sizeof(int32_t)
                                    * ((size_t)given->nc + given->nb + given->nr + 1));
    size_t n;
    if (shape == NULL || tidy_land(a, given, shape, &n) < 0)
        goto done;
    uint64_t h = shape_hash(shape, n);
    text = memo_get(shape, n, h);
    if (text != NULL) {
        Py_INCREF(text);
        goto done;
    }
    if (memo_only) {
        *missed = 1;
        goto done;
    }
    const Land *L = &tidy;
    if (land_of_shape(a, shape, n, &tidy) < 0)
        goto done;
    int *enc, len;
    char *s = NULL;
    if (encode_land(a, L, &enc, &len) == 0)
        s = format_encoding(a, enc, len);
    text = s ? PyUnicode_FromString(s) : NULL;
    if (text != NULL && memo_put(shape, n, h, text) < 0)
        Py_CLEAR(text);
done:
    arena_release(a, m0);
    return text;
}

/* sorted() of ASCII str is byte order. The strings are ASCII, so PyUnicode_AsUTF8
 * returns their data and cannot fail. */
static int str_cmp(const void *x, const void *y)
{
    return strcmp(PyUnicode_AsUTF8(*(PyObject *const *)x),
                   PyUnicode_AsUTF8(*(PyObject *const *)y));
}

/* The canonical lands of a raw position as a sorted tuple of str (canon.canonical_lands).
 * With memo_only, NULL with *missed set (no error) when a land is not memoised. */
static PyObject *canonical_lands_tuple(Arena *a, const Raw *p, int memo_only, int *missed)
{
    PyObject *result = NULL;
    Mark m = arena_mark(a);
    Land *lands;
    int nl;
    if (normalize(a, p, &lands, &nl) < 0)
        goto done;
    result = PyTuple_New(nl);
    if (result == NULL)
        goto done;
    for (int l = 0; l < nl; l++) {
        PyObject *s = canonical_land(a, &lands[l], memo_only, missed);
        if (s == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyTuple_SET_ITEM(result, l, s);
    }
    if (nl > 1)
        qsort(&PyTuple_GET_ITEM(result, 0), (size_t)nl, sizeof(PyObject *), str_cmp);
done:
    arena_release(a, m);
    return result;
}

/*
 * The children met so far in one children call, as a set of tuples of str: open
 * addressing on a hash of the cached str hashes, equal when their strings are equal.
 * Cheaper than a dict of tuples: no tuple hash and no rich comparison per lookup.
 */
typedef struct {
    Py_hash_t hash;
    PyObject *child;           /* a new reference, or NULL: an empty slot */
} SeenSlot;

typedef struct {
    SeenSlot *slots;
    size_t cap, count;         /* cap: a power of 2, or 0 */
} Seen;

static Py_hash_t child_hash(PyObject *child)
{
    Py_uhash_t h = 0x345678u;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(child); i++)
        h = (h ^ (Py_uhash_t)PyObject_Hash(PyTuple_GET_ITEM(child, i))) * 1000003u;
    return (Py_hash_t)h;
}

/* Equal children: the same canonical strings, in the same order (equal str: the same
 * kind, length and data, a str being stored in its narrowest kind). */
static int child_eq(PyObject *x, PyObject *y)
{
    Py_ssize_t n = PyTuple_GET_SIZE(x);
    if (n != PyTuple_GET_SIZE(y))
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PyTuple_GET_ITEM(x, i), *t = PyTuple_GET_ITEM(y, i);
        if (s == t)
            continue;
        if (PyUnicode_GET_LENGTH(s) != PyUnicode_GET_LENGTH(t)
            || PyUnicode_KIND(s) != PyUnicode_KIND(t)
            || memcmp(PyUnicode_DATA(s), PyUnicode_DATA(t),
                      (size_t)PyUnicode_GET_LENGTH(s) * PyUnicode_KIND(s)) != 0)
            return 0;
    }
    return 1;
}

static SeenSlot *seen_slot(const Seen *S, PyObject *child, Py_hash_t h)
{
    size_t mask = S->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        SeenSlot *s = &S->slots[i];
        if (s->child == NULL || (s->hash == h && child_eq(s->child, child)))
            return s;
    }
}

/* Whether child is in the set. */
static int seen_has(const Seen *S, PyObject *child)
{
    return S->cap != 0 && seen_slot(S, child, child_hash(child))->child != NULL;
}

/* Add child (a new reference is taken): 1 if it was new, 0 if met already, -1 on error. */
static int seen_add(Seen *S, PyObject *child)
{
    Py_hash_t h = child_hash(child);
    if (2 * (S->count + 1) > S->cap) {
        size_t cap = S->cap ? 2 * S->cap : 64;
        SeenSlot *slots = calloc(cap, sizeof(SeenSlot));
        if (slots == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        for (size_t i = 0; i < S->cap; i++)
            if (S->slots[i].child != NULL) {
                size_t j = (size_t)S->slots[i].hash & (cap - 1);
                while (slots[j].child != NULL)
                    j = (j + 1) & (cap - 1);
                slots[j] = S->slots[i];
            }
        free(S->slots);
        S->slots = slots;
        S->cap = cap;
    }
    SeenSlot *s = seen_slot(S, child, h);
    if (s->child != NULL)
        return 0;
    s->hash = h;
    s->child = Py_NewRef(child);
    S->count++;
    return 1;
}

static void seen_free(Seen *S)
{
    for (size_t i = 0; i < S->cap; i++)
        Py_XDECREF(S->slots[i].child);
    free(S->slots);
    S->slots = NULL;
    S->cap = S->count = 0;
}

/* The distinct children of a land, made in move order: each new one is appended to
 * order (land_children) or offered to accept (first_child), which may stop the moves.
 * memo_only skips the children with a land not memoised; skip, when not NULL, holds
 * children offered already (by a memo_only pass), which are not offered again. */
typedef struct {
    Seen seen;                 /* the children met so far */
    PyObject *order;           /* list of distinct children in first-seen order, or NULL */
    PyObject *accept;          /* callable(child tuple) -> truth, or NULL */
    PyObject *found;           /* the first accepted child (new reference), or NULL */
    int memo_only;
    const Seen *skip;
} Children;

static int new_child(void *ctx, Arena *a, const Raw *child)
{
    Children *ch = ctx;
    int missed = 0;
    PyObject *key = canonical_lands_tuple(a, child, ch->memo_only, &missed);
    if (key == NULL)
        return missed ? 0 : -1;
    if (ch->skip != NULL && seen_has(ch->skip, key)) {
        Py_DECREF(key);
        return 0;
    }
    int added = seen_add(&ch->seen, key);
    if (added <= 0 || (ch->order != NULL && PyList_Append(ch->order, key) < 0)) {
        Py_DECREF(key);
        return added == 0 ? 0 : -1;
    }
    int rc = 0;                /* 0: go on; 1: accepted, stop; -1: an error */
    if (ch->accept != NULL) {
        PyObject *verdict = PyObject_CallOneArg(ch->accept, key);
        rc = verdict == NULL ? -1 : PyObject_IsTrue(verdict);
        Py_XDECREF(verdict);
    }
    if (rc == 1)
        ch->found = key;
    else
        Py_DECREF(key);
    return rc;
}

static const char *text_of(PyObject *arg, Py_ssize_t *n)
{
    if (!PyUnicode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "a position must be a str, not %.100s",
                     Py_TYPE(arg)->tp_name);
        return NULL;
    }
    return PyUnicode_AsUTF8AndSize(arg, n);
}

/* Parse the land and make its children into ch: raw_children's status (1: stopped).
 * The caller frees ch->seen. */
static int make_children(PyObject *land, Children *ch)
{
    Py_ssize_t n;
    const char *text = text_of(land, &n);
    if (text == NULL)
        return -1;
    Arena a = {NULL, NULL};
    Raw p;
    int rc = -1;
    if (parse(&a, text, n, &p) == 0)
        rc = raw_children(&a, &p, new_child, ch);
    arena_free(&a);
    return rc;
}

PyDoc_STRVAR(land_children_doc,
"land_children(land: str) -> tuple[tuple[str, ...], ...]\n\n"
"The distinct children of a land written in GLOP 2.x, each as the sorted tuple of its\n"
"canonical lands, in order of first occurrence among the moves: exactly what the\n"
"pure-Python SproutsGame.component_children returns. Raises Unsupported (a ValueError)\n"
"for text outside the plane GLOP 2.x land syntax or text the Python reader rejects.");

static PyObject *land_children(PyObject *self, PyObject *arg)
{
    (void)self;
    Children ch = {{NULL, 0, 0}, PyList_New(0), NULL, NULL, 0, NULL};
    if (ch.order == NULL)
        return NULL;
    PyObject *result = make_children(arg, &ch) == 0 ? PyList_AsTuple(ch.order) : NULL;
    seen_free(&ch.seen);
    Py_DECREF(ch.order);
    return result;
}

PyDoc_STRVAR(first_child_doc,
"first_child(land: str, accept: Callable[[tuple[str, ...]], object], memoised_first: bool = False)\n"
"    -> tuple[str, ...] | None\n\n"
"The first of land_children(land), in the same order, for which accept(child) is true, or\n"
"None: children after it are never made. For checkers that need one winning option of a\n"
"land, not all of them. With memoised_first, the children whose lands are all in the memo\n"
"are offered first, in order, and the others after them, in order (each child once): a\n"
"child taken may then not be the first acceptable one, but canonical searches of lands\n"
"never needed are saved. Raises Unsupported as land_children does; accept's exceptions\n"
"propagate.");

static PyObject *first_child(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 && nargs != 3) {
        PyErr_SetString(PyExc_TypeError,
                        "first_child(land, accept, memoised_first=False) takes 2 or 3 arguments");
        return NULL;
    }
    if (!PyCallable_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "accept must be callable");
        return NULL;
    }
    int memoised_first = nargs == 3 ? PyObject_IsTrue(args[2]) : 0;
    if (memoised_first < 0)
        return NULL;
    Children first = {{NULL, 0, 0}, NULL, args[1], NULL, memoised_first, NULL};
    int rc = make_children(args[0], &first);
    if (rc == 0 && memoised_first) {
        Children rest = {{NULL, 0, 0}, NULL, args[1], NULL, 0, &first.seen};
        rc = make_children(args[0], &rest);
        seen_free(&rest.seen);
        first.found = rest.found;
    }
    seen_free(&first.seen);
    return rc == 1 ? first.found : rc == 0 ? Py_NewRef(Py_None) : NULL;
}

PyDoc_STRVAR(canonical_lands_doc,
"canonical_lands(position: str) -> tuple[str, ...]\n\n"
"The sorted canonical lands of a position written in GLOP 2.x (one land's syntax: no '+'),\n"
"as canon.canonical_lands(notation.parse(position)). For differential tests.");

static PyObject *canonical_lands(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_ssize_t n;
    const char *text = text_of(arg, &n);
    if (text == NULL)
        return NULL;
    Arena a = {NULL, NULL};
    Raw p;
    PyObject *result = NULL;
    if (parse(&a, text, n, &p) == 0)
        result = canonical_lands_tuple(&a, &p, 0, NULL);
    arena_free(&a);
    return result;
}

PyDoc_STRVAR(key_lives_doc,
"key_lives(position: str) -> int\n\n"
"Lives of a position from its text alone, as notation.key_lives: 3/2/1 for the spots\n"
"0/1/2 (k isolated spots for 0*k) and one per letter, each letter being written twice.\n"
"Raises Unsupported for text outside the plain GLOP 2.x syntax (genus, '{k}', others).");

static PyObject *key_lives(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_ssize_t n;
    const char *t = text_of(arg, &n);
    if (t == NULL)
        return NULL;
    long long spots = 0, letters = 0;
    for (Py_ssize_t i = 0; i < n;) {
        char ch = t[i];
        if (ch == '0' && i + 1 < n && t[i + 1] == '*') {
            Py_ssize_t j = i + 2;
            long long k = 0;
            while (j < n && t[j] >= '0' && t[j] <= '9' && k < 1000000000LL)
                k = 10 * k + (t[j++] - '0');
            if (j == i + 2 || (j < n && t[j] >= '0' && t[j] <= '9'))
                break;                  /* no count, or an absurd one: the Python path */
            spots += 3 * k;
            i = j;
        } else if (ch >= '0' && ch <= '2') {
            spots += 3 - (ch - '0');
            i++;
        } else if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')) {
            letters++;
            i++;
            if (i < n && t[i] == '(') {   /* Z(k): a letter past the alphabet */
                Py_ssize_t j = i + 1;
                while (j < n && t[j] >= '0' && t[j] <= '9')
                    j++;
                if (j == i + 1 || j >= n || t[j] != ')')
                    break;
                i = j + 1;
            }
        } else if (ch == '.' || ch == '|' || ch == '+' || ch == '!') {
            i++;
        } else {
            break;
        }
        if (i >= n)
            return PyLong_FromLongLong(spots + letters / 2);
    }
    if (n == 0)
        return PyLong_FromLong(0);
    PyErr_SetString(Unsupported, "not plain GLOP 2.x text: use notation.key_lives");
    return NULL;
}

static PyObject *clear_memo(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    memo_clear();
    Py_RETURN_NONE;
}

static PyObject *memo_size(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromSize_t(memo.count);
}

static PyMethodDef core_methods[] = {
    {"land_children", land_children, METH_O, land_children_doc},
    {"canonical_lands", canonical_lands, METH_O, canonical_lands_doc},
    {"key_lives", key_lives, METH_O, key_lives_doc},
    {"first_child", (PyCFunction)(void (*)(void))first_child, METH_FASTCALL, first_child_doc},
    {"clear_memo", clear_memo, METH_NOARGS, "Forget the memoised canonical strings."},
    {"memo_size", memo_size, METH_NOARGS, "Number of memoised canonical strings."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    "sproutsdb.solver.sprouts._core",
    "Compiled hot path of the Sprouts engine (children and canonical form of lands).",
    -1,
    core_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL)
        return NULL;
    Unsupported = PyErr_NewExceptionWithDoc(
        "sproutsdb.solver.sprouts._core.Unsupported",
        "Text the C core does not read (other syntax, or invalid): use the Python path.",
        PyExc_ValueError, NULL);
    if (Unsupported == NULL || PyModule_AddObjectRef(m, "Unsupported", Unsupported) < 0
        || PyModule_AddIntConstant(m, "CANON_VERSION", CANON_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
