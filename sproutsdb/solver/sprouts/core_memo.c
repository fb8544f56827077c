/*
 * core_memo.c -- the memo of canonical strings by land shape (canon._shape / canon._MEMO),
 * kept compact so that a solve can hold a few hundred thousand of them in tens of MB.
 *
 * A key is the shape tidy_land writes (int32 codes: -2/-4 a region, -1 a boundary,
 * 8 * vertex + tag a corner), packed as bytes: -1, -2, -4 become 0, 1, 2 and a corner
 * code c becomes c + 3, each written in 7-bit groups (one byte below 128, so one byte per
 * corner of a land of up to 15 vertices). The packing is one-to-one, so equal bytes mean
 * equal shapes: a lookup never answers for another land.
 *
 * Two generations, each a hash table (open addressing, linear probing; a slot is 8 bytes:
 * 32 bits of the hash and the entry's index) over arrays of entries (the key's place in a
 * byte pool and a reference to the str). New strings go to the young generation; a string
 * found in the old one is copied into the young one. When the young one is full, the old
 * one is dropped and the young one becomes old: the strings met since the last turn stay,
 * and the memo never holds more than its limit (both generations together).
 */

#include "core.h"

#define MEMO_DEFAULT_LIMIT ((size_t)1 << 17)

typedef struct {
    uint64_t *slots;           /* 0: empty; else hash >> 32 << 32 | (entry + 1) */
    size_t cap;                /* a power of 2, or 0 before the first insert */
    size_t count;
    PyObject **texts;          /* per entry: the canonical string (a new reference) */
    uint32_t *at;              /* per entry: its key in the pool (length, then bytes) */
    size_t entry_cap;
    uint8_t *pool;
    size_t pool_used, pool_cap;
} Gen;

static Gen gens[2];
static int young;              /* gens[young] takes new entries; gens[1 - young] is old */
static size_t gen_limit = MEMO_DEFAULT_LIMIT / 2;

/* ------------------------------------------------------------------ keys */

static inline uint8_t *put_varint(uint8_t *out, uint32_t x)
{
    while (x >= 0x80) {
        *out++ = (uint8_t)(x | 0x80);
        x >>= 7;
    }
    *out++ = (uint8_t)x;
    return out;
}

static inline const uint8_t *get_varint(const uint8_t *in, uint32_t *x)
{
    uint32_t v = 0;
    int shift = 0;
    while (*in & 0x80) {
        v |= (uint32_t)(*in++ & 0x7f) << shift;
        shift += 7;
    }
    *x = v | (uint32_t)*in++ << shift;
    return in;
}

size_t memo_key(const int32_t *shape, size_t n, uint8_t *out)
{
    uint8_t *k = out;
    for (size_t i = 0; i < n; i++) {
        int32_t c = shape[i];
        k = put_varint(k, c == -1 ? 0u : c == -2 ? 1u : c == -4 ? 2u : (uint32_t)c + 3u);
    }
    return (size_t)(k - out);
}

uint64_t memo_hash(const uint8_t *key, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ (uint64_t)n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {        /* eight bytes a step */
        uint64_t w;
        memcpy(&w, key + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15u;
        h ^= h >> 32;
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, key + i, n - i);
        h = (h ^ w) * 0x9e3779b97f4a7c15u;
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 32;
    return h;
}

/* ------------------------------------------------------------------ one generation */

static int gen_same(const Gen *g, uint32_t entry, const uint8_t *key, size_t n)
{
    uint32_t len;
    const uint8_t *p = get_varint(g->pool + g->at[entry], &len);
    return len == n && memcmp(p, key, n) == 0;
}

/* The index of the slot holding the key, or of the empty slot where it would go. */
static size_t gen_slot(const Gen *g, const uint8_t *key, size_t n, uint64_t h)
{
    size_t mask = g->cap - 1;
    uint64_t tag = h >> 32 << 32;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        uint64_t s = g->slots[i];
        if (s == 0 || ((s & ~(uint64_t)0xffffffffu) == tag
                       && gen_same(g, (uint32_t)s - 1, key, n)))
            return i;
    }
}

/* The string of the key in this generation (borrowed), or NULL. */
static PyObject *gen_get(const Gen *g, const uint8_t *key, size_t n, uint64_t h)
{
    if (g->count == 0)
        return NULL;
    uint64_t s = g->slots[gen_slot(g, key, n, h)];
    return s == 0 ? NULL : g->texts[(uint32_t)s - 1];
}

/* Forget every entry, keeping the memory for the next round. */
static void gen_clear(Gen *g)
{
    for (size_t e = 0; e < g->count; e++)
        Py_CLEAR(g->texts[e]);
    if (g->slots != NULL)
        memset(g->slots, 0, g->cap * sizeof(uint64_t));
    g->count = 0;
    g->pool_used = 0;
}

static void gen_free(Gen *g)
{
    gen_clear(g);
    free(g->slots);
    free(g->texts);
    free(g->at);
    free(g->pool);
    memset(g, 0, sizeof(*g));
}

/* Room for one more entry of a key of n bytes; -1 with MemoryError set. */
static int gen_reserve(Gen *g, size_t n)
{
    if (4 * (g->count + 1) > 3 * g->cap) {   /* the table, at most 3/4 full */
        size_t cap = g->cap ? 2 * g->cap : 1024;
        uint64_t *slots = calloc(cap, sizeof(uint64_t));
        if (slots == NULL)
            goto nomem;
        /* The low bits of the hash are not kept in a slot: re-insert from the keys. */
        for (size_t i = 0; i < g->cap; i++)
            if (g->slots[i] != 0) {
                uint32_t e = (uint32_t)g->slots[i] - 1, len;
                const uint8_t *p = get_varint(g->pool + g->at[e], &len);
                size_t j = (size_t)memo_hash(p, len) & (cap - 1);
                while (slots[j] != 0)
                    j = (j + 1) & (cap - 1);
                slots[j] = g->slots[i];
            }
        free(g->slots);
        g->slots = slots;
        g->cap = cap;
    }
    if (g->count == g->entry_cap) {
        size_t cap = g->entry_cap ? 2 * g->entry_cap : 512;
        if (cap > gen_limit && gen_limit > g->count)
            cap = gen_limit;                 /* a generation never holds more */
        PyObject **texts = realloc(g->texts, cap * sizeof(PyObject *));
        if (texts == NULL)
            goto nomem;
        g->texts = texts;
        uint32_t *at = realloc(g->at, cap * sizeof(uint32_t));
        if (at == NULL)
            goto nomem;
        g->at = at;
        g->entry_cap = cap;
    }
    if (g->pool_cap - g->pool_used < n + 5) {
        size_t cap = g->pool_cap ? g->pool_cap : 1 << 14;
        while (cap - g->pool_used < n + 5)
            cap += cap / 2;
        uint8_t *pool = realloc(g->pool, cap);
        if (pool == NULL)
            goto nomem;
        g->pool = pool;
        g->pool_cap = cap;
    }
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

/* Add the key (not in g) with its string (a new reference is taken). */
static int gen_put(Gen *g, const uint8_t *key, size_t n, uint64_t h, PyObject *text)
{
    if (gen_reserve(g, n) < 0)
        return -1;
    size_t i = gen_slot(g, key, n, h);
    uint32_t e = (uint32_t)g->count++;
    g->at[e] = (uint32_t)g->pool_used;
    uint8_t *p = put_varint(g->pool + g->pool_used, (uint32_t)n);
    memcpy(p, key, n);
    g->pool_used = (size_t)(p + n - g->pool);
    g->texts[e] = Py_NewRef(text);
    g->slots[i] = (h >> 32 << 32) | (uint64_t)(e + 1);
    return 0;
}

/* ------------------------------------------------------------------ the memo */

/* Make room in the young generation: when full (or its pool too large for 32-bit
 * offsets), drop the old one and start a new young one. */
static void memo_turn_if_full(size_t n)
{
    Gen *g = &gens[young];
    if (g->count >= gen_limit || g->pool_used + n + 5 > UINT32_MAX) {
        young = 1 - young;
        gen_clear(&gens[young]);
    }
}

PyObject *memo_get(const uint8_t *key, size_t n, uint64_t h)
{
    PyObject *text = gen_get(&gens[young], key, n, h);
    if (text != NULL)
        return Py_NewRef(text);
    text = gen_get(&gens[1 - young], key, n, h);
    if (text == NULL)
        return NULL;
    Py_INCREF(text);                   /* the old generation may be dropped below */
    if (memo_put(key, n, h, text) < 0)
        PyErr_Clear();                 /* not kept young: the answer stands all the same */
    return text;
}

int memo_put(const uint8_t *key, size_t n, uint64_t h, PyObject *text)
{
    memo_turn_if_full(n);
    return gen_put(&gens[young], key, n, h, text);
}

void memo_clear(void)
{
    gen_clear(&gens[0]);
    gen_clear(&gens[1]);
}

size_t memo_count(void)
{
    return gens[0].count + gens[1].count;
}

size_t memo_limit(void)
{
    return 2 * gen_limit;
}

void memo_set_limit(size_t limit)
{
    size_t half = limit / 2 ? limit / 2 : 1;
    if (half == gen_limit)
        return;
    gen_limit = half;
    gen_free(&gens[0]);               /* free the memory of a larger memo, too */
    gen_free(&gens[1]);
}

size_t memo_bytes(void)
{
    size_t bytes = 0;
    for (int i = 0; i < 2; i++) {
        const Gen *g = &gens[i];
        bytes += g->cap * sizeof(uint64_t) + g->entry_cap * (sizeof(PyObject *) + sizeof(uint32_t))
                 + g->pool_cap;
        for (size_t e = 0; e < g->count; e++)
            bytes += sizeof(PyASCIIObject)
                     + (size_t)PyUnicode_GET_LENGTH(g->texts[e]) + 1;
    }
    return bytes;
}
