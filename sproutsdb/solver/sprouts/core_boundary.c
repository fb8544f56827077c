/*
 * core_boundary.c -- boundaries (canon._Boundary: base codes, refine, encode) and the
 * colours of regions by iterated refinement (canon._refine).
 */

#include "core.h"

/* ------------------------------------------------------------------ boundaries (canon._Boundary) */

static long factorial(int k)
{
    long f = 1;
    for (int i = 2; i <= k; i++)
        f *= i;
    return f;
}

/* _Boundary.__init__ for corners seq[0..n) of region r. firstpos: per vertex, all -1. */
int bnd_init(Arena *a, Bnd *bd, const Land *L, int r, const int *seq, int n,
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
        int x = codes[i], y = codes[j];
        if (x != y)
            return x < y ? -1 : 1;
        if (++i == n)
            i = 0;
        if (++j == n)
            j = 0;
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
int bnd_encode(const Bnd *bd, const int *cand, int *out, int *name_of, int nnames,
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

/* tuple(sorted forms) of region r1 in view o1 against region r2 in view o2. */
int view_cmp(const Colouring *C, int r1, int o1, int r2, int o2)
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
int compute_colours(Arena *a, Colouring *C)
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
