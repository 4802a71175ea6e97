/*
 * EDNS in raw DNS messages, before libknot sees them.
 *
 * RFC 6891 6.2.5: a requestor's UDP payload size below 512 is to be
 * treated as 512. libknot (3.2) refuses one such message outright: an OPT
 * whose payload field, its CLASS, is 1 and which carries no option looks
 * to knot_pkt_parse() like a record of class IN without the rdata its type
 * needs, and it fails with KNOT_EMALF, which authd and resolverd answered
 * with FORMERR. They parse first; only a message that does not parse is
 * given to edns_payload_floor() and parsed again.
 */
#ifndef STEERLAB_EDNS_H
#define STEERLAB_EDNS_H

#include <stddef.h>
#include <stdint.h>

#define EDNS_PAYLOAD_MIN 512

/* edns_payload_floor: in the DNS message wire[0, len), every OPT record of
 * the additional section with a payload size below EDNS_PAYLOAD_MIN gets
 * EDNS_PAYLOAD_MIN. Returns how many were changed, or -1 if the message
 * cannot be walked (a name or a record runs past its end, a label type
 * other than a plain label or a pointer), with what was changed before
 * changed: the caller works on a copy and parses it only for a count > 0. */
int edns_payload_floor(uint8_t *wire, size_t len);

#endif
