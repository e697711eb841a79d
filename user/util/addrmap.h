/* An ordered map from addresses to fixed-size values, of a bounded
 * number of entries: exact lookups, and the entry at or below an address
 * (the block a pointer into its middle belongs to), each in O(log n).
 * A treap in one node pool: no allocation after vg_addrmap_new, so that
 * what the map holds is bounded by what the caller asked for. */
#ifndef VIGIL_UTIL_ADDRMAP_H
#define VIGIL_UTIL_ADDRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vg_addrmap;

/* Room for cap entries of val_size bytes each; NULL without memory. */
struct vg_addrmap *vg_addrmap_new(size_t cap, size_t val_size);
void vg_addrmap_free(struct vg_addrmap *m);

/* key's value becomes *val (copied). -1 when the map is full and key is
 * not in it: nothing changed. */
int vg_addrmap_put(struct vg_addrmap *m, uint64_t key, const void *val);
/* Removes key; false when it was not there. */
bool vg_addrmap_del(struct vg_addrmap *m, uint64_t key);
/* key's value, NULL when absent; valid until the map next changes */
void *vg_addrmap_get(const struct vg_addrmap *m, uint64_t key);
/* The entry with the greatest key <= k: its value (its key in *key), or
 * NULL when every key is above k. */
void *vg_addrmap_floor(const struct vg_addrmap *m, uint64_t k,
		       uint64_t *key);
size_t vg_addrmap_count(const struct vg_addrmap *m);

#endif
