/*
 * _assemble.c -- the compiled twins of assemble.assemble_land_moves (the children a misère
 * node gets from the moves in one of its lands, each with its key and move order), of
 * assemble.order_children (those children in move order with df-pn's initial numbers) and
 * of dfpn.scan_children (df-pn's pass over them, reading the misère table of proven nodes).
 *
 * assemble_land_moves returns exactly what the Python definition returns (tests/test_misere_assemble.py
 * compares the two on the nodes of real searches): the same keys, in the same insertion
 * order, mapped to equal (size, (lands, parity, rcts)) tuples. Lands and RCT handles are
 * ordered by insertion sorts, which are stable as Python's sorted() is, so the order agrees
 * even for input that breaks the callers' invariants (sorted rest, sorted handles).
 * The key's tokens ("!" for no lands, "*1" for odd parity) are read from
 * sproutsdb.solver.misere.keys when the module is imported: that module owns the syntax.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *empty_position; /* keys.EMPTY_POSITION */
static PyObject *parity_token;   /* keys.PARITY_TOKEN */
static PyObject *plus;           /* "+" between lands */
static PyObject *space;          /* " " between a key's parts */

/* a < b for str, as Python orders them; -1 with an exception on error */
static int str_less(PyObject *a, PyObject *b)
{
    int c = PyUnicode_Compare(a, b);
    if (c == -1 && PyErr_Occurred())
        return -1;
    return c < 0;
}

/* Insertion sort of items[0..n) by their string keys (stable, as sorted()). Keys are
 * the items themselves for lands, the content ids for handles. 0, or -1 on error. */
static int sort_by(PyObject **items, PyObject **keys, Py_ssize_t n)
{
    for (Py_ssize_t i = 1; i < n; i++) {
        PyObject *item = items[i], *key = keys[i];
        Py_ssize_t j = i;
        while (j > 0) {
            int less = str_less(key, keys[j - 1]);
            if (less < 0)
                return -1;
            if (!less)
                break;
            items[j] = items[j - 1];
            keys[j] = keys[j - 1];
            j--;
        }
        items[j] = item;
        keys[j] = key;
    }
    return 0;
}

/* The child's lands: rest + kept, sorted (a new reference). */
static PyObject *child_lands_of(PyObject *rest, PyObject *kept)
{
    Py_ssize_t nr = PyTuple_GET_SIZE(rest), nk = PyTuple_GET_SIZE(kept);
    if (nk == 0) {
        Py_INCREF(rest);
        return rest;
    }
    if (nr == 0) {
        Py_INCREF(kept);
        return kept;
    }
    Py_ssize_t n = nr + nk;
    PyObject *stack[64];
    PyObject **items = n <= 64 ? stack : PyMem_Malloc(sizeof(PyObject *) * (size_t)n);
    if (items == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < nr; i++)
        items[i] = PyTuple_GET_ITEM(rest, i);
    for (Py_ssize_t i = 0; i < nk; i++) {
        items[nr + i] = PyTuple_GET_ITEM(kept, i);
        if (!PyUnicode_Check(items[nr + i])) {
            PyErr_SetString(PyExc_TypeError, "a move's kept lands must be str");
            goto fail;
        }
    }
    if (sort_by(items, items, n) < 0)
        goto fail;
    PyObject *lands = PyTuple_New(n);
    if (lands == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_INCREF(items[i]);
        PyTuple_SET_ITEM(lands, i, items[i]);
    }
    if (items != stack)
        PyMem_Free(items);
    return lands;
fail:
    if (items != stack)
        PyMem_Free(items);
    return NULL;
}

/* The child's RCTs: rcts + handles, sorted by content id (a new reference). */
static PyObject *child_rcts_of(PyObject *rcts, PyObject *handles, PyObject *cid)
{
    Py_ssize_t nr = PyTuple_GET_SIZE(rcts), nh = PyTuple_GET_SIZE(handles);
    Py_ssize_t n = nr + nh;
    PyObject *stack[2][32];
    PyObject **items = stack[0], **keys = stack[1];
    if (n > 32) {
        items = PyMem_Malloc(sizeof(PyObject *) * (size_t)n * 2);
        if (items == NULL)
            return PyErr_NoMemory();
        keys = items + n;
    }
    PyObject *out = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *h = i < nr ? PyTuple_GET_ITEM(rcts, i) : PyTuple_GET_ITEM(handles, i - nr);
        PyObject *k = PyDict_GetItemWithError(cid, h); /* borrowed */
        if (k == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, h);
            goto done;
        }
        if (!PyUnicode_Check(k)) {
            PyErr_SetString(PyExc_TypeError, "content ids must be str");
            goto done;
        }
        items[i] = h;
        keys[i] = k;
    }
    if (sort_by(items, keys, n) < 0)
        goto done;
    out = PyTuple_New(n);
    if (out == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_INCREF(items[i]);
        PyTuple_SET_ITEM(out, i, items[i]);
    }
done:
    if (items != stack[0])
        PyMem_Free(items);
    return out;
}

/* "+".join(lands) (or "!" when there are none) + tail: one allocation when every part
 * is ASCII, as keys are; Python's join and concatenation otherwise. */
static PyObject *key_of(PyObject *lands, PyObject *tail)
{
    Py_ssize_t n = PyTuple_GET_SIZE(lands);
    if (n == 0)
        return PyUnicode_Concat(empty_position, tail);
    Py_ssize_t length = n - 1 + PyUnicode_GET_LENGTH(tail);
    int ascii = PyUnicode_IS_COMPACT_ASCII(tail);
    for (Py_ssize_t i = 0; i < n && ascii; i++) {
        PyObject *land = PyTuple_GET_ITEM(lands, i);
        if (!PyUnicode_Check(land) || !PyUnicode_IS_COMPACT_ASCII(land))
            ascii = 0;
        else
            length += PyUnicode_GET_LENGTH(land);
    }
    if (!ascii) {
        PyObject *head = PyUnicode_Join(plus, lands);
        if (head == NULL)
            return NULL;
        PyObject *key = PyUnicode_Concat(head, tail);
        Py_DECREF(head);
        return key;
    }
    PyObject *key = PyUnicode_New(length, 127);
    if (key == NULL)
        return NULL;
    Py_UCS1 *at = PyUnicode_1BYTE_DATA(key);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *land = PyTuple_GET_ITEM(lands, i);
        Py_ssize_t size = PyUnicode_GET_LENGTH(land);
        if (i)
            *at++ = '+';
        memcpy(at, PyUnicode_1BYTE_DATA(land), (size_t)size);
        at += size;
    }
    memcpy(at, PyUnicode_1BYTE_DATA(tail), (size_t)PyUnicode_GET_LENGTH(tail));
    return key;
}

/* The key's tail for a child with RCTs of its own: " *1" when odd, then " " + each id. */
static PyObject *rct_tail(long parity, PyObject *child_rcts, PyObject *cid)
{
    Py_ssize_t n = PyTuple_GET_SIZE(child_rcts);
    /* ["", "*1"?, ids...] joined by " ": a space before each part after the first */
    PyObject *parts = PyList_New(1);
    if (parts == NULL)
        return NULL;
    PyObject *tail = NULL;
    PyObject *nothing = PyUnicode_New(0, 0);
    if (nothing == NULL)
        goto done;
    PyList_SET_ITEM(parts, 0, nothing);
    if (parity && PyList_Append(parts, parity_token) < 0)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *k = PyDict_GetItemWithError(cid, PyTuple_GET_ITEM(child_rcts, i));
        if (k == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(child_rcts, i));
            goto done;
        }
        if (PyList_Append(parts, k) < 0)
            goto done;
    }
    tail = PyUnicode_Join(space, parts);
done:
    Py_DECREF(parts);
    return tail;
}

/* *out = int(value): 0, or -1 with a TypeError naming what (an OverflowError as it is) */
static int get_long(PyObject *value, const char *what, long *out)
{
    *out = PyLong_AsLong(value);
    if (*out == -1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_TypeError))
            PyErr_Format(PyExc_TypeError, "%s must be an int", what);
        return -1;
    }
    return 0;
}

/* out[key] = ((lives, -len(lands), nimber != 0, height), (lands, parity, rcts)) unless key
 * is in out; steals nothing. 0, or -1 on error. */
static int put_child(PyObject *out, PyObject *key, PyObject *lands, long parity, PyObject *rcts,
                     long lives, long nimber, long height)
{
    int present = PyDict_Contains(out, key);
    if (present)
        return present < 0 ? -1 : 0;
    PyObject *size = Py_BuildValue("(llll)", lives, -(long)PyTuple_GET_SIZE(lands),
                                   nimber ? 1L : 0L, height);
    if (size == NULL)
        return -1;
    PyObject *parts = Py_BuildValue("(OlO)", lands, parity, rcts);
    if (parts == NULL) {
        Py_DECREF(size);
        return -1;
    }
    PyObject *entry = PyTuple_Pack(2, size, parts);
    Py_DECREF(size);
    Py_DECREF(parts);
    if (entry == NULL)
        return -1;
    int status = PyDict_SetItem(out, key, entry);
    Py_DECREF(entry);
    return status;
}

PyDoc_STRVAR(assemble_doc,
"assemble_land_moves(out, rest, moves, moves_lives, rest_lives, parity, rcts, suffix,\n"
"                    rct_nimber, rct_height, cid, /)\n"
"--\n\n"
"Add to out the children a node gets from the moves of one land: assemble.py's\n"
"assemble_land_moves, compiled (same keys, same order, equal values).");

static PyObject *assemble_land_moves(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 11) {
        PyErr_Format(PyExc_TypeError, "assemble_land_moves takes 11 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *out = args[0], *rest = args[1], *moves = args[2], *moves_lives = args[3];
    PyObject *rcts = args[6], *suffix = args[7], *cid = args[10];
    if (!PyDict_Check(out) || !PyTuple_Check(rest) || !PyTuple_Check(rcts)
        || !PyDict_Check(cid) || !PyTuple_Check(suffix) || PyTuple_GET_SIZE(suffix) != 2
        || !PyUnicode_Check(PyTuple_GET_ITEM(suffix, 0))
        || !PyUnicode_Check(PyTuple_GET_ITEM(suffix, 1))) {
        PyErr_SetString(PyExc_TypeError,
                        "assemble_land_moves(dict, tuple, moves, lives, int, int, tuple, "
                        "(str, str), int, int, dict)");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(rest); i++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(rest, i))) {
            PyErr_SetString(PyExc_TypeError, "the rest of the lands must be str");
            return NULL;
        }
    long rest_lives, parity, rct_nimber, rct_height;
    if (get_long(args[4], "rest_lives", &rest_lives) < 0 || get_long(args[5], "parity", &parity) < 0
        || get_long(args[8], "rct_nimber", &rct_nimber) < 0
        || get_long(args[9], "rct_height", &rct_height) < 0)
        return NULL;

    PyObject *move_seq = PySequence_Fast(moves, "moves must be a sequence");
    if (move_seq == NULL)
        return NULL;
    PyObject *lives_seq = NULL;
    const unsigned char *lives_bytes = NULL;
    if (PyBytes_Check(moves_lives)) {
        lives_bytes = (const unsigned char *)PyBytes_AS_STRING(moves_lives);
    } else {
        lives_seq = PySequence_Fast(moves_lives, "moves_lives must be a sequence");
        if (lives_seq == NULL) {
            Py_DECREF(move_seq);
            return NULL;
        }
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(move_seq);
    Py_ssize_t n_lives = lives_bytes ? PyBytes_GET_SIZE(moves_lives)
                                     : PySequence_Fast_GET_SIZE(lives_seq);
    if (n_lives < n) /* zip() stops at the shorter */
        n = n_lives;
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *move = PySequence_Fast_GET_ITEM(move_seq, i);
        long move_lives = lives_bytes ? (long)lives_bytes[i] : 0;
        if (!lives_bytes && get_long(PySequence_Fast_GET_ITEM(lives_seq, i), "lives", &move_lives) < 0)
            goto done;
        PyObject *kept, *handles = NULL;
        long flip = 0, nimber = 0, height = 0;
        PyObject *lone = NULL;
        if (PyUnicode_Check(move)) { /* one new land of unknown RCT */
            lone = PyTuple_Pack(1, move);
            if (lone == NULL)
                goto done;
            kept = lone;
        } else {
            if (!PyTuple_Check(move) || PyTuple_GET_SIZE(move) != 6
                || !PyTuple_Check(PyTuple_GET_ITEM(move, 0))
                || !PyTuple_Check(PyTuple_GET_ITEM(move, 3))) {
                PyErr_SetString(PyExc_TypeError,
                                "a move is a str or (kept, lives, flip, rcts, nimber, height)");
                goto done;
            }
            kept = PyTuple_GET_ITEM(move, 0);
            handles = PyTuple_GET_ITEM(move, 3);
            if (get_long(PyTuple_GET_ITEM(move, 2), "flip", &flip) < 0
                || get_long(PyTuple_GET_ITEM(move, 4), "nimber", &nimber) < 0
                || get_long(PyTuple_GET_ITEM(move, 5), "height", &height) < 0)
                goto done;
            if (PyTuple_GET_SIZE(handles) == 0)
                handles = NULL;
        }
        PyObject *lands = child_lands_of(rest, kept);
        Py_XDECREF(lone);
        if (lands == NULL)
            goto done;
        long child_parity = parity ^ flip;
        PyObject *child_rcts, *tail;
        if (handles != NULL) {
            child_rcts = child_rcts_of(rcts, handles, cid);
            tail = child_rcts == NULL ? NULL : rct_tail(child_parity, child_rcts, cid);
        } else {
            child_rcts = rcts;
            Py_INCREF(child_rcts);
            tail = PyTuple_GET_ITEM(suffix, child_parity ? 1 : 0);
            Py_INCREF(tail);
        }
        PyObject *key = tail == NULL ? NULL : key_of(lands, tail);
        int status = key == NULL ? -1
                                 : put_child(out, key, lands, child_parity, child_rcts,
                                             rest_lives + move_lives,
                                             child_parity ^ rct_nimber ^ nimber,
                                             child_parity + rct_height + height);
        Py_XDECREF(key);
        Py_XDECREF(tail);
        Py_XDECREF(child_rcts);
        Py_DECREF(lands);
        if (status < 0)
            goto done;
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    Py_DECREF(move_seq);
    Py_XDECREF(lives_seq);
    return result;
}

/* ------------------------------------------------------------------ order_children */

typedef struct {
    long size[4];    /* the move order: lives, -lands, nimber != 0, parity + height */
    PyObject *key;   /* borrowed from the dict */
    PyObject *child; /* borrowed */
} Entry;

/* (size, key) as Python orders the tuples (size, key, child); keys are distinct str, so
 * the order is total and qsort's instability cannot show. */
static int entry_cmp(const void *pa, const void *pb)
{
    const Entry *a = pa, *b = pb;
    for (int i = 0; i < 4; i++)
        if (a->size[i] != b->size[i])
            return a->size[i] < b->size[i] ? -1 : 1;
    return PyUnicode_Compare(a->key, b->key); /* two str: no error possible */
}

static long floor_div(long a, long b)
{
    long q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

PyDoc_STRVAR(order_doc,
"order_children(kids, divisor, initials, /)\n"
"--\n\n"
"The children of kids ({key: (size, (lands, parity, rcts))}) in move order, each as\n"
"(key, child, initials[1 + size[0] // divisor + len(rcts)]): assemble.py's order_children,\n"
"compiled (sizes must be 4-tuples of ints).");

static PyObject *order_children(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "order_children takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *kids = args[0], *initials = args[2];
    if (!PyDict_Check(kids)) {
        PyErr_SetString(PyExc_TypeError, "order_children: kids must be a dict");
        return NULL;
    }
    long divisor = PyLong_AsLong(args[1]);
    if (divisor == -1 && PyErr_Occurred())
        return NULL;
    if (divisor <= 0) {
        PyErr_SetString(PyExc_ValueError, "order_children: divisor must be positive");
        return NULL;
    }
    Py_ssize_t n = PyDict_GET_SIZE(kids);
    Entry *entries = PyMem_Malloc(sizeof(Entry) * (size_t)(n ? n : 1));
    if (entries == NULL)
        return PyErr_NoMemory();
    PyObject *result = NULL, *key, *value;
    Py_ssize_t at = 0, i = 0;
    while (PyDict_Next(kids, &at, &key, &value)) {
        PyObject *size, *child;
        if (!PyUnicode_Check(key) || !PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 2
            || !PyTuple_Check(size = PyTuple_GET_ITEM(value, 0)) || PyTuple_GET_SIZE(size) != 4
            || !PyTuple_Check(child = PyTuple_GET_ITEM(value, 1)) || PyTuple_GET_SIZE(child) != 3
            || !PyTuple_Check(PyTuple_GET_ITEM(child, 2))) {
            PyErr_SetString(PyExc_TypeError,
                            "order_children: kids maps str to ((4 ints), (lands, parity, rcts))");
            goto done;
        }
        for (int j = 0; j < 4; j++) {
            PyObject *part = PyTuple_GET_ITEM(size, j);
            entries[i].size[j] = PyLong_Check(part) ? PyLong_AsLong(part) : -1;
            if (!PyLong_Check(part) || (entries[i].size[j] == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                PyErr_SetString(PyExc_TypeError, "order_children: a size holds 4 ints");
                goto done;
            }
        }
        entries[i].key = key;
        entries[i].child = child;
        i++;
    }
    qsort(entries, (size_t)n, sizeof(Entry), entry_cmp);
    result = PyList_New(n);
    if (result == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        long delta = 1 + floor_div(entries[i].size[0], divisor)
                     + (long)PyTuple_GET_SIZE(PyTuple_GET_ITEM(entries[i].child, 2));
        PyObject *index = PyLong_FromLong(delta);
        PyObject *numbers = index == NULL ? NULL : PyObject_GetItem(initials, index);
        Py_XDECREF(index);
        PyObject *item = numbers == NULL ? NULL
                                         : PyTuple_Pack(3, entries[i].key, entries[i].child,
                                                        numbers);
        Py_XDECREF(numbers);
        if (item == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, item);
    }
done:
    PyMem_Free(entries);
    return result;
}

/* ------------------------------------------------------------ df-pn's pass (scan_children) */

static long long infinity; /* dfpn.INFINITY */

/* A (φ, δ) pair of ints into *phi, *delta; 0, or -1 with an exception. */
static int get_pair(PyObject *pair, long long *phi, long long *delta)
{
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "scan_children: proof numbers are (φ, δ) pairs");
        return -1;
    }
    *phi = PyLong_AsLongLong(PyTuple_GET_ITEM(pair, 0));
    if (*phi == -1 && PyErr_Occurred())
        return -1;
    *delta = PyLong_AsLongLong(PyTuple_GET_ITEM(pair, 1));
    if (*delta == -1 && PyErr_Occurred())
        return -1;
    return 0;
}

/* Losing? of a child as the search's decided(node, key) says: for a node with lands whose
 * key is not a resume claim, table.get(key) (what MisereSolver._decided returns then),
 * else the call. A new reference (Py_None for undecided), NULL on error. */
static PyObject *decided_of(PyObject *decided, PyObject *table, PyObject *claims,
                            PyObject *key, PyObject *node)
{
    if (PyTuple_Check(node) && PyTuple_GET_SIZE(node) == 3) {
        PyObject *lands = PyTuple_GET_ITEM(node, 0);
        if (PyTuple_Check(lands) && PyTuple_GET_SIZE(lands) > 0) {
            int claimed = PySet_GET_SIZE(claims) ? PySet_Contains(claims, key) : 0;
            if (claimed < 0)
                return NULL;
            if (!claimed) {
                PyObject *value = PyDict_GetItemWithError(table, key);
                if (value == NULL && PyErr_Occurred())
                    return NULL;
                value = value == NULL ? Py_None : value;
                Py_INCREF(value);
                return value;
            }
        }
    }
    PyObject *call_args[2] = {node, key};
    return PyObject_Vectorcall(decided, call_args, 2, NULL);
}

/* (φ, δ) of one child into *phi, *delta: decided, else numbers', else learnt's, else its
 * initial pair. 0, or -1 with an exception. */
static int child_numbers(PyObject *const *args, int hashed, PyObject *key, PyObject *node,
                         PyObject *initial, long long *phi, long long *delta)
{
    PyObject *decided = args[1], *numbers = args[2], *learnt = args[3];
    PyObject *value = decided_of(decided, args[5], args[6], key, node);
    if (value == NULL)
        return -1;
    if (value != Py_None) {
        int losing = PyObject_IsTrue(value);
        Py_DECREF(value);
        if (losing < 0)
            return -1;
        *phi = losing ? infinity : 0;
        *delta = losing ? 0 : infinity;
        return 0;
    }
    Py_DECREF(value);
    PyObject *pair; /* borrowed */
    if (hashed) {
        Py_hash_t h = PyObject_Hash(key);
        if (h == -1)
            return -1;
        PyObject *hash_key = PyLong_FromSsize_t(h);
        if (hash_key == NULL)
            return -1;
        pair = PyDict_GetItemWithError(numbers, hash_key);
        Py_DECREF(hash_key);
    } else {
        pair = PyDict_GetItemWithError(numbers, key);
    }
    if (pair == NULL && PyErr_Occurred())
        return -1;
    if (pair != NULL) { /* numbers.get(...) or learnt.get(key, initial), as in Python */
        int found = PyTuple_Check(pair) ? PyTuple_GET_SIZE(pair) > 0 : PyObject_IsTrue(pair);
        if (found < 0)
            return -1;
        if (!found)
            pair = NULL;
    }
    if (pair == NULL) {
        pair = PyDict_GetItemWithError(learnt, key);
        if (pair == NULL) {
            if (PyErr_Occurred())
                return -1;
            pair = initial;
        }
    }
    Py_INCREF(pair); /* held while read: a dict's entry could go as its value is read */
    int bad = get_pair(pair, phi, delta);
    Py_DECREF(pair);
    return bad;
}

PyDoc_STRVAR(scan_doc,
"scan_children(children, decided, numbers, learnt, hashed, table, claims, /)\n"
"--\n\n"
"dfpn.scan_children(children, decided, numbers, learnt, hashed), compiled, for the misère\n"
"search: a child with lands whose key is not in claims is looked up in table (the proven\n"
"nodes) instead of asking decided, which answers exactly that for such a child.");

static PyObject *scan_children(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError, "scan_children takes 7 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *children = args[0];
    if (!PyList_Check(children) || !PyDict_Check(args[2]) || !PyDict_Check(args[3])
        || !PyDict_Check(args[5]) || !PyAnySet_Check(args[6])) {
        PyErr_SetString(PyExc_TypeError,
                        "scan_children: children must be a list, numbers, learnt and table "
                        "dicts, claims a set");
        return NULL;
    }
    int hashed = PyObject_IsTrue(args[4]);
    if (hashed < 0)
        return NULL;
    long long phi = infinity, second = infinity, delta = 0, best_phi = 0;
    Py_ssize_t best_index = -1;
    PyObject *winning = PyList_New(0);
    if (winning == NULL)
        return NULL;
    /* the list is read again at every step: a call of decided may run any code */
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(children); index++) {
        PyObject *item = PyList_GET_ITEM(children, index);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3
            || !PyUnicode_Check(PyTuple_GET_ITEM(item, 0))) {
            PyErr_SetString(PyExc_TypeError,
                            "scan_children: a child is a (key, node, (φ, δ)) tuple");
            goto fail;
        }
        Py_INCREF(item);
        long long child_phi, child_delta;
        int bad = child_numbers(args, hashed, PyTuple_GET_ITEM(item, 0), PyTuple_GET_ITEM(item, 1),
                                PyTuple_GET_ITEM(item, 2), &child_phi, &child_delta);
        Py_DECREF(item);
        if (bad)
            goto fail;
        if (child_delta == 0) { /* a losing child: the node is a win */
            phi = 0;
            break;
        }
        if (child_phi == 0) { /* a winning child adds nothing to either number */
            PyObject *at = PyLong_FromSsize_t(index);
            if (at == NULL || PyList_Append(winning, at) < 0) {
                Py_XDECREF(at);
                goto fail;
            }
            Py_DECREF(at);
            continue;
        }
        delta = child_phi >= infinity - delta ? infinity : delta + child_phi;
        if (child_delta < phi) {
            second = phi;
            phi = child_delta;
            best_index = index;
            best_phi = child_phi;
        } else if (child_delta < second) {
            second = child_delta;
        }
    }
    return Py_BuildValue("(LLLnLN)", phi, delta, second, best_index, best_phi, winning);
fail:
    Py_DECREF(winning);
    return NULL;
}

static PyMethodDef assemble_methods[] = {
    {"order_children", (PyCFunction)(void (*)(void))order_children, METH_FASTCALL, order_doc},
    {"assemble_land_moves", (PyCFunction)(void (*)(void))assemble_land_moves, METH_FASTCALL,
     assemble_doc},
    {"scan_children", (PyCFunction)(void (*)(void))scan_children, METH_FASTCALL, scan_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef assemble_module = {
    PyModuleDef_HEAD_INIT,
    "sproutsdb.solver.misere._assemble",
    "Compiled hot path of the misère search: a node's children from one land's moves, in order,\n"
    "and df-pn's pass over them.",
    -1,
    assemble_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__assemble(void)
{
    PyObject *keys = PyImport_ImportModule("sproutsdb.solver.misere.keys");
    if (keys == NULL)
        return NULL;
    empty_position = PyObject_GetAttrString(keys, "EMPTY_POSITION");
    parity_token = PyObject_GetAttrString(keys, "PARITY_TOKEN");
    Py_DECREF(keys);
    plus = PyUnicode_FromString("+");
    space = PyUnicode_FromString(" ");
    if (empty_position == NULL || parity_token == NULL || plus == NULL || space == NULL)
        return NULL;
    if (!PyUnicode_Check(empty_position) || !PyUnicode_Check(parity_token)) {
        PyErr_SetString(PyExc_TypeError, "keys.EMPTY_POSITION and PARITY_TOKEN must be str");
        return NULL;
    }
    PyObject *dfpn = PyImport_ImportModule("sproutsdb.solver.search.dfpn");
    if (dfpn == NULL)
        return NULL;
    PyObject *inf = PyObject_GetAttrString(dfpn, "INFINITY");
    Py_DECREF(dfpn);
    if (inf == NULL)
        return NULL;
    infinity = PyLong_AsLongLong(inf);
    Py_DECREF(inf);
    if (infinity == -1 && PyErr_Occurred())
        return NULL;
    return PyModule_Create(&assemble_module);
}
