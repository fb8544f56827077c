/*
 * _cram.c -- the compiled twin of Cram's hot path (canon.py and game.py hold the Python
 * definitions it is tested against, tests/test_cram_core.py, and falls back to).
 *
 * A board is a *grid mask* as in canon.py: cell (r, c) of a board of width w is bit
 * r*(w+1) + (w-1-c) of one uint64_t, so only boards with h*(w+1) <= 64 are taken here (in
 * the orientation given; board_keys transposes a tall board first). The spare bit per row
 * stays 0, so a shift by 1 never carries a cell into the next row: horizontal neighbours
 * are a shift by 1, vertical ones a shift by the stride w+1. Any board that does not fit
 * gets None, and the caller takes the Python path.
 *
 * Shapes (h, w, rows) are as in notation.py: rows top to bottom, each an int of w bits with
 * the leftmost column the most significant bit, 1 for a free cell. The canonical shape is
 * the least of the images under the symmetries of the grid (8 for a square, 4 otherwise)
 * with h <= w, rows compared as a tuple of ints, exactly as canon.canonical_shape; its key
 * text is notation.format_shape's ("HxW" when every cell is free, else rows of '.' and
 * '#' joined by '/').
 *
 * land_children(key) is CramGame._land_children: for each domino (horizontal pairs first,
 * then vertical ones, lowest bit first) the rest of the land is split into its lands of two
 * cells or more, each keyed, the keys sorted; the distinct children in order of first
 * occurrence. Land keys are memoised in a direct-mapped table of str objects keyed by
 * (stride, land moved to row 0), so equal lands often share one str (and its cached hash).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define CANON_VERSION 1 /* canon.CANON_VERSION: the Python side refuses a core of another */
#define MAX_SIDE 64     /* rows or columns of a shape given to canonical_shape */
#define MAX_MOVES 128   /* dominoes of a board of <= 64 grid bits (h(w-1) + (h-1)w) */
#define MAX_LANDS 32    /* lands of one child: each has two cells or more */
/* Land keys remembered: 2^12 slots. Canonicalising a land here costs about what a memo miss
 * does, so the memo is for sharing str objects among the children the search caches: 5x7,
 * CPU s and peak RSS paired, no memo / 2^12 / 2^16: 16.3-17.2 / 16.1-16.6 / 17.2-18.3 s,
 * 155 / 138 / 132 MB. */
#ifndef MEMO_BITS
#define MEMO_BITS 12
#endif
#define KEY_CHARS (MAX_SIDE * (MAX_SIDE + 1) + 8)

typedef uint64_t u64;

typedef struct {
    int h, w;
    u64 rows[MAX_SIDE];
} Shape;

static int fits(long h, long w) { return h >= 1 && w >= 1 && h <= 64 && w <= 63 && h * (w + 1) <= 64; }

/* shifts by a stride of up to 64 (a 1x63 board): a shift by 64 is 0, not undefined */
#define SHL(x, s) (((x) << ((s)-1)) << 1)
#define SHR(x, s) (((x) >> ((s)-1)) >> 1)

static u64 full_row(int w) { return w >= 64 ? ~(u64)0 : (((u64)1 << w) - 1); }

static int bit_length(u64 x) { return x ? 64 - __builtin_clzll(x) : 0; }

static int low_bit_index(u64 x) { return __builtin_ctzll(x); }

/* a row of w cells read right to left */
static u64 mirrored_row(u64 x, int w)
{
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
    x = ((x >> 8) & 0x00FF00FF00FF00FFULL) | ((x & 0x00FF00FF00FF00FFULL) << 8);
    x = ((x >> 16) & 0x0000FFFF0000FFFFULL) | ((x & 0x0000FFFF0000FFFFULL) << 16);
    x = (x >> 32) | (x << 32);
    return x >> (64 - w);
}

/* canon._transposed: the shape mirrored in its main diagonal */
static void transposed(const Shape *s, Shape *t)
{
    t->h = s->w;
    t->w = s->h;
    for (int j = 0; j < s->w; j++) {
        u64 column = 0;
        int bit = s->w - 1 - j;
        for (int i = 0; i < s->h; i++)
            column = (column << 1) | ((s->rows[i] >> bit) & 1);
        t->rows[j] = column;
    }
}

/* canon.canonical_shape: the least image (rows as a tuple) with h <= w */
static void canonical(const Shape *s, Shape *best)
{
    Shape bases[2];
    int count = 1;
    if (s->h < s->w)
        bases[0] = *s;
    else if (s->h > s->w)
        transposed(s, &bases[0]);
    else {
        bases[0] = *s;
        transposed(s, &bases[1]);
        count = 2;
    }
    int h = bases[0].h, w = bases[0].w;
    const u64 *least = bases[0].rows;
    u64 images[7][MAX_SIDE];
    int made = 0;
    for (int b = 0; b < count; b++) {
        const u64 *rows = bases[b].rows;
        u64 *up = images[made++], *mirror = images[made++], *mirror_up = images[made++];
        for (int i = 0; i < h; i++) {
            up[h - 1 - i] = rows[i];
            mirror[i] = mirrored_row(rows[i], w);
            mirror_up[h - 1 - i] = mirror[i];
        }
        const u64 *candidates[4] = {rows, up, mirror, mirror_up};
        for (int k = 0; k < 4; k++) {
            const u64 *image = candidates[k];
            for (int i = 0; i < h; i++) {
                if (image[i] != least[i]) {
                    if (image[i] < least[i])
                        least = image;
                    break;
                }
            }
        }
    }
    best->h = h;
    best->w = w;
    memcpy(best->rows, least, sizeof(u64) * (size_t)h);
}

/* notation.format_shape into buf (KEY_CHARS bytes); its length */
static Py_ssize_t format_shape(const Shape *s, char *buf)
{
    u64 full = full_row(s->w);
    int all_free = 1;
    for (int i = 0; i < s->h; i++)
        if (s->rows[i] != full) {
            all_free = 0;
            break;
        }
    if (all_free)
        return (Py_ssize_t)snprintf(buf, KEY_CHARS, "%dx%d", s->h, s->w);
    Py_ssize_t n = 0;
    for (int i = 0; i < s->h; i++) {
        if (i)
            buf[n++] = '/';
        for (int bit = s->w - 1; bit >= 0; bit--)
            buf[n++] = ((s->rows[i] >> bit) & 1) ? '.' : '#';
    }
    return n;
}

/* canon.cut: the shape of a non-empty grid mask cut to its bounding box */
static void cut(u64 land, int stride, Shape *s)
{
    u64 full = full_row(stride - 1);
    int low = low_bit_index(land);
    land >>= (low / stride) * stride;
    u64 all = 0;
    int h = 0;
    while (land) {
        u64 row = land & full;
        s->rows[h++] = row;
        all |= row;
        land = SHR(land, stride);
    }
    int right = low_bit_index(all);
    s->h = h;
    s->w = bit_length(all) - right;
    if (right)
        for (int i = 0; i < h; i++)
            s->rows[i] >>= right;
}

static u64 grid_mask(const Shape *s)
{
    u64 mask = 0;
    int stride = s->w + 1;
    for (int i = 0; i < s->h; i++)
        mask |= s->rows[i] << (i * stride);
    return mask;
}

static u64 with_neighbour(u64 cells, int stride)
{
    return cells & ((cells << 1) | (cells >> 1) | SHL(cells, stride) | SHR(cells, stride));
}

/* the land of `rest` that holds its lowest cell (a flood fill) */
static u64 lowest_land(u64 rest, int stride)
{
    u64 land = rest & (~rest + 1);
    for (;;) {
        u64 grown = (land | (land << 1) | (land >> 1) | SHL(land, stride) | SHR(land, stride)) & rest;
        if (grown == land)
            return land;
        land = grown;
    }
}

/* ------------------------------------------------------------------ the land-key memo */

typedef struct {
    u64 moved; /* the land moved to row 0 */
    int stride;
    PyObject *key; /* NULL: an empty slot */
} MemoEntry;

static MemoEntry memo[1 << MEMO_BITS];
static Py_ssize_t memo_hits, memo_misses;

/* the key of a land (a grid mask of stride `stride`): a borrowed reference, NULL on error */
static PyObject *land_key(u64 land, int stride)
{
    int low = low_bit_index(land);
    u64 moved = land >> (low - low % stride);
    u64 hash = (moved ^ ((u64)stride << 58)) * 0x9E3779B97F4A7C15ULL;
    MemoEntry *entry = &memo[hash >> (64 - MEMO_BITS)];
    if (entry->key != NULL && entry->moved == moved && entry->stride == stride) {
        memo_hits++;
        return entry->key;
    }
    memo_misses++;
    Shape shape, best;
    char buf[KEY_CHARS];
    cut(moved, stride, &shape);
    canonical(&shape, &best);
    PyObject *key = PyUnicode_FromStringAndSize(buf, format_shape(&best, buf));
    if (key == NULL)
        return NULL;
    Py_XSETREF(entry->key, key);
    entry->moved = moved;
    entry->stride = stride;
    return key;
}

/* ------------------------------------------------------------------ reading arguments */

/* (h, w, rows) from Python ints and a sequence of ints; 0, or -1 with an exception */
static int read_shape(PyObject *const *args, Py_ssize_t nargs, const char *name, Shape *s,
                      long max_h, long max_w)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s(h, w, rows) takes 3 arguments", name);
        return -1;
    }
    long h = PyLong_AsLong(args[0]), w = PyLong_AsLong(args[1]);
    if ((h == -1 || w == -1) && PyErr_Occurred())
        return -1;
    if (h < 1 || w < 1 || h > max_h || w > max_w) {
        PyErr_Format(PyExc_OverflowError, "%s: a %ldx%ld board is not taken here", name, h, w);
        return -1;
    }
    PyObject *rows = PySequence_Fast(args[2], "rows must be a sequence of ints");
    if (rows == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(rows) != h) {
        Py_DECREF(rows);
        PyErr_Format(PyExc_ValueError, "%s: %ld rows expected", name, h);
        return -1;
    }
    u64 full = full_row((int)w);
    for (Py_ssize_t i = 0; i < h; i++) {
        u64 row = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(rows, i));
        if (row == (u64)-1 && PyErr_Occurred()) {
            Py_DECREF(rows);
            return -1;
        }
        if (row & ~full) {
            Py_DECREF(rows);
            PyErr_Format(PyExc_ValueError, "%s: row %zd has more than %ld columns", name, i, w);
            return -1;
        }
        s->rows[i] = row;
    }
    Py_DECREF(rows);
    s->h = (int)h;
    s->w = (int)w;
    return 0;
}

/* (h, w, (rows...)) */
static PyObject *shape_tuple(const Shape *s)
{
    PyObject *rows = PyTuple_New(s->h);
    if (rows == NULL)
        return NULL;
    for (int i = 0; i < s->h; i++) {
        PyObject *row = PyLong_FromUnsignedLongLong(s->rows[i]);
        if (row == NULL) {
            Py_DECREF(rows);
            return NULL;
        }
        PyTuple_SET_ITEM(rows, i, row);
    }
    return Py_BuildValue("(iiN)", s->h, s->w, rows);
}

/* a canonical key's shape: "HxW" or rows of '.' and '#' joined by '/'; 0 when the text is
 * not one such board fitting a grid mask (the caller then takes the Python path) */
static int parse_key(const char *text, Py_ssize_t n, Shape *s)
{
    const char *x = memchr(text, 'x', (size_t)n);
    if (x != NULL) {
        long h = 0, w = 0;
        const char *p = text;
        if (p == x)
            return 0;
        for (; p < x; p++) {
            if (*p < '0' || *p > '9' || h > 64)
                return 0;
            h = h * 10 + (*p - '0');
        }
        if (++p == text + n)
            return 0;
        for (; p < text + n; p++) {
            if (*p < '0' || *p > '9' || w > 64)
                return 0;
            w = w * 10 + (*p - '0');
        }
        if (!fits(h, w))
            return 0;
        s->h = (int)h;
        s->w = (int)w;
        for (int i = 0; i < h; i++)
            s->rows[i] = full_row((int)w);
        return 1;
    }
    int h = 0, w = -1, column = 0;
    u64 row = 0;
    for (Py_ssize_t i = 0; i <= n; i++) {
        char c = i < n ? text[i] : '/';
        if (c == '/') {
            if (column == 0 || (w >= 0 && column != w) || h >= MAX_SIDE)
                return 0;
            w = column;
            s->rows[h++] = row;
            row = 0;
            column = 0;
        }
        else if (c == '.' || c == '#') {
            if (++column > 63)
                return 0;
            row = (row << 1) | (c == '.');
        }
        else
            return 0;
    }
    if (!fits(h, w))
        return 0;
    s->h = h;
    s->w = w;
    return 1;
}

/* ------------------------------------------------------------------ the functions */

PyDoc_STRVAR(canonical_shape_doc,
             "canonical_shape(h, w, rows) -> (h, w, rows)\n\n"
             "canon.canonical_shape of a shape of at most 64 rows and 63 columns.");

static PyObject *py_canonical_shape(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Shape shape, best;
    if (read_shape(args, nargs, "canonical_shape", &shape, MAX_SIDE, MAX_SIDE - 1) < 0)
        return NULL;
    canonical(&shape, &best);
    return shape_tuple(&best);
}

PyDoc_STRVAR(lands_doc,
             "lands(h, w, rows) -> list of (h, w, rows) | None\n\n"
             "canon.lands_of then canon.cut of a board: its 4-connected components of two\n"
             "cells or more, lowest cell first, each cut to its bounding box; None when\n"
             "h*(w+1) > 64.");

static PyObject *py_lands(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Shape shape, part;
    if (read_shape(args, nargs, "lands", &shape, MAX_SIDE, MAX_SIDE - 1) < 0)
        return NULL;
    if (!fits(shape.h, shape.w))
        Py_RETURN_NONE;
    int stride = shape.w + 1;
    u64 rest = with_neighbour(grid_mask(&shape), stride);
    PyObject *found = PyList_New(0);
    if (found == NULL)
        return NULL;
    while (rest) {
        u64 land = lowest_land(rest, stride);
        rest ^= land;
        cut(land, stride, &part);
        PyObject *item = shape_tuple(&part);
        if (item == NULL || PyList_Append(found, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(found);
            return NULL;
        }
        Py_DECREF(item);
    }
    return found;
}

PyDoc_STRVAR(board_keys_doc,
             "board_keys(h, w, rows) -> list of str | None\n\n"
             "The canonical keys of a board's lands (two cells or more), lowest cell first\n"
             "(a board taller than wide is transposed first); None when the board does not\n"
             "fit a grid mask (h*(w+1) > 64 with h <= w).");

static PyObject *py_board_keys(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Shape given, shape;
    if (read_shape(args, nargs, "board_keys", &given, MAX_SIDE, MAX_SIDE - 1) < 0)
        return NULL;
    if (given.h > given.w)
        transposed(&given, &shape);
    else
        shape = given;
    if (!fits(shape.h, shape.w))
        Py_RETURN_NONE;
    int stride = shape.w + 1;
    u64 rest = with_neighbour(grid_mask(&shape), stride);
    PyObject *found = PyList_New(0);
    if (found == NULL)
        return NULL;
    while (rest) {
        u64 land = lowest_land(rest, stride);
        rest ^= land;
        PyObject *key = land_key(land, stride);
        if (key == NULL || PyList_Append(found, key) < 0) {
            Py_DECREF(found);
            return NULL;
        }
    }
    return found;
}

/* a < b as Python orders str (the keys are ASCII) */
static int key_less(PyObject *a, PyObject *b)
{
    Py_ssize_t na = PyUnicode_GET_LENGTH(a), nb = PyUnicode_GET_LENGTH(b);
    int c = memcmp(PyUnicode_1BYTE_DATA(a), PyUnicode_1BYTE_DATA(b), (size_t)(na < nb ? na : nb));
    return c < 0 || (c == 0 && na < nb);
}

static int key_equal(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    return n == PyUnicode_GET_LENGTH(b) &&
           memcmp(PyUnicode_1BYTE_DATA(a), PyUnicode_1BYTE_DATA(b), (size_t)n) == 0;
}

#define SEEN_SLOTS 512 /* a power of two above 2 * MAX_MOVES */

PyDoc_STRVAR(land_children_doc,
             "land_children(key) -> tuple of tuples of str | None\n\n"
             "CramGame._land_children of one board's key: the distinct children, each the\n"
             "sorted keys of its lands, in order of first occurrence (horizontal dominoes,\n"
             "then vertical ones, lowest cell first). None when the key is not one board\n"
             "fitting a grid mask: the caller takes the Python path.");

static PyObject *py_land_children(PyObject *self, PyObject *key)
{
    (void)self;
    if (!PyUnicode_Check(key) || !PyUnicode_IS_ASCII(key))
        Py_RETURN_NONE;
    Shape shape;
    if (!parse_key((const char *)PyUnicode_1BYTE_DATA(key), PyUnicode_GET_LENGTH(key), &shape))
        Py_RETURN_NONE;
    int stride = shape.w + 1;
    u64 mask = grid_mask(&shape);

    PyObject *lands[MAX_MOVES * MAX_LANDS]; /* borrowed from the memo until the end */
    int start[MAX_MOVES + 1], size[MAX_MOVES];
    Py_hash_t hashes[MAX_MOVES];
    int seen[SEEN_SLOTS];
    int children = 0, used = 0;
    memset(seen, -1, sizeof seen);
    PyObject *result = NULL;
    /* The memo may replace a str it holds while a later land is keyed: every key a child
     * takes is held with a reference of its own until the tuples are built. */
    int steps[2] = {1, stride};
    for (int s = 0; s < 2; s++) {
        int step = steps[s];
        u64 starts = mask & SHR(mask, step);
        while (starts) {
            u64 low = starts & (~starts + 1);
            starts ^= low;
            u64 rest = with_neighbour(mask ^ (low | SHL(low, step)), stride);
            int first = used, n = 0;
            while (rest) {
                u64 land = lowest_land(rest, stride);
                rest ^= land;
                PyObject *land_text = land_key(land, stride);
                if (land_text == NULL)
                    goto done;
                Py_INCREF(land_text);
                int j = first + n++;
                while (j > first && key_less(land_text, lands[j - 1])) { /* insertion sort */
                    lands[j] = lands[j - 1];
                    j--;
                }
                lands[j] = land_text;
                used++;
            }
            Py_uhash_t hash = 0x345678UL + (Py_uhash_t)n;
            for (int i = first; i < used; i++) {
                Py_hash_t h = PyObject_Hash(lands[i]);
                if (h == -1)
                    goto done;
                hash = (hash ^ (Py_uhash_t)h) * 1000003UL;
            }
            int slot = (int)(hash & (SEEN_SLOTS - 1)), duplicate = 0;
            while (seen[slot] >= 0) {
                int other = seen[slot];
                if (hashes[other] == (Py_hash_t)hash && size[other] == n) {
                    int same = 1;
                    for (int i = 0; i < n && same; i++)
                        same = key_equal(lands[start[other] + i], lands[first + i]);
                    if (same) {
                        duplicate = 1;
                        break;
                    }
                }
                slot = (slot + 1) & (SEEN_SLOTS - 1);
            }
            if (duplicate) {
                for (int i = first; i < used; i++)
                    Py_DECREF(lands[i]);
                used = first;
                continue;
            }
            seen[slot] = children;
            hashes[children] = (Py_hash_t)hash;
            start[children] = first;
            size[children] = n;
            children++;
        }
    }
    result = PyTuple_New(children);
    if (result == NULL)
        goto done;
    for (int c = 0; c < children; c++) {
        PyObject *child = PyTuple_New(size[c]);
        if (child == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        for (int i = 0; i < size[c]; i++) {
            PyObject *land_text = lands[start[c] + i];
            Py_INCREF(land_text);
            PyTuple_SET_ITEM(child, i, land_text);
        }
        PyTuple_SET_ITEM(result, c, child);
    }
done:
    for (int i = 0; i < used; i++)
        Py_DECREF(lands[i]);
    return result;
}

PyDoc_STRVAR(memo_stats_doc, "memo_stats() -> (hits, misses, slots): the land-key memo's counts.");

static PyObject *py_memo_stats(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return Py_BuildValue("(nni)", memo_hits, memo_misses, 1 << MEMO_BITS);
}

static PyMethodDef cram_methods[] = {
    {"canonical_shape", (PyCFunction)(void (*)(void))py_canonical_shape, METH_FASTCALL,
     canonical_shape_doc},
    {"lands", (PyCFunction)(void (*)(void))py_lands, METH_FASTCALL, lands_doc},
    {"board_keys", (PyCFunction)(void (*)(void))py_board_keys, METH_FASTCALL, board_keys_doc},
    {"land_children", py_land_children, METH_O, land_children_doc},
    {"memo_stats", py_memo_stats, METH_NOARGS, memo_stats_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cram_module = {
    PyModuleDef_HEAD_INIT,
    "sproutsdb.solver.cram._cram",
    "Compiled hot path of the Cram engine: bitboards, the canonical form under the\n"
    "symmetries of the grid, the children of a land and its split into lands.",
    -1,
    cram_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cram(void)
{
    PyObject *module = PyModule_Create(&cram_module);
    if (module == NULL)
        return NULL;
    if (PyModule_AddIntConstant(module, "CANON_VERSION", CANON_VERSION) < 0 ||
        PyModule_AddIntConstant(module, "MEMO_SLOTS", 1 << MEMO_BITS) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
