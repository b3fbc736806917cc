// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "model/prom_mounts.h"

/* where the bracket expression opened at @p[0] closes, or NULL */
static const char *bracket_end(const char *p)
{
	p++;
	if (*p == '!' || *p == '^')
		p++;
	/* a ']' first is a member, not the end */
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++)
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			/* [:alpha:], [.x.], [=e=] end at their own ":]", ".]", "=]" */
			const char term[3] = { p[1], ']', 0 };
			const char *close = strstr(p + 2, term);

			if (!close)
				return NULL;
			p = close + 1;
		}
	return *p ? p : NULL;
}

int prom_mount_glob_check(const char *pattern, char *why, size_t len)
{
	if (!pattern[0]) {
		snprintf(why, len, "an empty pattern matches no mount point: give one such as '/home/*'");
		return -EINVAL;
	}
	/* fnmatch takes these literally and so would quietly match nothing the user meant */
	if (!strchr("/*?[", pattern[0])) {
		snprintf(why, len, "mount points are absolute paths, so a pattern not starting with / or "
			 "a wildcard matches none: write '/%s'", pattern);
		return -EINVAL;
	}
	for (const char *p = pattern; *p; p++) {
		if (*p == '\\') {
			if (!p[1]) {
				snprintf(why, len, "a lone backslash ends the pattern: escape it as '\\\\'");
				return -EINVAL;
			}
			p++;
		} else if (*p == '[') {
			const char *end = bracket_end(p);

			if (!end) {
				snprintf(why, len, "'[' opens a bracket expression that does not close: "
					 "add the ']' or write '\\[' for a literal '['");
				return -EINVAL;
			}
			p = end;
		}
	}
	return 0;
}

/* without FNM_PATHNAME: a star crosses '/', so "/home/" and a star take a home's submounts too */
static bool any_match(const char *const *pats, size_t n, const char *mp)
{
	for (size_t i = 0; i < n; i++)
		if (!fnmatch(pats[i], mp, 0))
			return true;
	return false;
}

bool prom_mount_shown(const struct prom_mounts *pm, const char *mp)
{
	const char *name = mp ? mp : "";

	if (!pm)
		return true;
	if (any_match(pm->exclude, pm->nexclude, name))
		return false;
	return !pm->ninclude || any_match(pm->include, pm->ninclude, name);
}
