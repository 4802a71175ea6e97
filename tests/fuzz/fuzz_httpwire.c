/*
 * libFuzzer target: lib/httpwire.c's readers of HTTP bytes the lab does not
 * control (a captured segment's start, a reply header's value, a request
 * target). Whatever decodes, written again by httpwire's own writers, reads
 * as the same message; the status line's code is 100 to 999 or -1.
 *
 *   make fuzz-run-httpwire   # from tests/fuzz/corpus/httpwire/
 */
#include <stdlib.h>
#include <string.h>

#include "httpwire.h"

/* fuzz_same: a and b carry the same fields */
static void fuzz_same(const struct wire_msg *a, const struct wire_msg *b)
{
	if (a->type != b->type || a->flags != b->flags || a->client_id != b->client_id ||
	    a->seq != b->seq || a->sent_ns != b->sent_ns || strcmp(a->site, b->site) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[HTTPWIRE_VALUE_MAX + HTTPWIRE_PATH_MAX + 1];
	struct wire_msg m, again;
	int n, status;

	if (httpwire_request_decode(data, size, &m) == 0) {
		if ((n = httpwire_path(&m, buf, sizeof(buf))) < 0 ||
		    httpwire_path_decode(buf, (size_t)n, &again) == -1)
			abort();
		fuzz_same(&m, &again);
	}
	if (httpwire_path_decode((const char *)data, size, &m) == 0) {
		if ((n = httpwire_path(&m, buf, sizeof(buf))) != (int)size ||
		    memcmp(buf, data, size) != 0)
			abort(); /* one spelling of each target */
	}
	if (httpwire_value_decode((const char *)data, size, &m) == 0) {
		if ((n = httpwire_value(&m, buf, sizeof(buf))) < 0 ||
		    httpwire_value_decode(buf, (size_t)n, &again) == -1)
			abort();
		fuzz_same(&m, &again);
	}
	status = httpwire_status(data, size);
	if (status != -1 && (status < 100 || status > 999))
		abort();
	/* a whole response is within what was given, and past its head */
	{
		long len = httpwire_response_len(data, size);

		if (len > 0 && ((size_t)len > size || status == -1))
			abort();
	}
	if (httpwire_reply_decode(data, size, &m) == 0) {
		if (status != HTTPWIRE_OK || m.type != WIRE_REPLY ||
		    (n = httpwire_value(&m, buf, sizeof(buf))) < 0 ||
		    httpwire_value_decode(buf, (size_t)n, &again) == -1)
			abort();
		fuzz_same(&m, &again);
	}
	return 0;
}
