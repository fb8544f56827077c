/*
 * core_position.c -- raw positions: reading a land (notation._Reader) and its moves
 * (moves.raw_children, _split, _merge).
 */

#include "core.h"

#include <math.h>

/* ------------------------------------------------------------------ raw positions */

/* Room for nr regions, nb boundaries and nc corners (lives are set by the caller). */
int raw_init(Arena *a, Raw *p, int nr, int nb, int nc)
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

void raw_copy_boundary(Raw *dst, const Raw *src, int b)
{
    for (int c = src->bc[b]; c < src->bc[b + 1]; c++)
        raw_push(dst, src->cv[c]);
    raw_end_boundary(dst);
}

void raw_copy_region(Raw *dst, const Raw *src, int r)
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
int parse(Arena *a, const char *text, Py_ssize_t n, Raw *p)
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

/* Whether the splits split_masks makes, the product over the classes of interchangeable
 * others of (class size + 1), exceed 2**bits (0*46's 45 free spots: 46 splits, not 2**45). */
static int distinct_splits_exceed(Arena *a, const int *pred, int k, int bits)
{
    Mark m = arena_mark(a);
    int *size = new_ints_filled(a, k > 0 ? k : 1, 0), *head = new_ints(a, k > 0 ? k : 1);
    int exceed = 0;
    if (size == NULL || head == NULL) {
        arena_release(a, m);
        return 1;
    }
    for (int t = 0; t < k; t++) {
        head[t] = pred[t] < 0 ? t : head[pred[t]];
        size[head[t]]++;
    }
    double ways = 1.0;                   /* exact up to 2**53, far past the limit */
    for (int t = 0; t < k && !exceed; t++) {
        ways *= (double)size[t] + 1.0;
        exceed = ways > ldexp(1.0, bits);
    }
    arena_release(a, m);
    return exceed;
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
    if (k > MAX_SPLIT_MASK) {
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
    if (distinct_splits_exceed(a, pred, k, MAX_SPLIT_OTHERS)) {
        PyErr_Format(PyExc_ValueError,
                     "a region with %d boundaries has more than 2**%d distinct ways to split; "
                     "too many", k + 1, MAX_SPLIT_OTHERS);
        goto done;
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
int raw_children(Arena *a, const Raw *p, ChildFn fn, void *ctx)
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
