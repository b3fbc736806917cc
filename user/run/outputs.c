// SPDX-License-Identifier: GPL-2.0
/* The files a run writes: the textfile every tick, --folded and --svg at exit. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>
#include "run/http.h"
#include "lib/buildinfo.h"
#include "lib/log.h"
#include "run/run_int.h"
#include "run/signals.h"
#include "run/webconfig.h"
#include "lib/util.h"

/*
 * --listen's socket, bound before anything is loaded (and before the drop: a port is bound once).
 * /healthz goes stale after three intervals and ten seconds without a new exposition: the main
 * loop stuck, not a slow tick under load.
 */
static int listen_open(struct run *r)
{
	double every = r->o.interval > 0 ? r->o.interval : 1;
	struct http_server *h;
	char why[320];
	int err;

	if (!r->o.listen)
		return EXIT_OK;
	err = http_open(&h, r->o.listen, 3 * every + 10, why, sizeof(why));
	if (err) {
		pr_err("%s\n", why);
		/* a sandbox's refusal is a missing permission: a restart will not help, nor is it usage */
		return err == -EACCES || err == -EAFNOSUPPORT || err == -EPERM ? EXIT_NOPERM :
		       err == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
	}
	/*
	 * TLS's key read now, as the run is (root, or the unit's user): the server that inherits
	 * it is never privileged. A file refused is the operator's to mend: not retried.
	 */
	if (r->o.web_config) {
		struct web_config wc;

		err = web_config_read(r->o.web_config, &wc, why, sizeof(why));
		if (!err) {
			err = http_secure(h, &wc, why, sizeof(why));
			web_config_free(&wc);
		}
		if (err) {
			pr_err("%s\n", why);
			http_close(h);
			return err == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
		}
	}
	/* answered by a process of its own, unprivileged from its start (serve.h) */
	err = serve_start(&r->served, h);
	if (err) {
		http_close(h);
		r->served.h = NULL;
		if (err != -EPERM)
			pr_err("cannot start --listen's server: %s\n", strerror(-err));
		return err == -EPERM ? EXIT_NOPERM : EXIT_RUNTIME;
	}
	pr_info("serving /metrics and /healthz on %s (port %d)%s\n", r->o.listen, http_port(h),
		r->o.web_config ? ", as --web-config says" : "");
	return EXIT_OK;
}

/*
 * Output files, before anything is loaded: their directories opened (no symlink in them), the
 * textfile locked against a second writer. An exit code, the reason said once.
 */
int outputs_open(struct run *r)
{
	const char *paths[OUTS] = { r->o.prom_file, r->o.folded_file, r->o.svg_file };

	build_ident(&r->build);
	for (int i = 0; i < OUTS; i++) {
		int err;

		r->out[i].dirfd = r->out[i].lockfd = -1;
		if (!paths[i])
			continue;
		err = outfile_open(&r->out[i], paths[i], i == OUT_PROM);
		if (err == -EBUSY)
			pr_err("%s is being written by another slotscope (pid %d): stop it, or give "
			       "another file\n", paths[i], r->out[i].lock_pid);
		else if (err && r->out[i].lock_failed) {
			/* a lock file an earlier run left as another user (root): the service's
			 * restarts retry (exit 1) and succeed once it is removed */
			pr_err("cannot open the lock file of %s (.%s.lock in its directory): %s: an "
			       "earlier run as another user left it; remove it\n", paths[i],
			       r->out[i].name, strerror(-err));
			return EXIT_RUNTIME;
		}
		else if (err == -ELOOP || err == -ENOTDIR)
			pr_err("cannot write %s: a directory in it is a symbolic link or not a "
			       "directory: give its real path (realpath)\n", paths[i]);
		else if (!err && (err = outfile_check(&r->out[i])))
			pr_err("cannot write into the directory of %s: %s: pick another path\n",
			       paths[i], strerror(-err));
		else if (err)
			pr_err("cannot write %s: %s: create its directory or pick another path\n",
			       paths[i], strerror(-err));
		if (err)
			return EXIT_USAGE;
	}
	return listen_open(r);
}

/* after the drop: the directories must still be writable by who we are now */
int outputs_check(const struct run *r)
{
	for (int i = 0; i < OUTS; i++) {
		int err = r->out[i].dirfd >= 0 ? outfile_check(&r->out[i]) : 0;

		if (err) {
			pr_err("cannot write into the directory of %s as %s: %s: give that user write "
			       "access, or pick another path\n", r->out[i].path,
			       r->o.user ? r->o.user : "this user", strerror(-err));
			return err;
		}
	}
	return 0;
}

/* the exposition made once into memory when --listen serves it: the textfile gets the same bytes */
struct rendered {
	char *buf;
	size_t len;
};

/* outfile_write's writer of what prom_cap_render() made; a short write shows in ferror() */
static int put_rendered(FILE *f, const void *arg)
{
	const struct rendered *r = arg;

	fwrite(r->buf, 1, r->len, f);
	return 0;
}

void outputs_prom(struct run *r, const struct view *totals, const struct view *iv,
		  const struct window *w /* [WIN_KINDS] or NULL */)
{
	struct prom_input in = { .cum = totals, .iv = iv, .windows = w, .now_wall = clock_s(CLOCK_REALTIME),
				 .detail = r->o.prom_detail, .rollup = r->o.prom.rollup,
				 .user = r->o.prom_user,
				 .version = SLOTSCOPE_VERSION,
				 .kernel = r->kernel };
	struct rendered text = { 0 };
	bool made;
	int err;

	in.revision = r->build.revision;
	in.libbpf = r->build.libbpf;
	in.arch = r->build.arch;
	in.design = r->e ? events_name(engine_events(r->e)) : "";
	made = !prom_cap_render(&r->cap, &in, &text.buf, &text.len);

	if (r->cap.left_out && !r->cap.said) {
		pr_warn("the exposition is over --prom-max-series %zu: %zu mount%s left out, the last seen "
			"(slotscope_exposition_mounts_left_out); raise it, or --prom-rollup, or "
			"--prom-mount-exclude\n", r->cap.max, r->cap.left_out, r->cap.left_out > 1 ? "s" : "");
		r->cap.said = true;
	}
	if (r->served.h && (!made || serve_publish(&r->served, text.buf, text.len, totals != NULL)))
		pr_debug("/metrics keeps the last exposition: %s\n", made ? "its server took none" : "out of memory");
	/* what was not made whole is not written: the last complete file stays */
	err = !r->o.prom_file ? 0 : made ? outfile_write(&r->out[OUT_PROM], put_rendered, &text) : -ENOMEM;
	free(text.buf);
	if (!r->o.prom_file)
		return;
	if (err == -EBUSY && err != r->prom_err)
		pr_err("cannot write %s: another slotscope (pid %d) writes it now; tracing goes on\n",
		       r->o.prom_file, r->out[OUT_PROM].lock_pid);
	else if (err && err != r->prom_err)
		pr_err("cannot write %s: %s: the last complete file stays; tracing goes on, and the "
		       "write is tried again every interval\n", r->o.prom_file, strerror(-err));
	else if (!err && r->prom_err)
		pr_warn("%s written again\n", r->o.prom_file);
	r->prom_err = err;
}

struct file_job {
	const struct run *r;
	const struct view *v;
};

static int folded_fn(FILE *f, const void *arg)
{
	out_folded(f, ((const struct file_job *)arg)->v);
	return 0;
}

static int svg_fn(FILE *f, const void *arg)
{
	const struct file_job *j = arg;

	out_svg(f, j->v, &j->r->heat);
	return 0;
}

static int write_file(struct run *r, int which, const struct view *v)
{
	struct file_job j = { r, v };
	int err = outfile_write(&r->out[which], which == OUT_SVG ? svg_fn : folded_fn, &j);

	if (err)
		pr_err("cannot write %s: %s\n", r->out[which].path, strerror(-err));
	return err;
}

int outputs_files(struct run *r, const struct view *summary)
{
	int err = 0;

	if (r->o.folded_file && write_file(r, OUT_FOLDED, summary))
		err = -EIO;
	if (r->o.svg_file && write_file(r, OUT_SVG, summary))
		err = -EIO;
	return err;
}

void outputs_close(struct run *r)
{
	serve_stop(&r->served);
	http_close(r->served.h);
	r->served.h = NULL;
	for (int i = 0; i < OUTS; i++)
		outfile_close(&r->out[i]);
}
