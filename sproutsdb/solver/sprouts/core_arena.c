/*
 * core_arena.c -- memory for one call of the core: blocks released in stack order (see core.h).
 */

#include "core.h"

/* ------------------------------------------------------------------ arena */

/* arena_alloc's slow path: a new block for n bytes (n rounded to units), or NULL. */
void *arena_alloc_block(Arena *a, size_t n)
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

void arena_free(Arena *a)
{
    Mark empty = {NULL, 0};
    arena_release(a, empty);
    free(a->spare);
    a->spare = NULL;
}
