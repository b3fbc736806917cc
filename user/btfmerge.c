// SPDX-License-Identifier: GPL-2.0
/* BTF merging, shared by tools/btfmerge (vmlinux.h) and the engine (a BTF for CO-RE without
 * module BTF ids). */
#include <errno.h>
#include <bpf/btf.h>
#include "btfmerge.h"

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


struct btf *btf_merge_full(const struct btf *base, struct btf *const *mods, size_t n)
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
	if (err) {
		btf__free(full);
		errno = -err;
		return NULL;
	}
	return full;
}
