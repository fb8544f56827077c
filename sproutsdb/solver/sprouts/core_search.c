/*
 * core_search.c -- the canonical search (canon._Search: greedy least encoding, branching on
 * exact ties, automorphism pruning) and encode_land.
 */

#include "core.h"

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
    const int *by_form;        /* per view o, region r: its boundary views by (form, b),
                                * at by_form[o * nb + rb[r] ..] (Colouring.sorted_b) */
    int regions_left;
    int *name_of;              /* uppercase vertex -> index, or -1 */
    int *named_in;             /* per region: named uppercase letters on it (touches_named) */
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
    /* Per automorphism, what orbit_skip has learnt of the path: it fixes the first
     * fixed[i] choices, and (moved[i]) not the next one; forgotten as the path shrinks. */
    int fixed[MAX_AUTS];
    unsigned char moved[MAX_AUTS];
} Search;

static void search_free(Search *S)
{
    for (int i = 0; i < S->nauts; i++)
        free(S->auts[i].region);
    S->nauts = 0;
}

/* _Search._worse: the partial encoding is already greater than the best one. *eq is a
 * length over which out is known to equal best, and becomes the first place they differ
 * (or the end of the shorter): a node passes it on to its children, whose encodings
 * extend its own, so each compares only what it added. It stays true when the best
 * changes: a new best is found below the node and so begins with the node's codes. */
static int worse(const Search *S, int len, int *eq)
{
    if (!S->have_best)
        return 0;
    int m = len < S->best_len ? len : S->best_len;
    int i = *eq;
    const int *out = S->out, *best = S->best;
    while (i < m && out[i] == best[i])
        i++;
    *eq = i;
    return i < m && out[i] > best[i];
}

static void push_choice(Search *S, int is_bnd, int id, int c)
{
    S->path_b[S->depth] = is_bnd;
    S->path_id[S->depth] = id;
    S->path_c[S->depth] = c;
    S->depth++;
}

/* Drop the last choice, and what the automorphisms were found to do with it. */
static void pop_choice(Search *S)
{
    int d = --S->depth;
    for (int i = 0; i < S->nauts; i++)
        if (S->fixed[i] >= d) {
            S->fixed[i] = d;
            S->moved[i] = 0;
        }
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
    S->fixed[S->nauts - 1] = 0;
    S->moved[S->nauts - 1] = 0;
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
        int a = O->seen++;
        const Aut *g = &S->auts[a];
        int j = S->fixed[a];               /* choices known fixed; ask about the others */
        while (j < S->depth && !S->moved[a]) {
            if (aut_fixes(S, g, S->path_b[j], S->path_id[j], S->path_c[j]))
                j++;
            else
                S->moved[a] = 1;
        }
        S->fixed[a] = j;
        if (j < S->depth)                  /* g moves a choice of the path */
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
    int view0 = o * L->nb;             /* view o of boundary b is view0 + b */
    const int *sorted = S->by_form + view0;
    for (int k = L->rb[r]; k < L->rb[r + 1]; k++)
        if (!S->bnd_used[sorted[k] - view0])
            return sorted[k];
    return -1;
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

static int search_boundaries(Search *S, int r, int o, int len, int eq);

/* Region r holds an uppercase letter that already has a name. */
static inline int touches_named(const Search *S, int r) { return S->named_in[r] > 0; }

/* Name the uppercase letter v (name >= 0) or take its name back (-1), keeping named_in. */
static void set_name(Search *S, int v, int name)
{
    int step = name >= 0 ? 1 : -1;
    S->name_of[v] = name;
    for (int side = 0; side < 2; side++) {
        int r = S->L->ureg[2 * v + side];
        if (r >= 0)
            S->named_in[r] += step;
    }
}

/* _Search._regions */
static int search_regions(Search *S, int len, int eq)
{
    /* Lands with many interchangeable regions may take long: let Ctrl-C through. */
    if ((++S->steps & 0xffff) == 0 && PyErr_CheckSignals() < 0)
        return -1;
    if (S->regions_left == 0)
        return at_leaf(S, len);
    if (worse(S, len, &eq))
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
        int rc = search_boundaries(S, r, views[i], len, eq);
        pop_choice(S);
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
static int search_boundaries(Search *S, int r, int o, int len, int eq)
{
    const Land *L = S->L;
    int nb = L->nb, lo = L->rb[r], hi = L->rb[r + 1];
    int least = least_left(S, r, o);
    if (least < 0) {                               /* region done (plane: no genus code) */
        S->out[len] = END_REGION;
        return search_regions(S, len + 1, eq);
    }
    if (worse(S, len, &eq))
        return 0;
    Bnd *bd = &S->bnd[least];                      /* the first of the tied boundaries */
    int n = bd->n, depth = S->depth;
    if (bd->nups == 0) {
        /* Without uppercase letters a boundary encodes as its form, whatever the order. */
        memcpy(S->out + len, bd->form, sizeof(int) * (size_t)n);
        S->out[len + n] = END_BOUNDARY;
        S->bnd_used[least % nb] = 1;
        push_choice(S, 1, least, -1);
        int rc = search_boundaries(S, r, o, len + n + 1, eq);
        pop_choice(S);
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
            set_name(S, newv[(long)x * width + t], S->nnames + t);
        S->nnames += nnew[x];
        memcpy(S->out + len, enc + (long)x * n, sizeof(int) * (size_t)n);
        S->out[len + n] = END_BOUNDARY;
        S->bnd_used[owner[x] % nb] = 1;
        push_choice(S, 1, owner[x], cidx[x]);
        int rc = search_boundaries(S, r, o, len + n + 1, eq);
        pop_choice(S);
        S->bnd_used[owner[x] % nb] = 0;
        S->nnames -= nnew[x];
        for (int t = 0; t < nnew[x]; t++)
            set_name(S, newv[(long)x * width + t], -1);
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
int encode_land(Arena *a, const Land *L, int **enc, int *len)
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
    S.by_form = C.sorted_b;
    S.name_of = new_ints_filled(a, L->nv, -1);
    S.named_in = new_ints_filled(a, L->nr, 0);
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
        || S.named_in == NULL || S.out == NULL || S.path_b == NULL || S.path_id == NULL
        || S.path_c == NULL
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
    if (search_regions(&S, 0, 0) < 0)
        goto done;
    *enc = best;
    *len = S.best_len;
    status = 0;
done:
    search_free(&S);
    arena_release(a, m);
    return status;
}
