/*
 * lib/httpwire.c: the lab's request and reply as HTTP/1.1. A request's
 * target and request line, a reply's header value and response head, each
 * written and read back into the same struct wire_msg; what is refused
 * (bad numbers, overflow, a cut line, a 503, a missing or repeated field).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "httpwire.h"

#define S(lit) (const uint8_t *)(lit), sizeof(lit) - 1

static void test_path_round_trip(void **state)
{
	struct wire_msg m = {.type = WIRE_REQUEST,
			     .client_id = 100001,
			     .seq = 17,
			     .sent_ns = 1796204504123456789ULL},
			got;
	struct wire_msg max = {.client_id = UINT32_MAX, .seq = UINT64_MAX, .sent_ns = UINT64_MAX};
	char buf[HTTPWIRE_PATH_MAX + 1];
	int n;

	(void)state;
	n = httpwire_path(&m, buf, sizeof(buf));
	assert_string_equal(buf, "/steerlab/100001/17/1796204504123456789");
	assert_int_equal(n, strlen(buf));
	assert_int_equal(httpwire_path_decode(buf, (size_t)n, &got), 0);
	assert_int_equal(got.type, WIRE_REQUEST);
	assert_int_equal(got.client_id, 100001);
	assert_int_equal(got.seq, 17);
	assert_true(got.sent_ns == 1796204504123456789ULL);
	assert_string_equal(got.site, "");
	/* the longest fits HTTPWIRE_PATH_MAX exactly */
	n = httpwire_path(&max, buf, sizeof(buf));
	assert_int_equal(n, HTTPWIRE_PATH_MAX);
	assert_int_equal(httpwire_path_decode(buf, (size_t)n, &got), 0);
	assert_true(got.seq == UINT64_MAX && got.sent_ns == UINT64_MAX);
	assert_int_equal(got.client_id, UINT32_MAX);
	assert_int_equal(httpwire_path(&max, buf, HTTPWIRE_PATH_MAX), -1);
}

static void test_path_refused(void **state)
{
	static const char *const bad[] = {
	    "",
	    "/steerlab/",
	    "/steerlab/1/2",
	    "/steerlab/1/2/",
	    "/steerlab/1/2/3/",
	    "/steerlab/1/2/3?x=1",
	    "/steerlab/01/2/3",
	    "/steerlab/-1/2/3",
	    "/steerlab/+1/2/3",
	    "/steerlab/4294967296/2/3",		  /* client past 32 bits */
	    "/steerlab/1/18446744073709551616/3", /* seq past 64 bits */
	    "/steerlab/1/2/99999999999999999999",
	    "/Steerlab/1/2/3",
	    "/steerlab/1//3",
	    "/steerlab/ 1/2/3",
	    "/other/1/2/3",
	};
	struct wire_msg got;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (httpwire_path_decode(bad[i], strlen(bad[i]), &got) != -1)
			fail_msg("accepted: '%s'", bad[i]);
	/* a length that stops before the end is what is read */
	assert_int_equal(httpwire_path_decode("/steerlab/1/2/345", 16, &got), 0);
	assert_int_equal(got.sent_ns, 34);
	assert_int_equal(httpwire_path_decode("/steerlab/1/2/345", 14, &got), -1);
}

static void test_request_line(void **state)
{
	static const char line[] = "GET /steerlab/3/17/1796204504123456789 HTTP/1.1\r\n"
				   "Host: 198.19.0.1:7000\r\nAccept: */*\r\n\r\n";
	struct wire_msg got;
	size_t cut = strlen("GET /steerlab/3/17/1796204504123456789 ");

	(void)state;
	assert_int_equal(httpwire_request_decode(S(line), &got), 0);
	assert_int_equal(got.type, WIRE_REQUEST);
	assert_int_equal(got.client_id, 3);
	assert_int_equal(got.seq, 17);
	assert_true(got.sent_ns == 1796204504123456789ULL);
	/* cut anywhere before the space after the target: not a request */
	assert_int_equal(httpwire_request_decode((const uint8_t *)line, cut, &got), 0);
	for (size_t n = 0; n < cut; n++)
		assert_int_equal(httpwire_request_decode((const uint8_t *)line, n, &got), -1);
	assert_int_equal(httpwire_request_decode(S("POST /steerlab/3/17/1 HTTP/1.1"), &got), -1);
	assert_int_equal(httpwire_request_decode(S("get /steerlab/3/17/1 HTTP/1.1"), &got), -1);
	assert_int_equal(httpwire_request_decode(S("GET /steerlab/3/17/1?a HTTP/1.1"), &got), -1);
	assert_int_equal(httpwire_request_decode(S("GET /steerlab/3/17/1/ HTTP/1.1"), &got), -1);
	assert_int_equal(httpwire_request_decode(S(" GET /steerlab/3/17/1 HTTP/1.1"), &got), -1);
	/* a binary request is not an HTTP one */
	{
		struct wire_msg req = {.type = WIRE_REQUEST, .client_id = 3, .seq = 17};
		uint8_t bin[WIRE_LEN];

		wire_encode(&req, bin, sizeof(bin));
		assert_int_equal(httpwire_request_decode(bin, sizeof(bin), &got), -1);
	}
}

static void test_value_round_trip(void **state)
{
	struct wire_msg m = {.type = WIRE_REPLY,
			     .flags = WIRE_F_DRAINING,
			     .client_id = 3,
			     .seq = 17,
			     .sent_ns = 1796204504123456789ULL,
			     .site = "site-b.2_x"},
			got;
	struct wire_msg max = {.flags = UINT16_MAX,
			       .client_id = UINT32_MAX,
			       .seq = UINT64_MAX,
			       .sent_ns = UINT64_MAX,
			       .site = "abcdefghijklmnop"};
	char buf[HTTPWIRE_VALUE_MAX + 1];
	int n;

	(void)state;
	n = httpwire_value(&m, buf, sizeof(buf));
	assert_string_equal(buf,
			    "site=site-b.2_x client=3 seq=17 sent=1796204504123456789 flags=1");
	assert_int_equal(httpwire_value_decode(buf, (size_t)n, &got), 0);
	assert_int_equal(got.type, WIRE_REPLY);
	assert_int_equal(got.flags, WIRE_F_DRAINING);
	assert_int_equal(got.client_id, 3);
	assert_int_equal(got.seq, 17);
	assert_true(got.sent_ns == 1796204504123456789ULL);
	assert_string_equal(got.site, "site-b.2_x");
	n = httpwire_value(&max, buf, sizeof(buf));
	assert_int_equal(n, HTTPWIRE_VALUE_MAX);
	assert_int_equal(httpwire_value_decode(buf, (size_t)n, &got), 0);
	assert_string_equal(got.site, "abcdefghijklmnop");
	assert_int_equal(got.flags, UINT16_MAX);
	assert_int_equal(httpwire_value(&max, buf, HTTPWIRE_VALUE_MAX), -1);
	/* no site: not a reply */
	m.site[0] = '\0';
	assert_int_equal(httpwire_value(&m, buf, sizeof(buf)), -1);
}

static void test_value_refused(void **state)
{
	static const char *const bad[] = {
	    "",
	    "site=a client=3 seq=17 sent=5",		    /* no flags */
	    "site=a client=3 seq=17 sent=5 flags=0 x=1",    /* unknown */
	    "site=a site=b client=3 seq=17 sent=5 flags=0", /* twice */
	    "site= client=3 seq=17 sent=5 flags=0",
	    "site=abcdefghijklmnopq client=3 seq=17 sent=5 flags=0", /* 17 characters */
	    "site=a/b client=3 seq=17 sent=5 flags=0",
	    "site=a client=3  seq=17 sent=5 flags=0",
	    "site=a client=3 seq=17 sent=5 flags=65536",
	    "site=a client=4294967296 seq=17 sent=5 flags=0",
	    "site=a client=3 seq=017 sent=5 flags=0",
	    "site=a,client=3 seq=17 sent=5 flags=0",
	};
	struct wire_msg got;
	const char *ok = " \tflags=0 sent=5 seq=17 client=3 site=a \t";

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (httpwire_value_decode(bad[i], strlen(bad[i]), &got) != -1)
			fail_msg("accepted: '%s'", bad[i]);
	/* any order, blanks around */
	assert_int_equal(httpwire_value_decode(ok, strlen(ok), &got), 0);
	assert_string_equal(got.site, "a");
	assert_int_equal(got.seq, 17);
}

static void test_reply_head(void **state)
{
	static const char head[] = "HTTP/1.1 200 OK\r\n"
				   "Connection: Keep-Alive\r\n"
				   "x-steerlab: site=a client=3 seq=17 sent=5 flags=0\r\n"
				   "Content-Length: 3\r\n\r\nok\n";
	static const char unavailable[] = "HTTP/1.1 503 Service Unavailable\r\n"
					  "X-Steerlab: site=a client=3 seq=17 sent=5 flags=0\r\n"
					  "\r\n";
	static const char after_blank[] = "HTTP/1.1 200 OK\r\n\r\n"
					  "X-Steerlab: site=a client=3 seq=17 sent=5 flags=0\r\n";
	static const char bad_value[] = "HTTP/1.1 200 OK\r\n"
					"X-Steerlab: site=a client=3\r\n\r\n";
	const char *line_end = strstr(head, "flags=0\r\n") + strlen("flags=0");
	struct wire_msg got;

	(void)state;
	assert_int_equal(httpwire_status(S(head)), 200);
	assert_int_equal(httpwire_status(S(unavailable)), 503);
	assert_int_equal(httpwire_status(S("HTTP/1.0 404\r\n")), 404);
	assert_int_equal(httpwire_status(S("HTTP/1.1 200")), 200);
	assert_int_equal(httpwire_status(S("HTTP/1.1 20")), -1);
	assert_int_equal(httpwire_status(S("HTTP/1.1 2000 OK")), -1);
	assert_int_equal(httpwire_status(S("HTTP/2 200 OK")), -1);
	assert_int_equal(httpwire_status(S("HTTP/1.1 020 OK")), -1);
	assert_int_equal(httpwire_reply_decode(S(head), &got), 0);
	assert_int_equal(got.type, WIRE_REPLY);
	assert_string_equal(got.site, "a");
	assert_int_equal(got.client_id, 3);
	assert_int_equal(got.seq, 17);
	assert_int_equal(got.sent_ns, 5);
	/* the header's line must be whole in what was captured */
	assert_int_equal(
	    httpwire_reply_decode((const uint8_t *)head, (size_t)(line_end - head) + 2, &got), 0);
	for (size_t n = 0; n <= (size_t)(line_end - head) + 1; n++)
		assert_int_equal(httpwire_reply_decode((const uint8_t *)head, n, &got), -1);
	/* a 503 is an answer, not a reply */
	assert_int_equal(httpwire_reply_decode(S(unavailable), &got), -1);
	/* the header only among the headers */
	assert_int_equal(httpwire_reply_decode(S(after_blank), &got), -1);
	assert_int_equal(httpwire_reply_decode(S(bad_value), &got), -1);
	assert_int_equal(httpwire_reply_decode(S("HTTP/1.1 200 OK\r\n\r\n"), &got), -1);
}

/* a whole response's length: its head to the blank line, and the body
 * its Content-Length announces; 0 while it is not all there */
static void test_response_len(void **state)
{
	static const char two[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"
				  "HTTP/1.1 503 Service Unavailable\r\ncontent-length:9\r\n\r\n"
				  "degraded\n";
	static const char nobody[] = "HTTP/1.1 204 No Content\r\nServer: x\r\n\r\nHTTP/1.1";
	size_t first = strlen("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n");

	(void)state;
	assert_int_equal(httpwire_response_len((const uint8_t *)two, strlen(two)), (long)first);
	assert_int_equal(httpwire_response_len((const uint8_t *)two + first, strlen(two) - first),
			 (long)(strlen(two) - first));
	/* the body not all there, the head not all there */
	assert_int_equal(httpwire_response_len((const uint8_t *)two, first - 1), 0);
	assert_int_equal(httpwire_response_len((const uint8_t *)two, 20), 0);
	assert_int_equal(httpwire_response_len((const uint8_t *)two, 5), 0);
	/* no Content-Length: no body */
	assert_int_equal(httpwire_response_len((const uint8_t *)nobody, strlen(nobody)),
			 (long)(strlen(nobody) - strlen("HTTP/1.1")));
	/* not HTTP, or a length that is no number */
	assert_int_equal(httpwire_response_len((const uint8_t *)"SSH-2.0-OpenSSH\r\n\r\n", 19), -1);
	{
		static const char bad[] = "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n";

		assert_int_equal(httpwire_response_len((const uint8_t *)bad, strlen(bad)), -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_path_round_trip), cmocka_unit_test(test_path_refused),
	    cmocka_unit_test(test_request_line),    cmocka_unit_test(test_value_round_trip),
	    cmocka_unit_test(test_value_refused),   cmocka_unit_test(test_reply_head),
	    cmocka_unit_test(test_response_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
