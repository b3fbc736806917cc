// SPDX-License-Identifier: GPL-2.0
/* BTF merging, shared by tools/btfmerge (vmlinux.h) and the engine (a BTF for CO-RE without
 * module BTF ids). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "engine/btfmerge.h"

/* Rebase a type id of module @src (whose own ids start at @base_cnt) into the merged BTF. */
static __u32 rebase(__u32 id, __u32 base_cnt, __u32 delta)
{
	return id < base_cnt ? id : id + delta;
}

static int rebase_type(struct btf_type *t, __u32 base_cnt, __u32 delta)
{
	__u16 vlen = btf_vlen(t);
	int i;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		return 0;
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		t->type = rebase(t->type, base_cnt, delta);
		return 0;
	case BTF_KIND_ARRAY: {
		struct btf_array *a = btf_array(t);

		a->type = rebase(a->type, base_cnt, delta);
		a->index_type = rebase(a->index_type, base_cnt, delta);
		return 0;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		struct btf_member *m = btf_members(t);

		for (i = 0; i < vlen; i++)
			m[i].type = rebase(m[i].type, base_cnt, delta);
		return 0;
	}
	case BTF_KIND_FUNC_PROTO: {
		struct btf_param *p = btf_params(t);

		t->type = rebase(t->type, base_cnt, delta);
		for (i = 0; i < vlen; i++)
			p[i].type = rebase(p[i].type, base_cnt, delta);
		return 0;
	}
	case BTF_KIND_DATASEC: {
		struct btf_var_secinfo *v = btf_var_secinfos(t);

		for (i = 0; i < vlen; i++)
			v[i].type = rebase(v[i].type, base_cnt, delta);
		return 0;
	}
	default:
		return -EINVAL;
	}
}

/* the kinds rebase_type() knows the type ids of */
static bool known_kind(const struct btf_type *t)
{
	return btf_kind(t) >= BTF_KIND_INT && btf_kind(t) <= BTF_KIND_ENUM64;
}

unsigned int btf_merge_unknown;

int btf_append_split(struct btf *dst, const struct btf *base, const struct btf *mod)
{
	__u32 base_cnt = btf__type_cnt(base), id, cnt, delta;
	int err = 0;

	cnt = btf__type_cnt(mod);
	delta = btf__type_cnt(dst) - base_cnt;
	for (id = base_cnt; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(mod, id);
		int nid;

		/*
		 * A kind a later kernel added, whose ids cannot be rebased: an opaque stand-in keeps
		 * every later id where the modules' types expect it; only what refers to it is lost
		 * (CO-RE then refuses that one relocation, not the whole load)
		 */
		if (!known_kind(t)) {
			nid = btf__add_int(dst, "slotscope_unknown_btf_kind", 1, 0);
			if (nid < 0)
				return nid;
			btf_merge_unknown++;
			continue;
		}
		nid = btf__add_type(dst, mod, t);

		if (nid < 0) {
			err = nid;
			break;
		}
		/* btf__add_type() copies strings but keeps type ids as they were in @mod */
		err = rebase_type((struct btf_type *)btf__type_by_id(dst, nid), base_cnt, delta);
		if (err)
			break;
	}
	return err;
}


static bool shadowable(const struct btf_type *t)
{
	return t->name_off && (btf_is_composite(t) || btf_is_any_enum(t));
}

struct named {
	const char *name;
	__u32 id;
};

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/*
 * Rename @full's base types (ids below @base_cnt) that a type of @mod (split on @base) of the
 * same name and kind redefines. The module's split BTF holds only what differs from the base
 * (pahole deduplicates the rest), so a name found in both is a different definition.
 */
static int shadow_base(struct btf *full, __u32 base_cnt, const struct btf *mod)
{
	struct named *idx = NULL;
	size_t n = 0;
	int err = 0;

	idx = calloc(base_cnt, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (__u32 id = 1; id < base_cnt; id++) {
		const struct btf_type *t = btf__type_by_id(full, id);

		if (shadowable(t))
			idx[n++] = (struct named){ btf__name_by_offset(full, t->name_off), id };
	}
	qsort(idx, n, sizeof(*idx), named_cmp);
	for (__u32 id = base_cnt; !err && id < btf__type_cnt(mod); id++) {
		const struct btf_type *mt = btf__type_by_id(mod, id);
		struct named key, *hit;
		char name[160];

		if (!shadowable(mt) || !btf_vlen(mt))
			continue;
		key.name = btf__name_by_offset(mod, mt->name_off);
		hit = bsearch(&key, idx, n, sizeof(*idx), named_cmp);
		/* back to the first of equal names, then every one of the same kind */
		while (hit && hit > idx && !strcmp(hit[-1].name, key.name))
			hit--;
		for (; !err && hit && hit < idx + n && !strcmp(hit->name, key.name); hit++) {
			struct btf_type *bt = (struct btf_type *)btf__type_by_id(full, hit->id);
			int off;

			if (!bt->name_off || btf_kind(bt) != btf_kind(mt) || btf_is_fwd(bt))
				continue;
			snprintf(name, sizeof(name), "slotscope_base_%s", key.name);
			off = btf__add_str(full, name);
			if (off < 0) {
				err = off;
				break;
			}
			/* btf__add_str() may move the strings, never the types; renamed, not matched again */
			bt = (struct btf_type *)btf__type_by_id(full, hit->id);
			bt->name_off = (__u32)off;
		}
	}
	free(idx);
	return err;
}

struct btf *btf_merge_full(const struct btf *base, struct btf *const *mods, size_t n,
			   const bool *shadow)
{
	struct btf *full = btf__new_empty();
	__u32 cnt = btf__type_cnt(base);
	int err = full ? 0 : -ENOMEM;

	/* base types first, in order: their ids stay what the modules refer to */
	for (__u32 id = 1; !err && id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(base, id);
		int nid;

		if (!known_kind(t)) {
			nid = btf__add_int(full, "slotscope_unknown_btf_kind", 1, 0);
			btf_merge_unknown += nid >= 0;
		} else {
			nid = btf__add_type(full, base, t);
		}

		if (nid < 0)
			err = nid;
	}
	for (size_t i = 0; !err && i < n; i++)
		if (mods[i])
			err = btf_append_split(full, base, mods[i]);
	for (size_t i = 0; !err && shadow && i < n; i++)
		if (mods[i] && shadow[i])
			err = shadow_base(full, cnt, mods[i]);
	if (err) {
		btf__free(full);
		errno = -err;
		return NULL;
	}
	return full;
}
