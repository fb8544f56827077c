/*
 * _core.c -- the compiled hot path of the Sprouts engine: the children of one land.
 *
 * land_children(land) returns exactly what the pure-Python reference
 *     SproutsGame.component_children(land)
 * returns: the distinct children of the position, each as the sorted tuple of its
 * canonical land strings, in order of first occurrence in the move enumeration of
 * moves.raw_children. Every step is a port of one Python function and keeps its name in a
 * comment, so the two can be read side by side. The engine is split by concept, behind the
 * one module init of this file (core.h holds what the parts share):
 *
 *   core_position.c  parse        notation._Reader (the GLOP 2.x subset a land key is written in)
 *                    raw_children moves.raw_children, _split, _merge
 *   core_land.c      normalize    canon.normalize
 *                    tidy_land    canon._shape (the memo key), and land_of_shape back
 *                    format       canon.format_encoding, _format_boundary, _join_boundaries
 *   core_boundary.c  Bnd          canon._Boundary (base codes, refine, encode)
 *                    colours      canon._refine
 *   core_search.c    Search       canon._Search (greedy least encoding, branching on exact ties)
 *                    encode_land  canon.encode_land
 *   core_arena.c     Arena        memory for one call
 *   core_memo.c      memo         canonical strings by shape, compact, in two generations
 *   _core.c          canonical_lands, land_children(_until), land_child_values, first_child,
 *                    key_lives, init
 *
 * The canonical string is the identity of every stored fact, so this core must never
 * produce a different string than canon.py: it uses the same integer codes, compares
 * sequences exactly as Python compares lists and tuples (lexicographic, a proper prefix
 * is smaller) and explores the same candidates. CANON_VERSION (core.h) says which version of
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

#include "core.h"

PyObject *Unsupported;         /* _core.Unsupported, a ValueError */

/* ------------------------------------------------------------------ Python interface */

/*
 * The memo (core_memo.c) keys canonical strings by land shape (canon._shape / canon._MEMO):
 * the land as written, vertices numbered by first appearance (as normalize numbers them),
 * which fixes the land up to renaming, so it fixes the canonical string.
 */

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
    uint8_t *key = arena_alloc(a, 5 * n + 1);
    if (key == NULL)
        goto done;
    size_t kn = memo_key(shape, n, key);
    uint64_t h = memo_hash(key, kn);
    text = memo_get(key, kn, h);
    if (text != NULL)
        goto done;
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
    if (text != NULL && memo_put(key, kn, h, text) < 0)
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

PyDoc_STRVAR(land_children_until_doc,
"land_children_until(land: str, accept: Callable[[tuple[str, ...]], object])\n"
"    -> tuple[tuple[tuple[str, ...], ...] | None, tuple[str, ...] | None]\n\n"
"land_children(land) made in the same order, each new child offered to accept as it is\n"
"made: (None, child) for the first child accept takes (the children after it are never\n"
"made), else (all the children, None). For searches that stop at a child known to be\n"
"losing but need the whole list otherwise, in one pass. Raises Unsupported as\n"
"land_children does; accept's exceptions propagate.");

static PyObject *land_children_until(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "land_children_until(land, accept) takes 2 arguments");
        return NULL;
    }
    if (!PyCallable_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "accept must be callable");
        return NULL;
    }
    Children ch = {{NULL, 0, 0}, PyList_New(0), args[1], NULL, 0, NULL};
    if (ch.order == NULL)
        return NULL;
    int rc = make_children(args[0], &ch);
    PyObject *result = NULL;
    if (rc == 1) {
        result = PyTuple_Pack(2, Py_None, ch.found);
        Py_DECREF(ch.found);
    } else if (rc == 0) {
        PyObject *all = PyList_AsTuple(ch.order);
        if (all != NULL) {
            result = PyTuple_Pack(2, all, Py_None);
            Py_DECREF(all);
        }
    }
    seen_free(&ch.seen);
    Py_DECREF(ch.order);
    return result;
}

PyDoc_STRVAR(land_child_values_doc,
"land_child_values(land: str, values: dict[str, object], terminal: str) -> frozenset\n\n"
"The set of values[key] over the distinct children of a land, each child written as a\n"
"position key: its canonical lands joined by '+' in sorted order, or terminal when it has\n"
"none (SproutsGame.join). What a table check reduces, made without a tuple, a joined\n"
"string or a lookup per child in Python. KeyError(key) for the first child, in move\n"
"order, that values lacks. Raises Unsupported as land_children does.");

/* The key of a child (a sorted tuple of canonical lands), as SproutsGame.join writes it:
 * a new reference. */
static PyObject *child_key(PyObject *child, PyObject *plus, PyObject *terminal)
{
    Py_ssize_t n = PyTuple_GET_SIZE(child);
    if (n == 0)
        return Py_NewRef(terminal);
    if (n == 1)
        return Py_NewRef(PyTuple_GET_ITEM(child, 0));
    return PyUnicode_Join(plus, child);
}

static PyObject *land_child_values(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError,
                        "land_child_values(land, values, terminal) takes 3 arguments");
        return NULL;
    }
    PyObject *values = args[1], *terminal = args[2];
    if (!PyDict_Check(values) || !PyUnicode_Check(terminal)) {
        PyErr_SetString(PyExc_TypeError, "values must be a dict and terminal a str");
        return NULL;
    }
    Children ch = {{NULL, 0, 0}, PyList_New(0), NULL, NULL, 0, NULL};
    PyObject *plus = PyUnicode_FromString("+");
    PyObject *result = NULL;
    if (ch.order == NULL || plus == NULL || make_children(args[0], &ch) != 0)
        goto done;
    result = PyFrozenSet_New(NULL);
    for (Py_ssize_t i = 0; result != NULL && i < PyList_GET_SIZE(ch.order); i++) {
        PyObject *key = child_key(PyList_GET_ITEM(ch.order, i), plus, terminal);
        PyObject *value = key == NULL ? NULL : PyDict_GetItemWithError(values, key);
        if (value == NULL && key != NULL && !PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, key);
        if (value == NULL || PySet_Add(result, value) < 0)  /* a new frozenset is filled so */
            Py_CLEAR(result);
        Py_XDECREF(key);
    }
done:
    seen_free(&ch.seen);
    Py_XDECREF(ch.order);
    Py_XDECREF(plus);
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
    return PyLong_FromSize_t(memo_count());
}

static PyObject *memo_bytes_py(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromSize_t(memo_bytes());
}

PyDoc_STRVAR(set_memo_limit_doc,
"set_memo_limit(limit: int) -> int\n\n"
"Keep at most limit canonical strings in the memo (at least 2), in two generations of\n"
"limit // 2: when the young one is full the old one is forgotten, and a string met in the\n"
"old one is kept young again. A new limit forgets the memo. Returns the limit in force.");

static PyObject *set_memo_limit(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_ssize_t limit = PyLong_AsSsize_t(arg);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    if (limit < 2 || (size_t)limit > ((size_t)1 << 32)) {
        PyErr_SetString(PyExc_ValueError, "the memo limit must be between 2 and 2**32");
        return NULL;
    }
    memo_set_limit((size_t)limit);
    return PyLong_FromSize_t(memo_limit());
}

static PyMethodDef core_methods[] = {
    {"land_children", land_children, METH_O, land_children_doc},
    {"canonical_lands", canonical_lands, METH_O, canonical_lands_doc},
    {"key_lives", key_lives, METH_O, key_lives_doc},
    {"first_child", (PyCFunction)(void (*)(void))first_child, METH_FASTCALL, first_child_doc},
    {"land_children_until", (PyCFunction)(void (*)(void))land_children_until, METH_FASTCALL,
     land_children_until_doc},
    {"land_child_values", (PyCFunction)(void (*)(void))land_child_values, METH_FASTCALL,
     land_child_values_doc},
    {"clear_memo", clear_memo, METH_NOARGS, "Forget the memoised canonical strings."},
    {"memo_size", memo_size, METH_NOARGS, "Number of memoised canonical strings."},
    {"memo_bytes", memo_bytes_py, METH_NOARGS,
     "Bytes the memo holds: its tables, key pools and strings (an estimate of the strings)."},
    {"set_memo_limit", set_memo_limit, METH_O, set_memo_limit_doc},
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

