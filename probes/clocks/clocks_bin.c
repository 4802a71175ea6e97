/*
 * Reading the clients' binary records, requests-NODE.bin (lib/recbin.h,
 * docs/agents.md "Binary records"): the same requests as the CSV would
 * hold, into the same struct clocks_request, so every clock means the same
 * whichever a client wrote. A file that does not start with the header, or
 * a record of an unknown kind or an unnamed site, is an error naming the
 * file and the record; a last record cut short (a client killed mid-write)
 * is ignored with a warning, as a cut CSV line is.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "clocks_int.h"
#include "recbin.h"

int clocks_read_requests_bin_stream(FILE *fp, const char *path, struct clocks_input *in, char *err,
				    size_t errlen)
{
	char sites[RECBIN_MAX_SITES][WIRE_SITE_LEN + 1];
	uint8_t hdr[RECBIN_HDR_LEN], buf[RECBIN_LEN];
	unsigned char named[RECBIN_MAX_SITES] = {0};
	char why[160];
	size_t n;
	uint64_t k = 0;

	n = fread(hdr, 1, sizeof(hdr), fp);
	if (n == 0 && !ferror(fp)) {
		clocks_warn(&in->notes, "records_empty",
			    "%s: empty (not even a header): no records", path);
		return 0;
	}
	if (recbin_check_header(hdr, n, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	in->have_requests = 1;
	while ((n = fread(buf, 1, sizeof(buf), fp)) == sizeof(buf)) {
		struct recbin_rec r;
		struct clocks_request q;

		k++;
		if (recbin_decode(buf, &r) == -1) {
			snprintf(err, errlen, "%s: record %llu (byte %llu): unknown kind %u", path,
				 (unsigned long long)k,
				 (unsigned long long)(RECBIN_HDR_LEN + (k - 1) * RECBIN_LEN),
				 buf[4]);
			return -1;
		}
		if (r.kind == RECBIN_SITE) {
			if (r.site >= RECBIN_MAX_SITES) {
				snprintf(err, errlen, "%s: record %llu: site index %u (at most %d)",
					 path, (unsigned long long)k, r.site, RECBIN_MAX_SITES - 1);
				return -1;
			}
			memcpy(sites[r.site], r.name, sizeof(sites[0]));
			named[r.site] = 1;
			continue;
		}
		memset(&q, 0, sizeof(q));
		q.client = r.client;
		q.seq = r.seq;
		q.sent_ns = r.sent_ns;
		q.rtt_ns = r.rtt_ns;
		if (r.kind == RECBIN_OK) {
			if (r.site >= RECBIN_MAX_SITES || !named[r.site]) {
				snprintf(err, errlen,
					 "%s: record %llu: site index %u was not named before",
					 path, (unsigned long long)k, r.site);
				return -1;
			}
			q.status = CLOCKS_OK;
			memcpy(q.site, sites[r.site], sizeof(q.site));
		} else {
			q.status = r.kind == RECBIN_TIMEOUT ? CLOCKS_TIMEOUT : CLOCKS_ERROR;
		}
		if (clocks_grow((void **)&in->requests, &in->caprequests, in->nrequests,
				sizeof(q)) == -1) {
			snprintf(err, errlen, "%s: record %llu: out of memory", path,
				 (unsigned long long)k);
			return -1;
		}
		in->requests[in->nrequests++] = q;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (n > 0)
		clocks_warn(&in->notes, "file_cut",
			    "%s: last record cut short (%zu of %d bytes), ignored", path, n,
			    RECBIN_LEN);
	return 0;
}

int clocks_read_requests_bin(const char *path, struct clocks_input *in, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	int rc;

	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	setvbuf(fp, NULL, _IOFBF, 1 << 20);
	rc = clocks_read_requests_bin_stream(fp, path, in, err, errlen);
	fclose(fp);
	return rc;
}
