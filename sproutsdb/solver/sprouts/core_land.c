/*
 * core_land.c -- lands: a position cut into independent lands (canon.normalize), the tidy
 * shape of a land that keys the memo, and the printing of an encoding (format_encoding).
 */

#include "core.h"

/* ------------------------------------------------------------------ lands (canon.normalize) */

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

/* The kinds and codes of a land's vertices (numbered x = 0..count-1, gv[x] the vertex of the
 * position) from their lives and the regions of their corners (occ_n, occ_r; local: a
 * region's number within its land). */
static int land_vertices(Arena *a, Land *L, int count, const int *gv, const int *lives,
                         const int *occ_n, const int *occ_r, const int *local)
{
    L->nv = count;
    L->kind = arena_alloc(a, (size_t)(count ? count : 1));
    L->code = new_ints(a, 3L * count);         /* code, then ureg: one block */
    if (L->kind == NULL || L->code == NULL)
        return -1;
    L->ureg = L->code + count;
    for (int x = 0; x < count; x++) {
        int v = gv[x];
        L->code[x] = 0;
        L->ureg[2 * x] = L->ureg[2 * x + 1] = -1;
        if (lives[v] >= 2) {
            L->kind[x] = K_SPOT;
            L->code[x] = 3 - lives[v];         /* 0 for three lives, 1 for two */
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
    return 0;
}

/* canon.normalize: reductions, then the independent lands, in order of their first region.
 * Most children of a land are one land: then the land is the reduced position itself, its
 * vertices renumbered in place, with no copy (the same land the general path writes). */
int normalize(Arena *a, const Raw *p, Land **lands_out, int *nlands_out)
{
    const int *lives = p->lives;
    int nv = p->nv;
    /* Keep the live corners, and the regions with at least 2 lives. */
    Raw q;
    /* Per vertex, one block: stamp and firstpos (-1), vmap (-1), occ_n (0), occ_r, gv. */
    int *stamp = new_ints(a, 7L * nv), *region_lives = new_ints(a, p->nr);
    if (stamp == NULL || region_lives == NULL || raw_init(a, &q, p->nr, p->nb, p->nc) < 0)
        return -1;
    int *firstpos = stamp + nv, *vmap = stamp + 2 * nv, *occ_n = stamp + 3 * nv;
    int *occ_r = stamp + 4 * nv, *gv = stamp + 6 * nv;
    memset(stamp, 0xff, sizeof(int) * 3 * (size_t)nv);
    memset(occ_n, 0, sizeof(int) * (size_t)nv);
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
    int *parent = new_ints(a, 5L * q.nr);     /* parent, land_of, local, root_land, land_size */
    if (parent == NULL)
        return -1;
    int *land_of = parent + q.nr, *local = parent + 2 * q.nr, *root_land = parent + 3 * q.nr;
    int *land_size = parent + 4 * q.nr;
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
    for (int r = 0; r < q.nr; r++) {
        parent[r] = r;
        root_land[r] = -1;
        land_size[r] = 0;
    }
    for (int v = 0; v < nv; v++)
        if (occ_n[v] == 2 && occ_r[2 * v] != occ_r[2 * v + 1]) {
            int x = find_root(parent, occ_r[2 * v]), y = find_root(parent, occ_r[2 * v + 1]);
            if (x != y)
                parent[x] = y;
        }
    int nl = 0;
    for (int r = 0; r < q.nr; r++) {
        int root = find_root(parent, r);
        if (root_land[root] < 0)
            root_land[root] = nl++;
        land_of[r] = root_land[root];
        local[r] = land_size[land_of[r]]++;
    }
    Land *lands = arena_alloc(a, sizeof(Land) * (size_t)(nl ? nl : 1));
    if (lands == NULL)
        return -1;
    if (nl == 1) {                     /* one land: q, renumbered in place */
        Land *L = &lands[0];
        L->collapsed = arena_alloc(a, (size_t)q.nr);
        if (L->collapsed == NULL)
            return -1;
        int count = 0;
        for (int c = 0; c < q.nc; c++) {
            int v = q.cv[c];
            if (vmap[v] < 0) {
                vmap[v] = count;
                gv[count++] = v;
            }
            q.cv[c] = vmap[v];
        }
        for (int r = 0; r < q.nr; r++)
            L->collapsed[r] = (unsigned char)(region_lives[r] <= 3);
        L->nr = q.nr;
        L->nb = q.nb;
        L->nc = q.nc;
        L->rb = q.rb;
        L->bc = q.bc;
        L->cv = q.cv;
        if (land_vertices(a, L, count, gv, lives, occ_n, occ_r, local) < 0)
            return -1;
        *lands_out = lands;
        *nlands_out = nl;
        return 0;
    }
    for (int l = 0; l < nl; l++) {
        Land *L = &lands[l];
        int nr = 0, nb = 0, nc = 0;
        for (int r = 0; r < q.nr; r++)
            if (land_of[r] == l) {     /* a collapsed region holds one boundary already */
                nr++;
                nb += q.rb[r + 1] - q.rb[r];
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
            L->collapsed[w.nr] = (unsigned char)(region_lives[r] <= 3);
            for (int b = q.rb[r]; b < q.rb[r + 1]; b++) {
                for (int c = q.bc[b]; c < q.bc[b + 1]; c++) {
                    int v = q.cv[c];
                    if (vmap[v] < 0) {
                        vmap[v] = count;
                        gv[count++] = v;
                    }
                    raw_push(&w, vmap[v]);
                }
                raw_end_boundary(&w);
            }
            raw_end_region(&w);
        }
        L->nr = w.nr;
        L->nb = w.nb;
        L->nc = w.nc;
        L->rb = w.rb;
        L->bc = w.bc;
        L->cv = w.cv;
        if (land_vertices(a, L, count, gv, lives, occ_n, occ_r, local) < 0)
            return -1;
    }
    *lands_out = lands;
    *nlands_out = nl;
    return 0;
}

/* ------------------------------------------------------------------ memo keys (canon._shape) */

/*
 * The same land written in a tidier order, so that more of the ways one land is written
 * share a memo key: each boundary rotated to its least rotation of corner codes, a bag's
 * corners sorted by code (equal codes: letters already named by name), the boundaries of a
 * region and then the regions sorted by those codes (ties keep their order), a region whose
 * codes read the same both ways round in its lesser view (write_region), and vertices
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
static inline int tidy_bnd_cmp(const TidyOrder *T, int b1, int b2)
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
static inline int tidy_region_cmp(const TidyOrder *T, const int *bord, int r1, int r2)
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

/*
 * A region read the other way round (every boundary backwards) writes the same land: the
 * canonical search takes either view of each region (canon._Search.views). When each of a
 * region's boundaries reads the same least codes backwards, codes cannot choose its view,
 * and the land was keyed once per view. Such a region is now written both ways and the
 * lesser kept, so the two views share a key: normal 0*14 made 861,180 canonical searches
 * instead of 931,699 (of those, lands met before under another key: 77,039 against 131,553).
 */

/* The code of corner c read backwards on a boundary of n corners: a lowercase letter's
 * distance to its partner is counted the other way round. */
static inline int backward_code(const int *cc, int c, int n)
{
    int x = cc[c];
    return x > LOWER && x < UPPER ? LOWER + n - (x - LOWER) : x;
}

/* Does the backward rotation of boundary b that starts at corner c0 (and goes down from
 * it) read the codes of its forward least rotation? */
static inline int backward_reads_least(const TidyOrder *T, int b, int c0)
{
    const Land *L = T->L;
    const int *cc = T->cc;
    int lo = L->bc[b], hi = L->bc[b + 1], n = hi - lo;
    for (int t = 0, i = T->start[b], c = c0; t < n; t++) {
        if (backward_code(cc, c, n) != cc[i])
            return 0;
        if (++i == hi)
            i = lo;
        c = c == lo ? hi - 1 : c - 1;
    }
    return 1;
}

/* Does boundary b read its least codes backwards too (from some corner)? */
static int boundary_turns(const TidyOrder *T, int b)
{
    const Land *L = T->L;
    for (int c0 = L->bc[b]; c0 < L->bc[b + 1]; c0++)
        if (backward_reads_least(T, b, c0))
            return 1;
    return 0;
}

/* Of the corners from which boundary b read backwards reads its least codes, the one whose
 * letters named already read the least names (as named_rotation; ties: the highest
 * corner); boundary_turns(T, b) must hold (region_turns checks it). */
static int backward_rotation(const TidyOrder *T, const int *vmap, int b)
{
    const Land *L = T->L;
    int lo = L->bc[b], hi = L->bc[b + 1], n = hi - lo, best = -1;
    for (int c0 = hi - 1; c0 >= lo; c0--) {
        if (!backward_reads_least(T, b, c0))
            continue;
        if (best < 0) {
            best = c0;
            continue;
        }
        for (int t = 0, x = c0, y = best; t < n; t++) {
            unsigned p = (unsigned)vmap[L->cv[x]], q = (unsigned)vmap[L->cv[y]];
            if (p != q) {
                if (p < q)
                    best = c0;
                break;
            }
            x = x == lo ? hi - 1 : x - 1;
            y = y == lo ? hi - 1 : y - 1;
        }
    }
    return best;
}

/* Region r (not a bag) written into k, every boundary forwards (backward = 0) or backwards
 * (each boundary must turn), naming letters met first (vmap, *count; each newly named vertex
 * appended to named, whose length is *nnamed). The end of what was written. */
static int32_t *write_region(const TidyOrder *T, const int *bord, int r, int backward,
                             int *vmap, int *count, int *named, int *nnamed, int32_t *k)
{
    const Land *L = T->L;
    *k++ = -2;
    for (int x = L->rb[r]; x < L->rb[r + 1]; x++) {
        int b = bord[x], lo = L->bc[b], hi = L->bc[b + 1];
        *k++ = -1;
        int32_t *first = k;
        if (backward) {
            int c = backward_rotation(T, vmap, b);
            for (int t = lo; t < hi; t++) {
                *k++ = c;              /* old corner, for now */
                c = c == lo ? hi - 1 : c - 1;
            }
        } else {
            if (T->tied[b])
                ((int *)T->start)[b] = named_rotation(T, vmap, b);
            for (int c = T->start[b]; c < hi; c++)
                *k++ = c;
            for (int c = lo; c < T->start[b]; c++)
                *k++ = c;
        }
        for (int32_t *i = first; i < k; i++) {
            int v = L->cv[*i];
            if (vmap[v] < 0) {
                vmap[v] = (*count)++;
                named[(*nnamed)++] = v;
            }
            int tag = L->kind[v] == K_SPOT ? L->code[v] : L->kind[v] == K_LOWER ? 3 : 4;
            *i = (int32_t)(8 * vmap[v] + tag);
        }
    }
    return k;
}

/* The first n codes of x read less than those of y. */
static int seq32_less(const int32_t *x, const int32_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i];
    return 0;
}

/* Can region r be written backwards with the same codes, and might that write it
 * differently? Each of its boundaries must read its least codes backwards too, and one must
 * have 3 corners or more (else each boundary read backwards is one of its rotations), and
 * one of its vertices must be named already (else the two views write the same codes and
 * the same names in the same places, and the forward one is kept). Boundaries so long that
 * a lowercase distance could reach the uppercase codes are left as they come. */
static int region_turns(const TidyOrder *T, const int *vmap, int r)
{
    const Land *L = T->L;
    int named = 0;
    for (int c = L->bc[L->rb[r]]; c < L->bc[L->rb[r + 1]] && !named; c++)
        named = vmap[L->cv[c]] >= 0;
    if (!named)
        return 0;
    int longer = 0;
    for (int b = L->rb[r]; b < L->rb[r + 1]; b++) {
        int n = L->bc[b + 1] - L->bc[b];
        if (n >= UPPER - LOWER)
            return 0;
        longer |= n >= 3;
    }
    if (!longer)
        return 0;
    for (int b = L->rb[r]; b < L->rb[r + 1]; b++)   /* so backward_rotation finds one */
        if (L->bc[b + 1] - L->bc[b] >= 2 && !boundary_turns(T, b))
            return 0;
    return 1;
}

/* The shape of the tidy land into shape (room for nc + nb + nr codes), its length in *len. */
int tidy_land(Arena *a, const Land *L, int32_t *shape, size_t *len)
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
    int32_t *backward = arena_alloc(a, sizeof(int32_t) * ((size_t)nc + nb + 1));
    int *named = new_ints(a, nv), *named_back = new_ints(a, nv);
    if (backward == NULL || named == NULL || named_back == NULL)
        return -1;
    for (int x = 0; x < nr; x++) {
        int r = rord[x];
        if (!L->collapsed[r]) {        /* see write_region: the lesser of its two views */
            int before = count, nnamed = 0, turns = region_turns(&T, vmap, r);
            int32_t *end = write_region(&T, bord, r, 0, vmap, &count, named, &nnamed, k);
            if (turns) {
                for (int i = 0; i < nnamed; i++)
                    vmap[named[i]] = -1;
                count = before;
                int nback = 0;
                write_region(&T, bord, r, 1, vmap, &count, named_back, &nback, backward);
                int keep_back = seq32_less(backward, k, (size_t)(end - k));
                if (keep_back) {
                    memcpy(k, backward, sizeof(int32_t) * (size_t)(end - k));
                } else {                /* the forward view's names back */
                    for (int i = 0; i < nback; i++)
                        vmap[named_back[i]] = -1;
                    for (int i = 0; i < nnamed; i++)
                        vmap[named[i]] = before + i;
                    count = before + nnamed;
                }
            }
            k = end;
            continue;
        }
        *k++ = -4;
        for (int t = 0; t < L->rb[r + 1] - L->rb[r]; t++) {
            int b = bord[L->rb[r] + t], lo = L->bc[b], n = L->bc[b + 1] - lo;
            int32_t *first = ++k;
            k[-1] = -1;
            for (int c = lo; c < lo + n; c++)
                *k++ = c;              /* old corner, for now */
            for (int32_t *i = first + 1; i < k; i++)  /* a bag: by code, then name */
                for (int32_t *j = i; j > first && bag_after(cc, vmap, L->cv, j[-1], *j); j--) {
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
int land_of_shape(Arena *a, const int32_t *shape, size_t len, Land *out)
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

/* ------------------------------------------------------------------ printing (format_encoding) */

/* A non-negative int in decimal (sprintf's "%d" was 2 % of a land's children). */
static char *put_int(char *s, int x)
{
    char digits[12];
    int k = 0;
    do {
        digits[k++] = (char)('0' + x % 10);
        x /= 10;
    } while (x > 0);
    while (k > 0)
        *s++ = digits[--k];
    return s;
}

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
            s = put_int(s, c);
        }
    }
    return s;
}

/* canon.format_encoding with _join_boundaries: a leading run of lone 0s prints as 0*k. */
char *format_encoding(Arena *a, const int *enc, int len)
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
        if (zeros >= 2) {
            *s++ = '0';
            *s++ = '*';
            s = put_int(s, zeros);
        }
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
