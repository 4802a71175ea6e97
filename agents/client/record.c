/* The client's per-request CSV lines and per-site tally; see record.h. */
#include "record.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csvmeta.h"

static const char *const client_status_names[] = {
    [CLIENT_OK] = "ok",
    [CLIENT_TIMEOUT] = "timeout",
    [CLIENT_ERROR] = "error",
};

void client_site_clean(const char *in, char *out)
{
	size_t i;

	for (i = 0; i < WIRE_SITE_LEN && in[i]; i++) {
		char c = in[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		out[i] = ok ? c : '_';
	}
	out[i] = '\0';
}

/* client_digits: v in decimal, backwards from end; where it starts */
static char *client_digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* client_digits_signed: the same for a signed v */
static char *client_digits_signed(char *end, int64_t v)
{
	char *p = client_digits(end, v < 0 ? -(uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--p = '-';
	return p;
}

int client_record_format(char *buf, size_t len, uint32_t client, uint64_t seq, int64_t sent_ns,
			 enum client_status status, const char *site, int64_t rtt_ns)
{
	/* the numbers, each written backwards into its own room */
	char num[4][24], *f[4];
	const char *name;
	size_t flen[4], slen, nlen, n = 0;

	if ((unsigned)status > CLIENT_ERROR)
		return -1;
	f[0] = client_digits(num[0] + 24, client);
	f[1] = client_digits(num[1] + 24, seq);
	f[2] = client_digits_signed(num[2] + 24, sent_ns);
	f[3] = client_digits_signed(num[3] + 24, status == CLIENT_OK ? rtt_ns : 0);
	for (int i = 0; i < 4; i++)
		flen[i] = (size_t)(num[i] + 24 - f[i]);
	name = client_status_names[status];
	nlen = strlen(name);
	site = site ? site : "";
	slen = strlen(site);
	/* five commas, the newline and, as snprintf, room for the NUL */
	if (flen[0] + flen[1] + flen[2] + nlen + slen + flen[3] + 7 > len)
		return -1;
	memcpy(buf + n, f[0], flen[0]);
	n += flen[0];
	buf[n++] = ',';
	memcpy(buf + n, f[1], flen[1]);
	n += flen[1];
	buf[n++] = ',';
	memcpy(buf + n, f[2], flen[2]);
	n += flen[2];
	buf[n++] = ',';
	memcpy(buf + n, name, nlen);
	n += nlen;
	buf[n++] = ',';
	memcpy(buf + n, site, slen);
	n += slen;
	buf[n++] = ',';
	memcpy(buf + n, f[3], flen[3]);
	n += flen[3];
	buf[n++] = '\n';
	buf[n] = '\0';
	return (int)n;
}

void client_record_meta(FILE *fp, const char *path, const char *topology)
{
	char dir[PATH_MAX], run[256];
	const char *slash = strrchr(path, '/');

	/* the run directory holds the file; a bare name: the working directory */
	if (slash != NULL)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else if (getcwd(dir, sizeof(dir)) == NULL)
		snprintf(dir, sizeof(dir), "-");
	csvmeta_write(fp, csvmeta_run_id(dir, run, sizeof(run)), topology, CLIENT_CSV_UNITS);
}

int client_record_open(struct client_recfile *f, const char *path)
{
	f->fp = NULL;
	if ((f->buf = malloc(CLIENT_RECORD_BUF)) == NULL)
		return -1;
	if ((f->fp = fopen(path, "w")) == NULL)
		goto fail;
	if (setvbuf(f->fp, f->buf, _IOFBF, CLIENT_RECORD_BUF) != 0) {
		fclose(f->fp);
		f->fp = NULL;
		errno = ENOMEM;
		goto fail;
	}
	return 0;
fail:
	free(f->buf);
	f->buf = NULL;
	return -1;
}

int client_record_close(struct client_recfile *f)
{
	int rc = 0;

	if (f->fp != NULL && fclose(f->fp) != 0)
		rc = -1;
	free(f->buf);
	f->fp = NULL;
	f->buf = NULL;
	return rc;
}

void client_tally_add(struct client_tally *t, const char *site)
{
	for (int i = 0; i < t->n; i++) {
		if (strcmp(t->sites[i].site, site) == 0) {
			t->sites[i].replies++;
			return;
		}
	}
	if (t->n == CLIENT_MAX_SITES) {
		t->other++;
		return;
	}
	strncpy(t->sites[t->n].site, site, WIRE_SITE_LEN);
	t->sites[t->n].site[WIRE_SITE_LEN] = '\0';
	t->sites[t->n].replies = 1;
	t->n++;
}

int client_recbin_start(struct client_recbin *w, FILE *fp)
{
	uint8_t hdr[RECBIN_HDR_LEN];

	memset(w, 0, sizeof(*w));
	w->fp = fp;
	recbin_header(hdr);
	return fwrite(hdr, 1, sizeof(hdr), fp) == sizeof(hdr) ? 0 : -1;
}

/* client_recbin_site: the index of site, named in the file if new; -1 */
static int client_recbin_site(struct client_recbin *w, const char *site)
{
	struct recbin_rec r = {.kind = RECBIN_SITE};
	uint8_t buf[RECBIN_LEN];

	if (w->nsites > 0 && strcmp(w->sites[w->last], site) == 0)
		return w->last;
	for (int i = 0; i < w->nsites; i++)
		if (strcmp(w->sites[i], site) == 0)
			return w->last = i;
	if (w->nsites == RECBIN_MAX_SITES)
		return -1;
	snprintf(w->sites[w->nsites], sizeof(w->sites[0]), "%s", site);
	r.site = (uint8_t)w->nsites;
	snprintf(r.name, sizeof(r.name), "%s", site);
	recbin_encode(&r, buf);
	if (fwrite(buf, 1, sizeof(buf), w->fp) != sizeof(buf))
		return -1;
	return w->last = w->nsites++;
}

int client_recbin_write(struct client_recbin *w, uint32_t client, uint64_t seq, int64_t sent_ns,
			enum client_status status, const char *site, int64_t rtt_ns)
{
	struct recbin_rec r = {.client = client, .seq = seq, .sent_ns = sent_ns};
	uint8_t buf[RECBIN_LEN];
	int k = 0;

	if (status == CLIENT_OK && (k = client_recbin_site(w, site ? site : "")) < 0)
		return -1;
	r.kind = status == CLIENT_OK	    ? RECBIN_OK
		 : status == CLIENT_TIMEOUT ? RECBIN_TIMEOUT
					    : RECBIN_ERROR;
	r.site = (uint8_t)k;
	r.rtt_ns = status == CLIENT_OK ? rtt_ns : 0;
	recbin_encode(&r, buf);
	return fwrite(buf, 1, sizeof(buf), w->fp) == sizeof(buf) ? 0 : -1;
}
